"""Ranges named in labels ("Greater than 2.75x but not above 3.50x", "2.00x or less", "60万元至300万元", "不满75周岁")
and the figures a question gives ("our leverage comes in at 3.0x"): which labelled range holds a question's figure.

Pure text: a range is two bounds with their inclusiveness and a unit (the unit as written after the number,
"x", "%", "万元", "周岁"); a figure falls in a range only when the units agree.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .lexicon import CJK_RANGE

_NUM = rf"(\d+(?:,\d{{3}})*(?:\.\d+)?)\s*(x|×|%|[A-Za-z]{{1,6}}\b|(?:(?![以及至到或和与的不])[{CJK_RANGE}]){{1,2}})?"
_N = re.compile(_NUM)

# bounds: (pattern, side, inclusive); the number is group 1, its unit group 2
_LOWER = [(_NUM + r"\s*(?:to|至|到)\s+(?=below|under|less)", True), (r"(?:greater|more) than\s+" + _NUM, False), (r"(?:above|over|exceeding)\s+" + _NUM, False),
          (r"at least\s+" + _NUM, True), (_NUM + r"\s*or (?:more|greater|above)", True),
          (r"超过\s*" + _NUM, False), (r"(?<!不)满\s*" + _NUM, True), (_NUM + r"\s*(?:（含）)?(?:及)?以上", True),
          (r"大于\s*" + _NUM, False), (r"不低于\s*" + _NUM, True)]
_UPPER = [(r"(?:not (?:above|more than|exceeding|over)|up to|at most)\s+" + _NUM, True),
          (r"(?:less|fewer) than\s+" + _NUM, False), (r"below\s+" + _NUM, False), (r"under\s+" + _NUM, False),
          (_NUM + r"\s*or (?:less|fewer|below)", True), (r"不(?:满|足)\s*" + _NUM, False),
          (r"不(?:超过|高于)\s*" + _NUM, True), (_NUM + r"\s*(?:（含）)?(?:及)?以下", True), (r"小于\s*" + _NUM, False)]
_BETWEEN = re.compile(_NUM + r"\s*(?:至|到|~|～|-|–|—|to)\s*" + _NUM)


@dataclass(frozen=True)
class Interval:
    lo: float
    lo_in: bool
    hi: float
    hi_in: bool
    unit: str

    def holds(self, value: float, unit: str) -> bool:
        u = _unit(unit)
        # a Chinese unit may have taken the character after it ("70岁了"): the range's unit must begin it
        if u != self.unit and not (self.unit and not self.unit.isascii() and u.startswith(self.unit)):
            return False
        above = value > self.lo or (self.lo_in and value == self.lo)
        below = value < self.hi or (self.hi_in and value == self.hi)
        return above and below


def _unit(u: str | None) -> str:
    u = (u or "").strip().lower()
    return {"×": "x", "times": "x", "周岁": "岁"}.get(u, u)


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def interval(label: str) -> Interval | None:
    """The range a label names, or None when it names none (a plain figure is not a range)."""
    text = label.strip()
    low = high = None
    for pattern, inclusive in _LOWER:
        if m := re.search(pattern, text, re.IGNORECASE):
            low = (_number(m.group(1)), inclusive, _unit(m.group(2)))
            break
    for pattern, inclusive in _UPPER:
        if m := re.search(pattern, text, re.IGNORECASE):
            high = (_number(m.group(1)), inclusive, _unit(m.group(2)))
            break
    if low is None and high is None:
        if m := _BETWEEN.search(text):
            a, ua, b, ub = _number(m.group(1)), _unit(m.group(2)), _number(m.group(3)), _unit(m.group(4))
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


def figures(question: str) -> list[tuple[float, str]]:
    """The figures a question gives, with the unit written after each ("3.0x", "97.5%", "62岁")."""
    return [(_number(m.group(1)), _unit(m.group(2))) for m in _N.finditer(question)]


def holding(labels: list[str], question: str) -> set[str] | None:
    """The labels whose range holds a figure the question gives, when some labels are ranges and some of them
    hold it and others do not; None otherwise (the question gives no figure, or it decides nothing)."""
    given = figures(question)
    if not given:  # before the labels are parsed: their patterns cost a compile the first time in a process
        return None
    ranges = {label: r for label in dict.fromkeys(labels) if (r := interval(label)) is not None}
    if len(ranges) < 2:
        return None
    hits = {label for label, r in ranges.items() if any(r.holds(v, u) for v, u in given)}
    return hits if hits and len(hits) < len(ranges) else None
