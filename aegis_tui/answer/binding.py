"""The entity_binding rule: a value belongs to the claimed subject, by clause, enumeration, 'respectively' or list head."""

from __future__ import annotations

import bisect
import re

from ..text.docindex import LIST_ITEM
from ..text.entities import mentions, same_entity, series_spans
from ..text.entities import units as name_units
from ..text.lexicon import FUNCTION_UNITS, PERIOD_WORDS
from ..text.quantity import QuantityMatch
from .report import CheckResult
from .rules import FactContext
from .structural import PARENTHESIS, cell_of, scopes

# (not the "or" of a range, "aged 64 or under", "$500 or more": it ends one condition)
_SEPARATORS = re.compile(r"[，、;；：:。!?！？]|,(?!\d{3})|\s(?:and|or|while|whereas|but)\s(?!(?:under|over|more|less|"
                         r"older|younger|above|below|greater|fewer)\b)", re.IGNORECASE)
_RESPECTIVELY = re.compile(r"分别|respectively", re.IGNORECASE)
_LIST_SEP = re.compile(r"[、和与]|\s(?:and|or)\s|,\s(?:and\s|or\s)?")
_CLAUSE_SEP = re.compile(r"[，；;：:]")
_HAS_DIGIT = re.compile(r"\d")
# a rate ($250 per night) competes with plain amounts in the same enumeration
_FAMILY = {"rate": "money"}


