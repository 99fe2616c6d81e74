"""Document-grounded grammars: quotes can only be verbatim spans, values only quantities inside them."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..schema import MAX_FACTS, MAX_PREDICATE, MAX_SOURCE, MAX_SUBJECT, MAX_VALUE
from ..text.document import Document, Span
from .gbnf import JSON_CHAR_RULE, WS_RULE, bounded_string, json_key, json_string_literal, literal

_WS = re.compile(r"\s+")


@dataclass
class GroundedGrammar:
    """A grounded GBNF plus the evidence it offers: spans and the values allowed inside each."""

    text: str
    spans: list[Span]
    values: list[list[str]] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.text.encode("utf-8"))


def quote_text(span_text: str) -> str:
    """The form a span takes as source_text: whitespace runs folded to one space (still verbatim after folding)."""
    return _WS.sub(" ", span_text).strip()


def candidate_spans(doc: Document, levels: Sequence[str] = ("sentences", "clauses", "fragments")) -> list[Span]:
    """Every distinct span at the given segmentation levels that contains at least one quantity."""
    from ..text.quantity import find_quantities

    seen: set[str] = set()
    out: list[Span] = []
    for level in levels:
        for span in getattr(doc, level):
            q = quote_text(span.text)
            if q in seen or len(q) > MAX_SOURCE:
                continue
            if find_quantities(q):
                seen.add(q)
                out.append(span)
    return out


def span_values(text: str) -> list[str]:
    """Distinct quantity strings inside a quote, in order, each short enough to be an object_value."""
    from ..text.quantity import find_quantities

    vals: list[str] = []
    for m in find_quantities(text):
        v = m.text.strip()
        if v and v not in vals and len(v) <= MAX_VALUE:
            vals.append(v)
    return vals


def value_texts(doc: Document, span: Span, quote: str) -> list[str]:
    """The quote's quantity strings that are values: no section number, date, version, phone or code."""
    from ..text.quantity import parse_quantity
    from ..text.roles import values_in

    vals = span_values(quote)
    real = span if doc.text[span.start:span.end] == span.text else doc.find(quote)
    if real is None:
        return vals
    allowed = set()
    for r in values_in(doc, real.start, real.end):
        allowed.update(q for q in (r.quantity, parse_quantity(r.text)) if q is not None)
    return [v for v in vals if parse_quantity(v) in allowed]


def grounded_grammar(
    doc: Document,
    spans: Iterable[Span] | None = None,
    *,
    max_facts: int = MAX_FACTS,
    ground_labels: bool = False,
) -> GroundedGrammar:
    """Compile a GBNF where source_text is one offered span and object_value a quantity inside that span.

    Field order is subject, predicate, source_text, object_value, fact_type: the quote is chosen before the
    value so the value rule can be tied to it; subject and predicate are bounded free strings. With
    ground_labels the quote comes first and subject and predicate must be spans of it too (source_text,
    subject, predicate, object_value, fact_type).
    """
    offered = list(spans) if spans is not None else candidate_spans(doc)
    rules: list[tuple[str, str]] = []
    evid: list[str] = []
    kept: list[Span] = []
    values: list[list[str]] = []
    seen: set[str] = set()
    for span in offered:
        q = quote_text(span.text)
        if q in seen or not q or len(q) > MAX_SOURCE:
            continue
        vals = value_texts(doc, span, q)
        if not vals:
            continue
        seen.add(q)
        i = len(kept)
        kept.append(span)
        values.append(vals)
        rules.append((f"val-{i}", " | ".join(json_string_literal(v) for v in vals)))
        labels = ""
        if ground_labels:
            # subject and predicate become spans of this same quote, chosen after it
            rules += substring_rule(f"sub-{i}", q)
            labels = (f" ws \",\" ws {json_key('subject')} ws \":\" ws sub-{i} ws \",\" ws "
                      f"{json_key('predicate')} ws \":\" ws sub-{i}")
        evid.append(
            f"{json_key('source_text')} ws \":\" ws {json_string_literal(q)}{labels} ws \",\" ws "
            f"{json_key('object_value')} ws \":\" ws val-{i}"
        )
    if not kept:
        from ..errors import GrammarError

        raise GrammarError(f"{doc.path}: no span of the document contains a quantity to ground facts on")

    fact_type = f"{json_key('fact_type')} ws \":\" ws \"\\\"numeric\\\"\""
    if ground_labels:
        fact = '"{" ws evidence ws "," ws ' + fact_type + ' ws "}"'
        labels: list[tuple[str, str]] = []
    else:
        fact = ('"{" ws ' + f"{json_key('subject')} ws \":\" ws subject ws \",\" ws "
                f"{json_key('predicate')} ws \":\" ws predicate ws \",\" ws evidence ws \",\" ws "
                + fact_type + ' ws "}"')
        labels = [("subject", bounded_string(1, MAX_SUBJECT)), ("predicate", bounded_string(1, MAX_PREDICATE))]
    head = [
        ("root", f'"{{" ws {json_key("atomic_facts")} ws ":" ws "[" ws ( fact ( ws "," ws fact ){{0,{max_facts - 1}}} )? ws "]" ws "}}"'),
        ("fact", fact),
        *labels,
        ("evidence", " | ".join(f"ev-{i}" for i in range(len(kept)))),
    ]
    body = head + [(f"ev-{i}", e) for i, e in enumerate(evid)] + rules
    body.append(("ws", WS_RULE.split("::=", 1)[1].strip()))
    body.append(("json-char", JSON_CHAR_RULE.split("::=", 1)[1].strip()))
    text = "\n".join(f"{name} ::= {rhs}" for name, rhs in body) + "\n"
    return GroundedGrammar(text=text, spans=kept, values=values)


