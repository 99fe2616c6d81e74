"""Classes a document places by a side of a boundary, periods however worded, "66+" as a range, nested column headers,
and a question asking for the most shortlisted by the words a document gives it — pure: no model is called."""

from __future__ import annotations

import pytest
from test_cover import choose_noting_skips, structured

from aegis_tui.answer.pick import _stemmed, bounded_by, defined_by_boundary, defined_by_members, implied_names
from aegis_tui.answer.relevance import asked_dimensions, enumerate_candidates
from aegis_tui.answer.structural import identifies
from aegis_tui.text.document import Document
from aegis_tui.text.entities import paired_units
from aegis_tui.text.ranges import intervals, meets

_ZONES_ZH = ("# 停车收费办法\n\n第六条 停车收费区域划分为一类区域、二类区域和三类区域：\n\n"
             "- 一类区域：澄江区环城路以内区域，以及青澜火车站、望湖商圈；\n"
             "- 二类区域：一类区域以外、二环路（含）以内区域，以及高铁东站；\n"
             "- 三类区域：二环路以外的中心城区其他区域。\n\n"
             "表1 路内泊位收费标准\n\n| 区域类别 | 白天首小时 | 白天首小时后每30分钟 | 单日封顶 |\n|---|---|---|---|\n"
             "| 一类区域 | 10元 | 4元 | 80元 |\n| 二类区域 | 6元 | 3元 | 50元 |\n| 三类区域 | 4元 | 2元 | 30元 |\n\n"
             "第十条 本次调整前，一类区域白天首小时8元。停车场应当公示收费标准。车辆驶离后7日内缴费。\n")


def test_a_list_of_groups_defines_each_by_the_side_of_its_boundary():
    doc = Document.from_text(_ZONES_ZH, "parking.md")
    # (a boundary that is another of the names, "一类区域以外", places nothing; a place before the road is no part of it)
    assert defined_by_boundary(doc) == {"一类区域": [("环城路", True)], "二类区域": [("二环路", True)],
                                        "三类区域": [("二环路", False)]}
    # (a comma before 以及 parts no member: the list still names 一类区域's members)
    assert {"青澜火车站", "望湖商圈"} <= defined_by_members(doc)["一类区域"]


@pytest.mark.parametrize("question, implied", [
    ("我把车停在环城路里面的马路边，首小时收多少？", {"一类区域"}),
    ("我在二环外上班，一天最多收多少？", {"三类区域"}),                    # 二环 is 二环路 named short
    ("我住在二环路以内、但不在环城路里面的地方，首小时收多少？", {"二类区域"}),  # not inside 环城路: outside it
    ("我在环城路里面，也在二环以内，首小时收多少？", set()),                 # on two names' sides: none
    ("停车场要公示什么？", set()),
])
def test_a_question_placing_its_case_on_a_side_of_a_boundary_implies_the_name_there(question, implied):
    doc = Document.from_text(_ZONES_ZH, "parking.md")
    assert set(bounded_by(question, doc)) == implied
    got, others = implied_names(question, doc)
    assert got == implied and (not implied or others == {"一类区域", "二类区域", "三类区域"} - implied)


def test_one_name_by_a_side_is_no_classification():
    doc = Document.from_text("# 办法\n\n- 处理结果：除死亡以外的情形，按本办法处理；\n- 申请材料：身份证。\n", "x.md")
    assert defined_by_boundary(doc) == {}


def test_nested_headers_are_set_apart_by_the_longer_one_s_own_words():
    headers = ["白天首小时", "白天首小时后每30分钟", "单日封顶"]
    first, then = "首小时收多少", "后面每30分钟又收多少"
    assert [h for h in headers if identifies(first, h, headers, derived=True, elsewhere=then)] == ["白天首小时"]
    assert [h for h in headers if identifies(then, h, headers, derived=True, elsewhere=first)] \
        == ["白天首小时后每30分钟"]
    # (only where another part asks by the longer one's own words: "白天停两个小时多少钱" picks neither)
    assert not [h for h in headers if identifies("白天停两个小时多少钱", h, headers, derived=True)]
    # (naming nothing of the shorter header picks it by no other's absence)
    assert not identifies("夜里怎么收", "白天首小时", headers[:2], derived=True)


