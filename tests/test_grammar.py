"""Schema→GBNF compiler, the grounded grammar, and GBNF validation with a real parser of the grammar."""

import json
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark

from aegis_tui.errors import GrammarError, UnsupportedSchemaError
from aegis_tui.grammar.compiler import committed_extraction_grammar_path, compile_schema, extraction_grammar
from aegis_tui.grammar.grounded import containing_rule, grounded_grammar, substring_rule
from aegis_tui.grammar.validate import lark_acceptor, parse_gbnf, to_lark
from aegis_tui.schema import ExtractionPayload, parse_payload
from aegis_tui.text.document import Document

FACT = {"subject": "一级医疗机构", "predicate": "起付线", "object_value": "300元", "fact_type": "numeric",
        "source_text": "一级及以下医疗机构起付线为300元"}


@lru_cache(maxsize=8)
def acceptor(gbnf: str):
    """A Lark parser for a grammar's language, built once per grammar (building takes about a second)."""
    return lark_acceptor(gbnf)


@lru_cache(maxsize=8)
def generator(gbnf: str):
    return from_lark(acceptor(gbnf))


@pytest.fixture(scope="module")
def schema_acceptor():
    return acceptor(extraction_grammar())


def test_golden_grammar_matches_fresh_compile():
    # Changing a schema field must fail here until `aegis grammar` regenerates grammars/extraction.gbnf.
    assert committed_extraction_grammar_path().read_text(encoding="utf-8") == extraction_grammar()


def test_grammar_check_command(cli, tmp_path):
    assert cli("grammar", "--check").returncode == 0
    stale = tmp_path / "stale.gbnf"
    stale.write_text(extraction_grammar().replace("{0,23}", "{0,99}"))
    proc = cli("grammar", "--check", "--out", str(stale))
    assert proc.returncode == 1 and "stale" in proc.stderr


def test_compiled_grammar_bounds():
    g = extraction_grammar()
    assert "json-char{1,80}" in g and "json-char{1,400}" in g  # maxLength honoured with {m,n}
    assert "{0,23}" in g  # 24 facts at most
    assert '"\\n" [ ]{0,8}' in g  # bounded whitespace


@pytest.mark.parametrize("schema, why", [
    ({"type": "string"}, "without maxLength"),  # unbounded string
    ({"type": "array", "items": {"type": "integer"}}, "without maxItems"),  # unbounded array
    ({"type": "string", "maxLength": 5, "pattern": "a+"}, "pattern"),  # regex patterns not supported
    ({"anyOf": [{"type": "string", "maxLength": 2}, {"type": "integer"}]}, "type"),  # unions
    ({"type": "object", "properties": {}, "additionalProperties": True}, "additionalProperties"),
    ({"$ref": "#/$defs/Missing"}, "unresolvable"),
    ({"type": "string", "maxLength": 5, "format": "date"}, "format"),
    ({"$defs": {"N": {"type": "object", "additionalProperties": False, "properties": {"n": {"$ref": "#/$defs/N"}}}},
      "$ref": "#/$defs/N"}, "recursive"),
])
def test_unsupported_schema_features_raise(schema, why):
    with pytest.raises(UnsupportedSchemaError, match=why):
        compile_schema(schema)


def test_canonical_payload_accepted_and_control_chars_rejected(schema_acceptor):
    good = json.dumps({"atomic_facts": [FACT, FACT]}, ensure_ascii=False)
    schema_acceptor.parse(good)
    schema_acceptor.parse('{"atomic_facts": []}')
    for bad in [{"subject": "a\nb"}, {"object_value": ""}, {"predicate": "x" * 81}, {"fact_type": "date"}]:
        with pytest.raises(Exception):
            schema_acceptor.parse(json.dumps({"atomic_facts": [{**FACT, **bad}]}, ensure_ascii=False))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_every_string_the_schema_grammar_generates_validates(data):
    text = data.draw(generator(extraction_grammar()))
    payload = json.loads(text)  # valid JSON (no raw control characters can be generated)
    ExtractionPayload.model_validate(payload)


