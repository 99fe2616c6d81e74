"""Tier-1 verifier: a RuleMatrix of named, separately testable checks that each fact stands in the document."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

from ..schema import AtomicFact, ExtractionPayload, FactType
from ..text.docindex import LIST_ITEM, DocumentIndex, document_index
from ..text.document import Document, Span, fold
from ..text.entities import mentions, same_entity
from ..text.entities import units as name_units
from ..text.quantity import Quantity, QuantityMatch, find_quantities, parse_quantity

# predicate keyword -> dimensions its value may have; data, searched longest keyword first, extensible.
PREDICATE_DIMENSIONS: dict[str, tuple[str, ...]] = {
    "起付线": ("money",), "起付标准": ("money",), "限额": ("money",), "封顶": ("money",), "额度": ("money",),
    "最高支付": ("money",), "补助": ("money", "rate"), "缴费": ("money", "rate"), "金额": ("money",),
    "费用": ("money",), "标准": ("money", "percent", "rate"),
    "比例": ("percent",), "报销比": ("percent",), "支付比": ("percent",), "费率": ("percent",),
    "期限": ("time",), "时限": ("time",), "天数": ("time",), "日内": ("time",), "年龄": ("age",), "周岁": ("age",),
    "cap": ("money", "rate"), "allowance": ("money", "rate"), "limit": ("money", "rate", "time"),
    "threshold": ("money",), "deductible": ("money",), "amount": ("money",), "per diem": ("money", "rate"),
    "mileage": ("rate",), "rate": ("percent", "rate"), "percent": ("percent",), "percentage": ("percent",),
    "share": ("percent",), "tip": ("percent",), "gratuity": ("percent",),
    "deadline": ("time",), "within": ("time",), "days": ("time",), "period": ("time",), "window": ("time",),
    "age": ("age",), "effective date": ("date",), "生效": ("date",),
}
_PREDICATE_KEYS = sorted(PREDICATE_DIMENSIONS, key=len, reverse=True)
# words that make a predicate a change ("报销比例降低", "rate reduced by"): relative amounts become allowed too
CHANGE_WORDS = ("降低", "提高", "增加", "减少", "上调", "下调", "上浮", "下浮", "reduced", "increased", "reduction",
                "increase", "lowered", "raised")
CHANGE_DIMENSIONS = ("percent", "percentage_point")
RATE_DIMENSIONS = {"percent"}
_FAMILY = {"rate": "money"}
_CJK = re.compile(r"[\u3400-\u9fff]")
_WORD = re.compile(r"[a-z0-9]+")
_STOP = {"the", "a", "an", "of", "in", "for", "at", "on", "to", "and", "or", "by", "with", "is", "are", "per"}
_SEPARATORS = re.compile(r"[，、;；：:。!?！？]|,(?!\d{3})|\s(?:and|or|while|whereas|but)\s", re.IGNORECASE)


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one rule on one fact, with the evidence that decided it."""

    rule: str
    passed: bool
    detail: str
    evidence: dict | None = None

    def to_json(self) -> dict:
        return {"rule": self.rule, "passed": self.passed, "detail": self.detail, "evidence": self.evidence}


@dataclass
class FactVerdict:
    """One fact with every rule's result; it passes only when all rules pass."""

    index: int
    fact: AtomicFact
    checks: list[CheckResult]

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)

    @property
    def verdict(self) -> str:
        return "pass" if self.passed else "fail"

    @property
    def failed_rules(self) -> list[str]:
        return [c.rule for c in self.checks if not c.passed]

    def check(self, rule: str) -> CheckResult | None:
        return next((c for c in self.checks if c.rule == rule), None)

    def to_json(self) -> dict:
        return {"index": self.index, "verdict": self.verdict, "fact": self.fact.model_dump(mode="json"),
                "checks": [c.to_json() for c in self.checks]}


@dataclass
class VerificationReport:
    """Per-fact verdicts for one payload against one document (the `aegis verify --format json` contract)."""

    document: Document
    facts: list[FactVerdict]

    @property
    def verified_facts(self) -> list[AtomicFact]:
        return [f.fact for f in self.facts if f.passed]

    @property
    def verified(self) -> list[FactVerdict]:
        return [f for f in self.facts if f.passed]

    @property
    def rejected(self) -> list[FactVerdict]:
        return [f for f in self.facts if not f.passed]

    @property
    def all_passed(self) -> bool:
        return all(f.passed for f in self.facts)

    def to_json(self) -> dict:
        passed = sum(1 for f in self.facts if f.passed)
        return {
            "document": {"path": self.document.path, "sha256": self.document.sha256, "chars": len(self.document.text)},
            "facts": [f.to_json() for f in self.facts],
            "summary": {"total": len(self.facts), "passed": passed, "failed": len(self.facts) - passed},
        }


