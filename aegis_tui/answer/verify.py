"""Tier-1 verifier: a RuleMatrix of named, separately testable checks that each fact stands in the document."""

from __future__ import annotations

from typing import Callable

from ..schema import AtomicFact, ExtractionPayload, FactType
from ..text.docindex import document_index
from ..text.document import Document, Span
from ..text.quantity import Quantity, QuantityMatch, find_quantities, parse_quantity
from ..text.roles import Role, number_roles, values_in
from .binding import entity_binding
from .report import CheckResult, FactVerdict, VerificationReport
from .rules import (
    FactContext,
    consistency,
    fact_key,
    plausibility,
    source_verbatim,
    unit_dimension,
    value_in_source,
    value_role,
)
from .structural import number_role, scope, table_binding

Rule = Callable[[FactContext], CheckResult]


class RuleMatrix:
    """An ordered set of named rules; each is a plain function FactContext -> CheckResult."""

    def __init__(self, rules: dict[str, Rule] | None = None):
        self.rules: dict[str, Rule] = dict(rules or {})

    def register(self, name: str):
        def deco(fn: Rule) -> Rule:
            self.rules[name] = fn
            return fn
        return deco

    def without(self, *names: str) -> RuleMatrix:
        return RuleMatrix({k: v for k, v in self.rules.items() if k not in names})

    def only(self, *names: str) -> RuleMatrix:
        return RuleMatrix({k: self.rules[k] for k in names})

    @property
    def names(self) -> list[str]:
        return list(self.rules)

    def run(self, ctx: FactContext) -> list[CheckResult]:
        return [fn(ctx) for fn in self.rules.values()]


# rules that look at the whole payload; they run after every fact's own rules
PAYLOAD_RULES = frozenset({"consistency"})

# the order is the order of the checks in every report
DEFAULT_RULES = RuleMatrix({
    "source_verbatim": source_verbatim,
    "value_in_source": value_in_source,
    "unit_dimension": unit_dimension,
    "entity_binding": entity_binding,
    "plausibility": plausibility,
    "value_role": value_role,
    "number_role": number_role,
    "table_binding": table_binding,
    "scope": scope,
    "consistency": consistency,
})


def _base_money(q: Quantity) -> Quantity | None:
    """The amount of a rate ($250 per night -> $250), which a fact may state on its own."""
    if q.dimension != "rate":
        return None
    return Quantity(q.value, q.unit.split("/", 1)[0], "money")


class Tier1CodeVerifier:
    """Runs the RuleMatrix over every fact of a payload; the document index is built once per document."""

    def __init__(self, document: Document, rules: RuleMatrix | None = None):
        self.document = document
        self.rules = rules or DEFAULT_RULES
        self.index = document_index(document)

    def verify(self, payload: ExtractionPayload) -> VerificationReport:
        subjects = list(dict.fromkeys(f.subject for f in payload.atomic_facts))
        keys = [fact_key(f) for f in payload.atomic_facts]
        local = self.rules.without(*PAYLOAD_RULES)
        first = [self._verify_fact(i, fact, payload, subjects, keys, local)
                 for i, fact in enumerate(payload.atomic_facts)]
        # payload rules compare a fact only with facts that stand on their own: a misbound fact must not make
        # a true one fail consistency
        standing = [all(c.passed for c in checks) for _, checks in first]
        verdicts = []
        for i, (ctx, checks) in enumerate(first):
            ctx.keys, ctx.standing = keys, standing
            done = {c.rule: c for c in checks}
            done.update({name: fn(ctx) for name, fn in self.rules.rules.items() if name in PAYLOAD_RULES})
            verdicts.append(FactVerdict(i, payload.atomic_facts[i], [done[name] for name in self.rules.names]))
        return VerificationReport(self.document, verdicts)

    def _verify_fact(self, i: int, fact: AtomicFact, payload: ExtractionPayload, subjects: list[str],
                     keys: list[tuple], rules: RuleMatrix) -> tuple[FactContext, list[CheckResult]]:
        span = self.document.find(fact.source_text)
        ctx = self.context(i, fact, payload, subjects, span, keys)
        checks = rules.run(ctx)
        while not all(c.passed for c in checks) and span is not None:
            # the same quote may stand in several places; any occurrence that satisfies every rule will do
            span = self.document.find(fact.source_text, span.start + 1)
            if span is not None:
                other = self.context(i, fact, payload, subjects, span, keys)
                other_checks = rules.run(other)
                if all(c.passed for c in other_checks):
                    return other, other_checks
        return ctx, checks

    def context(self, i: int, fact: AtomicFact, payload: ExtractionPayload, subjects: list[str],
                span: Span | None, keys: list[tuple] | None = None) -> FactContext:
        numeric = fact.fact_type == FactType.NUMERIC
        q = parse_quantity(fact.object_value) if numeric else None
        matches = []
        if span is not None and q is not None:
            matches = [m for m in self.index.quantities_in(span.start, span.end)
                       if m.quantity == q or _base_money(m.quantity) == q]
            # a bare table number takes its unit from its header (1800 under 省内（元/人） is 1800元 per person)
            matches += [QuantityMatch(r.start, r.end, r.text, r.quantity) for r in values_in(self.document, span.start,
                        span.end) if r.unit_from and r.quantity is not None
                        and (r.quantity == q or _base_money(r.quantity) == q)
                        and not any(m.start == r.start for m in matches)]
            matches.sort(key=lambda m: m.start)
        return FactContext(i, fact, payload, self.document, self.index, span, q, numeric, matches, subjects,
                           keys or [])


def unsupported_numbers(text: str, document: Document) -> list[str]:
    """The quantities of a free-text answer that the document does not state (as equal quantities); a table cell
    counts with the unit its header gives it ("5600" under "定额（元）" states 5600元)."""
    known = document_index(document).all_quantities()
    known = known | {r.quantity for r in number_roles(document) if r.role is Role.VALUE and r.quantity is not None}
    values = {q.value for q in known} | {b.value for q in known if (b := _base_money(q))}
    known = known | {b for q in known if (b := _base_money(q))}
    return [m.text for m in find_quantities(text)
            if m.quantity not in known and not (m.quantity.dimension == "number" and m.quantity.value in values)]


def non_value_numbers(text: str, document: Document) -> list[str]:
    """The numbers of an answer that the document states only as section numbers, dates, versions or codes."""
    from .structural import numbers_of

    roles = number_roles(document)
    values = {q for r in roles if r.role is Role.VALUE for q in (r.quantity, parse_quantity(r.text)) if q}
    values |= {b for q in values if (b := _base_money(q))}
    others = set().union(*(numbers_of(r.text) for r in roles if r.role is not Role.VALUE))
    return [m.text for m in find_quantities(text)
            if m.quantity.dimension != "date" and m.quantity not in values and float(m.quantity.value) in others]