def test_a_part_answered_by_another_part_s_fact_gets_its_own():
    doc, index = structured(_ZONES_ZH, "parking.md")
    got, _ = choose_noting_skips("我把车停在环城路里面的马路边，停了两个半小时。第一个小时收多少？后面每半小时又收多少？", doc,
                                 index.facts.values())
    assert got == {"10元", "4元"}


def test_a_question_asking_for_the_most_is_shortlisted_by_the_document_s_words_for_it():
    doc = Document.from_text(_ZONES_ZH, "parking.md")
    values = {c.value for c in enumerate_candidates(doc, "我在二环外上班，一天最多会被收多少钱？", top_k=16, min_ratio=0.15)}
    assert "30元" in values  # (单日封顶: no word of "一天最多" but the end it asks)


@pytest.mark.parametrize("text, period", [
    ("an annual fee", "@year"), ("pay for the whole year in one go", "@year"), ("£300 per annum", "@year"),
    ("twice a year", "@year"), ("£42.50 a month", "@month"), ("a monthly direct debit", "@month"),
    ("charged every day", "@day"), ("£20 per night", "@night"), ("an hourly rate", "@hour"),
])
def test_an_english_period_is_one_term_however_worded(text, period):
    assert period in _stemmed(text)


@pytest.mark.parametrize("text", ["within a year", "a year ago", "a month's notice", "for a year", "a year or more",
                                  "at least a year", "one calendar month"])
def test_a_length_of_time_is_no_period_a_measure_is_counted_over(text):
    assert not {t for t in _stemmed(text) if t.startswith("@")}


def test_a_period_however_worded_picks_the_header_counted_over_it():
    headers = ["Full Access (monthly DD)", "Full Access (annual, paid upfront)"]
    assert "@month" in paired_units("Full Access (monthly DD)") & paired_units("how much per month")
    assert [h for h in headers if identifies("How much is full access per month?", h, headers, derived=True)] \
        == ["Full Access (monthly DD)"]
    assert [h for h in headers if identifies("What does full access cost for the whole year?", h, headers,
                                             derived=True)] == ["Full Access (annual, paid upfront)"]


@pytest.mark.parametrize("label, question, held", [
    ("Senior (66+)", "I'm 67", True), ("Senior (66+)", "I'm 60", False),
    ("organisations with 50+ staff", "we have about 60 staff", True),
])
def test_a_figure_and_a_plus_is_that_figure_and_over(label, question, held):
    assert meets(label, question) is held


@pytest.mark.parametrize("label", ["2+2 offers", "call +44 20 7946", "A+ rating"])
def test_a_plus_that_is_no_bound_makes_no_range(label):
    assert intervals(label) == ()


def test_a_day_s_cap_and_a_whole_day_are_one_period():
    assert "〈每天〉" in _stemmed("单日封顶") and "〈每天〉" in _stemmed("停一整天") and "〈每天〉" not in _stemmed("停两整天")


def test_month_to_month_is_counted_by_the_month():
    assert "@month" in _stemmed("if I go month to month") and "@month" in _stemmed("a month-to-month plan")


_VET_EN = ("# Veterinary fees\n\n## Neutering\n\n| Procedure | Up to 10 kg | 10.1 kg to 25 kg |\n|---|---|---|\n"
           "| Bitch spay (open surgery) | £395.00 | £455.00 |\n| Bitch spay (keyhole) | £595.00 | £655.00 |\n\n"
           "## Diagnostics\n\n| Test | Price |\n|---|---|\n| Pre-anaesthetic blood test | £65.00 |\n\n"
           "## Vaccinations\n\n| Species | Annual booster (current) | Annual booster (previous) |\n|---|---|---|\n"
           "| Cat | £55.00 | £51.00 |\n| Dog | £58.00 | £54.00 |\n")


def test_what_a_question_prefers_another_to_is_no_word_it_asks():
    doc, index = structured(_VET_EN, "vet.md")
    got, _ = choose_noting_skips("My dog weighs about 18 kg and I'd like her spayed using the keyhole method rather "
                                 "than open surgery. What will it cost?", doc, index.facts.values())
    # (keyhole, not open surgery; "cost" asks an amount, which the blood test's "Price" is no more than the spay's)
    assert got == {"£655.00"}


