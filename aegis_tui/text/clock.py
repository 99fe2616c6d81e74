"""Times of day: those a question gives ("晚上十点半", "at 2am") and the periods a document states ("22:00—次日5:00",
"11pm to 7am"), in minutes after midnight; a period may run past midnight."""

from __future__ import annotations

import re
from functools import lru_cache

DAY = 24 * 60

_ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}


def _zh_number(text: str) -> int | None:
    """A number up to 59 as written in digits or Chinese numerals ("十一", "二十", "30")."""
    if text.isdigit():
        return int(text)
    if "十" in text:
        tens, _, ones = text.partition("十")
        t = _ZH_DIGITS.get(tens, None) if tens else 1
        o = _ZH_DIGITS.get(ones, None) if ones else 0
        return None if t is None or o is None else 10 * t + o
    return _ZH_DIGITS.get(text) if len(text) == 1 else None


_NUM_ZH = r"(?:\d{1,2}|[零〇一二两三四五六七八九十]{1,3})"
_NUMERAL_ZH = r"[零〇一二两三四五六七八九十\d]"
# the part of the day a Chinese time is in: after noon, at night (its small hours after midnight), or before noon
_PM_ZH = ("下午", "傍晚", "晚上", "夜里", "夜间", "深夜", "半夜", "夜晚", "晚间")
_NIGHT_ZH = ("夜里", "夜间", "深夜", "半夜", "夜晚", "晚间")
_AM_ZH = ("凌晨", "早上", "早晨", "清晨", "上午", "早", "次日")
_PARTS_ZH = "|".join(_PM_ZH + _AM_ZH + ("中午",))
# (not a numbered point, "第三点", "以下两点", "这两点", "几点"; nor a decimal, "三点五公里"; a unit after the hour makes
# it a duration, "3个小时"; spaces only after a part of the day, or a run of them is read again from each of its places)
_TIME_ZH = re.compile(rf"(?:(?P<part>{_PARTS_ZH})\s*)?(?<![第下列这那几])(?P<h>{_NUM_ZH})\s*(?:点(?!点)|时)"
                      rf"(?:\s*(?P<half>半)|\s*(?P<q>一刻|三刻)|\s*(?P<m>{_NUM_ZH})\s*(?:分|(?![公千米克元万亿个倍%％岁年月天次里斤])))?"
                      rf"(?!\s*(?:前|以前|之前)?\s*(?:个|小时|钟头))(?!{_NUMERAL_ZH})")
# (a one-digit hour on the quarter only: "1:10" and "1:12" are ratios)
_HHMM = re.compile(r"(?<![\d.:：])(?P<h>[01]\d|2[0-4]|\d(?=\s*[:：]\s*(?:00|15|30|45)))\s*[:：]\s*(?P<m>[0-5]\d)(?![\d.:：])"
                   r"(?!\s*(?:[ap]\.?m\b))", re.IGNORECASE)
# (not a sum per month, "£10 pm")
_AMPM = re.compile(r"(?<![\d.:£$€¥])(?P<h>1[0-2]|0?[1-9])(?:[:.](?P<m>[0-5]\d))?\s*(?P<x>[ap])\.?m\b\.?", re.IGNORECASE)
_NAMED_EN = re.compile(r"\b(?P<w>midnight|midday|noon)\b", re.IGNORECASE)
# the day as a whole, asked at noon: "白天每公里里程费", "during the day" (not a time of it: "白天8点")
_DAYTIME = re.compile(rf"(?:白天|日间)(?!\s*{_NUM_ZH}\s*(?:点|时))|\b(?:daytime|during the day)\b", re.IGNORECASE)


def _zh_time(m: re.Match) -> list[int]:
    h, part = _zh_number(m.group("h")), m.group("part") or ""
    minutes = 30 if m.group("half") else 15 if m.group("q") == "一刻" else 45 if m.group("q") else (
        _zh_number(m.group("m")) if m.group("m") else 0)
    if h is None or minutes is None or h > 24 or minutes > 59:
        return []
    if part in _NIGHT_ZH and (h == 12 or h <= 5):
        h = 0 if h == 12 else h  # (夜里两点, 半夜12点: the small hours)
    elif part == "晚上" and 1 <= h <= 4:
        return [h * 60 + minutes, (h + 12) * 60 + minutes]  # (晚上1点 may be either)
    elif part in _PM_ZH:
        if h < 12:
            h += 12
        elif h == 12:
            h = 0 if part != "下午" else 12
    elif part == "中午":
        h = h + 12 if h < 11 else h  # (中午1点 is 13:00, 中午11点半 before noon)
    elif part in _AM_ZH:
        h = 0 if h == 12 else h
    elif m.group("h") == "一" and not (m.group("half") or m.group("m") or m.group("q")):
        return []  # ("高出了一点", "多给一点": a little, no time)
    elif h <= 12:
        # (no part of the day: "11点" may be either)
        return sorted({(h % 12) * 60 + minutes, ((h % 12) + 12) * 60 + minutes})
    return [(h % 24) * 60 + minutes]


