"""Catalogue tables whose rows a column of codes identifies, terms a definitions list defines, and the words a Chinese
question narrates rather than asks by (fortieth session): each test failed on abc4746."""

from __future__ import annotations

import pytest
from test_cover import choose_noting_skips, structured

from aegis_tui.answer.pick import _stemmed, implied_names, placement, seams
from aegis_tui.answer.verify import Tier1CodeVerifier
from aegis_tui.schema import AtomicFact, ExtractionPayload, FactType
from aegis_tui.text.document import Document

_CATALOGUE_ZH = ("# 门诊慢特病管理办法\n\n## 第三章 病种与限额\n\n表1 门诊慢特病病种目录及年度支付限额\n\n"
                 "| 类别 | 病种编码 | 病种名称 | 职工医保年度支付限额 | 居民医保年度支付限额 |\n|---|---|---|---|---|\n"
                 "| 甲类 | J01 | 恶性肿瘤门诊治疗 | 100,000元 | 60,000元 |\n"
                 "| 甲类 | J02 | 尿毒症透析治疗（血液透析、腹膜透析） | 90,000元 | 70,000元 |\n"
                 "| 乙类 | Y01 | 高血压病（2级及以上） | 2,000元 | 1,500元 |\n"
                 "| 乙类 | Y02 | 癫痫 | 3,000元 | 2,500元 |\n"
                 "| 乙类 | Y03 | 帕金森病 | 3,500元 | 3,000元 |\n\n"
                 "## 第四章 待遇标准\n\n表2 起付标准和报销比例\n\n| 病种类别 | 起付标准 | 报销比例 |\n|---|---|---|\n"
                 "| 甲类 | 0元 | 90% |\n| 乙类 | 600元 | 70% |\n")


def test_the_names_right_of_a_column_of_codes_label_the_rows():
    doc, index = structured(_CATALOGUE_ZH, "catalogue.md")
    table = doc.structure.tables[0]
    assert table.label_cols == (1, 2) and table.code_columns() == {1}
    by_value = {f.fact.object_value: f.fact.subject for f in index.facts.values()}
    # each row's figure is labelled by the row's own name, not by the class five rows share
    assert "尿毒症透析治疗" in by_value["70,000元"] and "帕金森病" in by_value["3,000元"]
    assert len({by_value[v] for v in ("60,000元", "70,000元", "1,500元", "2,500元", "3,000元")}) == 5


@pytest.mark.parametrize("subject, ok", [
    ("尿毒症透析治疗（血液透析、腹膜透析）", True),   # the row's name with its aside, though 血 is in another row's name
    ("尿毒症透析治疗", True),
    ("甲类", False),                               # two rows are 甲类: which one is not said
    ("恶性肿瘤门诊治疗", False),                     # another row's name
])
def test_a_fact_naming_its_row_by_its_name_alone_verifies(subject, ok):
    doc = Document.from_text(_CATALOGUE_ZH, "catalogue.md")
    fact = AtomicFact(subject=subject, predicate="居民医保年度支付限额", object_value="70,000元",
                      fact_type=FactType.NUMERIC,
                      source_text="| 甲类 | J02 | 尿毒症透析治疗（血液透析、腹膜透析） | 90,000元 | 70,000元 |")
    verdict = Tier1CodeVerifier(doc).verify(ExtractionPayload(atomic_facts=[fact])).facts[0]
    assert verdict.passed is ok, verdict.failed_rules


def test_a_grade_some_rows_share_is_no_code():
    doc = Document.from_text("# Pay\n\n| Job title | Grade | Allowance |\n|---|---|---|\n| Site Operative | G1 | £40 |\n"
                             "| Apprentice Technician | G1 | £35 |\n| Administrative Assistant | G2 | £45 |\n", "pay.md")
    assert not doc.structure.tables[0].code_columns()


def test_a_catalogue_row_is_in_the_class_its_first_column_groups_it_by():
    doc = Document.from_text(_CATALOGUE_ZH, "catalogue.md")
    q = "我老婆认定了帕金森病的门诊慢特病，报销比例是多少？"
    implied, others = implied_names(q, doc)
    assert implied == {"乙类"} and "甲类" in others
    assert placement(q, doc, "乙类")[0] == "帕金森病"
    # a code is no class of its row
    assert not {"Y03", "J02"} & (implied | others)


_TRADE_IN_ZH = ("# 汽车以旧换新补贴实施细则\n\n## 第二条 名词解释\n\n"
                "1. 乘用车：指设计和制造上主要用于载运乘客的汽车。\n"
                "2. 新能源乘用车：指纯电动乘用车、插电式混合动力（含增程式）乘用车和燃料电池乘用车。\n\n"
                "## 第八条 补贴标准\n\n表1 汽车报废更新补贴标准\n\n| 新车类型 | 补贴金额 |\n|---|---|\n"
                "| 新能源乘用车 | 20000元 |\n| 燃油乘用车（排量2.0升及以下） | 15000元 |\n")