@pytest.mark.parametrize("question, former", [
    ("What's the fee now, and what was it before?", True), ("以前是多少？", True), ("原来全程多少钱？", True),
    ("这次调价以前坐一次多少钱？", True), ("What was the minimum stipend last year?", True),
    ("那他每个月能按原来工资的多少拿钱？", False),          # a share of the former wage, not the former figure
    ("认定之前那几个月住院是按普通人标准报的", False),
    ("What interest rate is charged on a loan used to match-fund the grant?", False),
])
def test_asking_what_a_figure_was(question, former):
    from aegis_tui.text.lexicon import FORMER_SAID
    assert bool(FORMER_SAID.search(question)) is former


def test_a_pronoun_names_no_thing_a_question_asks_a_measure_of():
    from aegis_tui.text.lexicon import ASKED_OF_EN
    assert [m.group("x") for m in ASKED_OF_EN.finditer("what did I pay for it last year?")] == []
    assert [m.group("x") for m in ASKED_OF_EN.finditer("what is the fee for my dog?")] == ["dog"]


_FERRY_EN = ("# Ferry tariff\n\n## Seasons\n\n- **Peak season**: May 1 through September 30 inclusive. All other dates "
             "are **off-peak**.\n\n## Vehicle fares\n\n| Vehicle length | Route 1 off-peak | Route 1 peak |\n|---|---|---|\n"
             "| Under 14 ft (compact car) | $38.50 | $48.15 |\n| 14 ft to under 22 ft (standard vehicle) | $47.20 | $59.00 |\n"
             "| 22 ft to under 30 ft | $94.40 | $118.00 |\n")


def test_a_document_s_seasons_by_month_and_the_rest_of_the_year():
    from aegis_tui.text.seasons import season_of, seasons
    defined = seasons(_FERRY_EN)
    assert defined == {"peak season": frozenset(range(5, 10)), "off-peak": frozenset({1, 2, 3, 4, 10, 11, 12})}
    # (the longest name first: "off-peak" is no peak)
    assert season_of("Route 1 off-peak", defined) == defined["off-peak"]
    assert season_of("Route 1 peak", defined) == defined["peak season"]
    zh = ("4. **夏季月份**：指每年6月、7月、8月、9月四个抄表月份；其余八个抄表月份为非夏季月份。\n\n"
          "取暖用电在采暖季（每年11月15日至次年3月15日）单独计量。\n")
    assert seasons(zh) == {"夏季月份": frozenset({6, 7, 8, 9}), "非夏季月份": frozenset({1, 2, 3, 4, 5, 10, 11, 12}),
                           "采暖季": frozenset({11, 12, 1, 2, 3})}
    assert season_of("非夏季月份月用电量", seasons(zh)) == seasons(zh)["非夏季月份"]


@pytest.mark.parametrize("question, months", [
    ("over to the island in July and back", {7}), ("on 3 March", {3}), ("May I ask about fares?", set()),
    ("我7月份去", {7}), ("七月份去", {7}), ("七月十五日", {7}), ("包月停车一月多少钱？", set()), ("十月怀胎", set()), ("交了3个月", set()), ("2025年6月抄表那个月", {6}),
    ("in May", {5}), ("in july", {7}), ("by Dec 5", {12}), ("we march on", set()), ("may I ask", set()),
])
def test_the_months_a_question_gives(question, months):
    from aegis_tui.text.seasons import months_given
    assert months_given(question) == months


@pytest.mark.parametrize("question, rate", [
    ("坐一次多少钱？", True), ("每个月多少钱？", True), ("一年多少钱？", True),
    ("一年最多能报多少钱？", False),  # (a cap counted over a year: no rate)
])
def test_an_amount_asked_per_time_may_be_written_as_a_rate(question, rate):
    assert ("rate" in asked_dimensions(question)) is rate


