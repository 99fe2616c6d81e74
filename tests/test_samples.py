"""Sample documents, gold facts, tampered payloads and questions load through importlib.resources."""

import pytest

from aegis_tui.samples import SAMPLES, load_gold, load_questions, load_tampered, sample_path
from aegis_tui.schema import ExtractionPayload
from aegis_tui.text.document import Document
from aegis_tui.text.quantity import parse_quantity

REFERENCE_QUESTION = "请问城乡居民医保住院在不同级别医院的起付线和报销比例分别是多少？年度封顶线是多少？"


@pytest.mark.parametrize("name", SAMPLES)
def test_sample_files_exist_and_load(name):
    doc = Document.load(sample_path(name))
    assert len(doc.text) > 2000
    assert sample_path(f"{name}.facts.json").exists()
    assert doc.language == name[-2:]


def test_zh_gold_is_the_reference_scenario():
    facts = load_gold("policy_zh").atomic_facts
    assert len(facts) == 7
    values = [parse_quantity(f.object_value) for f in facts]
    expected = ["300元", "600元", "1200元", "85%", "70%", "55%", "200000元"]
    assert values == [parse_quantity(v) for v in expected]
    assert "统筹基金的报销比例为：" in Document.load(sample_path("policy_zh")).text


@pytest.mark.parametrize("name", SAMPLES)
def test_gold_quotes_are_verbatim(name):
    doc = Document.load(sample_path(name))
    for fact in load_gold(name).atomic_facts:
        assert doc.find(fact.source_text) is not None, fact.source_text


@pytest.mark.parametrize("name", SAMPLES)
def test_tampered_cases_are_well_formed(name):
    cases = load_tampered(name)
    assert len(cases) >= 10
    kinds = " ".join(c["comment"] for c in cases)
    for kind in ("value changed", "quote invented", "unit changed", "swapped", "another clause"):
        assert kind in kinds
    for case in cases:
        assert case["verdict"] == "fail" and case["rule"] and case["comment"]
        ExtractionPayload.model_validate(case.get("payload") or {"atomic_facts": [case["fact"]]})


def test_questions_point_at_gold_facts():
    questions = load_questions()
    assert set(questions) == set(SAMPLES)
    assert questions["policy_zh"][0] == {"question": REFERENCE_QUESTION, "gold": [0, 1, 2, 3, 4, 5, 6]}
    for name, items in questions.items():
        n = len(load_gold(name).atomic_facts)
        assert items and all(0 <= i < n for q in items for i in q["gold"])
