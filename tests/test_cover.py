"""Tables whose rows are labelled by more than one column, labelled from the table itself, and questions
answered by the facts that cover what they ask (answer/pick.cover) — pure: no model is called."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from aegis_tui.answer.factindex import FactIndex, Indexer
from aegis_tui.answer.pick import cover
from aegis_tui.answer.pipeline import INDEX_MIN_RATIO
from aegis_tui.answer.relevance import candidate_key, document_candidates, enumerate_candidates, focus
from aegis_tui.answer.verify import Tier1CodeVerifier
from aegis_tui.schema import AtomicFact, ExtractionPayload, FactType
from aegis_tui.text.document import Document

PLAN = Document.load(str(Path(__file__).parent / "docs" / "s_plan_en.md"))
NO_ENGINE = SimpleNamespace(config=SimpleNamespace(n_parallel=1))  # labelling from structure submits nothing


def table_index() -> FactIndex:
    index = FactIndex(PLAN, "test-model")
    indexer = Indexer(NO_ENGINE, index)
    for key in list(index.candidates):
        indexer._from_structure(key)
    return index


def test_word_columns_beside_the_row_header_label_the_row():
    [table] = PLAN.structure.tables
    assert table.label_cols == (1,)
    assert table.row_header(2) == "Employee Only Out-of-network"
    values = {c.value for c in document_candidates(PLAN)}
    assert "In-network" not in values and {"$2,300", "$15,800", "35%"} <= values


def test_table_cells_are_labelled_from_row_and_column_without_the_model():
    index = table_index()
    assert index.complete and not index.rejected and len(index.facts) == 12
    labels = {(f.fact.subject, f.fact.predicate, f.fact.object_value) for f in index.facts.values()}
    assert ("Employee Only Out-of-network", "Annual deductible", "$2,300") in labels
    assert ("Family Out-of-network", "Out-of-pocket maximum", "$15,800") in labels


@pytest.mark.parametrize("subject, ok", [
    ("Employee Only Out-of-network", True),   # both label columns: the one row
    ("Employee Only", False),                 # two rows are Employee Only: which one is not said
    ("Family In-network", True),              # $2,300 stands in this row too
    ("Family Out-of-network", False),         # another row's label
])
def test_a_fact_must_name_every_label_column_that_tells_its_row_apart(subject, ok):
    quote = "| Employee Only | Out-of-network | $2,300 | 35% | $7,700 |" if "Employee" in subject or not ok \
        else "| Family | In-network | $2,300 | 15% | $7,900 |"
    fact = AtomicFact(subject=subject, predicate="Annual deductible", object_value="$2,300",
                      fact_type=FactType.NUMERIC, source_text=quote)
    verdict = Tier1CodeVerifier(PLAN).verify(ExtractionPayload(atomic_facts=[fact])).facts[0]
    assert verdict.passed is ok, verdict.failed_rules


def answer_keys(question: str) -> list[tuple[str, str, str]]:
    index = table_index()
    cands = enumerate_candidates(PLAN, question, min_ratio=INDEX_MIN_RATIO)
    keys = [candidate_key(c) for c in cands]
    facts = [index.facts[k] for k in keys if k in index.facts]
    contexts = {k: f"{c.framed} {c.quote}" for k, c in zip(keys, cands)}
    found = cover(question, PLAN, facts, contexts)
    chosen = found[0] if found else []
    return sorted((index.facts[k].fact.subject, index.facts[k].fact.predicate, index.facts[k].fact.object_value)
                  for k in chosen)


def test_the_question_s_words_choose_the_column_it_asks_for():
    got = answer_keys("What is the deductible for someone with employee-only coverage going out of network?")
    assert got and all(p == "Annual deductible" for _, p, _ in got)


def test_a_question_asking_two_things_gets_both():
    got = answer_keys("What are the family coinsurance and the family out-of-pocket maximum in network?")
    assert {p for _, p, _ in got} == {"Coinsurance", "Out-of-pocket maximum"}


def test_a_figure_the_document_never_states_gets_no_fact():
    # premiums are mentioned, never with a value: the family coverage facts share only the question's scope
    assert answer_keys("How much is the monthly premium for family coverage?") == []


def test_focus_prefers_the_subject_the_question_names_more_of():
    q = "What deductible applies to employee-only coverage out of network?"
    assert focus(["Employee Only In-network", "Employee Only Out-of-network"], q) == {"Employee Only Out-of-network"}
    assert focus(["二级定点医疗机构", "参保老年人"], "二级医疗机构的起付线是多少？", graded=True) == {"二级定点医疗机构"}
    assert focus(["二级定点医疗机构", "参保老年人"], "二级医疗机构的起付线是多少？") is None


def test_a_cell_value_with_its_header_unit_is_supported_in_an_answer():
    from aegis_tui.answer.verify import unsupported_numbers

    doc = Document.from_text("# 生育医疗费用定额\n\n| 分娩方式 | 一级医院（元） | 二级医院（元） |\n|---|---|---|\n"
                             "| 顺产 | 3200 | 4100 |\n| 剖宫产 | 4500 | 5600 |\n", "t.md")
    assert unsupported_numbers("剖宫产二级医院为5600元。", doc) == []
    assert unsupported_numbers("剖宫产二级医院为5700元。", doc) == ["5700元"]


@pytest.mark.parametrize("question, row", [
    ("If our total leverage comes in at 3.0x, what margin do we pay?", "Greater than 2.75x but not above 3.50x"),
    ("Once leverage is down to 1.8x, what is the commitment fee?", "2.00x or less"),
    ("Leverage is exactly 3.50x: which margin applies?", "Greater than 2.75x but not above 3.50x"),
    ("What is the margin?", None),                      # no figure given: nothing singled out
    ("At 4.0% interest, what is the margin?", None),    # a figure of another unit
])
def test_a_figure_in_the_question_picks_the_row_whose_range_holds_it(question, row):
    from aegis_tui.text.ranges import holding

    rows = ["Greater than 3.50x", "Greater than 2.75x but not above 3.50x",
            "Greater than 2.00x but not above 2.75x", "2.00x or less"]
    assert holding(rows, question) == ({row} if row else None)


def test_chinese_ranges_and_ages():
    from aegis_tui.text.ranges import holding, interval

    assert interval("60万元至300万元").holds(100, "万元") and not interval("60万元至300万元").holds(400, "万元")
    people = ["在职职工", "退休人员（不满75周岁）", "退休人员（75周岁及以上）"]
    assert holding(people, "75岁以上的退休老人报销比例是多少？") == {"退休人员（75周岁及以上）"}
    assert holding(people, "我70岁了，退休了") == {"退休人员（不满75周岁）"}
    assert interval("一级及以下定点医疗机构") is None and interval("3万元") is None


@pytest.mark.parametrize("text, value, subject, predicate", [
    ("# Records\n\nCustomer due diligence records are kept for 5 years after the relationship ends.\n", "5 years",
     "Customer due diligence records", "kept for"),
    ("# 差旅\n\n第十条 出差人员的伙食补助标准为每人每天100元。\n", "100元", "出差人员", "伙食补助标准"),
])
def test_a_plain_clause_labels_its_value_when_the_model_could_not(text, value, subject, predicate):
    doc = Document.from_text(text, "c.md")
    index = FactIndex(doc, "test-model")
    [(key, cand)] = [(k, c) for k, c in index.candidates.items() if c.value == value]
    assert Indexer(NO_ENGINE, index)._from_clause(key, cand)
    fact = index.facts[key].fact
    assert (fact.subject, fact.predicate) == (subject, predicate)


def test_a_predicate_of_function_words_says_nothing():
    from aegis_tui.answer.factindex import _says_something

    assert not any(map(_says_something, ["the", "for", "more than", "的为"]))
    assert all(map(_says_something, ["kept for", "起付线", "报销比例"]))
