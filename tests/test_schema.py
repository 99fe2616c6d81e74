"""The extraction schema: bounds, forbidden extras, control characters, golden JSON schema."""

import json

import pytest

from aegis_tui.errors import SchemaError
from aegis_tui.grammar.compiler import committed_schema_path, extraction_schema_text
from aegis_tui.schema import MAX_FACTS, MAX_SOURCE, AtomicFact, ExtractionPayload, FactType, parse_payload

GOOD = {"subject": "一级医疗机构", "predicate": "起付线", "object_value": "300元", "fact_type": "numeric",
        "source_text": "一级及以下医疗机构起付线为300元"}


def payload(**changes):
    return json.dumps({"atomic_facts": [{**GOOD, **changes}]}, ensure_ascii=False)


def test_good_payload_parses():
    p = parse_payload(payload())
    assert p.atomic_facts[0].fact_type is FactType.NUMERIC
    assert p.atomic_facts[0].object_value == "300元"


def test_fact_type_defaults_to_numeric():
    fact = AtomicFact(**{k: v for k, v in GOOD.items() if k != "fact_type"})
    assert fact.fact_type is FactType.NUMERIC


@pytest.mark.parametrize("changes, why", [
    ({"subject": ""}, "empty string"),
    ({"subject": "a\nb"}, "raw newline"),
    ({"predicate": "x\x00"}, "NUL"),
    ({"object_value": "3\u2028"}, "line separator"),
    ({"source_text": "x" * (MAX_SOURCE + 1)}, "too long"),
    ({"fact_type": "date"}, "unknown fact type"),
    ({"extra": 1}, "extra field forbidden"),
])
def test_invalid_fact_rejected(changes, why):
    with pytest.raises(SchemaError):
        parse_payload(payload(**changes))


@pytest.mark.parametrize("text", ["", "{", "[]", '{"atomic_facts": {}}', '{"facts": []}', "null"])
def test_invalid_json_one_line_error(text):
    with pytest.raises(SchemaError) as exc:
        parse_payload(text)
    assert "\n" not in str(exc.value)


def test_number_of_facts_bounded():
    facts = [GOOD] * (MAX_FACTS + 1)
    with pytest.raises(SchemaError):
        parse_payload(json.dumps({"atomic_facts": facts}))
    assert len(parse_payload(json.dumps({"atomic_facts": facts[:MAX_FACTS]})).atomic_facts) == MAX_FACTS


def test_golden_json_schema():
    # Changing a field must fail here until `aegis grammar` regenerates the golden files.
    assert committed_schema_path().read_text(encoding="utf-8") == extraction_schema_text()
    assert json.loads(extraction_schema_text()) == ExtractionPayload.model_json_schema()
