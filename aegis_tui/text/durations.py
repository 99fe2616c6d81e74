"""A question's durations and firsts as the document writes them ("半小时" where the document says "30分钟", "第一个小时"
where it says "首小时", "half an hour" where it says "30 minutes", "six months" where it says "6 months"), so that its
words meet the document's.

Only a duration the question speaks in words (Chinese numerals, 半, English number words), and only where the document
writes the same length of time more often another way: in the same unit in figures ("三个月" as "3个月"), or, for a half
or a quarter, in the smaller unit it makes whole ("半年" as "6个月", "一刻钟" as "15分钟"); a day is never a month's
thirtieth. A question saying what the document says is left as it is. So is what a thing has not ("没有空调的") where
the document writes it with 非 ("非空调车").
"""

from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction

from .lexicon import CJK_RANGE
from .quantity import NUMBER_WORD_EN, chinese_to_decimal, english_number

# each unit a duration is written in: its family (lengths of time convert only within one: minutes to weeks, months to
# years) and its size in the family's smallest unit
_UNITS_ZH = {"分钟": ("t", 1), "小时": ("t", 60), "个小时": ("t", 60), "钟头": ("t", 60), "个钟头": ("t", 60),
             "天": ("t", 1440), "周": ("t", 10080), "星期": ("t", 10080), "个星期": ("t", 10080),
             "个月": ("m", 1), "年": ("m", 12)}
_UNITS_EN = {"minute": ("t", 1), "hour": ("t", 60), "day": ("t", 1440), "week": ("t", 10080),
             "fortnight": ("t", 20160), "month": ("m", 1), "year": ("m", 12)}

_UNIT_ZH = "|".join(sorted(map(re.escape, _UNITS_ZH), key=len, reverse=True))
# (not what the unit begins: 周岁 and 周年 are an age and an anniversary, 年级 a school year, 年度 a year of account)
_UNIT_END_ZH = r"(?!岁|年|级|度|龄|底|初|末|中)"
# a duration a question speaks in words ("半小时", "半个小时", "两个半小时", "一年半", "半年", "一刻钟", "三个月"): a number
# from one to ninety-nine (not a span, "两三天"); not a date ("三月五日"), an ordinal ("第三年") nor part of a word
# ("上半年", "大半年", "三天两头"); "半天" may mean a while, and is left as it is
_SPOKEN_ZH = re.compile(rf"(?<![\d.零〇一二两三四五六七八九十百千万第月上下大前后多])"
                        rf"(?:(?P<n>[一二两三四五六七八九]?十[一二三四五六七八九]?|[一二两三四五六七八九])"
                        rf"(?P<half>个?半)?(?P<unit>{_UNIT_ZH}){_UNIT_END_ZH}(?P<after>半)?"
                        rf"|半(?P<hunit>个?小时|个?钟头|年|个月){_UNIT_END_ZH}|(?P<quarter>一刻钟))(?!两头)")
# a duration a document writes in figures ("30分钟", "6个月", "1.5小时")
_WRITTEN_ZH = re.compile(rf"(?<![\d.])(\d+(?:\.\d+)?)\s*({_UNIT_ZH}){_UNIT_END_ZH}")
_SPOKEN_EN = re.compile(rf"(?<![\w-])(?:(?P<half>half)\s+an?\s+(?P<hunit>hour|year)"
                        rf"|(?P<n>{NUMBER_WORD_EN}|an?)\s+(?:and\s+a\s+(?P<and>half)\s+)?"
                        rf"(?P<unit>minute|hour|day|week|fortnight|month|year)s?(?:\s+and\s+a\s+(?P<after>half))?)"
                        rf"(?![\w-])", re.IGNORECASE)
_WRITTEN_EN = re.compile(r"(?<![\d.,])(\d+(?:\.\d+)?)[\s-]*(minute|hour|day|week|month|year)s?\b", re.IGNORECASE)
# a first as a question speaks it ("第一个小时", "头一年", "第一次"): the document may write it 首 ("首小时", "首次")
_FIRST_ZH = re.compile(rf"(?:第一|头一|第1)(?![\d〇零一二三四五六七八九十百])个?(?=([{CJK_RANGE}]{{1,2}}))")
_UNITS_ONE = ("一", "a", "an", "one")


def _spoken(m: re.Match, units: dict) -> tuple[str, Fraction, bool] | None:
    """The family, the length in the family's smallest unit, and whether the length is spoken with a half or a
    quarter (so that it may be written in a smaller unit) of a spoken duration."""
    if m.groupdict().get("quarter"):
        return "t", Fraction(15), True
    if m.group("hunit"):
        family, size = units[_unit_key(m.group("hunit"), units)]
        return family, Fraction(size) / 2, True
    n = m.group("n").lower()
    value = Fraction(1) if n in ("a", "an") else Fraction(english_number(n)) if n.isascii() \
        else Fraction(str(chinese_to_decimal(n)))
    half = bool(m.group("half") or m.group("after") or m.groupdict().get("and"))
    family, size = units[_unit_key(m.group("unit"), units)]
    return family, (value + (Fraction(1, 2) if half else 0)) * size, half