# ---- facts and rules ------------------------------------------------------------------------------------------
@dataclass
class FactContext:
    """What the rules look at for one fact: the fact, its payload, the document and shared lookups."""

    index: int
    fact: AtomicFact
    payload: ExtractionPayload
    document: Document
    doc_index: DocumentIndex
    span: Span | None = None
    quantity: Quantity | None = None
    numeric: bool = True
    value_matches: list[QuantityMatch] = field(default_factory=list)
    subjects: list[str] = field(default_factory=list)
    keys: list[tuple] = field(default_factory=list)  # (subject, predicate, value) of every fact, for consistency


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


DEFAULT_RULES = RuleMatrix()


def _where(doc: Document, start: int, end: int) -> dict:
    pos = doc.position(start)
    return {"line": pos.line, "column": pos.column, "offset": start, "length": end - start}


@DEFAULT_RULES.register("source_verbatim")
def source_verbatim(ctx: FactContext) -> CheckResult:
    """The quote occurs in the document after NFKC and whitespace folding only."""
    if ctx.span is None:
        return CheckResult("source_verbatim", False, "quote not found in the document (after NFKC and "
                           "whitespace folding)")
    pos = ctx.document.position(ctx.span.start)
    return CheckResult("source_verbatim", True, f"quote found at line {pos.line}, column {pos.column}",
                       _where(ctx.document, ctx.span.start, ctx.span.end))


def _base_money(q: Quantity) -> Quantity | None:
    if q.dimension != "rate":
        return None
    return Quantity(q.value, q.unit.split("/", 1)[0], "money")


@DEFAULT_RULES.register("value_in_source")
def value_in_source(ctx: FactContext) -> CheckResult:
    """The fact's value occurs inside the quote: equal quantities for numbers, folded text otherwise."""
    value = ctx.fact.object_value
    if ctx.span is None:
        return CheckResult("value_in_source", False, "no verbatim quote to find the value in")
    if not ctx.numeric:
        hay, needle = fold(ctx.span.text).lower(), fold(value).lower()
        at = hay.find(needle)
        if at < 0:
            return CheckResult("value_in_source", False, f"'{value}' does not occur in the quote")
        return CheckResult("value_in_source", True, f"'{value}' occurs in the quote")
    if ctx.quantity is None:
        return CheckResult("value_in_source", False, f"'{value}' is not a quantity")
    if ctx.value_matches:
        m = ctx.value_matches[0]
        ev = _where(ctx.document, m.start, m.end) | {"text": m.text}
        how = "" if m.quantity == ctx.quantity else f" (the amount of the rate '{m.text}')"
        return CheckResult("value_in_source", True, f"'{value}' = '{m.text}' in the quote{how}", ev)
    stated = ", ".join(m.text for m in ctx.doc_index.quantities_in(ctx.span.start, ctx.span.end)) or "no quantity"
    return CheckResult("value_in_source", False, f"'{value}' ({ctx.quantity}) is not in the quote, which states: "
                       f"{stated}")


def expected_dimensions(predicate: str) -> tuple[str, tuple[str, ...]] | None:
    """The first (longest) keyword of PREDICATE_DIMENSIONS in a predicate and the dimensions it allows."""
    low = _folded_lower(predicate)
    for key in _PREDICATE_KEYS:
        if key in low:
            dims = PREDICATE_DIMENSIONS[key]
            if any(w in low for w in CHANGE_WORDS):
                dims = dims + tuple(d for d in CHANGE_DIMENSIONS if d not in dims)
            return key, dims
    return None


@DEFAULT_RULES.register("unit_dimension")
def unit_dimension(ctx: FactContext) -> CheckResult:
    """The value's dimension fits the predicate (起付线 -> money, 比例 -> percent, within -> time...)."""
    if not ctx.numeric:
        return CheckResult("unit_dimension", True, "not a numeric fact")
    if ctx.quantity is None:
        return CheckResult("unit_dimension", False, f"'{ctx.fact.object_value}' has no unit to check")
    want = expected_dimensions(ctx.fact.predicate)
    dim = ctx.quantity.dimension
    if want is None:
        return CheckResult("unit_dimension", True, f"no dimension rule for '{ctx.fact.predicate}'; value is {dim}",
                           {"dimension": dim, "expected": None})
    key, dims = want
    ev = {"dimension": dim, "expected": list(dims), "keyword": key}
    if dim in dims:
        return CheckResult("unit_dimension", True, f"{dim} fits '{key}'", ev)
    return CheckResult("unit_dimension", False, f"'{key}' expects {' or '.join(dims)}, but "
                       f"'{ctx.fact.object_value}' is {dim}", ev)


