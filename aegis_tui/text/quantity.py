"""Bilingual quantities: parse 20万元 / $250.00 / 百分之八十五 / 14 days into comparable (value, unit, dimension)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from pathlib import Path

GRAMMAR_PATH = Path(__file__).with_name("quantity.lark")

DIMENSIONS = ("money", "percent", "percentage_point", "time", "age", "count", "ratio", "rate", "distance", "area",
              "weight", "volume", "energy", "date", "number")


@dataclass(frozen=True, eq=False)
class Quantity:
    """A normalised amount: equal when value and unit are equal, however it was written."""

    value: Decimal
    unit: str
    dimension: str

    def _key(self) -> tuple[Decimal, str]:
        return (self.value, self.unit)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __str__(self) -> str:
        value = format(self.value.normalize(), "f")
        return f"{value} {self.unit}".strip()


@dataclass(frozen=True)
class QuantityMatch:
    """A quantity found in running text: text == input[start:end]."""

    start: int
    end: int
    text: str
    quantity: Quantity


# ---- normalisation -----------------------------------------------------------------------------------------
# Full-width ASCII to ASCII, one character for one so offsets survive; the Chinese comma, colon and semicolon
# stay as they are (a "，" between digits is a list separator, never a thousands separator).
_WIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F) if c not in (0xFF0C, 0xFF1A, 0xFF1B)}
_WIDTH.update({0x3000: 0x20, 0xFFE5: 0xA5, 0x00A0: 0x20, 0x2212: 0x2D})


def width_fold(text: str) -> str:
    """Map full-width digits, letters and signs to ASCII without changing the length."""
    return text.translate(_WIDTH)


# ---- values --------------------------------------------------------------------------------------------------
_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CN_SMALL = {"十": 10, "百": 100, "千": 1000}
_MULT = {"百": 100, "千": 1000, "万": 10**4, "百万": 10**6, "千万": 10**7, "亿": 10**8,
         "thousand": 10**3, "million": 10**6, "billion": 10**9}
_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())}
_TENS = {w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}


def chinese_to_decimal(text: str) -> Decimal:
    """一千五百 -> 1500, 两万 -> 20000, 十五 -> 15, 二〇二四 -> 2024, 一点五 -> 1.5."""
    whole, _, frac = text.partition("点")
    if whole and all(c in _CN_DIGITS for c in whole) and len(whole) > 1:
        value = Decimal("".join(str(_CN_DIGITS[c]) for c in whole))  # digit string: 二〇二四
    else:
        big = mid = section = digit = 0
        for ch in whole:
            if ch in _CN_DIGITS:
                digit = _CN_DIGITS[ch]
            elif ch in _CN_SMALL:
                section += (digit or 1) * _CN_SMALL[ch]
                digit = 0
            elif ch == "万":
                mid += (section + digit or 1) * 10**4
                section = digit = 0
            elif ch == "亿":
                big += (mid + section + digit or 1) * 10**8
                mid = section = digit = 0
        value = Decimal(big + mid + section + digit)
    if frac:
        value += Decimal("0." + "".join(str(_CN_DIGITS[c]) for c in frac))
    return value


def english_number(word: str) -> int:
    """The value of an English number word ("ten", "twenty-one"), as the quantity grammar reads it."""
    return _word_value(word.lower())


def _word_value(word: str) -> int:
    if word in _WORDS:
        return _WORDS[word]
    tens, _, ones = word.partition("-")
    return _TENS[tens] + (_WORDS[ones] if ones else 0)


_CURRENCY = {"$": "USD", "us$": "USD", "usd": "USD", "dollar": "USD", "dollars": "USD", "美元": "USD",
             "¥": "CNY", "rmb": "CNY", "cny": "CNY", "yuan": "CNY", "元": "CNY",
             "€": "EUR", "eur": "EUR", "euro": "EUR", "euros": "EUR", "欧元": "EUR",
             "£": "GBP", "gbp": "GBP", "英镑": "GBP", "港元": "HKD"}

# measure unit (as written, lower case) -> (canonical unit, dimension)
_MEASURE = {
    "天": ("day", "time"), "日": ("day", "time"), "号": ("day", "time"), "day": ("day", "time"),
    "days": ("day", "time"), "calendar day": ("day", "time"), "calendar days": ("day", "time"),
    "工作日": ("working_day", "time"), "个工作日": ("working_day", "time"),
    "business day": ("working_day", "time"), "business days": ("working_day", "time"),
    "working day": ("working_day", "time"), "working days": ("working_day", "time"),
    "周": ("week", "time"), "week": ("week", "time"), "weeks": ("week", "time"),
    "个月": ("month", "time"), "month": ("month", "time"), "months": ("month", "time"),
    "年": ("year", "time"), "year": ("year", "time"), "years": ("year", "time"),
    "小时": ("hour", "time"), "个小时": ("hour", "time"), "hour": ("hour", "time"), "hours": ("hour", "time"),
    "分钟": ("minute", "time"), "minute": ("minute", "time"), "minutes": ("minute", "time"),
    "晚": ("night", "time"), "night": ("night", "time"), "nights": ("night", "time"),
    "周岁": ("year_of_age", "age"), "岁": ("year_of_age", "age"), "year old": ("year_of_age", "age"),
    "years old": ("year_of_age", "age"), "year of age": ("year_of_age", "age"),
    "years of age": ("year_of_age", "age"),
    # "my 8-year-old", "a 45-year-old employee": an age written as one hyphenated word
    "-year-old": ("year_of_age", "age"), "-years-old": ("year_of_age", "age"),
    "次": ("times", "count"), "times": ("times", "count"), "人次": ("person_time", "count"),
    "人": ("person", "count"), "倍": ("x", "ratio"),
    "公里": ("km", "distance"), "千米": ("km", "distance"), "km": ("km", "distance"),
    "kilometer": ("km", "distance"), "kilometers": ("km", "distance"), "kilometre": ("km", "distance"),
    "kilometres": ("km", "distance"), "mile": ("mile", "distance"), "miles": ("mile", "distance"),
    # physical measures a policy states (floor area, a load, metered water or power): each its own dimension, so a
    # question asking one is not answered by another, nor by a bare count
    "平方米": ("m2", "area"), "平米": ("m2", "area"), "square meter": ("m2", "area"), "square meters": ("m2", "area"),
    "square metre": ("m2", "area"), "square metres": ("m2", "area"), "sq m": ("m2", "area"),
    "square foot": ("ft2", "area"), "square feet": ("ft2", "area"), "sq ft": ("ft2", "area"),
    "sq. ft.": ("ft2", "area"), "sq. ft": ("ft2", "area"), "亩": ("mu", "area"), "公顷": ("ha", "area"),
    "hectare": ("ha", "area"), "hectares": ("ha", "area"), "acre": ("acre", "area"), "acres": ("acre", "area"),
    "公斤": ("kg", "weight"), "千克": ("kg", "weight"), "kg": ("kg", "weight"), "kilogram": ("kg", "weight"),
    "kilograms": ("kg", "weight"), "吨": ("t", "weight"), "tonne": ("t", "weight"), "tonnes": ("t", "weight"),
    "lb": ("lb", "weight"), "lbs": ("lb", "weight"),
    "立方米": ("m3", "volume"), "cubic meter": ("m3", "volume"), "cubic meters": ("m3", "volume"),
    "cubic metre": ("m3", "volume"), "cubic metres": ("m3", "volume"), "cubic feet": ("ft3", "volume"),
    "ccf": ("ccf", "volume"), "gallon": ("gal", "volume"), "gallons": ("gal", "volume"),
    "liter": ("l", "volume"), "liters": ("l", "volume"), "litre": ("l", "volume"), "litres": ("l", "volume"),
    "千瓦时": ("kwh", "energy"), "kwh": ("kwh", "energy"),
}
PHYSICAL_DIMENSIONS = frozenset({"area", "weight", "volume", "energy"})
# the physical measures' units as written (the grammar and the finder below take them from here; _alt orders them)
_PHYSICAL = tuple(w for w, (_, d) in _MEASURE.items() if d in PHYSICAL_DIMENSIONS)
_PHYSICAL_ZH = [w for w in _PHYSICAL if not w.isascii()]
_PHYSICAL_EN = [w for w in _PHYSICAL if w.isascii()]
PHYSICAL_WORDS_EN = tuple(_PHYSICAL_EN)  # the English words of physical measures, as ranges read a label's unit


def physical_unit(word: str) -> str | None:
    """The canonical unit of an English physical measure's word ("lbs", "square feet"), else None."""
    found = _MEASURE.get(word.strip().lower())
    return found[0] if found is not None and found[1] in PHYSICAL_DIMENSIONS else None


