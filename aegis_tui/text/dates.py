"""Calendar dates in Chinese and English text, and the periods a phrase bounds by them.

A rule that replaces another is in force from a date; a table, a column or an appendix may hold the figures of one
period ("| 原办法（执行至2024年12月31日） |", "Appendix B — prices for permits starting before 1 April 2025"); a question
may give the date of its case ("2025年1月去成都出差", "a policy bought in January 2025"). Each date stands for the days
it names: "2024年11月" for 1–30 November 2024, "1 March 2025" for one day, "2025年" for the year.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

_MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
_MONTHS.update({m.lower(): i for i, m in enumerate(calendar.month_abbr) if m})
_MONTH = r"(?P<{}>" + "|".join(sorted((m for m in _MONTHS if len(m) > 3 or m == "may"), key=len, reverse=True)) \
    + r"|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?"
_ORD = r"(?:st|nd|rd|th)?"
DATE = re.compile(
    r"(?P<zy>\d{4})\s*年\s*(?:(?P<zm>\d{1,2})\s*月\s*(?:(?P<zd>\d{1,2})\s*[日号])?)?(?![度版])"
    r"|(?P<iy>\d{4})-(?P<im>\d{1,2})-(?P<id>\d{1,2})\b"
    rf"|\b(?P<ed>\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MONTH.format('em')}\s+(?P<ey>\d{{4}})\b"
    rf"|\b{_MONTH.format('am')}\s+(?P<ad>\d{{1,2}}){_ORD},?\s+(?P<ay>\d{{4}})\b"
    rf"|\b{_MONTH.format('bm')}\s+(?P<by>\d{{4}})\b"
    # (a year alone, as English says one: "back in 2024", "in 2025"; not a year span, "in 2024/25")
    r"|(?<=\bin )(?P<ny>(?:19|20)\d\d)(?![\d/–—-]|\s*[-–—/]\s*\d|s\b|\s*年)",
    re.IGNORECASE)


@dataclass(frozen=True)
class Dated:
    """A date in a text: where it stands and the first and last day it names."""

    start: int
    end: int
    first: date
    last: date


def _days(year: int, month: int | None, day: int | None) -> tuple[date, date] | None:
    try:
        if month is None:
            return date(year, 1, 1), date(year, 12, 31)
        if day is None:
            return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])
        return date(year, month, day), date(year, month, day)
    except ValueError:
        return None


def find_dates(text: str) -> list[Dated]:
    """The calendar dates a text states, in order ("2024年11月", "1 March 2025", "2025-03-01", "January 2025", "in
    2024")."""
    found = []
    for m in DATE.finditer(text):
        g = m.groupdict()
        if g["zy"]:
            y, mo, d = int(g["zy"]), g["zm"] and int(g["zm"]), g["zd"] and int(g["zd"])
        elif g["ny"]:
            y, mo, d = int(g["ny"]), None, None
        elif g["iy"]:
            y, mo, d = int(g["iy"]), int(g["im"]), int(g["id"])
        else:
            word = next(g[k] for k in ("em", "am", "bm") if g[k])
            y = int(g["ey"] or g["ay"] or g["by"])
            mo, d = _MONTHS[word.lower().rstrip(".")], g["ed"] or g["ad"]
            d = d and int(d)
        if not 1900 <= y <= 2200 or (days := _days(y, mo or None, d or None)) is None:
            continue
        found.append(Dated(m.start(), m.end(), *days))
    return found


# what bounds a period at a date: "执行至2024年12月31日", "2025年3月1日前", "before 1 April 2025", "until 31 March 2025";
# "自2025年1月1日起", "2025年3月1日（含）以后", "适用于2025年6月及以前的发放月份", "from 1 April 2025", "on or after 1 March 2025"; "1 April 2023 – 31 March 2025"
_UNTIL_BEFORE = re.compile(r"(?:执行至|截至|截止|适用至|有效期至|^至|\b(?:until|till|up\s+to(?:\s+and\s+including)?|to|through|"
                           r"ending|ended|expiring)\s*)$", re.IGNORECASE)
_BEFORE_BEFORE = re.compile(r"\b(?:before|prior\s+to)\s*$", re.IGNORECASE)
_UNTIL_AFTER = re.compile(r"^\s*(?:（含）|\(含\))?\s*(?:及|和)?(?:以前|之前|止|为止)")
_BEFORE_AFTER = re.compile(r"^\s*前")
_FROM_BEFORE = re.compile(r"(?:自|从|于|\b(?:from|since|starting|commencing|effective|on\s+(?:or|and)\s+after|beginning)\s*)$",
                          re.IGNORECASE)
_AFTER_BEFORE = re.compile(r"\bafter\s*$", re.IGNORECASE)
_FROM_AFTER = re.compile(r"^\s*(?:（含）|\(含\))?\s*(?:及|和)?(?:起|以后|之后|开始|后)")
_SPAN = re.compile(r"^\s*(?:至|到|—|–|-|~|～|\bto\b|\buntil\b|\band\b)\s*$", re.IGNORECASE)


# the words binding a date to what it bounds, before it ("until", "from", "执行至", "自") or after it ("起", "及以前")
_BOUND_BEFORE = re.compile(r"(?:执行至|截至|截止|适用至|有效期至|至|自|从|于|\b(?:until|till|up\s+to(?:\s+and\s+including)?|to|"
                           r"through|ending|ended|expiring|from|since|starting|commencing|effective|on\s+(?:or|and)\s+after|"
                           r"beginning|before|prior\s+to|after))\s*$", re.IGNORECASE)
_BOUND_AFTER = re.compile(r"^\s*(?:（含）|\(含\))?\s*(?:及|和)?(?:以前|之前|为止|止|前|起|以后|之后|开始|后)")


def undated(text: str) -> str:
    """A phrase without the dates it bounds a period by, and the words binding them ("Band to 30 September 2025" and
    "Band from 1 October 2025": "Band"; "2025年7月1日起类别": "类别"), its spaces single."""
    out = text
    for d in reversed(find_dates(text)):
        before, after = out[:d.start], out[d.end:]
        while m := _BOUND_BEFORE.search(before):  # (a run of them: "Band effective from 1 October 2025")
            before = before[:m.start()]
        after = after[m.end():] if (m := _BOUND_AFTER.match(after)) else after
        out = f"{before} {after}"
    out = re.sub(r"\s+([）)])", r"\1", re.sub(r"\s+", " ", re.sub(r"[（(]\s*[）)]", "", out)))
    return out.strip(" ,;:—–-")


def period(text: str) -> tuple[date | None, date | None] | None:
    """The period a phrase bounds by dates (a header, a caption, a heading): its first and last day, None where it is
    open; None when the phrase bounds none ("2025年度", a date of issue). A date range is both ends; "before 1 April
    2025" ends on 31 March 2025."""
    dated = find_dates(text)
    first: date | None = None
    last: date | None = None
    for i, d in enumerate(dated):
        before, after = text[max(0, d.start - 24):d.start], text[d.end:d.end + 8]
        if i + 1 < len(dated) and _SPAN.match(text[d.end:dated[i + 1].start]):
            first, last = d.first, dated[i + 1].last
            break
        if _BEFORE_BEFORE.search(before) or _BEFORE_AFTER.match(after):
            last = d.first - timedelta(days=1)
        elif _UNTIL_BEFORE.search(before) or _UNTIL_AFTER.match(after):
            last = d.last
        elif _FROM_BEFORE.search(before) or _FROM_AFTER.match(after):
            first = d.first
        elif _AFTER_BEFORE.search(before):
            first = d.last + timedelta(days=1)
    if first is None and last is None:
        return None
    return first, last