def _segments(text: str, start: int, end: int) -> list[tuple[int, int]]:
    segs, pos = [], start
    for m in _SEPARATORS.finditer(text, start, end):
        if m.start() > pos:
            segs.append((pos, m.start()))
        pos = m.end()
    if pos < end:
        segs.append((pos, end))
    return segs or [(start, end)]


def _seg_of(ends: list[int], offset: int) -> int:
    return min(bisect.bisect_right(ends, offset), len(ends) - 1)


_FUNCTION_UNITS = set("的为是在按于对由至每其该") | {"up", "be", "will", "shall", "may", "can"}


def _label(text: str, quantities: list[QuantityMatch], base: int, predicate: str) -> str:
    """What an enumeration item names besides its value and predicate ('' when it names nothing)."""
    for q in sorted(quantities, key=lambda q: -q.start):
        if base <= q.start < base + len(text):
            text = text[:q.start - base] + " " + text[q.end - base:]
    skip = set(name_units(predicate)) | _FUNCTION_UNITS
    if not [u for u in name_units(text) if u not in skip]:
        return ""
    return LIST_ITEM.sub("", text).strip(" ，、,;；：:。")


_RESPECTIVELY = re.compile(r"分别|respectively", re.IGNORECASE)
_LIST_SEP = re.compile(r"[、和与]|\s(?:and|or)\s|,\s(?:and\s|or\s)?")
_CLAUSE_SEP = re.compile(r"[，；;：:]")


def _respectively(text: str, ss: int, m: QuantityMatch, same: list[QuantityMatch], subject: str) -> CheckResult:
    """'A和B的起付线分别为3000元、4000元': the i-th value belongs to the i-th entity listed before the values."""
    at = same.index(m)
    parts: list[str] = []
    for clause in reversed(_CLAUSE_SEP.split(text[ss:same[0].start])):  # the nearest clause that lists enough
        parts = [p for p in _LIST_SEP.split(clause) if p.strip()][-len(same):]
        if len(parts) >= len(same):
            break
    ev = {"value_offset": m.start, "respectively": True}
    if len(parts) < len(same):
        return CheckResult("entity_binding", False, f"'respectively' with {len(same)} values but only "
                           f"{len(parts)} listed entities", ev)
    want = set(name_units(subject)) - _FUNCTION_UNITS
    scores = [len(want & set(name_units(p))) for p in parts]
    best = max(scores)
    if best and scores.count(best) == 1 and scores.index(best) == at:
        return CheckResult("entity_binding", True, f"'{subject}' is entity {at + 1} of the list that "
                           f"'{m.text}' answers respectively", ev)
    owner = parts[at].strip(" 的")
    return CheckResult("entity_binding", False, f"'{m.text}' is value {at + 1}, which belongs to '{owner}', "
                       f"not '{subject}'", ev)