def _ampm(m: re.Match) -> int:
    h = int(m.group("h")) % 12 + (12 if m.group("x").lower() == "p" else 0)
    return h * 60 + int(m.group("m") or 0)


@lru_cache(maxsize=1024)
def times_given(text: str) -> tuple[int, ...]:
    """The times of day a text gives, in minutes after midnight: "晚上十点半" 1350, "at 2am" 120, "23:30" 1410; one
    with no part of the day, "11点", gives both readings; the day as a whole ("白天", "daytime") gives noon."""
    out: list[int] = []
    for m in _TIME_ZH.finditer(text):
        out += _zh_time(m)
    for m in _HHMM.finditer(text):
        out.append(int(m.group("h")) % 24 * 60 + int(m.group("m")))
    for m in _AMPM.finditer(text):
        out.append(_ampm(m))
    for m in _NAMED_EN.finditer(text):
        out.append(0 if m.group("w").lower() == "midnight" else 12 * 60)
    if _DAYTIME.search(text):
        out.append(12 * 60)
    return tuple(sorted(set(out)))


# (each optional prefix takes its own spaces: two "\s*" side by side backtrack without end on a run of spaces)
_POINT = (r"(?:(?:1[0-2]|0?[1-9])(?:[:.][0-5]\d)?\s*[ap]\.?m\.?|midnight|midday|noon"
          rf"|(?:(?:次日|翌日|第二天|当日)\s*)?(?:(?:{_PARTS_ZH})\s*)?{_NUM_ZH}\s*(?:点|时)(?:\s*半|\s*{_NUM_ZH}\s*分?)?"
          r"|(?:(?:次日|翌日|第二天|当日)\s*)?(?:[01]\d|2[0-4]|\d(?=\s*[:：]\s*(?:00|15|30|45)))\s*[:：]\s*[0-5]\d)")
_RANGE = re.compile(rf"(?<![\d.:：])(?P<between>between\s+|from\s+)?(?P<a>{_POINT})\s*"
                    rf"(?P<to>—|–|-|~|～|至|到|－|\bto\b|\band\b|until|till)\s*(?P<b>{_POINT})(?![\d:：])",
                    re.IGNORECASE)


def _readings(text: str) -> tuple[int, ...]:
    text = text.strip()
    if re.fullmatch(r"24\s*[:：]\s*00", text):
        return (DAY,)
    got = times_given(text)
    if len(got) > 1 and re.search(r"次日|翌日|第二天", text):
        return got[:1]  # ("次日5时": the morning)
    return got


@lru_cache(maxsize=4096)
def periods(text: str) -> tuple[tuple[int, int], ...]:
    """The periods of the day a text states ("22:00—次日5:00" (1320, 300), "8am to 6pm" (480, 1080), "下午2点到5点" (840,
    1020)), each as (start, end) in minutes after midnight; end before start runs past midnight. An end read either
    way is read as the one making the shorter period."""
    out = []
    for m in _RANGE.finditer(text):
        if m.group("to").lower() == "and" and not (m.group("between") or "").lower().startswith("between"):
            continue  # ("leave at 8am and 6pm": two times, no period)
        starts, ends = _readings(m.group("a")), _readings(m.group("b"))
        if not starts or not ends:
            continue
        a, b = min(((x, y) for x in starts for y in ends if x != y),
                   key=lambda p: ((p[1] - p[0]) % DAY, p), default=(None, None))
        if a is None:
            continue
        out.append((a % DAY, b if b == DAY else b % DAY))
    return tuple(out)


def holds(period: tuple[int, int], minute: int) -> bool:
    """Whether a time of day falls in a period (its start included, its end not)."""
    a, b = period
    return a <= minute < b if a < b else minute >= a or minute < b
