"""Questions asking several things, members moved on a day of their own, and the words a question asks by (thirty-ninth
session): each test failed on 136f6c1."""

from __future__ import annotations

import pytest
from test_cover import choose_noting_skips, structured

from aegis_tui.answer.pipeline import INDEX_MIN_RATIO
from aegis_tui.answer.relevance import enumerate_candidates
from aegis_tui.text.document import Document

_AID_ZH = ("# 门诊慢特病管理办法\n\n## 第十条 支付限额\n\n表1 门诊慢特病年度支付限额\n\n"
           "| 病种类别 | 职工医保年度支付限额 | 居民医保年度支付限额 |\n|---|---|---|\n"
           "| 甲类 | 30,000元 | 25,000元 |\n| 乙类 | 4,000元 | 3,000元 |\n| 丙类 | 2,000元 | 1,500元 |\n\n"
           "第十一条 年度支付限额按自然年度计算，当年未使用部分不结转。\n\n"
           "## 第十九条 大额医疗费用补助\n\n大额医疗费用补助年度最高支付50万元。大病保险年度最高支付40万元。\n\n"
           "## 第五十五条 医疗救助\n\n表7 特殊人群门诊慢特病医疗救助标准\n\n"
           "| 人员类别 | 起付标准 | 医疗救助比例 | 年度医疗救助限额 |\n|---|---|---|---|\n"
           "| 特困人员 | 免除 | 100% | 不设 |\n| 低保对象 | 减半 | 75% | 30,000元 |\n"
           "| 返贫致贫人口 | 减半 | 65% | 25,000元 |\n")


def test_each_part_names_its_own_column_and_a_part_a_fact_of_another_kind_touches_is_still_asked():
    doc, index = structured(_AID_ZH, "aid.md")
    q = "我们家是低保户，医保报完以后自己掏的那部分，医疗救助能按多少比例再报？一年最多救助多少？"
    cands = enumerate_candidates(doc, q, top_k=16, min_ratio=INDEX_MIN_RATIO, per_part=True)
    assert {"75%", "30,000元"} <= {c.value for c in cands if "低保" in c.quote}
    got, _ = choose_noting_skips(q, doc, index.facts.values())
    assert {"75%", "30,000元"} <= got


_TIMES_ZH = ("# 技能提升补贴办法\n\n## 三、年度次数和金额上限\n\n"
             "2025年7月1日及以后取得证书的，每人每个自然年度最多享受2次技能提升补贴，年度累计领取金额不超过8,000元。\n")


def test_a_value_the_verifier_binds_to_another_chosen_subject_its_quote_names_is_bound_to_it():
    from aegis_tui.answer.pipeline import _rebound
    from aegis_tui.answer.verify import Tier1CodeVerifier
    from aegis_tui.schema import AtomicFact, ExtractionPayload, FactType

    doc = Document.from_text(_TIMES_ZH, "times.md")
    quote = doc.text.splitlines()[-1]

    def fact(subject: str, predicate: str, value: str) -> AtomicFact:
        return AtomicFact(subject=subject, predicate=predicate, object_value=value, fact_type=FactType.NUMERIC,
                          source_text=quote)

    times, cap = fact("技能提升补贴", "每人每个自然年度最多享受", "2次"), fact("年度次数和金额上限", "累计领取金额", "8,000元")
    verifier = Tier1CodeVerifier(doc)
    assert verifier.verify(ExtractionPayload(atomic_facts=[cap])).facts[0].passed  # alone, the heading's subject holds
    report = verifier.verify(ExtractionPayload(atomic_facts=[times, cap]))
    assert [fv.fact for fv in report.rejected] == [cap]
    moved = _rebound(report, [times])
    assert [(f.subject, f.predicate, f.object_value) for f in moved] == [("技能提升补贴", "累计领取金额", "8,000元")]
    assert verifier.verify(ExtractionPayload(atomic_facts=[times, *moved])).rejected == []
    # a subject the quote names is that entity's value mislabelled, not a heading's: it is not bound anew
    named = fact("取得证书的", "累计领取金额", "8,000元")
    report = verifier.verify(ExtractionPayload(atomic_facts=[times, named]))
    assert _rebound(report, [times]) == []


def test_a_realized_subject_takes_no_measure_word_of_a_number_before_it():
    from aegis_tui.answer.realize import EntityAwareRealizer

    text = "每人每个自然年度最多享受2次技能提升补贴。2025年度在职职工的起付标准为500元。"
    start = text.index("技能提升补贴")
    assert EntityAwareRealizer._extend_left(text, start, 0) == start
    start = text.index("在职职工")
    assert EntityAwareRealizer._extend_left(text, start, text.index("2025")) == start