# per-unit denominators of a rate
_PER_UNIT = {"persons": "person", "people": "person", "人": "person", "trips": "trip", "晚": "night",
             "月": "month", "年": "year", "次": "times", "人次": "person_time"}


def _unit_of(word: str) -> tuple[str, str]:
    return _MEASURE[word]


class _Build:
    """Lark callbacks (embedded in the LALR parser) that compute the Quantity of a parse."""

    # amount -> (Decimal, kind, raw) where kind is arabic/chinese/words and raw the digits as written
    def arabic(self, items):
        raw = str(items[0])
        value = Decimal(raw.replace(",", ""))
        if len(items) > 1:
            value *= _MULT[str(items[1]).strip()]
        return (value, "arabic" if len(items) == 1 else "multiplied", raw)

    def chinese(self, items):
        return (chinese_to_decimal(str(items[0])), "chinese", str(items[0]))

    def words(self, items):
        value = Decimal(_word_value(str(items[0])))
        if len(items) > 1:
            value *= _MULT[str(items[1]).strip()]
        return (value, "words", str(items[0]))

    def money_prefix(self, items):
        return Quantity(items[1][0], _CURRENCY[str(items[0])], "money")

    def money_suffix(self, items):
        return Quantity(items[-2][0], _CURRENCY[str(items[-1])], "money")

    def rate(self, items):
        money, per = items[0], [str(t) for t in items[2::2]]  # (the separators between are PER or JOIN)
        units = [_PER_UNIT.get(w) or (_MEASURE[w][0] if w in _MEASURE else w) for w in per]
        return Quantity(money.value, f"{money.unit}/{'·'.join(units)}", "rate")

    def percent(self, items):
        return Quantity(items[0][0], "%", "percent")

    def percent_zh(self, items):
        # 百分之五 is 5%, 千分之五 0.5%, 万分之五 0.05%
        return Quantity(items[1][0] / {"百": 1, "千": 10, "万": 100}[str(items[0])[0]], "%", "percent")

    def points(self, items):
        return Quantity(items[0][0], "pp", "percentage_point")

    def measure(self, items):
        amount, word = items[0], str(items[1])
        if word == "年" and _is_year(amount):
            return Quantity(amount[0], "date_y", "date")
        unit, dimension = _unit_of(word)
        return Quantity(amount[0], unit, dimension)

    def date_ymd(self, items):
        y, m = int(items[0][0]), int(items[2][0])
        if len(items) > 4:
            return Quantity(Decimal(y * 10000 + m * 100 + int(items[4][0])), "date_ymd", "date")
        return Quantity(Decimal(y * 100 + m), "date_ym", "date")

    def date_md(self, items):
        return Quantity(Decimal(int(items[0][0]) * 100 + int(items[2][0])), "date_md", "date")

    def plain(self, items):
        amount = items[0]
        if _is_year(amount):
            return Quantity(amount[0], "date_y", "date")
        return Quantity(amount[0], "", "number")

    def start(self, items):
        if len(items) == 2:
            q = items[1]
            return Quantity(-q.value if str(items[0]) in "-\u2212" else q.value, q.unit, q.dimension)
        return items[0]


