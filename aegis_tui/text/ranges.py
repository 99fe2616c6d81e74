"""Ranges named in labels ("Greater than 2.75x but not above 3.50x", "2.00x or less", "60万元至300万元", "不满75周岁")
and the figures a question gives ("our leverage comes in at 3.0x"): which labelled range holds a question's figure.

Pure text: a range is two bounds with their inclusiveness and a unit (the unit as written after the number,
"x", "%", "万元", "周岁"); a figure falls in a range only when the units agree.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass

from .dates import find_dates
from .entities import series_name, stem
from .lexicon import CJK_RANGE, GRADE_ZH, NUMBERED_NAME_EN, STOP_EN, as_written
from .quantity import (
    NUMBER_WORD_EN,
    PHYSICAL_WORDS_EN,
    chinese_to_decimal,
    dimension_of,
    english_number,
    find_quantities,
    physical_unit,
)

# a figure: its currency ("$10,001"), number, multiplier ("$400k", "$3.2 million") and unit as written after it
# ("x", "%", "万元", "周岁"; in English only a unit word, not any word: "I'm 70 and …" is 70); four groups
_NUM = (rf"([$€£¥]?)\s?(\d+(?:,\d{{3}})*(?:\.\d+)?)\s*(k\b|m\b|bn\b|million\b|billion\b|thousand\b)?\s*(?:-(?=[a-z]))?"
        rf"(x\b|×|%|(?:years?|yrs?|months?|weeks?|days?|hours?|hrs?|minutes?|km|miles?|times|percent|ft|feet|foot|"
        rf"metres?|meters?)\b|"
        rf"(?:{'|'.join(re.escape(w) for w in sorted(PHYSICAL_WORDS_EN, key=len, reverse=True))})(?![A-Za-z])|"
        r"(?<=-)pounds?\b|"  # "a 60-pound dog": a weight (a sum in pounds is written £60)
        rf"(?:(?![以及至到或和与的不])[{CJK_RANGE}]){{1,2}})?")
_MULTIPLIERS = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}
_N = re.compile(_NUM)
# a figure in Chinese numerals ("怀孕五个月", "七十岁"); a lone 一 is a period ("一年最多", "一个月"), not a figure
# (its unit no numeral: "一辆七座的车" counts one car, then seven seats)
_CN_FIGURE = re.compile(rf"(?<![\d.零〇一二两三四五六七八九十百千万])([零〇一二两三四五六七八九十][零〇一二两三四五六七八九十百千万]*)"
                        rf"((?:(?![以及至到或和与的不零〇一二两三四五六七八九十百千万])[{CJK_RANGE}]){{1,2}})")

# bounds: (pattern, side, inclusive); the number is group 1, its unit group 2
_LOWER = [(_NUM + r"\s*(?:to|至|到)\s+(?=below|under|less)", True), (r"(?:greater|more) than\s+" + _NUM, False), (r"(?:above|over|exceeding)\s+" + _NUM, False),
          (r"after\s+" + _NUM + r"(?<=[a-z])", False),  # "fine after 30 days" (not a time of day: "after 2pm")
          (r"at least\s+" + _NUM, True), (_NUM + r"\s*(?:or|and) (?:more|greater|above|over|older)", True),
          # ("Senior (66+)", "organisations with 50+ staff": that figure and over; not a sum, "2+2", nor "+44")
          (_NUM + r"(?<=[\w%])\+(?!\s*[\d+])", True),
          # (not its negation: "不超过4年" is at most 4 years, "不小于2650毫米" at least 2650 mm)
          # (… or with 得, 应, 能 between: "不得超过4年")
          (r"(?<![不未得应能])超过\s*" + _NUM, False), (r"(?<![不未])满\s*" + _NUM, True),
          (_NUM + r"\s*(?:（含）)?(?:及)?以上", True),
          (r"(?<![不得应能])大于\s*" + _NUM, False), (r"不[得应能]?(?:低于|小于|少于)\s*" + _NUM, True),
          # "第13个月起", "自第31天开始": from the Nth on (an ordinal: a date's "1月1日起" starts no case)
          (r"第\s*" + _NUM + r"\s*(?:起|开始)", True)]
_UPPER = [(r"(?:not (?:above|more than|exceeding|over)|up to|at most|within)\s+" + _NUM, True),
          (r"(?:less|fewer) than\s+" + _NUM, False), (r"below\s+" + _NUM, False), (r"under\s+" + _NUM, False),
          (_NUM + r"\s*(?:or|and) (?:less|fewer|below|under|younger)", True), (r"(?:不|未)(?:满|足|到|达)\s*" + _NUM, False),
          (r"(?:不[得应能]?|未)(?:超过|高于)\s*" + _NUM, True), (_NUM + r"\s*(?:（含）)?(?:及)?以下", True),
          (r"(?<![不得应能])小于\s*" + _NUM, False), (r"不[得应能]?(?:大于|多于)\s*" + _NUM, True),
          (r"以上\s*(?:至|到)\s*" + _NUM, True)]  # "1.8万元以上至8万元（含）的部分": a bracket's upper end
_TO = r"\s*(?:至|到|~|～|-|–|—|to)\s*"
_BETWEEN = re.compile(_NUM + _TO + _NUM)


# words before a bound that make it the value's own cap or floor ("up to $1,500", "不超过3500元", "at least 40 days"),
# not a condition on who or what it applies to ("aged 65 to 79", "不满4个月")
_CAP = re.compile(r"(?:up\s+to|at\s+most|within|not\s+(?:above|more\s+than|exceeding|over)|no\s+more\s+than|at\s+least|"
                  r"no\s+less\s+than|不超过|不得超过|不高于|不低于|不少于|最高|最低|最多|最少)\s*$", re.IGNORECASE)


def condition_bounds(text: str) -> list[tuple[int, int, str, str]]:
    """Where the numbers stand that bound a range as a condition ("persons aged 65 to 79", "64 or under",
    "怀孕不满4个月"), not as a value's own cap or floor ("up to 90 days", "不超过3500元"): (start, end, side, unit),
    side "lower", "upper" or "both" (an end of "X to Y")."""
    found = [(*m.span(2), "lower" if lower else "upper", _figure(m)[1]) for m, lower, _ in _bound_matches(text)]
    for m in _BETWEEN.finditer(text):
        unit = _figure(m, 1)[1] or _figure(m, 0)[1]
        found += [(*m.span(2), "both", unit), (*m.span(6), "both", unit)]
    out: dict[tuple[int, int], tuple[int, int, str, str]] = {}
    for a, b, side, unit in found:
        if not _CAP.search(text[:a].rstrip("$€£¥ ")):
            out[(a, b)] = (a, b, "both" if (a, b) in out and out[(a, b)][2] != side else side, unit)
    return sorted(out.values())


def partitioned(bounds: list[tuple[int, int, str, str]], unit: str) -> bool:
    """Whether condition bounds of one unit split it into cases, below and above ("64 or under; 65 to 79",
    "妊娠未满4个月 / 妊娠满4个月"), rather than set one threshold ("more than $10,000")."""
    sides = {side for _, _, side, u in bounds if u == unit}
    return len([1 for *_, u in bounds if u == unit]) >= 2 and ("both" in sides or {"lower", "upper"} <= sides)


def range_ends(text: str, low: str, high: str) -> str:
    """The range as a text writes it when it states low and high as its two ends ("60万元至300万元", "$10 to
    $20"); '' when it does not."""
    m = re.search(rf"(?<![\d.,]){re.escape(low)}{_TO}{re.escape(high)}(?![\d.,]\d)", text)
    return m.group(0) if m else ""


def one_range(quote: str, value: str, other_quote: str, other_value: str) -> str:
    """The range as written when two values quoted from the same text are its two ends, in either order
    ("60万元" and "300万元" from "60万元至300万元"); '' when they are not."""
    if quote != other_quote:
        return ""
    return range_ends(quote, value, other_value) or range_ends(quote, other_value, value)


@dataclass(frozen=True)
class Interval:
    lo: float
    lo_in: bool
    hi: float
    hi_in: bool
    unit: str

    def _unit_of(self, unit: str) -> bool:
        if unit == AGE:
            return self.unit in ("years", "")
        u = _unit(unit)
        # a Chinese unit may have taken the character after it ("70岁了"): the range's unit must begin it; a range
        # written without a unit ("aged 65 to 79") holds a figure the question gives in words ("70 years old")
        return u == self.unit or bool(self.unit and not self.unit.isascii() and u.startswith(self.unit)) \
            or (not self.unit and u.isalpha() and u.isascii()) or {u, self.unit} == {"days", "years"}

    def _scale(self, unit: str) -> float:
        """What a figure in unit is multiplied by to read in this range's: a period in days against a range of
        years ("18 months" in "1 year or more"; years stay years elsewhere, as ages are); else 1."""
        return {("days", "years"): 1 / _YEAR, ("years", "days"): _YEAR}.get((_unit(unit), self.unit), 1.0)

    def holds(self, value: float, unit: str) -> bool:
        value, unit = _normal(value, unit)  # as _figure reads it: 100万元 is 1000000元, 4个月 is 121.75 days
        if not self._unit_of(unit):
            return False
        value *= self._scale(unit)
        above = value > self.lo or (self.lo_in and value == self.lo)
        below = value < self.hi or (self.hi_in and value == self.hi)
        return above and below

    def contains(self, other: "Interval") -> bool:
        """Every value of other (a range the question states, or a figure as a one-point range) is in this one."""
        if not self._unit_of(other.unit):
            return False
        k = self._scale(other.unit)
        other = Interval(other.lo * k, other.lo_in, other.hi * k, other.hi_in, self.unit)
        above = self.lo < other.lo or (self.lo == other.lo and (self.lo_in or not other.lo_in))
        below = other.hi < self.hi or (self.hi == other.hi and (self.hi_in or not other.hi_in))
        return above and below


AGE = "years of age"  # the unit of an age a question gives ("8-year-old")
_OLD = re.compile(r"[- ]old\b", re.IGNORECASE)
_TURNED = re.compile(r"\b(?:turn(?:ed|s|ing)?|aged)\s+$", re.IGNORECASE)  # … or a bare one it turned ("my cat turned 11")


def _figure(m: re.Match, i: int = 0, like: int | None = None) -> tuple[float, str]:
    """The i-th figure of a match of patterns built from _NUM: its value (multiplied out: "$400k" is 400000, "15万元"
    is 150000元) and its unit (the currency when it has one); a bare figure in the unit of figure `like`, when given."""
    cur, num, mult, unit = m.group(4 * i + 1, 4 * i + 2, 4 * i + 3, 4 * i + 4)
    if like is not None and not cur and not unit:
        cur, unit = m.group(4 * like + 1, 4 * like + 4)
    value = _number(num) * _MULTIPLIERS.get((mult or "").lower(), 1.0)
    return (value, cur) if cur else _normal(value, unit or "")


# periods in days, so that a question's weeks meet a label's months ("怀孕10周" in "怀孕不满4个月"); not years, which
# are an age as often as a period ("70 years old" in "aged 65 to 79")
_YEAR = 365.25
_DAYS = (("个月", 30.4375), ("星期", 7.0), ("周", 7.0), ("天", 1.0), ("日", 1.0), ("月", 30.4375), ("days", 1.0),
         ("weeks", 7.0), ("months", 30.4375))


def _normal(value: float, unit: str) -> tuple[float, str]:
    """A figure in the unit ranges compare it in: 万/亿 multiplied out (15万元 is 150000元), periods in days."""
    if unit[:1] in ("万", "亿"):
        value, unit = value * (1e4 if unit[0] == "万" else 1e8), unit[1:]
    unit = _unit(unit)
    if not unit.startswith("岁"):
        for name, days in _DAYS:
            if unit.startswith(name) and (name.isascii() or not unit[len(name):].startswith("岁")):
                return value * days, "days"
    return value, unit


def _unit(u: str | None) -> str:
    u = (u or "").strip().lower()
    if (physical := physical_unit(u)) is not None or u in ("pound", "pounds"):  # "lbs", "lb", "-pound": one unit
        return physical or "lb"
    return {"×": "x", "times": "x", "周岁": "岁", "percent": "%", "year": "years", "yrs": "years", "yr": "years",
            "month": "months", "week": "weeks", "day": "days", "hour": "hours", "hrs": "hours", "hr": "hours",
            "minute": "minutes", "mile": "miles", "feet": "ft", "foot": "ft", "metre": "metres", "meter": "metres",
            "meters": "metres"}.get(u, u)


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def interval(label: str) -> Interval | None:
    """The range a label names, or None when it names none (a plain figure is not a range)."""
    text = label.strip()
    low = high = None
    for pattern, inclusive in _LOWER:
        if m := re.search(pattern, text, re.IGNORECASE):
            value, unit = _figure(m)
            low = (value, inclusive, unit)
            break
    for pattern, inclusive in _UPPER:
        if m := re.search(pattern, text, re.IGNORECASE):
            value, unit = _figure(m)
            high = (value, inclusive, unit)
            break
    if low is None and high is None:
        if m := _BETWEEN.search(text):
            (a, ua), (b, ub) = _figure(m, 0), _figure(m, 1)
            if not ua and ub:  # "36 to 47 months", "15至20万元": the first end is in the second's unit
                a, ua = _figure(m, 0, like=1)
            unit = ub or ua
            if (ua and ua != unit) or a >= b:
                return None
            return Interval(a, True, b, True, unit)
        return None
    unit = (low or high)[2] or (high or low)[2]
    if low is not None and high is not None and low[2] and high[2] and low[2] != high[2]:
        return None
    lo, lo_in = (low[0], low[1]) if low else (-math.inf, False)
    hi, hi_in = (high[0], high[1]) if high else (math.inf, False)
    return Interval(lo, lo_in, hi, hi_in, unit) if lo < hi or (lo == hi and lo_in and hi_in) else None


# a bound written in Chinese numerals ("二级及以上", "一级及以下", "三个月以上"): the numeral is read as its figure
_CN_BOUND = re.compile(rf"(?<![零〇一二两三四五六七八九十百千万\d])([零〇一二两三四五六七八九十百千]+)(?=(?:(?![以及至到或和与的不])"
                       rf"[{CJK_RANGE}]){{1,2}}(?:（含）)?及?以[上下])")


def _bound_matches(text: str):
    """Every bound a text states, as (match, lower?, inclusive), the lower-bound patterns first, each in order."""
    for patterns, lower in ((_LOWER, True), (_UPPER, False)):
        for pattern, inclusive in patterns:
            for m in re.finditer(pattern, text, re.IGNORECASE):
                yield m, lower, inclusive


def _bounds(text: str) -> list[tuple[bool, float, bool, str]]:
    """Every bound a text states, as (lower?, number, inclusive, unit)."""
    out = []
    for m, lower, inclusive in _bound_matches(text):
        value, unit = _figure(m)
        out.append((lower, value, inclusive, unit))
    return out


def intervals(label: str) -> tuple[Interval, ...]:
    """The ranges a label names, one per unit ("退休人员（70周岁及以上） 二级及以上医疗机构支付比例": 70岁 and over, and
    level 2 and over); bounds in Chinese numerals are read too. Empty when it names none."""
    text = _CN_BOUND.sub(lambda m: str(chinese_to_decimal(m.group(1))), label.strip())
    found: dict[str, list] = {}
    for lower, v, inclusive, unit in _bounds(text):
        ends = found.setdefault(unit, [None, None])
        if ends[0 if lower else 1] is None:
            ends[0 if lower else 1] = (v, inclusive)
    # a bound with no unit of its own ("Greater than 2.75x but not above 3.50") shares the other bound's
    units = [u for u in found if u]
    if "" in found and len(units) == 1:
        bare, ends = found.pop(""), found[units[0]]
        low, high = ends[0] or bare[0], ends[1] or bare[1]
        # (… when the two make a range: "within 15 feet of a hydrant, fine after 30 days" bounds two things)
        if low is None or high is None or low[0] < high[0] or low[0] == high[0] and low[1] and high[1]:
            found[units[0]] = [low, high]
    out = []
    for unit, (low, high) in found.items():
        lo, lo_in = low if low else (-math.inf, False)
        hi, hi_in = high if high else (math.inf, False)
        if lo < hi or (lo == hi and lo_in and hi_in):
            out.append(Interval(lo, lo_in, hi, hi_in, unit))
    if not out and (r := interval(text)) is not None:  # "60万元至300万元": two ends, no bound word
        out.append(r)
    elif out:
        # … and two ends in a unit no bound word gives ("满10年以上 第1至12个月": years by a bound, months by ends)
        for m in _BETWEEN.finditer(text):
            if (r := interval(m.group(0))) is not None and not any(o._unit_of(r.unit) for o in out):
                out.append(r)
    return tuple(out)


def _holds(ranges: tuple[Interval, ...], given: tuple[Interval, ...]) -> bool:
    """Whether a label's ranges hold what the question gives: some range is of a unit the question gives a figure
    in, and each such range holds one of its figures (72岁 in 三级 is held by 70周岁及以上 and 二级及以上, not by 一级及以下)."""
    asked = [[g for g in given if r._unit_of(g.unit)] for r in ranges]
    return any(asked) and all(any(r.contains(g) for g in gs) for r, gs in zip(ranges, asked) if gs)


def _stated(question: str) -> list[tuple[Interval, tuple[int, int]]]:
    """The ranges a question states itself ("不到75岁", "over 3.0x"), one bound each, with where each bound's
    number stands."""
    stated = []
    for m, lower, inclusive in _bound_matches(question):
        v, u = _figure(m)
        r = Interval(v, inclusive, math.inf, False, u) if lower else Interval(-math.inf, False, v, inclusive, u)
        stated.append((r, m.span(2)))
    return stated


def bound_numbers(question: str) -> list[tuple[int, int]]:
    """Where the numbers stand that bound a range the question states ("不到75岁"): a condition, matched by the
    range that holds it, not a word naming a label."""
    return [span for _, span in _stated(question)] if _N.search(question) else []


_PER_FIGURE = re.compile(r"(?:\b(?:per|every|each)|每)\s*[$€£¥]?\s*$", re.IGNORECASE)


def rate_figure(question: str, at: int) -> bool:
    """Whether the figure at offset `at` is what a rate is per ("per 12 hours", "每3个月"): no figure the question
    gives of the asker's case."""
    return _PER_FIGURE.search(question, 0, at) is not None


# a period or age a question gives in words ("six weeks", "four and a half years old", "a day and a half"; not "ten
# one-hour sessions", whose "one-hour" says what a session is)
_WORD_FIGURE = re.compile(rf"\b(?P<n>{NUMBER_WORD_EN}|an?)(?P<half>\s+and\s+a\s+half)?\s+"
                          r"(?P<u>years?|months?|weeks?|days?|hours?)\b(?P<and>\s+and\s+a\s+half)?", re.IGNORECASE)


# a number after a capitalised name inside a sentence ("an older Euro 5 diesel", "west of Route 17")
_NAMED_NUMBER = re.compile(r"(?<=[a-z,]\s)[A-Z][a-z]+\s+(\d{1,3})\b(?![.,:]?\d)")
_PERIOD_AFTER = re.compile(r"\s*(?:years?|months?|weeks?|days?|hours?|minutes?)\b", re.IGNORECASE)


@functools.lru_cache(maxsize=64)
def named_number(text: str, at: int) -> bool:
    """Whether the bare number at offset at of a text is a name's, after a capitalised word inside a sentence ("diesel
    vehicles that do not meet the Euro 6 emission standard"), not a quantity."""
    return any(m.start(1) == at for m in _NAMED_NUMBER.finditer(text))


@functools.lru_cache(maxsize=256)
def _given(question: str) -> tuple[Interval, ...]:
    """What the question says of a quantity: each range it states itself ("不到75岁", "over 3.0x"), one bound each,
    and each figure outside those as a one-point range ("62岁", "uptime was 97.5%", "怀孕五个月"). Cached: every
    fact's and row's label is compared with it."""
    # a calendar date is when the case is, no figure of it ("From April 2025" is no age of "50 and over", "2025年9月" no
    # period of 9 months); a Chinese year alone keeps its 年 and is held only by a range of years ("1994年建成" in
    # "1991年至2000年")
    for d in find_dates(question):
        if not re.fullmatch(r"\d{4}\s*年", question[d.start:d.end]):
            question = question[:d.start] + " " * (d.end - d.start) + question[d.end:]
    # … nor is a series member's number ("Grade 4", "Tier 2" name a member, not a figure "Under 30" would hold); a
    # quantity after a series word stays ("Level 3 days")
    for m in NUMBERED_NAME_EN.finditer(question):
        if series_name(m.group(1)) and not _PERIOD_AFTER.match(question, m.end()):
            question = question[:m.start(2)] + " " * (m.end(2) - m.start(2)) + question[m.end(2):]
    # … nor a bare number after a name inside a sentence ("an older Euro 5 diesel", "west of Route 17"): it names
    # the thing, as a series member's does; not after the sentence's first word ("Aged 62") nor "I'm"
    for m in _NAMED_NUMBER.finditer(question):  # (named_number's)
        after = question[m.start(1):m.end(1) + 16]
        if not any(q.start == 0 and q.quantity.dimension != "number" for q in find_quantities(after)):
            question = question[:m.start(1)] + " " * (m.end(1) - m.start(1)) + question[m.end(1):]
    question = GRADE_ZH.sub(r"\1级", question)  # 三甲医院: a hospital of the third level
    question = as_written(question)  # 3000块钱
    # ("a day" alone is a period, as 一年 is; "a day and a half" a figure)
    words = [m for m in _WORD_FIGURE.finditer(question) if m.group("n").lower() not in ("a", "an") or m.group("and")]
    if not _N.search(question) and not _CN_FIGURE.search(question) and not words:
        return ()  # no figure: the range patterns need not run (they cost a compile the first time in a process)
    stated = _stated(question)
    given = [r for r, _ in stated]
    spans = [span for _, span in stated]
    # (a figure a rate is per is none: "how much do I get per 12 hours")
    # (an age, "my 8-year-old", "3 years old", is held by a range of years or of ages, never by one of days, weeks or
    # months: "(1 week or more)" is a duration)
    points = [(v, AGE if u == "years" and _OLD.match(question, m.end()) or not u and _TURNED.search(question, 0, m.start(2))
               else u, m.start(2))
              for m in _N.finditer(question) if not rate_figure(question, m.start(2)) for v, u in (_figure(m),)]
    # (a lone 一 is a period, "一年最多", except as a level: 一级医院)
    points += [(*_normal(float(chinese_to_decimal(m.group(1))), m.group(2)), m.start())
               for m in _CN_FIGURE.finditer(question) if (chinese_to_decimal(m.group(1)) > 1 or m.group(2).startswith("级"))
               and not rate_figure(question, m.start())]
    points += [(*_normal((1 if m.group("n").lower() in ("a", "an") else english_number(m.group("n")))
                         + (0.5 if m.group("half") or m.group("and") else 0), m.group("u")), m.start())
               for m in words if not rate_figure(question, m.start())]
    given += [Interval(v, True, v, True, u) for v, u, at in points if not any(a <= at < b for a, b in spans)]
    return tuple(given)


def stated_measures(text: str) -> tuple[Interval, ...]:
    """What a definition states of the thing it defines, as ranges: each range it states ("核定载客7座及以上": 7座 and
    over) and each figure with a unit outside them as a one-point range ("核定载客5座": 5座); no date, sum of money or
    share (a rule's figure, not what sets the thing apart)."""
    for d in find_dates(text):
        text = text[:d.start] + " " * (d.end - d.start) + text[d.end:]
    out = list(intervals(text))
    spans = [m.span(2) for m, _, _ in _bound_matches(text)] \
        + [span for m in _BETWEEN.finditer(text) for span in (m.span(2), m.span(6))]
    for m in _N.finditer(text):
        if m.group(1) or not m.group(4) or any(a <= m.start(2) < b for a, b in spans) \
                or dimension_of(m.group(0)) in ("money", "percent", "date"):
            continue
        v, u = _figure(m)
        out.append(Interval(v, True, v, True, u))
    return tuple(out)


def meets_stated(measures: tuple[Interval, ...], question: str) -> bool:
    """Whether what a definition states (stated_measures) holds what the question gives ("一辆五座的车" of 5座); a
    measure stated with no unit ("aged 11 to 17") is met only by a bare figure or an age ("my son is 12", not "a
    member for 12 years", "16 weeks")."""
    given = _given(question)
    asked = [[g for g in given if r._unit_of(g.unit) and (r.unit or g.unit in ("", AGE))] for r in measures]
    return any(asked) and all(any(r.contains(g) for g in gs) for r, gs in zip(measures, asked) if gs)


def meets(label: str, question: str) -> bool:
    """Whether a label names a range that holds what the question gives ("退休人员（不满75周岁）", "不到75岁")."""
    given = _given(question)
    return bool(given) and _holds(intervals(label), given)


def holding(labels: list[str], question: str) -> set[str] | None:
    """The labels whose range holds what the question gives (a figure, or a range it states), when some labels
    are ranges and some of them hold it and others do not; None otherwise (the question gives no figure, or it
    decides nothing)."""
    given = _given(question)
    if not given:  # before the labels are parsed
        return None
    ranges = {label: rs for label in dict.fromkeys(labels) if (rs := intervals(label))}
    # (a label that is one figure beside labels that are ranges of its unit is that point: "| 1人户 | … | 4人及以上户 |")
    for label in dict.fromkeys(labels):
        if label not in ranges and len(ms := list(_N.finditer(label))) == 1 and (v := _figure(ms[0]))[1] \
                and (unit := next((r.unit for rs in ranges.values() for r in rs if r.unit and r._unit_of(v[1])), "")):
            ranges[label] = (Interval(v[0], True, v[0], True, unit),)
    if len(ranges) < 2:
        return None
    hits = {label for label, rs in ranges.items() if _holds(rs, given)}
    return hits if hits and len(hits) < len(ranges) else None


# an ordinal naming one of a series of cases ("第二套住房", "首次申请", "the 2nd checked bag"), with what it counts:
# the measure word after it in Chinese, the word after it in English
# (a count says 两 before a measure word: 二 alone before 套, 胎 or 孩 is the second, "二套房", "二胎", as 三 before 胎
# or 孩 is the third; "三套房" may be three)
_ORDINAL_ZH = re.compile(rf"(?<![至到\-—~～])(?:第\s*(\d+|[一二两三四五六七八九十]+)|(首)"
                         rf"|(?<![\d零〇一二两三四五六七八九十百千万第])(二(?=[套胎孩])|三(?=[胎孩])))"
                         rf"\s*((?:个)?[{CJK_RANGE}])")
# (a reference, 第三条, counts articles, not cases; 首 is first only before what is counted: 首付 is a down payment)
_NOT_COUNTED_ZH = set("至到和或与及、起以条章节款项目")
_FIRST_OF_ZH = set("套次胎年月日批")
_RANGE_AFTER_ZH = re.compile(r"\s*(?:起|开始|以后|及以后|以上|及以上|（含）及以上)")
ORDINAL_WORDS_EN = {w: i for i, w in enumerate(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth".split(), start=1)}
# ("30 second": a time; "second-hand": no ordinal)
_ORDINAL_EN = re.compile(r"(?<![\d-])(?<!\d\s)\b(?:(\d+)(?:st|nd|rd|th)|(" + "|".join(ORDINAL_WORDS_EN) + r"))\b(?!-)"
                         r"(?:\s+([A-Za-z]+))?", re.IGNORECASE)


def ordinal_matches(text: str):
    """(start, end, number, what it counts or "") for each ordinal of a case the text names: "第二套" is (2, "套"),
    "首次" (1, "次"), "the 2nd checked bag" (2, "check", stemmed); one that starts a range ("第13个月起") or ends one
    ("第1至第12个月") names no single case and is left out."""
    out = []
    for m in _ORDINAL_ZH.finditer(text):
        counter = m.group(4)
        if counter[-1] in _NOT_COUNTED_ZH or m.group(2) and counter not in _FIRST_OF_ZH \
                or _RANGE_AFTER_ZH.match(text, m.end()) or m.group(1) and m.group(1).isdigit() \
                and re.match(r"\s*[至到\-—~～]", text[m.end(1):]):
            continue
        number = m.group(1) or m.group(3)
        n = 1 if m.group(2) else int(number) if number.isdigit() else int(chinese_to_decimal(number))
        out.append((m.start(), m.end(), n, counter))
    for m in _ORDINAL_EN.finditer(text):
        n = int(m.group(1)) if m.group(1) else ORDINAL_WORDS_EN[m.group(2).lower()]
        end = m.end(2) if m.group(2) else m.end(1) + 2
        counter = (m.group(3) or "").lower()
        out.append((m.start(), end, n, "" if counter in STOP_EN else stem(counter)))
    return sorted(out)


def ordinals(text: str) -> dict[str, frozenset[int]]:
    """The ordinals a text names cases by, by what they count ({"套": {2}} for "第二套住房"); an English ordinal
    counts the word after it."""
    found: dict[str, set[int]] = {}
    for _, _, n, counter in ordinal_matches(text):
        if counter:
            found.setdefault(counter, set()).add(n)
    return {c: frozenset(ns) for c, ns in found.items()}


def other_ordinal(label: str, mine: dict[str, frozenset[int]]) -> bool:
    """Whether a label names another case of a series the question names its own of (mine: the question's
    ordinals; "第二套住房" asked of "第一套房", "2nd checked bag" asked "my 1st checked bag"): the same thing counted,
    and none of the question's numbers."""
    return bool(mine) and any(c in mine and not ns & mine[c] for c, ns in ordinals(label).items())
