"""Seasons: the months of the year a question's case is in ("over to the island in July", "7月份去"), and the
seasons a document defines by months ("**Peak season**: May 1 through September 30", "夏季（6月至9月）", "All other
dates are off-peak"), so that a fare or a rate labelled by its season is read as the rule of those months."""

from __future__ import annotations

import re
from functools import lru_cache

from .lexicon import CJK_RANGE

MONTHS_EN = {name: i + 1 for i, names in enumerate((
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
    ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
    ("december", "dec"))) for name in names}
_MONTH_NAMES = "|".join(sorted((n for n in MONTHS_EN), key=len, reverse=True))
_NUMERALS_ZH = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10, "十一": 11,
                "十二": 12}
_MONTH_ZH = r"(?:1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])"

# a month a question gives: a name, capitalised ("in July", "on 3 March", "March 14"; "May" only before or after a
# day or after "in"), or a Chinese month (7月, 七月份; not 7个月, a length, nor 月底 alone)
# (capitalised, or a full name in lower case that is no other word: not "may", "march")
_CAPITALISED = "|".join(sorted([n.capitalize() for n in MONTHS_EN]
                               + [n for n in MONTHS_EN if len(n) >= 4 and n != "march"], key=len, reverse=True))
_ASKED_EN = re.compile(rf"\b(?:in|during|on|by|for|this|next|last|early|late|mid)[\s-]+(?P<a>{_CAPITALISED})\b|"
                       rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?P<b>{_CAPITALISED})\b|"
                       rf"\b(?P<c>{_CAPITALISED})\s+\d{{1,2}}(?:st|nd|rd|th)?\b|"
                       r"\b(?P<d>January|February|March|April|June|July|August|September|October|November|December)\b")
# (a month in Chinese numerals only with 份, a day or a year beside it: "一月多少钱" is a month's, "十月怀胎" a length)
_ASKED_ZH = re.compile(rf"(?<![\d个第上下本一二三四五六七八九十])(?:(?P<m>1[0-2]|0?[1-9])\s*月|(?<=年)(?P<y>{_MONTH_ZH})\s*月"
                       rf"|(?P<n>{_MONTH_ZH})\s*月(?=份|\s*\d{{1,2}}\s*[日号]|[一二三四五六七八九十]+[日号]))"
                       rf"(?!\s*(?:份?以内|内|起|以来|之内))")

# a season a document defines by months: a name, a colon, a dash or an opening parenthesis, and two ends ("Peak
# season: May 1 through September 30 inclusive", "**Summer Season** — Billing days from **June 1 through September
# 30**", "High season (1 June – 31 August)", "夏季（6月至9月）", "旺季：每年5月1日至10月31日") or the months listed
# ("**夏季月份**：指每年6月、7月、8月、9月四个抄表月份")
_DAY = r"(?:\s+\d{1,2}(?:st|nd|rd|th)?)?"
_TO_EN = r"\s*(?:through|thru|to|until|till|–|—|-)\s*"
_B = r"(?:\*\*|__)?"
_SEASON_EN = re.compile(rf"(?:^|\n)[ \t]*(?:(?:[-*+]|\d+[.)])\s+)?{_B}(?P<name>[A-Za-z][A-Za-z -]{{1,30}}?){_B}\s*"
                        rf"(?:[:：]|[—–]|\s-\s|\()\s*(?:[A-Za-z]+\s+){{0,3}}?{_B}(?:\d{{1,2}}(?:st|nd|rd|th)?\s+)?"
                        rf"(?P<a>{_MONTH_NAMES}){_DAY}{_B}{_TO_EN}{_B}(?:\d{{1,2}}(?:st|nd|rd|th)?\s+)?(?P<b>{_MONTH_NAMES})\b",
                        re.IGNORECASE)
_SEASON_ZH = re.compile(rf"(?P<name>[{CJK_RANGE}]{{1,8}}?(?:季|期|时段|月份)){_B}\s*[（(：:]\s*(?:指)?(?:每年)?\s*"
                        rf"(?:(?P<a>{_MONTH_ZH})\s*月(?:\s*\d{{1,2}}\s*日)?\s*(?:至|到|—|－|-|~|～)\s*(?:次年)?\s*"
                        rf"(?P<b>{_MONTH_ZH})\s*月|(?P<list>{_MONTH_ZH}\s*月(?:\s*[、，,和及]\s*{_MONTH_ZH}\s*月)+))")
