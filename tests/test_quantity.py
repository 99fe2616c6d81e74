"""Quantities: bilingual parsing, equality by normalised value and unit, and finding them in running text."""

import re
from decimal import Decimal

import pytest

from aegis_tui.samples import sample_path
from aegis_tui.text.quantity import (
    Quantity,
    chinese_to_decimal,
    find_quantities,
    parse_quantity,
    without_figures,
)

PARSE = [
    ("300元", "300", "CNY", "money"),  # Arabic + yuan
    ("20万元", "200000", "CNY", "money"),  # 万 multiplier
    ("1.2亿元", "120000000", "CNY", "money"),  # decimal + 亿
    ("200,000元", "200000", "CNY", "money"),  # thousands separator
    ("３００元", "300", "CNY", "money"),  # full-width digits
    ("一千五百元", "1500", "CNY", "money"),  # Chinese numerals
    ("两万元", "20000", "CNY", "money"),  # 两 as 2
    ("三百元", "300", "CNY", "money"),  # Chinese hundreds
    ("人民币300元", "300", "CNY", "money"),  # 人民币 prefix
    ("RMB 300", "300", "CNY", "money"),  # currency code prefix
    ("300 yuan", "300", "CNY", "money"),  # English yuan
    ("600美元", "600", "USD", "money"),  # US dollars in Chinese
    ("$250", "250", "USD", "money"),  # dollar sign
    ("$250.00", "250", "USD", "money"),  # trailing zeros
    ("USD 250", "250", "USD", "money"),  # ISO code prefix
    ("250 dollars", "250", "USD", "money"),  # word suffix
    ("$1.5 million", "1500000", "USD", "money"),  # English multiplier
    ("85%", "85", "%", "percent"),  # percent sign
    ("85％", "85", "%", "percent"),  # full-width percent
    ("百分之八十五", "85", "%", "percent"),  # Chinese percent
    ("千分之五", "0.5", "%", "percent"),  # parts in a thousand
    ("万分之三", "0.03", "%", "percent"),  # parts in ten thousand: a daily late charge
    ("85 percent", "85", "%", "percent"),  # English percent
    ("10个百分点", "10", "pp", "percentage_point"),  # Chinese percentage points
    ("3 percentage points", "3", "pp", "percentage_point"),  # English percentage points
    ("30天", "30", "day", "time"),  # days
    ("90日", "90", "day", "time"),  # 日 as days
    ("十五天", "15", "day", "time"),  # Chinese numeral days
    ("6个月", "6", "month", "time"),  # months
    ("5年", "5", "year", "time"),  # years (duration)
    ("20个工作日", "20", "working_day", "time"),  # working days are not days
    ("10 business days", "10", "working_day", "time"),  # English working days
    ("fourteen days", "14", "day", "time"),  # English number word
    ("60周岁", "60", "year_of_age", "age"),  # age
    ("65 years old", "65", "year_of_age", "age"),  # English age
    ("8-year-old", "8", "year_of_age", "age"),  # … written as one hyphenated word ("my 8-year-old")
    ("$0.67 per mile", "0.67", "USD/mile", "rate"),  # per-unit rate
    ("2元/公里", "2", "CNY/km", "rate"),  # slash rate
    ("3元/平方米·月", "3", "CNY/m2·month", "rate"),  # per two things: a fee standard per square metre per month
    ("80元/个·月", "80", "CNY/个·month", "rate"),  # … per parking space per month
    ("9.80元/平方米·采暖期", "9.80", "CNY/m2·采暖期", "rate"),  # … per heating season
    ("120元/人·天", "120", "CNY/person·day", "rate"),
    ("30元/次/人", "30", "CNY/times·person", "rate"),
    ("2倍", "2", "x", "ratio"),  # multiple
    ("2024年", "2024", "date_y", "date"),  # a year is a date, not a duration
    ("2024年1月1日", "20240101", "date_ymd", "date"),  # full date
    ("300", "300", "", "number"),  # bare number
    ("-300元", "-300", "CNY", "money"),  # sign (for plausibility checks)
]