def inside_word(text: str, j: int) -> bool:
    """Whether offset j falls inside an ASCII word or number ("ing" of "lodging"): no span starts or ends there."""
    return 0 < j < len(text) and _ascii_alnum(text[j - 1]) and _ascii_alnum(text[j])


def _ascii_alnum(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def substring_rule(name: str, text: str) -> list[tuple[str, str]]:
    """Rules matching the JSON encoding of any non-empty substring of text that starts and ends on word bounds.

    `name-<j>` matches text[j:k] for any k > j (the prefix chain from j); `name` picks a start position. Used
    by fan-out requests to force subject and predicate to be spans of the clause; an English span never cuts a
    word ("ing cap" of "lodging cap"), CJK text may be cut between any two characters.
    """
    chain = prefix_rule(name, text)[1:]
    starts = " | ".join(f"{name}-{j}" for j in range(len(text))
                        if not text[j].isspace() and not inside_word(text, j))
    return [(name, '"\\"" ( ' + starts + ' ) "\\""')] + chain


def _json_literal(text: str) -> str:
    """A GBNF literal for text as it appears inside a JSON string (escaped, without the quotes)."""
    return literal(json.dumps(text, ensure_ascii=False)[1:-1])


def _chars(text: str) -> list[str]:
    return [_json_literal(c) for c in text]


def _chain(name: str, text: str) -> list[tuple[str, str]]:
    """`name-j` matches text[j:k] for every k > j that does not end inside a word."""
    cs = _chars(text)
    rules = []
    for j, c in enumerate(cs):
        if j + 1 == len(cs):
            rules.append((f"{name}-{j}", c))
        else:
            more = "" if inside_word(text, j + 1) else "?"
            rules.append((f"{name}-{j}", f"{c} {name}-{j + 1}{more}"))
    return rules


def prefix_rule(name: str, text: str) -> list[tuple[str, str]]:
    """Rules matching (the JSON encoding of) any non-empty prefix of text ending on a word bound; `name` enters."""
    return [(name, f"{name}-0")] + _chain(name, text)


def suffix_rule(name: str, text: str) -> list[tuple[str, str]]:
    """Rules matching any non-empty suffix of text that starts on a word bound; `name` picks where it starts."""
    cs = _chars(text)
    starts = [j for j in range(len(cs)) if not inside_word(text, j)]
    rules = [(name, " | ".join(f"{name}-{j}" for j in starts))]
    for j, c in enumerate(cs):
        rules.append((f"{name}-{j}", c + (f" {name}-{j + 1}" if j + 1 < len(cs) else "")))
    return rules


def containing_rule(name: str, text: str, word: str) -> list[tuple[str, str]]:
    """Rules matching the JSON string of any substring of text that contains word (its first occurrence)."""
    pos = text.find(word)
    if pos < 0:
        raise ValueError(f"{word!r} does not occur in {text!r}")
    before, after = text[:pos], text[pos + len(word):]
    body = ['"\\""']
    rules: list[tuple[str, str]] = []
    if before:
        rules += suffix_rule(f"{name}-pre", before)
        body.append(f"{name}-pre" + ("" if inside_word(text, pos) else "?"))
    body.append(_json_literal(word))
    if after:
        rules += prefix_rule(f"{name}-post", after)
        body.append(f"{name}-post" + ("" if inside_word(text, pos + len(word)) else "?"))
    body.append('"\\""')
    return [(name, " ".join(body))] + rules