@pytest.mark.parametrize("text, question, values", [
    # what a figure was: the former figure answers beside the current one
    (_VET_EN, "What does my cat's yearly booster cost now, and what did I pay for it last year?", {"£55.00", "£51.00"}),
    (_VET_EN, "What does my cat's yearly booster cost?", {"£55.00"}),
    # a fare of another season than the question's month does not answer
    (_FERRY_EN, "Our car is about 16 ft long. What's the round trip in July?", {"$59.00"}),
    (_FERRY_EN, "We're taking our 24-foot motorhome in November. What's the round-trip fare?", {"$94.40"}),
])
def test_what_a_figure_was_and_the_season_of_a_month_choose_the_facts(text, question, values):
    doc, index = structured(text, "fees.md")
    got, _ = choose_noting_skips(question, doc, index.facts.values())
    assert got == values


def test_a_label_that_is_one_figure_beside_ranges_of_its_unit_is_that_point():
    from aegis_tui.text.ranges import holding
    rows = ["1人户", "2人户", "3人户", "4人及以上户"]
    assert holding(rows, "我家一共5口人，家庭年收入上限是多少？") == {"4人及以上户"}
    assert holding(rows, "我家3口人，上限是多少？") == {"3人户"}


def test_a_condition_after_a_value_is_met_by_the_question_s_figure():
    from test_cover import labelled
    doc, index = labelled("# Fuel surcharge\n\nThe District may apply a fuel surcharge to vehicle fares:\n\n"
                          "- 3% when the average diesel price is above $4.00 and up to $4.50 per gallon;\n"
                          "- 6% when the average diesel price is above $4.50 and up to $5.00 per gallon.\n",
                          {"3%": ("fuel surcharge", "added to vehicle fares"),
                           "6%": ("fuel surcharge", "added to vehicle fares")})
    got, _ = choose_noting_skips("If the average diesel price came out at $4.80 a gallon, what fuel surcharge would be "
                                 "added to vehicle fares?", doc, index.facts.values())
    assert got == {"6%"}


def test_a_header_beside_its_negation_is_no_nested_case_of_it():
    headers = ["非夏季月份月用电量", "夏季月份月用电量", "电价"]
    assert not [h for h in headers if identifies("我家2025年3月用了380度电，第三档从多少度开始？", h, headers, derived=True)]


@pytest.mark.parametrize("text, period", [("Fee per Rental Day", "@day"), ("each calendar month", "@month"),
                                          ("per working day", "@day"), ("an extra day", None)])
def test_a_word_naming_which_days_count_may_stand_inside_a_period(text, period):
    assert {t for t in _stemmed(text) if t.startswith("@")} == ({period} if period else set())


def test_a_period_of_something_else_is_no_season_and_the_rest_of_the_year_is_all_other_seasons():
    from aegis_tui.text.seasons import seasons
    assert seasons("- Registration period: January 1 to March 31\n- Late period: April 1 to June 30\n") == {}
    assert seasons("缴费期：每年1月1日至6月30日\n补缴期：每年7月1日至9月30日\n") == {}
    found = seasons("High season (1 June – 31 August)\nLow season (1 November – 31 March)\nAll other dates are shoulder.")
    assert found["shoulder"] == frozenset({4, 5, 9, 10})


def test_a_word_beginning_with_wu_or_mei_is_no_without():
    from aegis_tui.text.durations import as_document_writes
    assert as_document_writes("我无法提供的材料怎么办？", "任何单位不得非法提供个人信息。") == "我无法提供的材料怎么办？"


@pytest.mark.parametrize("question, implied", [
    ("我没在环城路里面停车，首小时收多少？", set()),           # outside 环城路: 二类 or 三类, neither implied
    ("我停在环城路里面还是外面都一样吗？", set()),             # asking which side
    ("并非在二环路以外的地方，首小时收多少？", {"二类区域"}),
])
def test_a_side_negated_or_asked_about(question, implied):
    doc = Document.from_text(_ZONES_ZH, "parking.md")
    assert set(bounded_by(question, doc)) == implied


def test_review_findings_on_periods_plus_and_conditions():
    from aegis_tui.answer.pick import _TRAILING_CONDITION
    assert not {t for t in _stemmed("What does a Year 10 student pay?") if t.startswith("@")}  # (a school year)
    assert not {t for t in _stemmed("half an hour") if t.startswith("@")}  # (a length)
    assert intervals("Family offer (2 + 2)") == ()
    assert _TRAILING_CONDITION.match(". If you are over 65, you pay nothing.") is None  # (another sentence's)
