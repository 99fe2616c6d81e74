"""Fuzzing the inputs with hypothesis: the document loader, the facts JSON and the verifier raise only Aegis's own
errors, and no verdict changes when a document is re-encoded (UTF-8 ↔ GB18030 ↔ UTF-16)."""

from __future__ import annotations

import itertools
import json
import os

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from aegis_tui.answer.verify import Tier1CodeVerifier
from aegis_tui.cli.verify import _read_facts
from aegis_tui.errors import AegisError, DocumentError, InputError, SchemaError
from aegis_tui.samples import load_gold, load_tampered, sample_path
from aegis_tui.schema import ExtractionPayload, parse_payload
from aegis_tui.text.document import Document

# modest by default so the suite stays quick on a slow machine; AEGIS_FUZZ_EXAMPLES=2000 for a deep run
_N = int(os.environ.get("AEGIS_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=_N, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=max(1, _N // 4), deadline=None, suppress_health_check=[HealthCheck.too_slow])
ENCODINGS = ["utf-8", "utf-8-sig", "gb18030", "utf-16"]  # what the loader reads (UTF-16 with its BOM)

# the characters that break text handling: mixed scripts, combining marks, zero-width and bidi controls
MIXED = st.sampled_from(
    list("起付线报销比例元％。，；：（）")                      # Chinese, full-width punctuation
    + list("Lodging cap $250 per night, 0.67; e.g. 1,000")     # Latin, numbers, ASCII punctuation
    + list("ابجد١٢٣שלום")                                      # right-to-left scripts, Arabic-Indic digits
    + ["\u0301", "\u0308", "\u20dd", "\u3099"]                 # combining marks
    + ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"]       # zero-width
    + ["\u202a", "\u202b", "\u202d", "\u202e", "\u202c", "\u2066", "\u2067", "\u2069", "\u200f"]  # bidi
    + ["\n", "\r\n", "\t", " ", "\u3000", "\u00a0"]
    + ["𠀀", "😀", "Ω", "ß", "İ", "ﬁ"]                          # astral, case-folding traps
)
MIXED_TEXT = st.lists(MIXED, min_size=1, max_size=300).map("".join)
LONG_LINE = st.builds(lambda piece, n: piece * n, MIXED_TEXT, st.integers(1, 2000))


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


_names = itertools.count()


def _load(folder, data: bytes, suffix: str = ".txt") -> Document:
    path = folder / f"doc{next(_names)}{suffix}"
    path.write_bytes(data)
    try:
        return Document.load(path)
    finally:
        path.unlink()


def _exercise(doc: Document) -> None:
    """Everything downstream of loading that reads the text: offsets, segmentation, structure, roles."""
    doc.position(len(doc.text) // 2)
    assert all(doc.text[s.start:s.end] == s.text for s in doc.sentences)
    doc.clauses, doc.fragments, doc.structure, doc.roles, doc.language, doc.line_count, doc.sha256  # noqa: B018
    doc.find(doc.text[: 20])


# -- the document loader ----------------------------------------------------------------------------------------

@FUZZ
@given(data=st.binary(max_size=3000), suffix=st.sampled_from([".txt", ".md"]))
@example(data=b"\xff\xfe" + b"\x00" * 3, suffix=".txt")  # UTF-16 BOM and an odd byte count
@example(data=b"\xef\xbb\xbf", suffix=".md")  # a UTF-8 BOM and nothing else
def test_random_bytes_load_or_raise_a_document_error(folder, data, suffix):
    try:
        doc = _load(folder, data, suffix)
    except DocumentError:
        return
    _exercise(doc)


@FUZZ
@given(text=st.one_of(MIXED_TEXT, LONG_LINE, st.text(max_size=400)), encoding=st.sampled_from(ENCODINGS))
@example(text="\ufeff起付线 1000元", encoding="utf-8")
@example(text="\ufeff起付线 1000元", encoding="utf-8-sig")
@example(text="\ufeff起付线 1000元", encoding="utf-16")
@example(text="\u202e0001\u202c 元\u200b", encoding="gb18030")
def test_any_text_in_any_supported_encoding_loads_as_itself_or_is_refused(folder, text, encoding):
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError:  # a lone surrogate: no encoding can write it
        return
    try:
        doc = _load(folder, data)
    except DocumentError:
        return
    _exercise(doc)
    # (a leading U+FEFF is a byte-order mark in any encoding, however many: not text)
    expected = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    ambiguous = encoding == "gb18030" and _valid_utf8(data)  # GB18030 bytes that are also UTF-8 read as UTF-8
    if not ambiguous:
        assert doc.text == expected


def _valid_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


# -- the facts JSON -----------------------------------------------------------------------------------------------

JSON_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), MIXED_TEXT,
                         st.text(max_size=50))
JSON_VALUES = st.recursive(JSON_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)), max_leaves=20)
FIELDS = ["subject", "predicate", "object_value", "fact_type", "source_text"]
NEAR_FACT = st.dictionaries(st.sampled_from(FIELDS + ["extra"]),
                            st.one_of(MIXED_TEXT, LONG_LINE, JSON_SCALARS,
                                      st.sampled_from(["numeric", "boolean", "text"])), max_size=6)