def _unit_key(unit: str, units: dict) -> str:
    unit = unit.lower()
    return unit if unit in units else unit.removeprefix("个")


def _writings(text: str, pattern: re.Pattern, units: dict) -> dict[tuple[str, Fraction], Counter]:
    """Each length of time the text writes in figures in a language's units, by family and length, with how often
    each writing occurs."""
    out: dict[tuple[str, Fraction], Counter] = {}
    for m in pattern.finditer(text):
        family, size = units[_unit_key(m.group(2), units)]
        out.setdefault((family, Fraction(m.group(1)) * size), Counter())[m.group(0)] += 1
    return out


def as_document_writes(question: str, text: str) -> str:
    """The question with each duration it speaks in words written as the document writes the same length of time most
    often ("三个月" as "3个月", "半小时" as "30分钟", "一年半" as "18个月", "six months" as "6 months"), where the
    document writes it so more often than the question's way and not as part of the question's word ("半年卡"); and
    each first it speaks as 第一 ("第一个小时", "第一次") written with 首 where the document writes only that ("首小时",
    "首次"). One of a unit spoken without a half ("一年最多", "£500 a year") is a period a rule counts by: it stays. A
    modifier saying what a thing has not ("没有空调的") is written with 非 where the document writes that ("非空调")."""
    writings: dict[str, dict] = {}
    out, last = [], 0
    # (each as the document writes it in its own language: "half an hour" as "30 minutes", never "30分钟")
    spoken = [(m, "zh") for m in _SPOKEN_ZH.finditer(question)] + [(m, "en") for m in _SPOKEN_EN.finditer(question)]
    for m, lang in sorted(spoken, key=lambda p: p[0].start()):
        units = _UNITS_ZH if lang == "zh" else _UNITS_EN
        n = (m.group("n") or "").lower()
        if m.start() < last or n in _UNITS_ONE and not (m.group("half") or m.group("after")
                                                         or m.groupdict().get("and")):
            continue
        if lang not in writings:
            writings[lang] = _writings(text, *((_WRITTEN_ZH, _UNITS_ZH) if lang == "zh" else (_WRITTEN_EN, _UNITS_EN)))
        family, length, part = _spoken(m, units)
        found = writings[lang].get((family, length))
        if not found:
            continue
        # (in the question's own unit, unless it speaks a half or a quarter, which another unit makes whole)
        unit = m.group("unit") or ""
        same = Counter({w: k for w, k in found.items() if part or _unit_key(unit, units) == _unit_key(
            (_WRITTEN_ZH if lang == "zh" else _WRITTEN_EN).match(w).group(2), units)})
        if not same:
            continue
        written = max(sorted(same), key=lambda w: same[w])
        said = m.group(0)
        # (a writing the document uses as often as its commonest is the document's too: "半小时" beside "30分钟" once
        # each; and a word the document writes with the question's spoken form is its word: "半年卡")
        before, after = question[m.start() - 1:m.start()], question[m.end():m.end() + 1]
        if text.count(said) >= same[written] or any(w.strip() and w in text for w in (before + said, said + after)
                                                    if w != said):
            continue
        out += [question[last:m.start()], written]
        last = m.end()
    question = "".join(out) + question[last:]
    question = _FIRST_ZH.sub(lambda m: _first(m, text), question)
    return _WITHOUT_ZH.sub(lambda m: _without(m, text), question)


# a Chinese modifier saying what a thing has not ("没有空调的普通公交车", "不带空调的车"), which a document writes with 非
# ("普通线路（非空调车）"): read as the document writes it where it does
# (not 无 or 没 alone, which begin other words: 无法, 没法, 无锡)
_WITHOUT_ZH = re.compile(rf"(?:没有|不带)(?P<x>[{CJK_RANGE}]{{2,6}}?)(?=的)")


def _without(m: re.Match, text: str) -> str:
    x = m.group("x")
    return f"非{x}" if f"非{x}" in text and not text.count(m.group()) else m.group()


def _first(m: re.Match, text: str) -> str:
    """首 for a spoken first where the document writes 首 before what it counts and never the spoken first."""
    counted = m.group(1)
    for k in range(len(counted), 0, -1):
        if f"首{counted[:k]}" in text and f"{m.group(0)}{counted[:k]}" not in text:
            return "首"
    return m.group(0)