@pytest.mark.parametrize("part, dims", [
    ("一年里技能提升补贴最多能领几次", {"count"}),
    ("How many times can I claim in a year?", {"count"}),
    ("how much of that can go on complementary treatment", {"money", "percent"}),
    ("一年最多救助多少", {"money", "percent"}),
])
def test_what_a_part_asks_counts_times_and_how_much_of_a_limit(part, dims):
    from aegis_tui.answer.relevance import asked_dimensions

    assert asked_dimensions(part) == dims


def test_asking_whether_is_no_word_of_what_is_asked_and_derived_words_are_one():
    from aegis_tui.answer.pick import _stemmed
    from aegis_tui.text.entities import stem

    assert "没有" not in _stemmed("总金额有没有上限") and "金额" in _stemmed("总金额有没有上限")
    assert "能不" not in _stemmed("能不能报销")
    assert stem("resolution") == stem("resolve") == stem("resolved")
    assert stem("receipt") == stem("received")


_PLANS_EN = ("# Pet Insurance\n\n## Schedule of Benefits\n\n**Table 1 — Schedule of Benefits**\n\n"
             "| Benefit | Essential | Classic | Premier |\n|---|---|---|---|\n"
             "| Vet fees | £3,000 per condition | £6,000 per period of insurance | £12,000 per period of insurance |\n"
             "| Complementary treatment (part of the vet fees limit) | £250 | £750 | £1,500 |\n"
             "| Physiotherapy (counts towards the complementary treatment limit) | £250 | £500 | £1,000 |\n\n"
             "## Vet fees\n\nThe vet fees limit applies to each period of insurance. Complementary treatment is part "
             "of the vet fees limit. We pay vet fees for all conditions up to the vet fees limit. The vet fees limit "
             "is reinstated at renewal. Physiotherapy counts towards the complementary treatment limit.\n")


def test_a_cell_whose_row_and_column_the_question_names_is_shortlisted_and_an_aside_names_nothing_surely():
    from aegis_tui.answer.pick import _sides

    doc, index = structured(_PLANS_EN, "plans.md")
    q = "On the Classic plan, what is the overall vet fees limit, and how much of that can go on complementary treatment?"
    cands = enumerate_candidates(doc, q, top_k=4, min_ratio=INDEX_MIN_RATIO, per_part=True)
    assert "£6,000" in {c.value for c in cands}
    aside = next(f for f in index.facts.values() if f.fact.object_value == "£750")
    what, who = _sides(aside, doc)
    assert "vet" not in who and "vet" not in what  # (its clause, the row, names it as a clause does: CLAUSE_WEIGHT)


_AREAS_EN = ("# Travel Insurance\n\n## Premiums\n\nTable 1 — Single-trip premiums per person\n\n"
             "| Area | Essential | Standard |\n|---|---|---|\n| Area 1 | £20.00 | £30.00 |\n| Area 2 | £35.00 | £50.00 |\n"
             "| Area 3 | £60.00 | £85.00 |\n\n## Destinations\n\nTable 3 — Destinations by area\n\n"
             "| Destination | Area | Notes |\n|---|---|---|\n| Spain | Area 1 | |\n| France | Area 1 | |\n"
             "| Turkey | Area 1 | Area 2 for policies purchased before 1 April 2025 |\n| Egypt | Area 2 | |\n"
             "| Mexico | Area 2 | |\n| Japan | Area 3 | |\n| Peru | Area 3 | |\n")


def test_a_member_s_own_move_day_splits_the_days_a_question_asks_of_between_its_two_classes():
    from aegis_tui.answer.pick import classes_then_and_now, formerly_by_members, implied_names

    doc, index = structured(_AREAS_EN, "areas.md")
    assert "Turkey" in formerly_by_members(doc)["Area 2"]
    both = ("A 10-day trip to Turkey on Standard: what's the premium if I buy on 20 March 2025, and what if I wait "
            "and buy it on 10 April 2025?")
    assert implied_names(both, doc)[0] == {"Area 1", "Area 2"}
    assert classes_then_and_now(both, doc) == ({"Area 2"}, {"Area 1"})
    got, _ = choose_noting_skips(both, doc, index.facts.values())
    assert {"£30.00", "£50.00"} <= got and "£85.00" not in got
    # one day before the move: the former class alone; after it, the current one
    assert implied_names("I bought Standard cover for Turkey on 20 March 2025. What was the premium?", doc)[0] \
        == {"Area 2"}
    assert implied_names("I bought Standard cover for Turkey on 20 April 2025. What was the premium?", doc)[0] \
        == {"Area 1"}


