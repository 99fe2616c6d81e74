"""Times of day a question gives and periods of the day a document states (aegis_tui.text.clock)."""

import pytest

from aegis_tui.text.clock import holds, periods, times_given


@pytest.mark.parametrize("text, minutes", [
    ("我晚上十点半在市区路边拦了一辆出租车", (22 * 60 + 30,)),
    ("晚上11点半打车回家", (23 * 60 + 30,)),
    ("凌晨2点被叫去抢修", (120,)),
    ("下午3点15分到站", (15 * 60 + 15,)),
    ("中午1点吃饭", (13 * 60,)),
    ("半夜12点", (0,)),
    ("I got a call at 2am while on call", (120,)),
    ("by 10.30 p.m. at the latest", (22 * 60 + 30,)),
    ("the shift ends at 23:30", (23 * 60 + 30,)),
    ("just mornings, like 8 to noon", (12 * 60,)),
    # no part of the day: both readings
    ("加班到十一点", (11 * 60, 23 * 60)),
    # at night, the small hours are after midnight; 晚上 before a small hour may be either
    ("夜里两点", (120,)),
    ("晚上1点", (60, 13 * 60)),
    ("十二点一刻", (15, 12 * 60 + 15)),
    # the day as a whole is asked at noon
    ("白天每公里里程费最高能收多少？晚上十一点以后呢？", (12 * 60, 23 * 60)),
    ("How much is the daytime rate?", (12 * 60,)),
])
def test_times_a_question_gives(text, minutes):
    assert times_given(text) == minutes


@pytest.mark.parametrize("text", [
    "家里人均收入比低保线高出了一点点",   # a little, no time
    "孩子没成年是不是还能多给一点？",
    "停车3小时要交多少钱？",              # a duration
    "离法定退休还剩两年多一点",
    "What does a 24-month plan cost?",
    "第三点提到的材料",                    # numbered points
    "以下两点需要注意",
    "超过三点五公里的部分",                # a decimal
    "a membership of £10 pm",              # per month
    "the rate is 3.5% a year",
])
def test_no_time_of_day(text):
    assert times_given(text) == ()


@pytest.mark.parametrize("text, stated", [
    ("表2 夜间时段（22:00—次日5:00）运价标准", ((22 * 60, 5 * 60),)),
    ("夜间时段由原标准的23:00至次日5:00调整为22:00至次日5:00。", ((23 * 60, 300), (22 * 60, 300))),
    ("Business hours means 8:00 a.m. to 5:00 p.m., Monday through Friday", ((480, 1020),)),
    ("receives one or more calls between 23:00 and 06:00", ((23 * 60, 360),)),
    ("| Grade | Mon–Fri 07:00–20:00 | Mon–Fri 20:00–07:00 |", ((420, 1200), (1200, 420))),
    ("谷时段为每日22时至次日8时", ((22 * 60, 480),)),
    ("valid from 12:00 a.m. to 11:59 p.m.", ((0, 1439),)),
    ("00:00-24:00", ((0, 24 * 60),)),
    # an end read either way is read as the one making the shorter period
    ("8点到18点", ((480, 1080),)),
    ("下午2点到5点", ((840, 1020),)),
])
def test_periods_a_document_states(text, stated):
    assert periods(text) == stated


@pytest.mark.parametrize("text", [
    "自2025年1月1日起至2025年12月31日止",   # days, not times of day
    "Deposit £1,000–£1,500",
    "ratio 1:10 to 1:12",
    "Buses leave at 8am and 6pm",          # two times: "and" joins a period only after "between"
])
def test_no_period_of_the_day(text):
    assert periods(text) == ()


def test_a_period_past_midnight_holds_the_small_hours_and_the_late_evening():
    night = (22 * 60, 5 * 60)
    assert holds(night, 23 * 60 + 30) and holds(night, 120) and holds(night, 22 * 60)
    assert not holds(night, 5 * 60) and not holds(night, 12 * 60)
    day = (480, 1020)
    assert holds(day, 480) and not holds(day, 1020) and not holds(day, 120)


def test_a_run_of_spaces_beside_a_time_is_read_at_once():
    # (text laid out by pdftotext -layout: two optional prefixes each taking spaces had backtracked without end,
    # minutes for a few thousand spaces)
    text = " " * 3000 + "9pm" + " " * 3000 + "to 10pm" + " " * 3000
    assert periods(text + "x") == ((21 * 60, 22 * 60),)
    # (… nor a Chinese time after a run of spaces, read again from each of its places)
    assert times_given(" " * 20000 + "8") == () and times_given(" " * 20000 + "晚上 8点") == (20 * 60,)