@pytest.mark.parametrize("gbnf, message", [
    ('root ::= "a" | missing', "not defined"),
    ('start ::= "a"', "no root"),
    ('root ::= "a" (', "invalid GBNF"),
    ('root ::= "a"\nroot ::= "b"', "defined twice"),
    ('root ::= [a-', "invalid GBNF"),
])
def test_lark_gbnf_validator_rejects(gbnf, message):
    with pytest.raises(GrammarError, match=message):
        parse_gbnf(gbnf)


# ---- grounded grammar ------------------------------------------------------------------------------
DOC_TEXT = (
    "第三条 起付线标准：一级及以下医疗机构300元；二级医疗机构600元；三级医疗机构1200元。\n"
    "第四条 统筹基金的报销比例为：一级85%，二级70%，三级55%。\n"
    "第五条 年度最高支付限额为20万元。引号\"内\"与反斜杠\\测试 50元。\n"
    "Lodging is capped at $250 in standard cities and $400 in high-cost cities.\n"
)


@pytest.fixture(scope="module")
def doc():
    return Document.from_text(DOC_TEXT)


@pytest.fixture(scope="module")
def grounded(doc):
    return grounded_grammar(doc)


def test_grounded_grammar_is_valid_gbnf(grounded):
    parse_gbnf(grounded.text)
    assert grounded.spans and all(grounded.values)


def test_grounded_grammar_of_the_sample_offers_its_spans():
    # its compile time is measured by `aegis bench verify`, not asserted here
    from importlib import resources

    text = resources.files("aegis_tui.samples").joinpath("policy_zh.txt").read_text(encoding="utf-8")
    g = grounded_grammar(Document.from_text(text))
    parse_gbnf(g.text)
    assert len(text) > 2000 and len(g.spans) > 10


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_every_grounded_string_is_verbatim_and_value_in_quote(data, doc, grounded):
    from aegis_tui.text.quantity import find_quantities

    text = data.draw(generator(grounded.text))
    payload = parse_payload(text)
    for fact in payload.atomic_facts:
        assert doc.find(fact.source_text) is not None, fact.source_text
        assert fact.object_value in fact.source_text
        assert fact.object_value in [m.text for m in find_quantities(fact.source_text)]


def test_grounded_rejects_fabricated_quote_and_foreign_value(doc, grounded):
    acc = acceptor(grounded.text)
    i = next(k for k, v in enumerate(grounded.values) if "600元" in v and "300元" not in v)
    quote = " ".join(grounded.spans[i].text.split())
    ok = {"subject": "二级医疗机构", "predicate": "起付线", "source_text": quote, "object_value": "600元",
          "fact_type": "numeric"}
    acc.parse(json.dumps({"atomic_facts": [ok]}, ensure_ascii=False))
    for bad in ({"object_value": "300元"}, {"object_value": "601元"}, {"source_text": quote.replace("600", "650")},
                {"source_text": "二级医疗机构起付线为600元"}):
        with pytest.raises(Exception):
            acc.parse(json.dumps({"atomic_facts": [{**ok, **bad}]}, ensure_ascii=False))


def test_grounded_escapes_quotes_and_backslashes(doc, grounded):
    spans = [s for s in grounded.spans if "反斜杠" in s.text]
    assert spans
    acc = acceptor(grounded.text)
    quote = spans[0].text
    fact = {"subject": "测试", "predicate": "金额", "source_text": quote, "object_value": "50元",
            "fact_type": "numeric"}
    acc.parse(json.dumps({"atomic_facts": [fact]}, ensure_ascii=False))


def test_grounded_with_no_quantities_is_an_error():
    with pytest.raises(GrammarError, match="no span"):
        grounded_grammar(Document.from_text("这份文件没有任何数字。"))