def test_a_term_a_definitions_list_defines_is_implied_by_its_members_own_words():
    doc = Document.from_text(_TRADE_IN_ZH, "tradein.md")
    q = "把符合条件的旧车报废了，换一辆纯电动的小轿车，能补多少钱？"
    implied, _ = implied_names(q, doc)
    assert implied == {"新能源乘用车"}
    assert placement(q, doc, "新能源乘用车")[0] == "纯电动"


def test_a_count_of_one_thing_and_how_much_money_are_no_words_asked():
    q = "把符合条件的旧车报废了，换一辆纯电动的小轿车，能补多少钱？"
    words = _stemmed(q) - seams(q)
    assert not {"一辆", "换一", "钱", "少钱"} & words and {"纯电", "报废"} <= words
    assert "时候" not in _stemmed("2024年那时候，全市统一的城乡居民基础养老金一个月是多少钱？")


_PENSION_ZH = ("# 城乡居民基本养老保险实施办法\n\n## 第二十七条 基础养老金标准\n\n表5-1 基础养老金标准\n\n"
               "| 执行时间 | 基础养老金合计（元/人·月） |\n|---|---|\n| 2024年1月1日起 | 208元 |\n| 2025年1月1日起 | 230元 |\n\n"
               "## 附件10 2025年度各县（市、区）待遇标准汇总表\n\n### 一、基础养老金发放标准\n\n"
               "| 县（市、区） | 全市统一基础养老金 | 实际基础养老金 |\n|---|---|---|\n"
               "| 澜城区 | 230元/月 | 230元/月 |\n| 江北区 | 230元/月 | 240元/月 |\n")


def test_a_table_under_a_heading_of_another_accounting_year_is_not_the_case_s():
    doc, index = structured(_PENSION_ZH, "pension.md")
    got, skipped = choose_noting_skips("2024年那时候，全市统一的城乡居民基础养老金一个月是多少钱？", doc,
                                       index.facts.values())
    assert "230元/月" not in got and "240元/月" not in got
    assert any("230元/月" in {f.fact.object_value for f in fs} and "another period" in why for fs, why in skipped)


@pytest.mark.parametrize("question", ["我1962年出生，江北区的实际基础养老金每月多少？",
                                      "我2024年12月退休了，江北区现在实际基础养老金每月多少？"])
def test_a_year_of_the_asker_s_life_or_now_asked_leaves_the_accounting_year_s_table(question):
    doc, index = structured(_PENSION_ZH, "pension.md")
    got, _ = choose_noting_skips(question, doc, index.facts.values())
    assert "240元/月" in got


def test_a_value_column_beside_codes_with_bare_figures_is_no_name_column():
    doc = Document.from_text("# 办法\n\n| 病种 | 编码 | 年度限额（元） | 报销比例 |\n|---|---|---|---|\n"
                             "| 恶性肿瘤 | J01 | 不设限额 | 90% |\n| 尿毒症 | J02 | 不设限额 | 90% |\n"
                             "| 高血压 | Y01 | 3000 | 70% |\n| 糖尿病 | Y02 | 5000 | 70% |\n", "limits.md")
    assert doc.structure.tables[0].label_cols == (1,)


@pytest.mark.parametrize("subject, ok", [("Hilltop", True), ("Zone 1 Hilltop", True), ("Zone 2 Hilltop", False)])
def test_a_row_named_by_its_own_cell_must_not_name_another_row_s_class(subject, ok):
    doc = Document.from_text("# Rates\n\n| Zone | Area | Annual rate |\n|---|---|---|\n| Zone 1 | Riverside | £50 |\n"
                             "| Zone 1 | Hilltop | £60 |\n| Zone 2 | Riverside North | £70 |\n| Zone 2 | Meadows | £80 |\n",
                             "zones.md")
    fact = AtomicFact(subject=subject, predicate="Annual rate", object_value="£60", fact_type=FactType.NUMERIC,
                      source_text="| Zone 1 | Hilltop | £60 |")
    verdict = Tier1CodeVerifier(doc).verify(ExtractionPayload(atomic_facts=[fact])).facts[0]
    assert verdict.passed is ok, verdict.failed_rules


@pytest.mark.parametrize("question, kept", [("同一部门的两名职工能否同时申请？", {"部门", "同一"}),
                                            ("二十个工作日内办结吗？", {"二十"}), ("统一台账怎么建立？", {"台账"})])
def test_a_count_s_measure_word_inside_a_word_stays(question, kept):
    assert kept <= _stemmed(question)