def _bind(ctx: FactContext, m: QuantityMatch, others: list[str]) -> CheckResult:
    text, idx, subject = ctx.document.text, ctx.doc_index, ctx.fact.subject
    ss, se = idx.sentence_bounds(m.start)
    segs = _segments(text, ss, se)
    ends = [e for _, e in segs]
    family = _FAMILY.get(m.quantity.dimension, m.quantity.dimension)
    same = [q for q in idx.quantities_in(ss, se) if _FAMILY.get(q.quantity.dimension, q.quantity.dimension) == family]
    if len(same) > 1 and _RESPECTIVELY.search(text, ss, se):
        return _respectively(text, ss, m, same, subject)
    k = _seg_of(ends, m.start)
    prev = max((j for j in (_seg_of(ends, q.start) for q in same) if j < k), default=-1)
    start, end = segs[prev + 1][0], segs[k][1]
    item = text[start:end]
    ev = {"value_offset": m.start, "item_offset": start, "item_length": end - start}

    def bound(how: str, at: tuple[int, int], base: int) -> CheckResult:
        s = base + at[0]
        distance = max(0, m.start - (base + at[1]), s - m.end)
        return CheckResult("entity_binding", True, f"'{subject}' {how} '{m.text}'",
                           ev | {"subject_offset": s, "subject_length": at[1] - at[0], "distance": distance})

    if hits := mentions(subject, item):
        return bound("is named in the same clause as", hits[-1], start)
    for other in others:
        if mentions(other, item):
            return CheckResult("entity_binding", False, f"'{m.text}' is bound to '{other}', not '{subject}'", ev)
    if len({_seg_of(ends, q.start) for q in same}) >= 2:
        label = _label(text[segs[k][0]:end], same, segs[k][0], ctx.fact.predicate) or _label(
            item, same, start, ctx.fact.predicate)
        if label:
            return CheckResult("entity_binding", False, f"in this enumeration '{m.text}' belongs to '{label}', "
                               f"not '{subject}'", ev)
    before = text[ss:start]
    nearest = [(hit[1], subject, hit) for hit in mentions(subject, before)]
    nearest += [(hit[1], o, hit) for o in others for hit in mentions(o, before)]
    if nearest:
        _, who, hit = max(nearest, key=lambda t: t[0])
        if who is subject:
            return bound("opens the sentence of", hit, ss)
        return CheckResult("entity_binding", False, f"'{who}' comes between '{subject}' and '{m.text}'", ev)
    head = idx.head_lines(m.start)
    if head and mentions(subject, head):
        return CheckResult("entity_binding", True, f"'{subject}' heads the list that contains '{m.text}'", ev)
    return CheckResult("entity_binding", False, f"'{subject}' is not named in the sentence of '{m.text}'", ev)


@DEFAULT_RULES.register("entity_binding")
def entity_binding(ctx: FactContext) -> CheckResult:
    """The value is bound to the claimed subject, not to another entity of the payload or of an enumeration."""
    if ctx.span is None:
        return CheckResult("entity_binding", False, "no verbatim quote to bind the subject in")
    subject = ctx.fact.subject
    if not ctx.numeric:
        s, _ = ctx.doc_index.sentence_bounds(ctx.span.start)
        _, e = ctx.doc_index.sentence_bounds(max(ctx.span.end - 1, ctx.span.start))
        if mentions(subject, ctx.document.text[s:e]) or mentions(subject, ctx.doc_index.head_lines(s)):
            return CheckResult("entity_binding", True, f"'{subject}' is named in the quoted sentence")
        return CheckResult("entity_binding", False, f"'{subject}' is not named in the quoted sentence")
    if not ctx.value_matches:
        return CheckResult("entity_binding", False, "no value in the quote to bind to the subject")
    others = [s for s in ctx.subjects if not same_entity(s, subject)]
    results = [_bind(ctx, m, others) for m in ctx.value_matches]
    return next((r for r in results if r.passed), results[0])


@DEFAULT_RULES.register("plausibility")
def plausibility(ctx: FactContext) -> CheckResult:
    """No negative amounts, durations or ages; no rate above 100%."""
    q = ctx.quantity
    if not ctx.numeric or q is None:
        return CheckResult("plausibility", True, "not applicable")
    if q.value < 0 and q.dimension in ("money", "time", "age", "count", "rate", "distance", "percent"):
        return CheckResult("plausibility", False, f"negative {q.dimension}: {ctx.fact.object_value}")
    want = expected_dimensions(ctx.fact.predicate)
    if q.dimension == "percent" and q.value > 100 and want and set(want[1]) & RATE_DIMENSIONS:
        return CheckResult("plausibility", False, f"a rate of {ctx.fact.object_value} is above 100%")
    if q.dimension == "age" and q.value > 130:
        return CheckResult("plausibility", False, f"an age of {ctx.fact.object_value} is implausible")
    return CheckResult("plausibility", True, "plausible")


_CHANGE_BEFORE = re.compile(r"(?:提高|降低|增加|减少|上调|下调|上浮|下浮)(?:了)?$|"
                            r"(?:increased|reduced|raised|lowered|decreased|cut)\s+(?:by\s+)?$", re.IGNORECASE)


