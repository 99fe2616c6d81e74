"""The Tier-1 rules: plain functions FactContext -> CheckResult (quote, value, dimension, plausibility, role, consistency)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from ..schema import AtomicFact, ExtractionPayload, FactType
from ..text.docindex import DocumentIndex
from ..text.document import Document, Span, fold
from ..text.lexicon import (
    CHANGE_BEFORE,
    CHANGE_DIMENSIONS,
    CHANGE_REACH,
    CJK_RANGE,
    PERIOD_WORDS,
    PREDICATE_DIMENSIONS,
    is_change,
)
from ..text.quantity import (
    Quantity,
    QuantityMatch,
    dimension_of,
    parse_quantity,
    without_figures,
)
from ..text.ranges import one_range
from .report import CheckResult

_PREDICATE_KEYS = sorted(PREDICATE_DIMENSIONS, key=len, reverse=True)
# an English keyword is a word, with at most a short ending ("caps", "capped", "aged"): not a piece of another
# ("capacity" is no cap, "damage" no age); a Chinese one is found anywhere
_KEY_PATTERNS = {k: re.compile(rf"\b{re.escape(k)}\w{{0,3}}\b") if k.isascii() else None for k in _PREDICATE_KEYS}


def _names_key(low: str, key: str) -> bool:
    pattern = _KEY_PATTERNS[key]
    return key in low if pattern is None else key in low and pattern.search(low) is not None


# a predicate allowing one of these is a rate, so its percentages cannot pass 100%
RATE_DIMENSIONS = {"percent"}


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
    standing: list[bool] = field(default_factory=list)  # whether each fact passes every rule but the payload's


def where(doc: Document, start: int, end: int) -> dict:
    """The evidence of a document range: line, column, offset and length."""
    pos = doc.position(start)
    return {"line": pos.line, "column": pos.column, "offset": start, "length": end - start}


def source_verbatim(ctx: FactContext) -> CheckResult:
    """The quote occurs in the document after NFKC and whitespace folding only."""
    if ctx.span is None:
        return CheckResult("source_verbatim", False, "quote not found in the document (after NFKC and "
                           "whitespace folding)")
    pos = ctx.document.position(ctx.span.start)
    return CheckResult("source_verbatim", True, f"quote found at line {pos.line}, column {pos.column}",
                       where(ctx.document, ctx.span.start, ctx.span.end))


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
        ev = where(ctx.document, m.start, m.end) | {"text": m.text}
        how = "" if m.quantity == ctx.quantity else f" (the amount of the rate '{m.text}')"
        return CheckResult("value_in_source", True, f"'{value}' = '{m.text}' in the quote{how}", ev)
    stated = ", ".join(m.text for m in ctx.doc_index.quantities_in(ctx.span.start, ctx.span.end)) or "no quantity"
    return CheckResult("value_in_source", False, f"'{value}' ({ctx.quantity}) is not in the quote, which states: "
                       f"{stated}")


@lru_cache(maxsize=4096)
def _measure_words(predicate: str) -> str:
    """A predicate without the figures it states: "Fine after 30 days" names a fine, its days are a figure's own
    unit (the case the fine is for), not the value's."""
    # "within 30 days", "满30天后": the figure's own words go with it; a rule's edition a column is headed by ("Prior Rate
    # (Revision 13, from July 1, 2024)", "Current Rates") names the schedule its figures are of, not a measure
    return without_figures(_EDITION_OF_RULE.sub(" ", predicate), _BEFORE_A_FIGURE, _AFTER_A_FIGURE)


_EDITION_OF_RULE = re.compile(r"\b(?:prior|current|previous|new|old|former|existing|proposed)\s+(?:rates?|tariffs?|schedules?)\b"
                              r"(?:\s*\([^()]*\))?", re.IGNORECASE)


# the words that make a figure in a predicate a case or a bound ("paid within 30 days", "after 30 days", "满30天后")
_BEFORE_A_FIGURE = re.compile(r"(?:\b(?:within|after|before|over|under|above|below|than|for|of|up\s+to|at\s+least|"
                              r"at\s+most|beyond|past|exceeding)|不?满|超过|不超过|未满)\s*$", re.IGNORECASE)
_AFTER_A_FIGURE = re.compile(r"^\s*(?:以内|以上|以下|内|后|前)")


def expected_dimensions(predicate: str) -> tuple[str, tuple[str, ...]] | None:
    """The first (longest) keyword of PREDICATE_DIMENSIONS in a predicate and the dimensions it allows."""
    low = _folded_lower(_measure_words(predicate))
    for key in _PREDICATE_KEYS:
        if _names_key(low, key):
            dims = PREDICATE_DIMENSIONS[key]
            if is_change(low):
                dims = dims + tuple(d for d in CHANGE_DIMENSIONS if d not in dims)
            return key, dims
    return None


