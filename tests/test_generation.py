"""The embedded model generating under our grammars: every output parses as an ExtractionPayload."""

from __future__ import annotations

import json

import pytest

from aegis_tui.answer.prompts import facts_prompt
from aegis_tui.answer.relevance import enumerate_candidates
from aegis_tui.grammar.compiler import compile_schema
from aegis_tui.grammar.grounded import grounded_grammar
from aegis_tui.samples import sample_path
from aegis_tui.schema import ExtractionPayload, parse_payload
from aegis_tui.text.document import Document

pytestmark = pytest.mark.model
Q = "请问城乡居民医保住院在不同级别医院的起付线和报销比例分别是多少？年度封顶线是多少？"


@pytest.fixture(scope="module")
def engine(embedded_model):
    from aegis_tui.engine import Engine, EngineConfig

    eng = Engine(EngineConfig(model_path=embedded_model, n_parallel=2, n_ctx_per_slot=4096, n_threads=2))
    yield eng
    eng.close()


@pytest.fixture(scope="module")
def doc():
    return Document.load(sample_path("policy_zh"))


def two_fact_schema() -> dict:
    """The extraction schema with at most two facts, so a base model's output must end within the budget."""
    schema = ExtractionPayload.model_json_schema()
    schema["properties"]["atomic_facts"]["maxItems"] = 2
    return schema


def test_schema_grammar_output_validates(engine, doc):
    prompt = facts_prompt(doc.text, Q, "zh").text
    c = engine.submit(prompt, grammar=compile_schema(two_fact_schema()), max_tokens=1400).result()
    assert c.finish_reason in ("grammar", "eog"), (c.finish_reason, c.text[-200:])
    payload = parse_payload(c.text)  # Pydantic: valid JSON, bounded strings, no control characters
    assert len(payload.atomic_facts) <= 2


def test_grounded_grammar_output_is_verbatim(engine, doc):
    spans = {c.quote for c in enumerate_candidates(doc, Q)}
    from aegis_tui.text.document import Span

    g = grounded_grammar(doc, [Span(0, len(q), q) for q in spans], max_facts=3)
    c = engine.submit(facts_prompt(doc.text, Q, "zh").text, grammar=g.text, max_tokens=900).result()
    assert c.finish_reason in ("grammar", "eog"), (c.finish_reason, c.text[-200:])
    payload = parse_payload(c.text)
    assert payload.atomic_facts
    for fact in payload.atomic_facts:
        assert doc.find(fact.source_text) is not None  # a quote the document contains
        assert fact.object_value in fact.source_text  # a value inside that quote
    assert json.loads(c.text)  # and plain JSON
