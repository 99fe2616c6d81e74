"""Number roles: values vs section/article/list numbers, dates, versions, phones and identifiers; header units."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aegis_tui.text.document import Document
from aegis_tui.text.roles import Role, header_unit, number_roles, role_at, values_in

DOCS = Path(__file__).with_name("docs")


def role_of(text: str, number: str, nth: int = 0):
    d = Document.from_text(text)
    start = -1
    for _ in range(nth + 1):
        start = d.text.index(number, start + 1)
    r = role_at(d, start, start + len(number))
    assert r is not None, f"no number at {number!r}"
    return r


@pytest.mark.parametrize("text, number, role", [
    # section, article and list numbers
    ("6.2 Business meals\nClients are hosted at $80 per head.", "6.2", Role.SECTION),
    # a run-in item's number after a colon or a semicolon ("注：1.家庭人口…；2.家庭总资产净值…"), not a decimal or a count
    ("注：1.家庭人口按规定确定；2.家庭总资产净值扣除负债。", "2", Role.SECTION),
    ("注：1.家庭人口按规定确定；2.家庭总资产净值扣除负债。", "1", Role.SECTION),
    ("倍数为1.5倍；共2、3个。", "1.5倍", Role.VALUE),
    ("家庭总资产净值符合附件1规定的准入标准。", "1", Role.SECTION),  # an appendix's number
    # the number of a question the document poses and answers ("问4：…？", "问题3："), no count
    ("问4：同一种病，在不同医院报销比例一样吗？\n答：不一样。", "4", Role.SECTION),
    ("问题3：能报几次？\n答：一次。", "3", Role.SECTION),
    ("询问4次均无人应答的，视为放弃。", "4次", Role.VALUE),
    ("4. Lodging\nRooms cost $200 per night.", "4", Role.SECTION),
    ("## 3 Scope\nAll staff.", "3", Role.SECTION),
    ("As set out in 6.2, meals are capped.\n\n6.2 Meals\nText.", "6.2", Role.SECTION),
    ("第十二条　特困人员住院的，起付线降低50%。", "第十二条", Role.SECTION),
    # a number that names a class, a severity or a category, alone or in a list, is no amount
    ("Benefits for Class 4 employees are capped at $650.", "4", Role.IDENTIFIER),
    ("LTD for Classes 2 and 3 is capped at $8,500.", "3", Role.IDENTIFIER),
    ("Severity 1 incidents get a reply within 15 minutes.", "1", Role.IDENTIFIER),
    ("Tiers 1 to 3 pay a fee.", "3", Role.SECTION),
    ("依照第十一条之一执行。", "第十一条之一", Role.SECTION),
    ("（三）在三级医疗机构住院的，报销比例为55%。", "（三）", Role.SECTION),
    ("一、总体要求", "一、", Role.SECTION),
    ("See section 4 for lodging.", "4", Role.SECTION),
    ("Claims follow Article 9 of the rules.", "9", Role.SECTION),
    ("(2) Taxis are capped at $45.", "2", Role.SECTION),
    ("按3级标准执行。", "3", Role.SECTION),
    # a page reference in a table of contents
    ("Contents\n4. Lodging ........ 12\n5. Meals …… 14", "12", Role.SECTION),
    ("Contents\n4. Lodging ........ 12\n5. Meals …… 14", "14", Role.SECTION),
    # dates, years and times
    ("Effective January 1, 2024, the cap rises.", "January 1, 2024", Role.DATE),
    ("Effective 1 March 2025 for all staff.", "1 March 2025", Role.DATE),
    ("Filed on 2025-01-15 by finance.", "2025-01-15", Role.DATE),
    ("Valid from 03/15/2026 onward.", "03/15/2026", Role.DATE),
    ("本办法自2024年1月1日起施行。", "2024年1月1日", Role.DATE),
    ("2024年度个人缴费标准为380元。", "2024年", Role.DATE),
    ("The 2024 budget was approved.", "2024", Role.DATE),
    ("The desk opens at 9:30 each day.", "9:30", Role.DATE),
    # versions and document codes
    ("Policy FIN-07 governs travel.", "FIN-07", Role.VERSION),
    ("This is handbook v2.1 of the rules.", "v2.1", Role.VERSION),
    ("Revised in version 3.2 of the guide.", "version 3.2", Role.VERSION),
    ("文件编号HR-2025-07，自2025年4月1日起施行。", "HR-2025-07", Role.VERSION),
    ("版本V2.0发布。", "V2.0", Role.VERSION),
    ("于2025-03-01起执行。", "2025-03-01", Role.DATE),
    # phone numbers and extensions
    ("Call 555-201-4477 for help.", "555-201-4477", Role.PHONE),
    ("Call (555) 201-4477 for help.", "(555) 201-4477", Role.PHONE),
    ("Reach us at extension 204 anytime.", "extension 204", Role.PHONE),
    ("咨询电话：0571-86001234。", "0571-86001234", Role.PHONE),
    ("服务热线 96123456 全天开通。", "96123456", Role.PHONE),
    ("联系手机13812345678。", "13812345678", Role.PHONE),
    ("Call the expense desk on 555-0142 between 9 and 5.", "555-0142", Role.PHONE),
    ("总机0571-86001234转8001。", "转8001", Role.PHONE),
    # identifiers and codes
    ("Refer to claim No. 48213 for details.", "48213", Role.IDENTIFIER),
    ("依据滨医保发〔2025〕17号文件执行。", "〔2025〕17号", Role.IDENTIFIER),
    ("Runs on H200 nodes.", "200", Role.IDENTIFIER),
    ("Suppliers hold ISO 9001 certificates.", "9001", Role.IDENTIFIER),
    ("执行GB/T 19001标准。", "19001", Role.IDENTIFIER),
    ("Attach Form 1040 to the claim.", "1040", Role.IDENTIFIER),
    ("Extended Replacement Cost (endorsement HM 04 20): up to 25% more.", "20", Role.IDENTIFIER),  # a form's code
    ("Scheduled on endorsement HM 04 61.", "04", Role.IDENTIFIER),
    ("Tier 3 members pay 40 per visit.", "40", Role.VALUE),  # a series member's number is no code before a value
    ("每年1月起调整。", "1", Role.DATE),
    ("The 2024-2025 budget year.", "2024", Role.DATE),
    # values
    ("Hotels are capped at $250 per night.", "$250 per night", Role.VALUE),
    ("起付线为300元。", "300元", Role.VALUE),
    ("报销比例为百分之八十五。", "百分之八十五", Role.VALUE),
    ("年度最高支付限额为二十万元。", "二十万元", Role.VALUE),
    ("Reports are due within 14 days.", "14 days", Role.VALUE),
    ("1.5 times the base rate applies on holidays.", "1.5 times", Role.VALUE),
    # a clause's number opening its line, the sentence's first word capitalised after it, is no period of days
    ("9.4 Days of temporary housing must be used in one continuous period.", "9.4", Role.SECTION),
])
def test_roles(text, number, role):
    r = role_of(text, number)
    assert (r.text, r.role) == (number, role)
    assert (r.quantity is not None) == (role is Role.VALUE) or role is Role.DATE


@pytest.mark.parametrize("header, unit", [
    ("省内（元/人）", "元/人"),
    ("Maximum Nightly Rate ($)", "$"),
    ("报销比例（%）", "%"),
    ("金额（万元）", "万元"),
    ("Mileage ($/mile)", "$/mile"),
    ("Waiting period (days)", "days"),
    ("Limit (see note 3)", None),
    ("Meal", None),
    ("伙食补助（元/人·天）", "元/人·天"),       # a rate per two things: per person per day
    ("市内交通补助（元/人/天）", "元/人/天"),
    ("基本热价（元/平方米·采暖期）", "元/平方米·采暖期"),  # … per square metre per heating season
    ("每人每晚住宿费限额如下（单位：元）：", "元"),  # a caption naming its unit as such
    ("表1 证书补贴标准（单位：元/证）", "元"),  # an amount per a thing no unit names (each certificate's) is that amount
])
def test_header_unit(header, unit):
    assert header_unit(header) == unit


@pytest.mark.parametrize("table, cell, quantity, unit_from", [
    # the unit sits in the column header
    ("| 职工类别 | 省内（元/人） | 省外（元/人） |\n| --- | --- | --- |\n| 一线职工 | 1800 | 2600 |", "2600",
     "2600 CNY/person", "column header"),
    ("| City tier | Maximum Nightly Rate ($) |\n| --- | --- |\n| Coastal hub | 210 |", "210", "210 USD",
     "column header"),
    # a cell that reads like a year is an amount when its header gives a unit
    ("| 类别 | 补助（元） |\n| --- | --- |\n| 剖宫产 | 2000 |", "2000", "2000 CNY", "column header"),
    # the unit in the row header
    ("| Item | Value |\n| --- | --- |\n| Mileage ($/mile) | 0.61 |", "0.61", "0.61 USD/mile", "row header"),
    # a 单位 line above the table
    ("单位：元\n\n| 项目 | 标准 |\n| --- | --- |\n| 门诊 | 350 |", "350", "350 CNY", "table caption"),
    # … in parentheses, a rate per two things ("（单位：元/平方米·采暖期）" had been too long to read)
    ("（单位：元/平方米·采暖期）\n\n| 区域 | 居民用户 |\n| --- | --- |\n| 一类区域 | 24.50 |", "24.50",
     "24.5 CNY/m2·采暖期", "table caption"),
    # the cell's own unit wins over the header
    ("| Meal | Limit (USD) |\n| --- | --- |\n| Lunch | 45 euros |", "45 euros", "45 EUR", ""),
])
def test_header_units(table, cell, quantity, unit_from):
    r = role_of(table, cell)
    assert (r.role, str(r.quantity), r.unit_from) == (Role.VALUE, quantity, unit_from)


def test_numbering_column_is_not_a_value():
    text = "| 序号 | 类别 | 标准（元） |\n| --- | --- | --- |\n| 1 | 门诊 | 300 |\n| 2 | 住院 | 900 |"
    assert role_of(text, "2", 0).role is Role.SECTION
    assert str(role_of(text, "900").quantity) == "900 CNY"


def test_documents_values_only_where_amounts_stand():
    d = Document.load(DOCS / "expense_en.md")
    roles = number_roles(d)
    assert roles == sorted(roles, key=lambda r: r.start)
    assert all(d.text[r.start:r.end] == r.text for r in roles)
    not_values = {r.text for r in roles if r.role is not Role.VALUE}
    assert {"v2.1", "March 3, 2025", "555-201-4477", "ext. 318", "6.1", "6.2", "EXP-12"} <= not_values
    meals = d.text.index("A day trip")
    assert [r.text for r in values_in(d, meals, d.text.index("\n", meals))] == ["$62/day", "$12", "$19", "$31"]
    z = Document.load(DOCS / "medical_zh.md")
    assert {r.text for r in number_roles(z) if r.role is Role.VALUE} == {
        "600元", "80%", "5000元", "7000元", "400元", "700元", "1100元", "94%", "800元", "72%", "1800", "2600", "1500",
        "2100"}


def test_a_range_is_no_phone_number_without_a_phone_word():
    assert role_of("Trips of 100-1000 miles are pooled.", "1000 miles").role is Role.VALUE
    assert role_of("Trips of 100-1000 miles are pooled.", "100").role is not Role.PHONE


def test_role_at_outside_numbers_is_none():
    d = Document.from_text("No numbers here, only words.")
    assert role_at(d, 0, 5) is None and values_in(d, 0, len(d.text)) == []


_PIECES = st.sampled_from([
    "$250", "300元", "85%", "第十二条", "（一）", "6.2 Meals", "4.", "v2.1", "FIN-07", "555-201-4477", "ext. 12",
    "January 1, 2024", "2024年1月1日", "| a | 1800 |", "| --- | --- |", "| 类别 | 省内（元/人） |", "单位：元", "电话",
    "........ 12", "9:30", "〔2025〕17号", "1,000", "二十万元", "百分之八十", " ", "\n", "\n\n", "|", "Call ",
])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(_PIECES, st.text(max_size=8)), min_size=1, max_size=20))
def test_roles_never_crash_and_never_overlap(pieces):
    text = "".join(pieces)
    if not text.strip():
        return
    d = Document(text)  # the raw text, control characters and all (from_text would refuse some)
    roles = number_roles(d)
    for a, b in zip(roles, roles[1:]):
        assert a.end <= b.start
    for r in roles:
        assert d.text[r.start:r.end] == r.text and (r.quantity is not None or r.role is not Role.VALUE)