def _is_year(amount) -> bool:
    value, kind, raw = amount
    if kind == "arabic":
        return len(raw) == 4 and 1900 <= value <= 2199
    return kind == "chinese" and len(raw) == 4 and all(c in _CN_DIGITS for c in raw)


@lru_cache(maxsize=1)
def _parser():
    from lark import Lark  # lazily: importing quantity must stay cheap

    grammar = GRAMMAR_PATH.read_text(encoding="utf-8").replace("@PHYSICAL@", _alt(_PHYSICAL)) \
        .replace("@COUNTED@", _alt(_COUNTED_ZH))
    try:  # Lark keeps the built LALR tables in the temp dir, keyed by the grammar's hash
        return Lark(grammar, parser="lalr", transformer=_Build(), cache=True)
    except OSError:
        return Lark(grammar, parser="lalr", transformer=_Build())


@lru_cache(maxsize=65536)
def _parse_normalised(text: str) -> Quantity | None:
    from lark.exceptions import LarkError

    try:
        q = _parser().parse(text)
    except (LarkError, InvalidOperation, KeyError, ValueError):
        return None
    return q if isinstance(q, Quantity) else None


_SPACES = re.compile(r"\s+")


def _normalise(text: str) -> str:
    return _SPACES.sub(" ", width_fold(text).strip()).lower()


def parse_quantity(text: str) -> Quantity | None:
    """Parse a string that is one quantity (surrounding spaces allowed); None when it is not one."""
    if not text or len(text) > 80:
        return None
    return _parse_normalised(_normalise(text))


# ---- finding quantities in running text ---------------------------------------------------------------------
def dimension_of(text: str) -> str | None:
    """The dimension of the quantity a text states ("30天" → time, "75%" → percent), or None when it states none."""
    q = parse_quantity(text)
    return q.dimension if q is not None else None