def test_substring_rule_accepts_exactly_substrings():
    rules = substring_rule("sub", "二级医疗机构")
    gbnf = 'root ::= sub\n' + "\n".join(f"{n} ::= {r}" for n, r in rules)
    acc = lark_acceptor(gbnf)
    for good in ["二级", "医疗机构", "二级医疗机构", "构"]:
        acc.parse(json.dumps(good, ensure_ascii=False))
    for bad in ["三级", "二级机构", ""]:
        with pytest.raises(Exception):
            acc.parse(json.dumps(bad, ensure_ascii=False))


@pytest.mark.parametrize("text,span,ok", [
    ("nightly lodging cap", "lodging cap", True),  # whole words
    ("nightly lodging cap", "ing cap", False),  # starts inside "lodging"
    ("nightly lodging cap", "nightly lodg", False),  # ends inside "lodging"
    ("nightly lodging cap", "nightly", True),
    ("capped at $250 per night", "$25", False),  # a number is a word: no prefix of 250
    ("capped at $250 per night", "$250 per night", True),
    ("high-cost cities", "cost cities", True),  # a hyphen is a word bound
    ("三级医疗机构 hotel", "医疗", True),  # CJK may be cut between characters
])
def test_substring_rule_keeps_english_words_whole(text, span, ok):
    acc = lark_acceptor("root ::= sub\n" + "\n".join(f"{n} ::= {r}" for n, r in substring_rule("sub", text)))
    if ok:
        acc.parse(json.dumps(span, ensure_ascii=False))
    else:
        with pytest.raises(Exception):
            acc.parse(json.dumps(span, ensure_ascii=False))


@pytest.mark.parametrize("text,word,span,ok", [
    ("the nightly lodging cap", "lodging", "nightly lodging", True),
    ("the nightly lodging cap", "lodging", "ly lodging cap", False),  # the part before starts mid-word
    ("the nightly lodging cap", "lodging", "lodging ca", False),  # the part after ends mid-word
    ("capped at", "cap", "cap", False),  # the word itself is part of "capped"
])
def test_containing_rule_keeps_english_words_whole(text, word, span, ok):
    acc = lark_acceptor("root ::= c\n" + "\n".join(f"{n} ::= {r}" for n, r in containing_rule("c", text, word)))
    if ok:
        acc.parse(json.dumps(span, ensure_ascii=False))
    else:
        with pytest.raises(Exception):
            acc.parse(json.dumps(span, ensure_ascii=False))


def test_to_lark_translation_is_deterministic(grounded):
    assert to_lark(grounded.text) == to_lark(grounded.text)


@pytest.mark.model
def test_both_engines_accept_our_grammars(embedded_model, grounded):
    from aegis_tui.grammar.engines import check_with_engines

    for text in (extraction_grammar(), grounded.text):
        verdict = check_with_engines(text, embedded_model)
        assert verdict.ok, verdict


@pytest.mark.model
def test_engines_reject_broken_grammar(embedded_model):
    from aegis_tui.grammar.engines import check_with_engines

    verdict = check_with_engines('root ::= "a" | nowhere', embedded_model)
    assert not verdict.llama_cpp_ok and not verdict.llguidance_ok


@pytest.fixture(scope="module")
def grounded_labels(doc):
    return grounded_grammar(doc, ground_labels=True)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_grounded_labels_are_spans_of_the_quote(data, doc, grounded_labels):
    text = data.draw(generator(grounded_labels.text))
    for fact in parse_payload(text).atomic_facts:
        assert doc.find(fact.source_text) is not None
        assert fact.subject in fact.source_text and fact.predicate in fact.source_text
        assert fact.object_value in fact.source_text


@pytest.mark.parametrize("name,offered,never", [
    ("q_field_en.md", {"$210", "$0.31 per mile", "70%"}, {"2.1", "3.2", "2025", "555", "0142"}),
    ("q_welfare_zh.md", {"1800", "800元", "120万元"}, {"3", "2025", "2.0", "0571", "07"}),
])
def test_grounded_grammar_offers_only_values(name, offered, never):
    from pathlib import Path

    doc = Document.load(Path(__file__).parent / "docs" / name)
    values = {v for vs in grounded_grammar(doc).values for v in vs}
    assert offered <= values
    assert not never & values