def admitted_dimensions(predicate: str) -> tuple[str, tuple[str, ...]] | None:
    """Every dimension the predicate's keywords allow together ('cap rate' names a cap and a rate)."""
    want = expected_dimensions(predicate)
    if want is None:
        return None
    low = _folded_lower(_measure_words(predicate))
    dims = list(want[1])
    for key in _PREDICATE_KEYS:
        if _names_key(low, key):
            dims += [d for d in PREDICATE_DIMENSIONS[key] if d not in dims]
    if PERIOD_WORDS.search(low):  # a nightly rate is an amount per night, a daily amount a rate per day
        dims += [d for d in ("money", "rate") if d not in dims and {"money", "rate"} & set(dims)]
    return want[0], tuple(dims)


_PERCENT_OF_AFTER = re.compile(r"\s*(?:of\b|的)", re.IGNORECASE)
_MULTIPLE_OF_AFTER = re.compile(r"\s*(?:of|the|that|what)\b", re.IGNORECASE)
# the words that make a bare number right after them an age ("aged 65", "under age 25", "aged 21 to 24")
_AGE_BEFORE = re.compile(r"\b(?:aged?|ages|(?:under|over)\s+(?:the\s+)?age(?:\s+of)?)\s+(?:\d+\s*(?:to|through|and|or|-|–)\s*)?$",
                         re.IGNORECASE)
_SHARE_OF_BEFORE = re.compile(f"[{CJK_RANGE}]的$")


def percent_of(ctx: FactContext, dimension: str = "percent") -> str:
    """How the quote states a percent as a share of something ('80% of estimated costs', '标准的50%'), or a ratio as
    a multiple of it ('按单人标准的1.5倍', 'twice the deposit'), or ''."""
    text = ctx.document.text
    after = _PERCENT_OF_AFTER if dimension == "percent" else _MULTIPLE_OF_AFTER
    for m in ctx.value_matches:
        if m.quantity.dimension != dimension:
            continue
        if after.match(text, m.end):
            return text[m.start:min(len(text), m.end + 12)].split("\n")[0]
        if _SHARE_OF_BEFORE.search(text[max(0, m.start - 8):m.start]):
            return text[max(0, m.start - 8):m.end].split("\n")[-1]
    return ""


def unit_dimension(ctx: FactContext) -> CheckResult:
    """The value's dimension fits what predicate and quote allow together (起付线 -> money, '80% of costs' -> a limit)."""
    if not ctx.numeric:
        return CheckResult("unit_dimension", True, "not a numeric fact")
    if ctx.quantity is None:
        return CheckResult("unit_dimension", False, f"'{ctx.fact.object_value}' has no unit to check")
    want = admitted_dimensions(ctx.fact.predicate)
    dim = ctx.quantity.dimension
    if want is None:
        return CheckResult("unit_dimension", True, f"no dimension rule for '{ctx.fact.predicate}'; value is {dim}",
                           {"dimension": dim, "expected": None})
    key, dims = want
    ev = {"dimension": dim, "expected": list(dims), "keyword": key}
    if dim in dims:
        return CheckResult("unit_dimension", True, f"{dim} fits '{key}'", ev)
    for m, stated, header in stated_quantities(ctx):
        # the quote states the value with its unit (0.21 under "Rate (USD/km)" is a rate, $0.21 of "$0.21/km" too);
        # a header the fact names defines what its predicate measures ("Monthly limit (km)" is a distance)
        if stated.dimension in dims or header and _names_header(ctx, header):
            how = f"under '{header}'" if header else "in the quote"
            return CheckResult("unit_dimension", True, f"'{m.text}' is {stated.dimension} {how}, as '{key}' is "
                               "stated there", ev | {"stated": stated.dimension, "header": header})
    if (column := _column_of_one_kind(ctx, dim)) is not None:
        # a column the fact names whose every value is of this kind says what its header measures: "Amount" over
        # 15%, 10%, 3% is a share ("| Discount | Amount |"), as a header's unit would say
        return CheckResult("unit_dimension", True, f"every value under '{column}' is {dim}, as '{key}' is stated "
                           "there", ev | {"stated": dim, "header": column})
    if dim == "number" and "age" in dims and any(_AGE_BEFORE.search(ctx.document.text, max(0, m.start - 32), m.start)
                                                 for m in ctx.value_matches):
        # an English age is often a bare number after the word that makes it one: "aged 65 or over", "under age 25",
        # "aged 21 to 24"
        return CheckResult("unit_dimension", True, f"'{ctx.fact.object_value}' is stated as an age", ev)
    if dim in ("percent", "ratio") and set(dims) & {"money", "rate"} and (share := percent_of(ctx, dim)):
        # a limit may be a share or a multiple of an amount: the quote says what the percent or ratio is taken of
        # ("差旅费标准的50%", "按单人标准的1.5倍")
        return CheckResult("unit_dimension", True, f"'{key}' is given as a {'share' if dim == 'percent' else 'multiple'}"
                           f": '{share}'", ev | {"share": share})
    return CheckResult("unit_dimension", False, f"'{key}' expects {' or '.join(dims)}, but "
                       f"'{ctx.fact.object_value}' is {dim}", ev)