@DEFAULT_RULES.register("value_role")
def value_role(ctx: FactContext) -> CheckResult:
    """A value the document gives as a change ("提高1000元", "reduced by 10%") is not the level itself."""
    if not ctx.numeric or not ctx.value_matches:
        return CheckResult("value_role", True, "not applicable")
    if any(w in ctx.fact.predicate.lower() for w in CHANGE_WORDS):
        return CheckResult("value_role", True, "the predicate names a change")
    text = ctx.document.text
    levels = [m for m in ctx.value_matches if not _CHANGE_BEFORE.search(text[max(0, m.start - 12):m.start])]
    if levels:
        return CheckResult("value_role", True, "the value is stated as a level")
    m = ctx.value_matches[0]
    word = _CHANGE_BEFORE.search(text[max(0, m.start - 12):m.start]).group(0).strip()
    return CheckResult("value_role", False, f"the document gives {m.text} as a change ('{word}'), not as "
                       f"'{ctx.fact.predicate}' itself", _where(ctx.document, m.start, m.end))


@lru_cache(maxsize=4096)
def _folded_lower(text: str) -> str:
    return fold(text).lower()


def fact_key(fact: AtomicFact) -> tuple:
    """(subject, predicate, value) normalised for comparing facts: quantities by equality, text folded."""
    value = parse_quantity(fact.object_value) if fact.fact_type == FactType.NUMERIC else None
    return (_folded_lower(fact.subject), _folded_lower(fact.predicate),
            value if value is not None else _folded_lower(fact.object_value))


@DEFAULT_RULES.register("consistency")
def consistency(ctx: FactContext) -> CheckResult:
    """No other fact in the payload gives a different value for the same subject and predicate."""
    keys = ctx.keys or [fact_key(f) for f in ctx.payload.atomic_facts]
    mine = keys[ctx.index]
    clash = [i for i, k in enumerate(keys) if i != ctx.index and k[:2] == mine[:2] and k[2] != mine[2]]
    if clash:
        other = ctx.payload.atomic_facts[clash[0]].object_value
        return CheckResult("consistency", False, f"fact {clash[0]} gives '{other}' for the same subject and "
                           "predicate", {"conflicts_with": clash})
    return CheckResult("consistency", True, "no conflicting fact in the payload")


# ---- the verifier ---------------------------------------------------------------------------------------------
class Tier1CodeVerifier:
    """Runs the RuleMatrix over every fact of a payload; the document index is built once per document."""

    def __init__(self, document: Document, rules: RuleMatrix | None = None):
        self.document = document
        self.rules = rules or DEFAULT_RULES
        self.index = document_index(document)

    def verify(self, payload: ExtractionPayload) -> VerificationReport:
        subjects = list(dict.fromkeys(f.subject for f in payload.atomic_facts))
        keys = [fact_key(f) for f in payload.atomic_facts]
        verdicts = [self._verify_fact(i, fact, payload, subjects, keys) for i, fact in enumerate(payload.atomic_facts)]
        return VerificationReport(self.document, verdicts)

    def _verify_fact(self, i: int, fact: AtomicFact, payload: ExtractionPayload, subjects: list[str],
                     keys: list[tuple]) -> FactVerdict:
        span = self.document.find(fact.source_text)
        verdict = FactVerdict(i, fact, self.rules.run(self.context(i, fact, payload, subjects, span, keys)))
        while not verdict.passed and span is not None:
            # the same quote may stand in several places; any occurrence that satisfies every rule will do
            span = self.document.find(fact.source_text, span.start + 1)
            if span is not None:
                other = FactVerdict(i, fact, self.rules.run(self.context(i, fact, payload, subjects, span, keys)))
                if other.passed:
                    return other
        return verdict

    def context(self, i: int, fact: AtomicFact, payload: ExtractionPayload, subjects: list[str],
                span: Span | None, keys: list[tuple] | None = None) -> FactContext:
        numeric = fact.fact_type == FactType.NUMERIC
        q = parse_quantity(fact.object_value) if numeric else None
        matches = []
        if span is not None and q is not None:
            matches = [m for m in self.index.quantities_in(span.start, span.end)
                       if m.quantity == q or _base_money(m.quantity) == q]
        return FactContext(i, fact, payload, self.document, self.index, span, q, numeric, matches, subjects,
                           keys or [])


def unsupported_numbers(text: str, document: Document) -> list[str]:
    """The quantities of a free-text answer that the document does not state (as equal quantities)."""
    known = document_index(document).all_quantities()
    values = {q.value for q in known} | {b.value for q in known if (b := _base_money(q))}
    known = known | {b for q in known if (b := _base_money(q))}
    return [m.text for m in find_quantities(text)
            if m.quantity not in known and not (m.quantity.dimension == "number" and m.quantity.value in values)]