@pytest.mark.parametrize("text,value,unit,dimension", PARSE)
def test_parse_quantity(text, value, unit, dimension):
    q = parse_quantity(text)
    assert q is not None, text
    assert (q.value, q.unit, q.dimension) == (Decimal(value), unit, dimension)


@pytest.mark.parametrize("text", [
    "第三条",  # article number
    "三级",  # hospital level, not an amount
    "元",  # unit alone
    "",  # empty
    "300元 and 400元",  # two quantities are not one
    "abc",  # no number
])
def test_not_a_quantity(text):
    assert parse_quantity(text) is None


@pytest.mark.parametrize("a,b,equal", [
    ("20万元", "200000元", True),  # multiplier vs digits
    ("20万元", "200,000元", True),  # separator
    ("$250", "$250.00", True),  # trailing zeros
    ("$250", "250 USD", True),  # sign vs code
    ("85%", "百分之八十五", True),  # zh vs symbol
    ("0.05%", "万分之五", True),  # a share of ten thousand as a percent
    ("2%", "2元", False),  # different units never equal
    ("2%", "2个百分点", False),  # percent vs percentage points
    ("300元", "$300", False),  # different currencies
    ("30天", "30个工作日", False),  # days vs working days
    ("5年", "2024年", False),  # duration vs date
])
def test_equality(a, b, equal):
    qa, qb = parse_quantity(a), parse_quantity(b)
    assert (qa == qb) is equal
    if equal:
        assert hash(qa) == hash(qb)


def test_quantity_eq_ignores_dimension_label_but_not_unit():
    assert Quantity(Decimal("1"), "CNY", "money") != Quantity(Decimal("1"), "USD", "money")
    assert {parse_quantity("20万元"), parse_quantity("200000元")} == {parse_quantity("200,000元")}


@pytest.mark.parametrize("text,value", [
    ("一千五百", 1500), ("两万", 20000), ("十五", 15), ("一千零五", 1005), ("二〇二四", 2024),
    ("一亿二千万", 120000000), ("百", 100),
])
def test_chinese_numerals(text, value):
    assert chinese_to_decimal(text) == value


@pytest.mark.parametrize("text,expected", [
    ("第三条 起付线为300元", ["300元"]),  # article number skipped
    ("（一）在一级及以下定点医疗机构住院的，报销比例为85%；", ["85%"]),  # list marker, 一级 skipped
    ("1. Purpose of the $250 cap", ["$250"]),  # line-start list marker
    ("see Section 4.2 and Article 5 for 30 days", ["30 days"]),  # section numbers skipped
    ("自2024年1月1日起施行，有效期5年", ["2024年1月1日", "5年"]),  # date and duration
    ("下一年度参保，统一年度，一次性", []),  # numerals inside words
    ("| 家庭总资产净值 | ______万元 |，每千元缴费", []),  # a multiplier alone is a unit: a form's blank, a rate's base
    ("单笔万元以上的，百岁及以上老人", ["万元", "百岁"]),  # … but an amount where it stands for one
    ("opens at 9:30, form A1, code H200", []),  # times and codes
    ("$250 per night in standard cities and $400 in high-cost cities", ["$250 per night", "$400"]),  # rate
    ("在职职工3000元、退休人员4000元", ["3000元", "4000元"]),  # enumeration
    ("报销比例为85%、70%和55%", ["85%", "70%", "55%"]),  # list of percents
    ("年满60周岁的，每人每年380元", ["60周岁", "380元"]),  # age and money
    ("In 2024 the policy changed", ["2024"]),  # a bare year is reported as a date
    # minutes are a period, and what a rate is per ("29" alone had read as a bare number)
    ("a grace period of 29 minutes; $1.00 per minute after", ["29 minutes", "$1.00 per minute"]),
    ("停热时间每次不得超过30分钟", ["30分钟"]),
])
def test_find_quantities(text, expected):
    found = find_quantities(text)
    assert [m.text for m in found] == expected
    for m in found:
        assert text[m.start:m.end] == m.text
    assert all(a.end <= b.start for a, b in zip(found, found[1:]))  # non-overlapping, left to right


def test_find_quantities_year_dimension_is_date():
    assert [m.quantity.dimension for m in find_quantities("2024年度缴费380元")] == ["date", "money"]