_BREEDS_EN = ("# Pet Insurance\n\n## Loadings\n\nTable 5 — Breed loadings\n\n| Risk group | Essential | Premier |\n"
              "|---|---|---|\n| A Standard risk | 0% | 0% |\n| B Elevated risk | 10% | 20% |\n| C High risk | 25% | 40% |\n\n"
              "## Breeds\n\nTable 6 — Breed risk groups\n\n| Breed | Species | Risk group | Notes |\n|---|---|---|---|\n"
              "| Beagle | Dog | A | |\n| Boxer | Dog | B | |\n"
              "| Siberian Husky | Dog | B | Group C for periods of insurance starting before 1 March 2025 |\n"
              "| Pug | Dog | C | |\n| Whippet | Dog | A | |\n\n## Excess\n\n### 5.1 Fixed excess\n\n"
              "Table 2 — Fixed excess per condition\n\n| Plan | Dogs | Cats |\n|---|---|---|\n| Essential | £150 | £110 |\n"
              "| Premier | £99 | £75 |\n\n## Appendix\n\n| Item | Before 1 March 2025 | From 1 March 2025 |\n|---|---|---|\n"
              "| Fixed excess — dogs | Essential £150, Premier £99 | Essential £175, Premier £125 |\n")


def test_a_former_class_said_by_its_letter_for_the_days_before_one_and_values_listed_are_no_members():
    from aegis_tui.answer.pick import defined_by_members, formerly_by_members, implied_names

    doc = Document.from_text(_BREEDS_EN, "breeds.md")
    assert formerly_by_members(doc) == {"C High risk": {"Siberian Husky": _BREEDS_EN.index("Group C for")}}
    q = "My Siberian Husky is on Essential and the policy year started on 1 December 2024. What loading applies?"
    assert implied_names(q, doc)[0] == {"C High risk"}
    assert implied_names(q.replace("1 December 2024", "1 December 2025"), doc)[0] == {"B Elevated risk"}
    # a table of amounts under "5.1 Fixed excess" lists no members of it, nor does a cell of plans with their amounts
    assert "Fixed excess" not in defined_by_members(doc)


def test_a_move_for_the_entrants_of_a_day_and_a_numeral_of_another_count_singles_out_no_class():
    from aegis_tui.answer.pick import _MOVED_TO
    from aegis_tui.answer.relevance import focus

    m = _MOVED_TO.search("Moves to Band 2 for entrants from September 2026")
    assert m is not None and m.group("en") == "Band 2"
    q = "我打算在临江区买第一套房，单看区域那一档的家庭上限，分别最多能贷多少？"
    assert focus(["一类区域", "二类区域"], q, graded=True) is None
    assert focus(["一类区域", "二类区域"], "在一类区域买房最多能贷多少？", graded=True) == {"一类区域"}
    assert focus(["一级医院", "三级医院"], "我在三级医院住院") == {"三级医院"}


def test_words_across_a_modal_or_an_ordinal_s_counter_and_an_if_are_no_words_asked():
    from aegis_tui.answer.pick import _stemmed
    from aegis_tui.text.entities import seams

    q = "如果2025年3月就去递交申请，和拖到2025年9月再申请，分别最多能贷多少？"
    assert "能贷" in seams(q)
    assert "如果" not in _stemmed(q)
    assert "套房" not in _stemmed("我打算买第一套房") and "第1" in _stemmed("我打算买第一套房")


def test_a_share_of_the_base_the_question_names_answers_it():
    from aegis_tui.answer.pick import _share_of_asked

    assert _share_of_asked("月供最多能占家里月收入的多少？", "借款人家庭月收入")
    assert not _share_of_asked("月供最多能占家里月收入的多少？", "上表标准")
    assert _share_of_asked("What percentage of my salary can the repayment be?", "gross monthly salary")


def test_a_chinese_figure_inside_another_is_not_it():
    from aegis_tui.answer.evaluation import _same_figure

    assert not _same_figure("三十年", "十年") and _same_figure("十二个月", "十二个月")
    assert not _same_figure("5%", "25%") and _same_figure("£450", "£450 per person")


def test_a_note_s_number_is_no_figure():
    from aegis_tui.text.roles import Role

    doc = Document.from_text("# 病种\n\n| 类别 | 年度支付限额 |\n|---|---|\n| 丙类 | 见注2 |\n| 甲类 | 3,000元 |\n\n"
                             "注2：丙类病种合并计算。注册资本2万元。See Note 3 for details.\n", "notes.md")
    roles = {(r.text, r.start): r.role for r in doc.roles}
    assert [r for (t, _), r in roles.items() if t in ("2", "3")] == [Role.SECTION] * 3
    assert {t for (t, _), r in roles.items() if r == Role.VALUE} == {"3,000元", "2万元"}