def _alt(words) -> str:
    return "|".join(re.escape(w) if not w.startswith("(?") else w for w in sorted(words, key=len, reverse=True))


_SP = r"[ \t]?"
_NUM = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_CN = r"[零〇一二两三四五六七八九十百千万亿]+(?:点[零〇一二三四五六七八九]+)?"
_WORD = (r"(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:-(?:one|two|three|four|five|six|seven|"
         r"eight|nine))?|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|one|two|"
         r"three|four|five|six|seven|eight|nine|ten)")
NUMBER_WORD_EN = _WORD  # an English number word ("ten", "twenty-one"), as a pattern
# (千 opening a unit is none: "180千瓦时" is 180 kWh, "10千伏" a voltage, "5千米" five kilometres, "2000千卡")
_MULT_RE = r"(?:百万|千万|万|亿|千(?![瓦伏米克卡帕焦赫兆])|百|[ \t]?(?:thousand|million|billion)\b)"
_PREFIX = r"(?:us\$|\$|¥|€|£|(?<![a-z])(?:usd|rmb|cny|eur|gbp))"
_ZH_UNITS = ["美元", "港元", "欧元", "英镑", "元", "%", "个百分点", "百分点", "个工作日", "工作日", "个月", "个小时",
             "小时", "分钟", "周岁", "岁", "周", "人次", "次", "人", "倍", "公里", "千米", "晚", "天", "年", "日",
             *_PHYSICAL_ZH]
_EN_UNITS = ["dollars", "dollar", "usd", "rmb", "yuan", "cny", "euros", "euro", "eur", "percent", "per cent",
             "percentage points", "percentage point", "business days", "business day", "working days",
             "working day", "calendar days", "calendar day", "days", "day", "nights", "night", "weeks", "week",
             "months", "month", "-years-old", "-year-old", "years old", "year old", "years of age", "year of age", "years", "year", "hours",
             "hour", "minutes", "minute", "miles", "mile", "kilometers", "kilometer", "kilometres", "kilometre", "km", "times",
             *_PHYSICAL_EN]
_RUNITS_EN = ["miles", "mile", "kilometers", "kilometer", "kilometres", "kilometre", "km", "days", "day",
              "nights", "night", "persons", "person", "people", "trips", "trip", "months", "month", "years",
              "year", "hours", "hour", "minutes", "minute", *_PHYSICAL_EN]
_RUNITS_ZH = ["公里", "千米", "天", "日", "人次", "人", "次", "月", "年", "小时", "分钟", "晚", *_PHYSICAL_ZH]
_UNIT = rf"(?:{_alt(_ZH_UNITS)}|(?:{_alt(_EN_UNITS)})\b)"
# what a Chinese rate may be counted per beside its units: one thing (元/个·月, 元/车位), a household, a season
_COUNTED_ZH = ["采暖期", "车位", "个", "户", "辆", "台", "套", "间", "床", "季度", "学期", "周"]
_PER_ZH = f"(?:{_alt(_RUNITS_ZH + _COUNTED_ZH)})"
_PER = (rf"(?:{_SP}(?:per[ \t]|/){_SP}(?:{_PER_ZH}(?:[·・/]{_PER_ZH})*|(?:{_alt(_RUNITS_EN)})\b))")
_CN_UNIT = (r"(?:美元|港元|欧元|英镑|元|个百分点|百分点|个工作日|工作日|个月|个小时|小时|分钟|周岁|岁|人次|次(?!性)|"
            r"公里|千米|天|年|日|倍)")