# the season of all other dates ("All other dates are off-peak.", "其余八个抄表月份为非夏季月份")
_REST_EN = re.compile(r"\ball\s+other\s+(?:dates|days|months|times)\s+(?:are|is)\s+(?:\*\*|__)?(?P<name>[A-Za-z][A-Za-z -]{1,30}?)"
                      r"(?:\*\*|__)?[.;,]", re.IGNORECASE)
_REST_ZH = re.compile(rf"其余[^。；;]{{0,10}}?(?:均)?(?:为|是|属于)(?P<name>[{CJK_RANGE}]{{1,8}}(?:季|期|时段|月份))")
_NEAR = 400  # how far before "all other dates" the seasons it completes are defined, at most (characters)
# the words naming a season ("peak season", "off-peak", "Summer", 旺季, 夏季月份, 采暖季)
_SEASON_WORD = re.compile(r"season|peak|summer|winter|spring|autumn|fall|high|low|shoulder|[季旺淡]", re.IGNORECASE)


def _month(text: str) -> int:
    text = text.strip().lower()
    if text in MONTHS_EN:
        return MONTHS_EN[text]
    return int(text) if text.isdigit() else _NUMERALS_ZH[text]


def _span(a: int, b: int) -> frozenset[int]:
    """The months from a to b, round the year's end where b is before a (11月至次年3月)."""
    return frozenset(range(a, b + 1)) if a <= b else frozenset([*range(a, 13), *range(1, b + 1)])


def months_given(question: str) -> frozenset[int]:
    """The months of the year a question's case is in ("in July", "on 3 March", "7月份", "七月")."""
    out = {_month(next(g for g in m.groups() if g)) for m in _ASKED_EN.finditer(question)}
    out |= {_month(m.group("m") or m.group("y") or m.group("n")) for m in _ASKED_ZH.finditer(question)}
    return frozenset(out)


@lru_cache(maxsize=32)
def seasons(text: str) -> dict[str, frozenset[int]]:
    """The seasons a document defines by months, each name (lowercased) with its months; "All other dates are X"
    gives X the months no other season has. Empty unless two seasons at least are defined (one alone sets no case
    apart)."""
    found: dict[str, frozenset[int]] = {}
    at: list[tuple[int, str]] = []  # where each season is defined
    for m in _SEASON_EN.finditer(text):
        found[name := m.group("name").strip().lower()] = _span(_month(m.group("a")), _month(m.group("b")))
        at.append((m.start(), name))
    for m in _SEASON_ZH.finditer(text):
        # (not what stands before a preposition: "取暖用电在采暖季（每年11月15日至次年3月15日）")
        found[name := re.split(r"[在于的为按是]", m.group("name"))[-1]] = \
            _span(_month(m.group("a")), _month(m.group("b"))) if m.group("a") else \
            frozenset(_month(x) for x in re.findall(_MONTH_ZH + r"(?=\s*月)", m.group("list")))
        at.append((m.start(), name))
    # (the rest of the year beside the seasons defined just before it: "其余八个抄表月份为非夏季月份" beside 夏季月份, "All
    # other dates are shoulder" beside high and low season; not one defined far apart, 采暖季 of another scheme)
    for m in sorted([*_REST_EN.finditer(text), *_REST_ZH.finditer(text)], key=lambda m: m.start()):
        name = m.group("name").strip().lower()
        before = {n for start, n in at if m.start() - _NEAR <= start < m.start()}
        if name not in found and before and (rest := frozenset(range(1, 13)).difference(*(found[n] for n in before))):
            found[name] = rest
    # (a name with no word of a season is a period of something else: "Registration period: January 1 to March 31",
    # "缴费期：每年1月1日至6月30日")
    found = {name: months for name, months in found.items() if _SEASON_WORD.search(name)}
    return found if len(found) >= 2 else {}


def _short(name: str) -> str:
    """A season's name as a label may shorten it: without a generic word ("Peak season" → "peak", 旺季 stays)."""
    if not name.isascii():
        return name
    return re.sub(r"[\s-]*\b(?:season|seasons|period)\b[\s-]*", " ", name, flags=re.IGNORECASE).strip() or name


def season_of(label: str, defined: dict[str, frozenset[int]]) -> frozenset[int] | None:
    """The months of the season a label names (the longest name first: "Route 2 off-peak" names off-peak, not peak),
    or None where it names none or two."""
    low = label.lower()
    named = []
    for name in sorted(defined, key=lambda n: -len(_short(n))):
        short = _short(name).lower()
        pattern = rf"(?<![A-Za-z-]){re.escape(short)}(?![A-Za-z-])" if short.isascii() else re.escape(short)
        if short and re.search(pattern, low):
            named.append(name)
            low = re.sub(pattern, " ", low)
    return defined[named[0]] if len(named) == 1 else None