def stated_quantities(ctx: FactContext) -> list[tuple[QuantityMatch, Quantity, str]]:
    """Each matched value as the document states it, with the header or caption its unit comes from ('' if its own)."""
    from ..text.roles import role_at
    from .structural import unit_header

    out = []
    for m in ctx.value_matches:
        found = role_at(ctx.document, m.start, m.end)
        if found is not None and found.unit_from and found.quantity is not None:
            out.append((m, found.quantity, unit_header(ctx.document, m.start, found.unit_from)))
        else:
            out.append((m, m.quantity, ""))
    return out


def _column_of_one_kind(ctx: FactContext, dim: str) -> str | None:
    """The header of the table column holding the fact's value, when the fact names it and each of the column's
    values (three or more) is of this dimension; else None."""
    structure = ctx.document.structure
    for m in ctx.value_matches:
        found = structure.cell_at(m.start)
        if found is None:
            continue
        table, cell = found
        header = table.column_header(cell.col)
        if not header or not _names_header(ctx, header):
            continue
        values = [q for row in table.rows[table.header_rows:] if cell.col < len(row)
                  for q in ctx.doc_index.quantities_in(row[cell.col].start, row[cell.col].end)]
        if len(values) >= 3 and all(q.quantity.dimension == dim for q in values):
            return header
    return None


def _names_header(ctx: FactContext, header: str) -> bool:
    from .structural import header_name, names

    return names(f"{ctx.fact.subject} {ctx.fact.predicate}", header_name(header))


def plausibility(ctx: FactContext) -> CheckResult:
    """No negative amounts, durations or ages; no rate above 100%, unless the quote gives it as a share of a base."""
    q = ctx.quantity
    if not ctx.numeric or q is None:
        return CheckResult("plausibility", True, "not applicable")
    if q.value < 0 and q.dimension in ("money", "time", "age", "count", "rate", "distance", "percent"):
        return CheckResult("plausibility", False, f"negative {q.dimension}: {ctx.fact.object_value}")
    want = expected_dimensions(ctx.fact.predicate)
    if q.dimension == "percent" and q.value > 100 and want and set(want[1]) & RATE_DIMENSIONS \
            and not percent_of(ctx):  # (a share of a base the quote names may exceed it: "日工资的300%")
        return CheckResult("plausibility", False, f"a rate of {ctx.fact.object_value} is above 100%")
    if q.dimension == "age" and q.value > 130:
        return CheckResult("plausibility", False, f"an age of {ctx.fact.object_value} is implausible")
    return CheckResult("plausibility", True, "plausible")


def value_role(ctx: FactContext) -> CheckResult:
    """A value the document gives as a change ("提高1000元", "reduced by 10%") is not the level itself."""
    if not ctx.numeric or not ctx.value_matches:
        return CheckResult("value_role", True, "not applicable")
    if is_change(ctx.fact.predicate):
        return CheckResult("value_role", True, "the predicate names a change")
    text = ctx.document.text
    levels = [m for m in ctx.value_matches if not CHANGE_BEFORE.search(text, max(0, m.start - CHANGE_REACH), m.start)]
    if levels:
        return CheckResult("value_role", True, "the value is stated as a level")
    m = ctx.value_matches[0]
    word = CHANGE_BEFORE.search(text, max(0, m.start - CHANGE_REACH), m.start).group(0).strip()
    return CheckResult("value_role", False, f"the document gives {m.text} as a change ('{word}'), not as "
                       f"'{ctx.fact.predicate}' itself", where(ctx.document, m.start, m.end))


@lru_cache(maxsize=4096)
def _folded_lower(text: str) -> str:
    return fold(text).lower()


def fact_key(fact: AtomicFact) -> tuple:
    """(subject, predicate, value) normalised for comparing facts: quantities by equality, text folded."""
    value = parse_quantity(fact.object_value) if fact.fact_type == FactType.NUMERIC else None
    return (_folded_lower(fact.subject), _folded_lower(fact.predicate),
            value if value is not None else _folded_lower(fact.object_value))


def consistency(ctx: FactContext) -> CheckResult:
    """No other fact that passes every other rule gives another value for the same subject and predicate."""
    keys = ctx.keys or [fact_key(f) for f in ctx.payload.atomic_facts]
    standing = ctx.standing or [True] * len(keys)
    mine = keys[ctx.index]
    facts = ctx.payload.atomic_facts
    me = facts[ctx.index]
    # the two ends of one range its quote states ("工程 | 竞争性谈判 | 60万元至300万元") are one statement, not two;
    # a rate and an amount ("$50 per day, up to $1,500 in total"), or a share and an amount, state two things
    clash = [i for i, k in enumerate(keys)
             if i != ctx.index and standing[i] and k[:2] == mine[:2] and k[2] != mine[2]
             and not one_range(me.source_text, me.object_value, facts[i].source_text, facts[i].object_value)
             and dimension_of(me.object_value) == dimension_of(facts[i].object_value)]
    if clash:
        other = facts[clash[0]].object_value
        return CheckResult("consistency", False, f"fact {clash[0]} gives '{other}' for the same subject and "
                           "predicate", {"conflicts_with": clash})
    return CheckResult("consistency", True, "no conflicting verified fact in the payload")