NEAR_PAYLOAD = st.one_of(
    st.fixed_dictionaries({"atomic_facts": st.lists(NEAR_FACT, max_size=5)}),
    st.dictionaries(st.sampled_from(["atomic_facts", "facts"]), JSON_VALUES, max_size=2),
    JSON_VALUES,
)


@FUZZ
@given(payload=NEAR_PAYLOAD)
def test_facts_json_parses_or_raises_a_schema_error(payload):
    try:
        text = json.dumps(payload, ensure_ascii=False, allow_nan=True)
    except (ValueError, RecursionError):
        return
    try:
        assert isinstance(parse_payload(text), ExtractionPayload)
    except SchemaError:
        pass


@FUZZ
@given(data=st.one_of(st.binary(max_size=500), MIXED_TEXT.map(lambda t: t.encode("utf-8")),
                      st.text(max_size=300).map(lambda t: t.encode("utf-16", "surrogatepass"))))
def test_the_verify_commands_facts_loader_raises_only_input_errors(folder, data):
    path = folder / f"facts{next(_names)}.json"
    path.write_bytes(data)
    try:
        parse_payload(_read_facts(str(path)))
    except InputError:  # SchemaError is one
        pass
    finally:
        path.unlink()


# -- the verifier -------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def zh():
    return Document.load(sample_path("policy_zh"))


def _fact(subject, predicate, value, quote, kind="numeric"):
    return {"subject": subject, "predicate": predicate, "object_value": value, "fact_type": kind,
            "source_text": quote}


FIELD_TEXT = st.one_of(MIXED_TEXT, st.text(min_size=1, max_size=40),
                       st.sampled_from(["起付线", "报销比例", "1000元", "50%", "0.67", "$250", "一千元", "百分之五十"]))


@SLOW
@given(facts=st.lists(st.tuples(FIELD_TEXT, FIELD_TEXT, FIELD_TEXT, st.integers(0, 4000), st.integers(1, 120),
                                st.sampled_from(["numeric", "boolean", "text"])), min_size=1, max_size=4))
def test_the_verifier_judges_any_payload_without_a_foreign_exception(zh, facts):
    rows = []
    for subject, predicate, value, start, length, kind in facts:
        quote = zh.text[start:start + length].strip() or value  # mostly real quotes, some invented
        rows.append(_fact(subject, predicate, value, quote, kind))
    try:
        payload = parse_payload(json.dumps({"atomic_facts": rows}, ensure_ascii=False))
    except SchemaError:
        return
    try:
        report = Tier1CodeVerifier(zh).verify(payload)
    except AegisError:
        return
    assert len(report.facts) == len(rows)
    json.dumps(report.to_json(), ensure_ascii=False)


def _verdicts(doc: Document, payload: ExtractionPayload) -> list:
    report = Tier1CodeVerifier(doc).verify(payload)
    return [(f.verdict, [(c.rule, c.passed) for c in f.checks]) for f in report.facts]


def _payloads(name: str) -> list[ExtractionPayload]:
    out = [load_gold(name)]
    for case in load_tampered(name):
        body = case.get("payload") or {"atomic_facts": [case["fact"]]}
        out.append(parse_payload(json.dumps(body, ensure_ascii=False)))
    return out


@pytest.mark.parametrize("name", ["policy_zh", "policy_en"])
def test_samples_keep_every_verdict_in_every_encoding(folder, name):
    # the gold facts and every tampered case, against the document written as UTF-8, GB18030 and UTF-16
    text = sample_path(name).read_text(encoding="utf-8")
    payloads = _payloads(name)
    docs = {enc: _load(folder, text.encode(enc)) for enc in ENCODINGS}
    assert {d.text for d in docs.values()} == {docs["utf-8"].text}
    for payload in payloads:
        want = _verdicts(docs["utf-8"], payload)
        for enc, doc in docs.items():
            assert _verdicts(doc, payload) == want, enc


@SLOW
@given(inserts=st.lists(st.tuples(st.integers(0, 10 ** 6), MIXED_TEXT), min_size=1, max_size=5),
       pair=st.sampled_from([("utf-8", "gb18030"), ("gb18030", "utf-16"), ("utf-16", "utf-8")]))
# (a byte-order mark written first: UTF-8 reads it as a mark, GB18030 and UTF-16 as a character after their own)
@example(inserts=[(0, "\ufeff")], pair=("utf-8", "gb18030"))
@example(inserts=[(0, "\ufeff")], pair=("gb18030", "utf-16"))
@example(inserts=[(0, "\ufeff\ufeff")], pair=("utf-16", "utf-8"))
def test_an_edited_document_keeps_its_verdicts_across_encodings(folder, zh, inserts, pair):
    text = zh.text
    for at, piece in inserts:
        at %= len(text)
        text = text[:at] + piece + text[at:]
    payload = load_gold("policy_zh")
    try:
        a, b = (_load(folder, text.encode(enc)) for enc in pair)
    except DocumentError:
        return  # both encodings are readable; the edit made the text unusable (e.g. control characters)
    assert a.text == b.text
    assert _verdicts(a, payload) == _verdicts(b, payload)