def test_find_quantities_offsets_with_full_width_text():
    text = "起付线为３００元，比例８５％"
    found = find_quantities(text)
    assert [m.text for m in found] == ["３００元", "８５％"]
    assert found[0].quantity == parse_quantity("300元")


def test_find_quantities_on_new_texts_finds_the_same():
    # a new text each time: only per-candidate parses are cached (`aegis bench verify` times the scan)
    text = sample_path("policy_zh").read_text(encoding="utf-8")
    first = [m.text for m in find_quantities(text)]
    assert len(first) > 40
    assert all([m.text for m in find_quantities(text + " " * i)] == first for i in range(1, 4))


from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@given(st.integers(min_value=0, max_value=10**12))
def test_separators_and_multipliers_never_change_the_amount(n):
    q = parse_quantity(f"{n}元")
    assert parse_quantity(f"{n:,}元") == q
    assert q.value == n and q.unit == "CNY"
    if n % 10000 == 0:
        assert parse_quantity(f"{n // 10000}万元") == q
    found = find_quantities(f"补助金额为{n:,}元，按年支付。")
    assert [m.quantity for m in found] == [q]


@given(st.decimals(min_value=0, max_value=10**6, places=2, allow_nan=False, allow_infinity=False))
def test_dollar_amounts_equal_their_code_form(d):
    assert parse_quantity(f"${d}") == parse_quantity(f"{d} USD") != parse_quantity(f"{d}元")


def test_a_period_per_occasion_is_the_period():
    # "31 days per trip": no rate the grammar reads, and not to be lost (the number was read as an identifier)
    assert [(q.text, q.quantity.dimension) for q in find_quantities("up to 31 days per trip for persons aged 64")] \
        == [("31 days", "time"), ("64", "number")]
    assert [q.text for q in find_quantities("$50 per day, up to $1,500")] == ["$50 per day", "$1,500"]


@pytest.mark.parametrize("text, value, unit, dim", [
    ("30平方米", "30", "m2", "area"), ("60 square meters", "60", "m2", "area"), ("1,500 sq ft", "1500", "ft2", "area"),
    ("3亩", "3", "mu", "area"), ("5公斤", "5", "kg", "weight"), ("20 CCF", "20", "ccf", "volume"),
    ("10 kWh", "10", "kwh", "energy"), ("$5.64 per CCF", "5.64", "USD/ccf", "rate"), ("1.2元/平方米", "1.2", "CNY/m2", "rate"),
])
def test_physical_measures_have_units_and_dimensions_of_their_own(text, value, unit, dim):
    [m] = find_quantities(f"面积 {text} 以内" if not text.isascii() else f"up to {text} a month")
    assert (m.text, m.quantity.value, m.quantity.unit, m.quantity.dimension) == (text, Decimal(value), unit, dim)


def test_without_figures_blanks_each_figure_and_its_bound_words():
    assert without_figures("Fine after 30 days") == "Fine after  "
    assert without_figures("每人每月1,080元，另加50元") == "每人每月 ，另加 "
    bound = re.compile(r"\b(?:after|within)\s*$|满\s*$"), re.compile(r"^\s*(?:后|内)")
    assert without_figures("Fine after 30 days", *bound).split() == ["Fine"]
    assert without_figures("满30天后补助", *bound).strip() == "补助"
    assert without_figures("no figures here") == "no figures here"


def test_a_share_of_a_larger_number_is_no_share_of_a_thousand():
    # "三千分之一" is one in three thousand: no "千分之一" inside it
    assert [m.text for m in find_quantities("按日加收万分之五的滞纳金")] == ["万分之五"]
    assert find_quantities("概率为三千分之一") == []


def test_a_rate_per_two_things_is_found_whole():
    # "物业服务费为2.35元/平方米·月": the figure is per square metre per month, not 2.35元/平方米 and a stray ·月
    assert [m.text for m in find_quantities("物业服务费为2.35元/平方米·月，车位服务费80元/个·月。")] == \
        ["2.35元/平方米·月", "80元/个·月"]
    assert parse_quantity("2.35元/平方米·月") != parse_quantity("2.35元/平方米")
