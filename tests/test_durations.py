"""A question's durations and firsts read as the document writes them (text/durations.py)."""

from __future__ import annotations

import pytest

from aegis_tui.text.durations import as_document_writes

_PARKING_ZH = ("| 区域类别 | 白天首小时 | 白天首小时后每30分钟 |\n|---|---|---|\n| 一类区域 | 10元 | 4元 |\n\n"
               "注：白天首小时后不足30分钟的，按30分钟计收；路外停车场不足30分钟按半小时计。连续停放满6个月的，"
               "可办理包月；满18个月的，首次续期优惠。")
_PARKING_EN = ("The first 30 minutes are free. After that, each 30 minutes costs £1.20, up to 2 hours. A stay of "
               "90 minutes costs £2.40. Permits run for 12 months.")


@pytest.mark.parametrize("question, read", [
    # a half the document writes in minutes or months
    ("后面每半小时又收多少？", "后面每30分钟又收多少？"),
    ("包月要连续停满半年吗？", "包月要连续停满6个月吗？"),
    ("停了一年半，续期有优惠吗？", "停了18个月，续期有优惠吗？"),
    # a first the document writes with 首
    ("第一个小时收多少？", "首小时收多少？"),
    ("头一次续期有优惠吗？", "首次续期有优惠吗？"),
    # what the document writes as the question does, or not at all, stays
    ("白天首小时收多少？", "白天首小时收多少？"),
    ("停了两个半小时", "停了两个半小时"),
    ("一刻钟以内收费吗？", "一刻钟以内收费吗？"),
    # one of a unit is the period a rule counts by
    ("一年最多收多少？", "一年最多收多少？"),
    ("第三个小时收多少？", "第三个小时收多少？"),
])
def test_a_chinese_duration_or_first_is_read_as_the_document_writes_it(question, read):
    assert as_document_writes(question, _PARKING_ZH) == read


@pytest.mark.parametrize("question, read", [
    ("I stayed half an hour. Do I pay?", "I stayed 30 minutes. Do I pay?"),
    ("What does an hour and a half cost?", "What does 90 minutes cost?"),
    ("Can I park for two hours?", "Can I park for 2 hours?"),
    # one of a unit is a period, not a length to write anew
    ("How much is a permit a year?", "How much is a permit a year?"),
    # never in another language's writing
    ("半小时收多少？", "半小时收多少？"),
])
def test_an_english_duration_is_read_as_the_document_writes_it(question, read):
    assert as_document_writes(question, _PARKING_EN) == read


def test_a_writing_the_document_uses_as_often_stays():
    text = "不足30分钟按半小时计。"
    assert as_document_writes("每半小时收多少？", text) == "每半小时收多少？"
    assert as_document_writes("每半小时收多少？", text + "每30分钟4元。") == "每30分钟收多少？"


@pytest.mark.parametrize("question", [
    "半年卡多少钱？",          # the document's word holds the spoken half
    "3月5日停的车", "三月五日停的车",  # dates
    "孩子满三周岁了", "入园两周年", "上半年", "大半年没来", "三年级的孩子",  # ages, anniversaries, parts of a year
    "两三天", "七八个小时",        # spans
    "三天两头", "等了半天",        # idioms
    "30天冷静期内能退吗？",       # figures already: a day is no month's thirtieth
    "twenty-four hours", "Open 24 hours a day?",
])
def test_what_is_no_spoken_duration_of_the_document_stays(question):
    text = ("| 半年卡 | 900元 | 6个月 |\n6个月内有效，满3个月可退。冷静期30天，试用期1个月。每月5日前缴费，宽限5天，"
            "3周岁以下免费，14天内，12小时内，72小时内，4 hours, 1 day.")
    assert as_document_writes(question, text) == question


def test_a_spoken_number_is_written_in_figures_in_its_own_unit():
    text = "满3个月可退，6个月内有效；3天内答复。Notice of 6 months; 14 days to cancel."
    assert as_document_writes("交了三个月以后能退吗？", text) == "交了3个月以后能退吗？"
    assert as_document_writes("six months' notice", text) == "6 months' notice"
    # (a day count in another unit is no writing of it: "三天" stays where only "72小时" is written)
    assert as_document_writes("三天内", "72小时内答复。") == "三天内"


def test_what_a_thing_has_not_is_written_with_fei_where_the_document_does():
    text = "| 线路类别 | 原标准 |\n|---|---|\n| 普通线路（非空调车） | 1元/人次 |\n"
    assert as_document_writes("没有空调的普通公交车坐一次多少钱？", text) == "非空调的普通公交车坐一次多少钱？"
    # (not where the document writes no 非 form, nor where it writes the question's own words)
    assert as_document_writes("没有工作的人怎么办？", text) == "没有工作的人怎么办？"
    assert as_document_writes("没有空调的车", text + "没有空调的车不收费。") == "没有空调的车"