def _segments(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The (start, end) pieces of text[start:end] between separators: clause marks, commas, 'and', 'while'….
    Not the "and" of a numbered series ("Classes 2 and 3"): it joins one name."""
    segs, pos = [], start
    series = series_spans(text[start:end])
    for m in _SEPARATORS.finditer(text, start, end):
        if any(a < m.start() - start and m.end() - start < b for a, b in series):
            continue
        if m.start() > pos:
            segs.append((pos, m.start()))
        pos = m.end()
    if pos < end:
        segs.append((pos, end))
    return segs or [(start, end)]


def _seg_of(ends: list[int], offset: int) -> int:
    return min(bisect.bisect_right(ends, offset), len(ends) - 1)


_LIMIT_VERBS = re.compile(r"不得?(?:超过|高于|低于|少于|多于)|至少|\b(?:no|not)\s+(?:more|less|fewer)\s+than\b|\bat\s+"
                          r"(?:least|most)\b|\bup\s+to\b", re.IGNORECASE)


def item_label(text: str, quantities: list[QuantityMatch], base: int, predicate: str) -> str:
    """What an enumeration item names besides its value and predicate ('' when it names nothing).

    text starts at document offset base; quantities are document matches, those inside text are blanked.
    """
    for q in sorted(quantities, key=lambda q: -q.start):
        if base <= q.start < base + len(text):
            text = text[:q.start - base] + " " + text[q.end - base:]
    skip = set(name_units(predicate)) | FUNCTION_UNITS | {"最"}
    text = PERIOD_WORDS.sub(" ", text)  # "每人", "per night": the rate of the value, not a name
    # the verb bounding it ("延长缴费期限最长不超过5年"): how far it goes, not whom (the end itself, 最高 against 最低,
    # still tells two items apart)
    text = _LIMIT_VERBS.sub(" ", text)
    if not [u for u in name_units(text) if u not in skip]:
        return ""
    return LIST_ITEM.sub("", text).strip(" ，、,;；：:。")


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
    want = set(name_units(subject)) - FUNCTION_UNITS
    scores = [len(want & set(name_units(p))) for p in parts]
    best = max(scores)
    if best and scores.count(best) == 1 and scores.index(best) == at:
        return CheckResult("entity_binding", True, f"'{subject}' is entity {at + 1} of the list that "
                           f"'{m.text}' answers respectively", ev)
    owner = parts[at].strip(" 的")
    return CheckResult("entity_binding", False, f"'{m.text}' is value {at + 1}, which belongs to '{owner}', "
                       f"not '{subject}'", ev)


def _view(text: str, ss: int, se: int, at: int) -> tuple[str, tuple[int, int]]:
    """The sentence as binding reads it for a value at offset at, and the bounds of the value's enumeration.

    A parenthesised group that holds values ("$68/day (breakfast $12, lunch $18)") is an enumeration of its own:
    a value inside it is bound among the group's items, a value outside reads the sentence with such groups
    blanked, so the lead value never binds to an item named in the parentheses.
    """
    sent = text[ss:se]
    for g in PARENTHESIS.finditer(sent):
        if g.start() < at - ss < g.end():
            return sent, (ss + g.start() + 1, ss + g.end() - 1)
    masked = PARENTHESIS.sub(lambda g: " " * len(g.group()) if _HAS_DIGIT.search(g.group()) else g.group(), sent)
    return masked, (ss, se)


def _bind(ctx: FactContext, m: QuantityMatch, others: list[str]) -> CheckResult:
    idx, subject = ctx.doc_index, ctx.fact.subject
    ss, se = idx.sentence_bounds(m.start)
    local, (es, ee) = _view(ctx.document.text, ss, se, m.start)

    def at(a: int, b: int) -> str:
        return local[a - ss:b - ss]

    segs = [(a + ss, b + ss) for a, b in _segments(local, es - ss, ee - ss)]
    ends = [e for _, e in segs]
    family = _FAMILY.get(m.quantity.dimension, m.quantity.dimension)
    same = [q for q in idx.quantities_in(es, ee) if _FAMILY.get(q.quantity.dimension, q.quantity.dimension) == family
            and at(q.start, q.end) == q.text]
    if len(same) > 1 and _RESPECTIVELY.search(local, es - ss, ee - ss):
        return _respectively(ctx.document.text, ss, m, same, subject)
    # a figure in a Chinese condition clause ("年满60周岁时累计缴费不足15年的，…延长缴费期限最长不超过5年") bounds the case
    # the clause names: it is no item of an enumeration the value is one of
    same = [q for q in same if q.start == m.start or not at(*segs[_seg_of(ends, q.start)]).rstrip().endswith("的")]
    k = _seg_of(ends, m.start)
    prev = max((j for j in (_seg_of(ends, q.start) for q in same) if j < k), default=-1)
    start, end = segs[prev + 1][0], segs[k][1]
    item = at(start, end)
    ev = {"value_offset": m.start, "item_offset": start, "item_length": end - start}

    def bound(how: str, hit: tuple[int, int], base: int) -> CheckResult:
        s = base + hit[0]
        distance = max(0, m.start - (base + hit[1]), s - m.end)
        return CheckResult("entity_binding", True, f"'{subject}' {how} '{m.text}'",
                           ev | {"subject_offset": s, "subject_length": hit[1] - hit[0], "distance": distance})

    if hits := mentions(subject, item):
        return bound("is named in the same clause as", hits[-1], start)
    for other in others:
        if mentions(other, item):
            return CheckResult("entity_binding", False, f"'{m.text}' is bound to '{other}', not '{subject}'",
                               ev | {"bound_to": other})
    if (main := _main_clause(at, es, ee, m, same)) and (hits := mentions(subject, at(*main))):
        return bound("is the subject of the clause the opening phrase of", hits[0], main[0])
    if len({_seg_of(ends, q.start) for q in same}) >= 2:
        # the clauses between the previous value and this one, less those that hold a figure of their own
        # ("超出部分按80%给付"): those name their own value, not this one
        valued = {_seg_of(ends, q.start) for q in idx.quantities_in(start, end)} - {k}
        label = item_label(at(segs[k][0], end), same, segs[k][0], ctx.fact.predicate) or "，".join(
            x for j in range(prev + 1, k) if j not in valued
            if (x := item_label(at(*segs[j]), [], segs[j][0], ctx.fact.predicate)))
        if label:
            return CheckResult("entity_binding", False, f"in this enumeration '{m.text}' belongs to '{label}', "
                               f"not '{subject}'", ev)
    before = at(ss, start)
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
    return _frame(ctx, m, ev)


_OPENING_EN = re.compile(r"(?:(?:[-*+]|\(?[0-9a-z]{1,3}[.)]|\d+(?:\.\d+)+)\s+)?(?:within|after|before|for|up\s+to|no\s+later\s+than|not\s+later\s+than|at\s+least)\s*$",
                         re.IGNORECASE)


def _main_clause(at, es: int, ee: int, m: QuantityMatch, same: list) -> tuple[int, int] | None:
    """The main clause a value's opening phrase leads into ("Within 21 days after Resident surrenders the apartment,
    Landlord will return the deposit, …": from after the phrase's comma to the next clause mark), when the value
    opens its sentence after a preposition only and no value of its kind stands before that clause ends."""
    if not _OPENING_EN.fullmatch(at(es, m.start).strip()) or not m.text.isascii():
        return None
    rest = at(m.end, ee)
    comma = rest.find(",")
    if comma < 0:
        return None
    start = m.end + comma + 1
    end = next((start + i for i, ch in enumerate(at(start, ee)) if ch in ",;.:"), ee)
    if any(m.end <= q.start < end for q in same):
        return None
    return start, end


def _frame(ctx: FactContext, m: QuantityMatch, ev: dict) -> CheckResult:
    """The structure's frame of a value: a list item inherits its lead-in, a clause its section's heading."""
    subject, structure = ctx.fact.subject, ctx.document.structure
    block = structure.block_at(m.start)
    if block is not None and block.lead_in and (hits := mentions(subject, block.lead_in)):
        return CheckResult("entity_binding", True, f"'{subject}' is named in the lead-in of the list item with "
                           f"'{m.text}'", ev | {"lead_in": block.lead_in, "subject_text": block.lead_in[slice(*hits[-1])]})
    path = structure.heading_path(m.start)
    # the document's one top-level heading is its title: it scopes every value, so it binds none
    title = path[0] if len(path) > 1 and len(scopes(ctx.document).siblings.get((), [])) == 1 else None
    for heading in reversed(path):
        if (hits := mentions(subject, heading)) and heading != title:
            return CheckResult("entity_binding", True, f"'{subject}' is named by the section heading '{heading}' "
                               f"over '{m.text}'", ev | {"heading": heading, "subject_text": heading[slice(*hits[-1])]})
    return CheckResult("entity_binding", False, f"'{subject}' is not named in the sentence of '{m.text}'", ev)


def _bind_cell(ctx: FactContext, m: QuantityMatch, table, cell) -> CheckResult:
    """A table value belongs to its row's label (or, in a transposed table, its column's header)."""
    subject = ctx.fact.subject
    ev = {"value_offset": m.start, "table": table.index + 1, "row": cell.row + 1, "column": cell.col + 1}
    labels = table.label_cells(cell.row)
    label = labels[0] if labels else None
    heads = labels + [r[cell.col] for r in table.rows[:table.header_rows] if cell.col < len(r)]
    for head in heads:
        if hits := mentions(subject, head.text):
            s, e = head.start + hits[-1][0], head.start + hits[-1][1]
            return CheckResult("entity_binding", True, f"'{subject}' heads the row or column of '{m.text}'",
                               ev | {"item_offset": head.start, "subject_offset": s, "subject_length": e - s,
                                     "distance": abs(m.start - s)})
    if label is not None and len(heads) > 1:
        # a subject may name the cell by its coordinates: 客户经理（跨市）, "Motorcycle rate", "Family In-network"
        row_text = table.row_header(cell.row)
        column = " ".join(h.text for h in heads[len(labels):])
        if any(mentions(subject, joined) for joined in (row_text, f"{row_text} {column}", f"{column} {row_text}")):
            return CheckResult("entity_binding", True, f"'{subject}' names the row and column of '{m.text}'",
                               ev | {"item_offset": label.start, "subject_offset": label.start,
                                     "subject_length": label.end - label.start, "distance": abs(m.start - label.start)})
    row = table.row_header(cell.row)
    return CheckResult("entity_binding", False, f"'{m.text}' stands in the row of '{row}', which does not "
                       f"name '{subject}'", ev)


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
    structure = ctx.document.structure
    results = [_bind_cell(ctx, m, *found) if (found := cell_of(structure, m)) else _bind(ctx, m, others)
               for m in ctx.value_matches]
    return next((r for r in results if r.passed), results[0])