_CANDIDATE = re.compile(
    "|".join([
        r"(?P<date>(?:\d{4}|[零〇一二三四五六七八九]{4})年(?:\d{1,2}|[一二三四五六七八九十]{1,3})月"
        r"(?:(?:\d{1,2}|[一二三四五六七八九十]{1,3})[日号])?|\d{1,2}月\d{1,2}[日号])",
        rf"(?P<pct>(?<![\d零〇一二两三四五六七八九十百千万])[百千万]分之(?:{_NUM}|{_CN}))",
        rf"(?P<num>{_PREFIX}{_SP})?(?P<digits>{_NUM})(?:{_SP}{_MULT_RE})?(?:{_SP}{_UNIT})?{_PER}?",
        rf"(?P<cn>(?:人民币)?{_CN}{_CN_UNIT}){_PER}?",
        rf"(?P<word>\b{_WORD}(?:{_SP}{_MULT_RE})?{_SP}(?:{_alt(_EN_UNITS)})\b){_PER}?",
    ]),
    re.IGNORECASE,
)
# the "per …" that ends a candidate, where a reading without it may still parse ("31 days per trip")
_PER_TAIL = re.compile(r"\s*(?:per\s+\S+|/\s*\S+|每\S+)$", re.IGNORECASE)
_CN_WORD_HEADS = set("统同唯单每逐合专任之其某另万上下前后本当")
_ORDINAL_AFTER = set("条章节款项级类档号批期届位名")
_SECTION_WORDS = re.compile(
    r"(?:article|section|sec\.|art\.|§|no\.|chapter|clause|item|part|rule|schedule|annex|appendix|page|p\.|"
    r"para\.?|paragraph|step|level|tier|grade|phase|version|v\.|form|line|table|figure|fig\.|"
    r"january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan\.|feb\.|mar\.|apr\.|jun\.|jul\.|aug\.|sep\.|sept\.|oct\.|nov\.|dec\.)[ \t]*$",
    re.IGNORECASE,
)


def _skip(text: str, m: re.Match, start: int, end: int) -> bool:
    """Context rules: ordinals (第三条), list markers (（一） 1. 1、), section numbers, times of day, codes."""
    before = text[max(0, start - 16):start]
    if before.rstrip(" \t").endswith("第"):
        return True
    if m.group("cn") is not None:
        # a multiplier alone after a blank, a "per" or an opening parenthesis is a unit, no amount: "______万元" (a
        # form's blank), "每千元", "（万元）"; not "单笔万元以上", "百岁及以上"
        numeral = re.match(r"(?:人民币)?([零〇一二两三四五六七八九十百千万亿]+)", m.group("cn"))
        if numeral and not set(numeral.group(1)) - set("百千万亿") \
                and re.search(r"(?:[_＿]|每|[（(]|单位[：:]?)\s*$", text[max(0, start - 6):start]):
            return True
        # 统一年度, 同一天: a numeral that is part of a word, not an amount
        return start > 0 and text[start] == "一" and text[start - 1] in _CN_WORD_HEADS
    if m.group("digits") is None or m.group("num") is not None:
        return False
    bare = end == m.end("digits")
    prev = text[start - 1] if start else ""
    if prev and (prev.isascii() and prev.isalnum() or prev in "._#"):
        return True  # A1, H200, v1.2, #3
    if not bare:
        return False
    after = text[end:end + 1]
    if prev in "-/:" or after and (after.isascii() and after.isalpha() or after in _ORDINAL_AFTER or after in ":-"):
        return True  # 3rd, 5x, 3级, 9:30, 2023-01
    if prev in "([【（" and after in ")]】）":
        return True  # (1) （2）
    line_start = text.rfind("\n", 0, start) + 1
    if not text[line_start:start].strip() and after in (".", "、", ")", "）"):
        return True  # a list marker at the start of a line
    return bool(_SECTION_WORDS.search(before))


def find_quantities(text: str) -> list[QuantityMatch]:
    """Every quantity in running text, left to right, non-overlapping, longest match first."""
    if len(text) <= 256:
        return list(_find_short(text))
    return _find(text)


def without_figures(text: str, before: re.Pattern | None = None, after: re.Pattern | None = None) -> str:
    """TEXT with each quantity blanked to a space, and with it the words BEFORE and AFTER match next to it (a
    figure's own bound words, "within 30 days", "满30天后"): what the text says beside its figures."""
    for m in reversed(find_quantities(text)):
        head, tail = text[:m.start], text[m.end:]
        if before is not None:
            head = before.sub("", head)
        if after is not None:
            tail = after.sub("", tail)
        text = head + " " + tail
    return text


@lru_cache(maxsize=8192)
def _find_short(text: str) -> tuple[QuantityMatch, ...]:
    return tuple(_find(text))


def _find(text: str) -> list[QuantityMatch]:
    folded = width_fold(text)
    out: list[QuantityMatch] = []
    for m in _CANDIDATE.finditer(folded):
        start, end = m.span()
        if _skip(folded, m, start, end):
            continue
        q = _parse_normalised(_SPACES.sub(" ", folded[start:end]).lower())
        if q is None and (per := _PER_TAIL.search(folded, start, end)) is not None:
            # "31 days per trip": a period per occasion is no rate the grammar reads; the period is the quantity
            end = per.start()
            q = _parse_normalised(_SPACES.sub(" ", folded[start:end]).lower())
        if q is None:
            continue
        out.append(QuantityMatch(start, end, text[start:end], q))
    return out
