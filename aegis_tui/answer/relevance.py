"""Question relevance: fan-out candidates ranked by BM25 (bigrams for Chinese, words for English) and focus."""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from dataclasses import dataclass

from ..schema import MAX_SOURCE
from ..text.clock import holds, periods, times_given
from ..text.dates import find_dates
from ..text.docindex import LIST_ITEM
from ..text.document import Document, Span
from ..text.entities import CJK_RUN, abbreviated, derivations, paired_units, stem, units
from ..text.lexicon import (
    A_NOT_A,
    ASKED_AGAIN,
    ASKED_DIMENSIONS,
    ASKED_PAYMENT,
    BOUND_LEAST,
    BOUND_MOST,
    CJK_RANGE,
    CLAUSE_OPENERS_EN,
    FUNCTION_UNITS,
    LEAST_WORDS,
    MOST_WORDS,
    NEGATED_EN,
    PERIOD_WORDS,
    PERIODS_ZH,
    PREDICATE_WORDS,
    QUERY_STOP_EN,
    QUERY_STOP_ZH,
    QUESTION_ITEMS,
    QUESTION_WORDS,
    SYNONYMS,
    TWO_WORD_COMPOUND_EN,
    as_written,
    unnegated_zh,
)
from ..text.quantity import QuantityMatch, dimension_of, find_quantities, parse_quantity
from ..text.ranges import condition_bounds, holding, meets, rate_figure
from ..text.roles import Role, role_at, table_unit, values_in
from ..text.structure import illustrative
from .rules import admitted_dimensions
from .structural import (
    PAIRWISE_LIMIT,
    column_name,
    distinct,
    header_units,
    identifies,
    names,
    scopes,
    sibling_tables,
    title_of,
    value_columns,
)

_WORD = re.compile(r"[A-Za-z][A-Za-z\-']*|\d+(?:\.\d+)?")
_COLON = "：:"


def terms(text: str, parts: bool = False) -> list[str]:
    """Index terms: CJK character bigrams (single characters for 1-char runs) and lowercased, lightly stemmed
    English words; with parts, a hyphenated compound's words as well (for ranking: hyphens vary in writing)."""
    out: list[str] = []
    for run in CJK_RUN.findall(text):
        chars = [c for c in run]
        if len(chars) == 1:
            if chars[0] not in QUERY_STOP_ZH:
                out.append(chars[0])
            continue
        out.extend(a + b for a, b in zip(chars, chars[1:]) if not (a in QUERY_STOP_ZH and b in QUERY_STOP_ZH))
    for w in _WORD.findall(text):
        if w.lower() not in QUERY_STOP_EN:
            out.append(stem(w))  # entertaining ~ entertainment
        if parts and "-" in w.strip("-"):  # a compound's words: "employee-plus-one" asked of "employee plus one"
            out.extend(stem(p) for p in w.split("-") if len(p) > 1 and p.lower() not in QUERY_STOP_EN)
    return out


def expand_question(question: str) -> str:
    # (not a word naming a measure of another kind than the question asks: "能给报多少钱" asks no 报销比例)
    dims = asked_dimensions(question)
    extra = [syn for key, syns in SYNONYMS.items() if key in question.lower() for syn in syns
             if dims is None or (admitted := admitted_dimensions(syn)) is None or dims & set(admitted[1])]
    return question + (" " + " ".join(extra) if extra else "")


# the weight of a word of the document's title in a question, beside its other words' (pick.CHAR_WEIGHT, as cover
# weighs it)
TITLE_WEIGHT = 0.25


class BM25:
    """Okapi BM25 over a fixed list of texts; length-normalised so long clauses don't win by size alone."""

    def __init__(self, texts: list[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.docs = [Counter(terms(t, parts=True)) for t in texts]
        self.lens = [sum(d.values()) for d in self.docs]
        self.avg = (sum(self.lens) / len(self.lens)) if self.lens else 1.0
        df: Counter = Counter()
        for d in self.docs:
            df.update(d.keys())
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self.k1, self.b = k1, b
        self._derived: dict[str, set[str]] = {}  # a query term the texts lack → the texts' words derived from it
        self._texts = texts
        self._joined: dict[str, set[str]] | None = None  # (read once a query term the texts lack asks for it)

    def joined(self, term: str) -> set[str]:
        """The words' terms of a two-word compound the texts hyphenate, for the compound asked as one word ("setup"
        asked, "set-up" written)."""
        if self._joined is None:
            self._joined = {stem(a + b): {stem(a), stem(b)} for t in self._texts
                            for a, b in TWO_WORD_COMPOUND_EN.findall(t.lower())}
        return self._joined.get(term, set()) & self.idf.keys()

    def scores(self, query: str, weights: dict[str, float] | None = None) -> list[float]:
        q = Counter(terms(query, parts=True))
        # a word of the query the texts hold only differently derived ("chiropractor" asked, "Chiropractic care"
        # written; "redundant", "redundancy") is asked as those words, as cover reads it
        for t in [t for t in q if t not in self.idf]:
            if t not in self._derived:  # (each part of a question asks its words again)
                self._derived[t] = derivations(t, self.idf, suffixed=True) | self.joined(t)
            for v in self._derived[t]:
                q[v] += q[t]
        out = []
        for d, ln in zip(self.docs, self.lens):
            s = 0.0
            norm = self.k1 * (1 - self.b + self.b * ln / (self.avg or 1))
            for t in q:
                f = d.get(t)
                if f:
                    s += self.idf[t] * f * (self.k1 + 1) / (f + norm) * (weights or {}).get(t, 1.0)
            out.append(s)
        return out


_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Candidate:
    """One (clause, quantity) pair for a fan-out request: the model labels its subject and predicate."""

    quote: str        # verbatim evidence that becomes source_text (clause, or sentence when the head is outside)
    head: str         # the enumeration head carried into the item, e.g. "统筹基金的报销比例为："
    fragment: str     # the item holding the value, e.g. "二级医疗机构70%，"
    value: str        # the quantity text, as written in the fragment
    value_start: int  # offset of the value inside fragment
    offset: int       # document offset of the value (for ordering, highlighting and its key)
    score: float = 0.0
    scope: str = ""   # the section the value stands under (its nearest heading), e.g. "第三章 退休人员体检"
    cell: bool = False  # a table cell: its row label, not its section, is what it belongs to

    @property
    def context(self) -> str:
        """What the model is shown: the head followed by the item."""
        return self.fragment if not self.head or self.head in self.fragment else self.head + self.fragment

    @property
    def framed(self) -> str:
        """The context with the section it stands under, which scopes it ("[第三章 退休人员体检] …")."""
        return f"[{self.scope}] {self.context}" if self.scope else self.context

    @property
    def before(self) -> str:
        return self.fragment[: self.value_start]

    @property
    def after(self) -> str:
        return self.fragment[self.value_start + len(self.value):]

    @property
    def lead(self) -> str | None:
        """The quote's text up to the value: the clauses before the value's fragment, then the fragment's words
        before it ("500万元至1000万元的部分，不超过"). None when the fragment is not in the quote."""
        # (the quote's whitespace is collapsed, "第六条　出差人员" with a plain space: the fragment's is read alike)
        at = self.quote.find(_SPACES.sub(" ", self.fragment).strip())
        return None if at < 0 else self.quote[:at] + _SPACES.sub(" ", self.before.lstrip())


# question terms inside predicate words (lexicon.PREDICATE_WORDS) weigh this much more than topic words
PREDICATE_BOOST = 3.0
# a part's ranking of candidates adds the whole question's score times this: the part's words first, the words of
# the scope it shares with the other parts next ("一年最多赔多少" of "大病保险的起付标准是多少？")
PART_MIX = 0.5


def _head(sentence: Span) -> str:
    """The enumeration head of a sentence: its text up to the first colon, when items follow it."""
    idx = min((i for i in (sentence.text.find(c) for c in _COLON) if i >= 0), default=-1)
    if idx < 0 or idx > 80 or idx == len(sentence.text) - 1:
        return ""
    return sentence.text[: idx + 1]


def _carried_heads(doc: Document) -> dict[int, str]:
    """Heads that sit on their own line ("统筹基金的报销比例为：") carried into the list items below them."""
    heads: dict[int, str] = {}
    current = ""
    for i, s in enumerate(doc.sentences):
        if s.text.rstrip().endswith(tuple(_COLON)):
            current = s.text.strip()
            continue
        if current and LIST_ITEM.match(s.text):
            heads[i] = current
        else:
            current = ""
    return heads


def _units(clause: Span, fragments: list[Span]):
    """(span, quantities) pairs that hold the values of a clause: the clause itself when it holds one value."""
    qs = [m for m in find_quantities(clause.text) if m.quantity.dimension != "date"]
    if len(qs) <= 1:
        return [(clause, qs)] if qs else []
    out = []
    opening = None  # a condition whose figures only bound it ("妊娠不满12周的，"): it opens the next fragment's unit
    listed = None  # items listed before the one stating their value ("尿毒症透析治疗、器官移植…的年度最高支付限额为90,000元")
    for f in fragments:
        if clause.start <= f.start and f.end <= clause.end:
            if opening is not None or listed is not None:
                a, b = (opening or listed).start - clause.start, f.end - clause.start
                f = Span(a + clause.start, f.end, clause.text[a:b], f.kind, f.sentence)
            fq = [m for m in find_quantities(f.text) if m.quantity.dimension != "date"]
            if not fq:
                listed = f if f.text.endswith("、") else None
                continue
            listed = None
            if opening is None and _BOUND_CONDITION.search(f.text) and all(
                    any(x < m.end and m.start < y for x, y, *_ in condition_bounds(f.text)) for m in fq):
                opening = f
                continue
            opening = None
            out.append((f, fq))
    if opening is not None:
        out.append((opening, [m for m in find_quantities(opening.text) if m.quantity.dimension != "date"]))
    return out


# a Chinese condition clause ending its fragment ("妊娠不满12周的，"), or opening one
_BOUND_CONDITION = re.compile(r"的\s*[，,]\s*$")
_OPENING_CONDITION = re.compile(r"^[^，,；;。]{2,30}?的\s*[，,]")


def _continues(before: str) -> bool:
    """Whether the words before a fragment's first value are function words only ("up to", "为", "or"): the
    fragment then continues the one before it."""
    return bool(before.strip()) and all(u in FUNCTION_UNITS for u in units(before))


def _is_value(doc: Document, start: int, end: int) -> bool:
    """Whether the number at [start, end) is a value, not a section number, date, version, phone or code."""
    found = role_at(doc, start, end)
    return found is None or found.role is Role.VALUE


def _scope(doc: Document, offset: int) -> str:
    """The nearest heading over an offset (a bare article label like 第六条 gives way to its chapter)."""
    path = doc.structure.heading_path(offset)
    titles = [h for h in path if title_of(h)]
    return titles[-1] if len(titles) > 1 or (titles and len(path) == 1) else ""


def _cell_candidates(doc: Document) -> list[Candidate]:
    """One candidate per value cell: the row is the quote; the model sees the row label and column header."""
    sep = "：" if doc.language == "zh" else ": "
    out = []
    for table in doc.structure.tables:
        caption = title_of(table.caption)
        scope = _scope(doc, table.start)
        for r, row in enumerate(table.rows[table.header_rows:], start=table.header_rows):
            line = doc.text[slice(*table.row_spans[r])] if r < len(table.row_spans) else ""
            quote = " ".join(line.split())
            row_quote = quote if quote and len(quote) <= MAX_SOURCE and doc.find(quote) is not None else ""
            label = table.row_header(r)
            for cell in row:
                if table.is_label(cell.col) or not cell.text:
                    continue
                column = column_name(table, cell.col)
                # a Chinese caption names the topic the column completes (省外 + 疗休养补助标准如下：); an English
                # column header reads on its own (the caption would only lengthen the predicate the model copies)
                about = caption if caption and caption != column and (doc.language == "zh" or not column) else ""
                joined = column + about
                head = joined + sep if joined else ""
                for v in values_in(doc, cell.start, cell.end):
                    text = v.text + _header_unit(doc, table, cell, v)
                    q = row_quote or cell.text
                    frag = f"{label}{sep}{text}" if label else text
                    out.append(Candidate(q, head, frag, text, len(frag) - len(text), v.start, scope=scope,
                                         cell=True))
    return out


def _header_unit(doc: Document, table, cell, v) -> str:
    """The unit a bare cell takes from its header ('元/人' of 省内（元/人）) or from its table's caption or unit line
    ('（单位：元/平方米·采暖期）'), when it makes the same quantity."""
    if not v.unit_from:
        return ""
    units = header_units(table.column_header(cell.col))
    if v.unit_from == "table caption" and (unit := table_unit(doc.text, table)):
        units.append(unit)
    for unit in units:
        if parse_quantity(v.text + unit) == v.quantity:
            return unit
    return ""


def _other_scope(doc: Document, cand: Candidate, question: str, picks: dict, by_topics: bool = True) -> str:
    """The sibling section, row, column or table the question names instead of the candidate's, or ''; without
    by_topics, not a section by a name the document speaks of throughout (_spoken_of_throughout)."""
    path = doc.structure.heading_path(cand.offset)
    pairs = [(own, other) for _, own, other in scopes(doc).beside(path)]
    found = doc.structure.cell_at(cand.offset) if cand.cell else None
    if found is not None:
        # a cell's row, column and table are its scopes too: 一线职工 vs 管理人员, 省外 vs 省内, 补助 vs 天数
        table, cell = found
        if table.index not in picks:
            rows = table.row_headers()
            columns = [column_name(table, c) for c in value_columns(table)]
            common = _title_words(doc)
            picks[table.index] = (_picked(question, rows, common), _picked(question, columns, common))
        rows, columns = picks[table.index]
        row, column = table.row_header(cell.row), column_name(table, cell.col)
        for own, picked in ((row, rows), (column, columns)):
            if picked and own not in picked:
                return next(iter(picked))
        pairs += [(table.caption, t.caption) for t in sibling_tables(doc, table)]
    for own, other in pairs:
        if own == other:
            continue
        mine, theirs = distinct(own, other)
        if theirs and names(question, theirs) and not (mine and names(question, mine)) \
                and not names(cand.context, theirs) and (by_topics or not _spoken_of_throughout(doc, other, theirs)):
            return other
    return ""


_THROUGHOUT: dict[tuple[str, str, str], bool] = {}


def _spoken_of_throughout(doc: Document, heading: str, name: str) -> bool:
    """Whether more of the document's sentences naming what sets a section apart stand outside it than under it: a
    subject of the whole document ("征收决定" of the chapter "第二章 征收决定" in a 房屋征收 rule), not that section's."""
    key = (doc.sha256, heading, name)
    if key not in _THROUGHOUT:
        if len(_THROUGHOUT) >= 256:
            _THROUGHOUT.pop(next(iter(_THROUGHOUT)))
        inside = outside = 0
        for s in doc.sentences:
            if names(s.text, name):
                if heading in doc.structure.heading_path(s.start):
                    inside += 1
                else:
                    outside += 1
        _THROUGHOUT[key] = outside > inside
    return _THROUGHOUT[key]


def _named_apart(doc: Document, cand: Candidate, other: str, items: list[tuple[str, set[str]]],
                 scope_terms: dict[str, set[str]]) -> bool:
    """Whether a question listing several things ("…customer due diligence files, SAR documentation and the gift
    register") names the candidate's clause in an item that names no sibling scope of it, by words the scope
    another item names (other) never uses: that scope narrows its own item, not the items asking about what it
    does not hold. scope_terms caches each scope's terms for one question."""
    if len(items) < 2:
        return False
    own = set(terms(cand.quote))
    found = doc.structure.cell_at(cand.offset) if cand.cell else None
    if found is not None:
        # a cell's row may hold only figures: when another item names another column ("起付标准"), this item names
        # the cell by its own column's header ("一年最高能报多少" by 年度最高支付限额)
        table, cell = found
        if other in {column_name(table, c) for c in value_columns(table)}:
            own |= set(terms(column_name(table, cell.col)))
    if other not in scope_terms:
        scope_terms[other] = _scope_terms(doc, other)
    theirs = scope_terms[other]
    return any((words & own) - theirs and not _other_scope(doc, cand, item, {}) for item, words in items)


def _scope_terms(doc: Document, heading: str) -> set[str]:
    """The terms of the text under a heading (the heading included)."""
    return {t for s in doc.sentences if heading in doc.structure.heading_path(s.start) for t in terms(s.text)} | set(
        terms(heading))


def _held_row(doc: Document, cand: Candidate, question: str, held: dict[int, set[str]]) -> bool:
    """Whether a cell's row is one a figure of the question singles out by its range (see _picked); held caches
    each table's such rows."""
    found = doc.structure.cell_at(cand.offset)
    if found is None:
        return False
    table, cell = found
    if table.index not in held:
        held[table.index] = holding(table.row_headers(), question) or set()
    return table.row_header(cell.row) in held[table.index]


# an ordinal of a period ("现在是第15个月", "第3天"): where in time the asker is, a figure as "15个月" would be
_ORDINAL_PERIOD = re.compile(r"第\s*(\d+\s*(?:个月|天|日|周|年))")


def given_matches(question: str) -> list:
    """The quantities with a unit the question gives, as found in it read as written ("每年交3000块钱" gives 3000元;
    a bare number gives none, nor a figure a rate is per); an ordinal of a period gives it ("第15个月": 15个月)."""
    question = as_written(question)
    found = [m for m in find_quantities(question)
             if m.quantity.dimension != "number" and not rate_figure(question, m.start)]
    for o in _ORDINAL_PERIOD.finditer(question):
        if not any(m.start < o.end() and o.start() < m.end for m in found):
            found += [QuantityMatch(o.start(1) + m.start, o.start(1) + m.end, m.text, m.quantity)
                      for m in find_quantities(o.group(1)) if m.quantity.dimension == "time"]
    return sorted(found, key=lambda m: m.start)


def given_figures(question: str) -> set:
    """The quantities of given_matches."""
    return {m.quantity for m in given_matches(question)}


def row_gives(doc: Document, offset: int, figures: set) -> bool:
    """Whether the table row of the cell at offset holds one of figures in another cell, that cell being the figure
    alone: the row a question giving it singles out ("每年交3000元", "| 第八档 | 3000元 | 110元 | 70元 |")."""
    found = doc.structure.cell_at(offset) if figures else None
    if found is None:
        return False
    table, own = found
    return any(c.col != own.col and c.text and len(ms := find_quantities(c.text)) == 1
               and ms[0].text == c.text.strip() and ms[0].quantity in figures for c in table.rows[own.row])


def with_end_words(text: str) -> str:
    """A question (or part) asking for the most, or the least, with the words a document gives that end by
    ("一年最多赔多少" with 最高 上限 …, as 年度最高支付限额 says it); as it is when it asks for neither or both."""
    ends = [words for pattern, words in ((BOUND_MOST, MOST_WORDS), (BOUND_LEAST, LEAST_WORDS)) if pattern.search(text)]
    return f"{text} {ends[0]}" if len(ends) == 1 else text


def _title_words(doc: Document) -> frozenset[str]:
    """The words of what titles the document, as a question's are compared with headers (paired_units)."""
    return frozenset().union(*(paired_units(t) for t in doc.structure.titles))


def _picked(question: str, headers: list[str], common: frozenset[str] = frozenset()) -> set[str]:
    """The row labels or column headers a question names: in full, else by the words that set them apart; and
    the ranges that hold what the question gives ("uptime was 97.5%" picks "95.0% to below 98.0%"). Where it
    names some, each part of a question asking several things names its own too ("医疗救助能按多少比例再报？一年最多
    救助多少？": 医疗救助比例, and 年度医疗救助限额 by the most the second asks)."""
    picked = _picked_by(question, headers, common)
    if picked and len(parts := question_parts(question)) > 1:
        picked = picked.union(*(_picked_by(part, headers, common, " ".join(x for x in parts if x != part))
                                for part in parts))
    return picked


def _picked_by(question: str, headers: list[str], common: frozenset[str] = frozenset(), elsewhere: str = "") -> set[str]:
    # a question may name one row in words and another by a figure ("在职职工和不到75岁的退休人员"), or by a time of day
    # a header's period holds ("晚上十一点以后呢", "| 夜间里程费（22:00—次日5:00） |")
    held = holding(headers, question) or set()
    if minutes := times_given(question):
        held |= {h for h in headers if any(holds(p, t) for p in periods(h) for t in minutes)}
    # (what it says its case is not names nothing: "不是最便宜的经济型" picks no 经济型 row)
    question = unnegated_zh(question)
    question = NEGATED_EN.sub(" ", question)  # a word it negates names nothing: "non-reserved" (see identifies)
    question = with_end_words(question)  # asking for the most: "一年最多能报多少" names 年度最高支付限额 beside 支付比例
    full = {h for h in headers if h and names(question, h)}
    if full or len(headers) > PAIRWISE_LIMIT:
        return full | held
    # (the title's words set no header apart: see identifies)
    return {h for h in headers if h and identifies(question, h, headers, derived=True, common=common,
                                                   elsewhere=elsewhere)} | held


_GROUP = re.compile(r"[（(][^（()）]*\d[^（()）]*[)）]")
_OPEN_GROUP = re.compile(r"\s*[（(][^（()）]*\d[^（()）]*(?:[)）]|$)")  # a fragment may hold a group's opening only
_ITEM_SEP = re.compile(r"[,，、;；]\s*")


def _group_item(doc: Document, sentence: Span, at: int) -> tuple[str, str, int] | None:
    """For a value inside a parenthesised group of values: (the words before the group, its item, item offset)."""
    for g in _GROUP.finditer(sentence.text):
        gs, ge = sentence.start + g.start(), sentence.start + g.end()
        if not gs < at < ge:
            continue
        start = gs + 1
        for piece in _ITEM_SEP.finditer(doc.text, gs + 1, ge - 1):
            if piece.start() >= at:
                break
            start = piece.end()
        end = next((p.start() for p in _ITEM_SEP.finditer(doc.text, at, ge - 1)), ge - 1)
        return doc.text[sentence.start:gs].strip() + " ", doc.text[start:end], start
    return None


def _without_groups(text: str, keep: int) -> str:
    """A fragment without the parenthesised groups of values that follow its value (they are their own items)."""
    return _OPEN_GROUP.sub(lambda g: "" if g.start() > keep else g.group(), text).rstrip()


def candidate_key(c: Candidate) -> str:
    """A candidate's identity within its document: the value's offset and text (stable for the same text)."""
    return f"{c.offset}:{c.value}"


def key_offset(key: str) -> int | None:
    """The value's offset in its document, from a key candidate_key made (None for any other string)."""
    head = key.split(":", 1)[0]
    return int(head) if head.isdigit() else None


_DOC_CANDIDATES: dict[str, list[Candidate]] = {}


def document_candidates(doc: Document) -> list[Candidate]:
    """Every value of the document as a (clause, quantity) candidate, question-free.

    Computed once per document text. Candidates follow the structure: a table cell comes with its row label
    and column header, a list item with its lead-in, every value with its section; only values (no section
    numbers, dates or codes) count.
    """
    key = doc.sha256
    if key not in _DOC_CANDIDATES:
        if len(_DOC_CANDIDATES) >= 8:
            _DOC_CANDIDATES.pop(next(iter(_DOC_CANDIDATES)))
        # one candidate per value occurrence (tables first, then the text, as ranking ties have always gone)
        _DOC_CANDIDATES[key] = list({candidate_key(c): c for c in _all_candidates(doc)}.values())
    return _DOC_CANDIDATES[key]


_PARTS = re.compile(r"[？?；;。!！]|[，,]\s*(?:and|or|以及|并且|还有|另外)?|\s+and\s+(?=how|what|when|which|who|where|is|are|do|does)", re.I)
# an English sentence ending in a full stop ("I'm a Site Manager … from October 2025. How many nights …"), not an
# abbreviation's ("St. Albans", "approx. April", "e.g. Cardiff")
_FULL_STOP = re.compile(r"(?<=[A-Za-z0-9)])\.\s+(?=[A-Z])")
_ABBREVIATION = re.compile(r"\b(?:St|Mr|Ms|Mrs|Dr|No|Nr|Jr|Sr|Co|Ltd|Inc|[A-Z]|(?i:approx|etc|incl|excl|esp|dept|tel|ref|vs))$"
                           r"|[a-z]\.[a-z]$")


_PER_ASKED = re.compile(r"每|\bper\b", re.IGNORECASE)
# (… or the price of one unit, "多少钱一度", "一度电多少钱", "一斤多少钱": the document writes it 元/千瓦时, 元/斤; a unit of
# measure, not "一共", "一般", "一下")
_ONE_UNIT_ZH = r"(?:度|斤|公斤|千克|吨|方|立方米?|平方米?|平米|升|公里|千米|小时|晚|天|人|台|辆|件|个|位|张|份|间|套|条)"
_PER_ONE_ZH = re.compile(rf"多少(?:块)?钱一{_ONE_UNIT_ZH}|一{_ONE_UNIT_ZH}[^\W\d_]?多少(?:块)?钱")


def listed_asks(part: str) -> list[str]:
    """The asks a part of a question lists at 、, each with a question word of its own ("起付线多少、按什么比例报销")."""
    return [x for x in part.split("、") if QUESTION_WORDS.search(x)]


@functools.lru_cache(maxsize=256)  # the shortlist and the choice both ask it of each question
def asked_dimensions(question: str) -> frozenset[str] | None:
    """The dimensions of the quantities a question asks for ("多少天" → time), or None when a part of it does not
    say (then any value may answer it); a part asking only whether ("…有没有别的补助？每个月多少…") says nothing either
    way, the other parts say."""
    out: set[str] = set()
    before: set[str] = set()
    whether = ""  # a part asking only whether, which the next says how much of ("每天有伙食补助吗，给多少？")
    for part in question_parts(question):
        dims = {dim for dim, pattern in ASKED_DIMENSIONS if pattern.search(part)}
        # (a part listing two asks, "起付线多少、按什么比例报销": one saying no kind leaves the kind open)
        if len(asks := listed_asks(part)) > 1 and any(
                not any(pattern.search(x) for _, pattern in ASKED_DIMENSIONS) and not ASKED_PAYMENT.search(x)
                for x in asks):
            return None
        said = whether + part
        if not dims and ASKED_PAYMENT.search(part):
            dims = {"money", "percent"}
        if not dims and ASKED_AGAIN.search(part):
            dims = before  # "…每天给多少？住进ICU每天又是多少？": the same kind again
        if "money" in dims and (PERIOD_WORDS.search(said) or _PER_ASKED.search(said) or _PER_ONE_ZH.search(said)
                                or any(p.search(said) for _, p in PERIODS_ZH) and not BOUND_MOST.search(said)):
            # an amount asked "per person", 每天, 一个月, 每平方米: the document may write it as a rate (not a cap
            # counted over a period: "一年最多能报多少钱")
            dims = dims | {"rate"}
        before = dims
        if not dims and asks_whether(part):
            # a part asking only whether ("Is there any dental subsidy, and how much …?", "公司会给我们交公积金吗？")
            # asks no quantity: another part says which
            whether = part + "，"
            continue
        whether = ""
        if not dims:
            return None
        out |= dims
    return frozenset(out) if out else None


def asks_whether(part: str) -> bool:
    """Whether a part of a question asks only whether ("Does the Council offer a loan for the match funding",
    "有没有补贴"), no quantity: the part after it says how much of what."""
    return bool(_YES_NO.search(part)) and not _WH.search(part)


# what makes a part ask whether, and what makes it ask what, how much, when …
_YES_NO = re.compile(r"吗|是否|有没有|有无|" + A_NOT_A + r"|可不可以|^\s*(?:is|are|does|do|did|can|could|will|"
                     r"would|should|must|may|has|have)\b", re.IGNORECASE)
_WH = re.compile(r"多少|多[大高长久]|什么|几|哪|如何|怎么|\b(?:what|how|when|which|who|where|whom|whose)\b",
                 re.IGNORECASE)


def question_parts(question: str) -> list[str]:
    """The parts of a question that each ask for something (split at question marks, commas, 'and how …');
    a part with no question word names a scope ("在三级医院住院，…") and is left out, unless no part has one; so
    is an English clause of when or if ("When the lease renews, what's …"; not "When must I …")."""
    # (a sentence ending in a full stop is a part of its own: it narrates its case apart from what the next asks)
    cut = [m.start() + 1 for m in _FULL_STOP.finditer(question) if not _ABBREVIATION.search(question[:m.start()])]
    sentences = [question[a:b] for a, b in zip([0, *cut], [*cut, len(question)])]
    parts = [p for s in sentences for p in (x.strip() for x in _PARTS.split(s)) if len(p) > 1]
    asking = [p for p in parts if QUESTION_WORDS.search(p) and not _SCOPE_CLAUSE_EN.match(p)]
    return asking or parts


_LIST_SEP_ZH = re.compile(rf"(?<=[{CJK_RANGE}])(?:[和与、]|及(?![时其]))(?=[{CJK_RANGE}])")
# where a listed item ends, reading leftwards (a modifier's 的, a clause mark) or rightwards (what the question
# asks of all of them: 分别, 各, 每月, 的起付线, 是多少)
_ITEM_LEFT_END = re.compile(rf"^.*(?:[^{CJK_RANGE}]|的)")
_ITEM_RIGHT_END = re.compile(r"分别|各|每|都|均|的|是|能|可|会|有|要|多少|几")
_LOCATIVE_ZH = re.compile(r"[里方面边]$")


def listed_items(question: str) -> list[str]:
    """The items a Chinese question lists as the things it asks each of ("每天的伙食补助和市内交通补助分别是多少" →
    伙食补助, 市内交通补助; "市里和区里分别会给我补贴多少" → 市, 区), each without the words it shares with the others;
    [] when it lists none."""
    items: list[str] = []
    for part in question_parts(question):
        seps = list(_LIST_SEP_ZH.finditer(part))
        if not seps:
            continue
        pieces = [part[: seps[0].start()]] + [part[a.end(): b.start()] for a, b in zip(seps, seps[1:])] \
            + [part[seps[-1].end():]]
        first = _ITEM_LEFT_END.sub("", pieces[0], count=1)
        last = _ITEM_RIGHT_END.split(pieces[-1], maxsplit=1)[0]
        found = [_LOCATIVE_ZH.sub("", x.strip()) for x in [first, *pieces[1:-1], last]]
        if all(found) and all(CJK_RUN.fullmatch(x) for x in found):
            items += found
    return items


# a clause opener not followed by an auxiliary ("When the lease renews", not "When must I", "Where to send")
_SCOPE_CLAUSE_EN = re.compile(rf"(?:{'|'.join(CLAUSE_OPENERS_EN)})\s+(?!(?:must|do|does|did|is|are|was|were|can|could|"
                              r"will|would|should|shall|may|might|has|have|had|to)\b)\w", re.IGNORECASE)


def enumerate_candidates(doc: Document, question: str, top_k: int = 16, min_ratio: float = 0.35,
                         per_part: bool = False) -> list[Candidate]:
    """Candidate (clause, quantity) pairs for the question, best BM25 first, at most top_k, in document order.

    Candidates of a sibling scope the question names instead (another section, table row or column) are left
    out before ranking. per_part: a question asking several things ("大病保险的起付标准是多少？一年最多赔多少？")
    also gets the best half of top_k for each part, ranked by the part's words before the question's, so a part
    sharing few words with the rest is not crowded out by it.
    """
    # a worked example's figures, or those of a question the document poses, answer no question about its rule
    # (pick.cover leaves them out): they take no place on the shortlist ("张某，男，45岁，户籍东湖区，持有一级肢体残疾人证…"
    # had crowded out the 补贴标准 table a question about a 一级肢体残疾 asker needs)
    cands = [c for c in document_candidates(doc) if not illustrative(doc, c.offset)]
    asked = expand_question(question)  # "hotel" names the Lodging section
    picks: dict = {}
    items = [(i, t) for i in QUESTION_ITEMS.split(asked) if (t := set(terms(i)))]
    seen: dict[str, set[str]] = {}
    kept = [c for c in cands
            if not (other := _other_scope(doc, c, asked, picks)) or _named_apart(doc, c, other, items, seen)]
    # a scope the question names that holds values, but none of the kind it asks, does not narrow it ("起付线以上的部分
    # 能报多少比例": 起付线 is where the share starts, and its section holds only amounts); one holding no value at
    # all still does ("the monthly premium": the Premiums section states none)
    dims = asked_dimensions(question)
    if dims and kept and not any(dimension_of(c.value) in dims for c in kept):
        kept = cands
    elif len(kept) < len(cands) and _narrowed_away(cands, kept, question):
        # … nor does a section whose name the document speaks of throughout, where the narrowing leaves out what a
        # part of the question asks: the name is the question's case, not its scope ("我们这片的征收决定是2025年8月公告的，
        # …住宅区位基准价是多少？" names the chapter 第二章 征收决定, while every chapter dates its rules by the 征收决定)
        picks = {}
        kept = [c for c in cands if not (other := _other_scope(doc, c, asked, picks, by_topics=False))
                or _named_apart(doc, c, other, items, seen)]
    cands = kept
    if not cands:
        return []
    texts = [c.framed for c in cands]
    bm = BM25(texts)
    # (a question asking for the most in words the document does not use asks by the words the document gives it,
    # "一天最多收多少" by 单日封顶, as each part does below; "上限是多少" of a document writing 上限 asks by its own)
    said = [m.group() for pattern in (BOUND_MOST, BOUND_LEAST) for m in pattern.finditer(question)]
    scores = _score(texts, with_end_words(question) if said and not any(w in doc.text for w in said) else question,
                    bm, doc.structure.titles)
    ranked = sorted(zip(cands, scores), key=lambda p: -p[1])
    floor = max(ranked[0][1] * min_ratio, 1e-9)
    # each part's best, when the question asks several things
    parts = question_parts(question) if per_part else []
    held: set[int] = set()
    for part in parts if len(parts) > 1 else ():
        own = _score(texts, with_end_words(part), bm, doc.structure.titles)  # ("一年最多赔多少" of "年度最高支付限额")
        mixed = sorted(((o + PART_MIX * w, i) for i, (o, w) in enumerate(zip(own, scores)) if o > 0), reverse=True)
        held |= {id(cands[i]) for x, i in mixed[: max(1, top_k // 2)] if x >= mixed[0][0] * min_ratio}
    # a cell whose row and column the question both names in full is what it asks ("On the Classic plan, what is the
    # overall vet fees limit": the Vet fees row's Classic cell), however many cells of other rows share its words
    for c in cands:
        if c.cell and (found := doc.structure.cell_at(c.offset)) and (pick := picks.get(found[0].index)) \
                and (row := found[0].row_header(found[1].row)) in pick[0] and names(question, row) \
                and (column := column_name(found[0], found[1].col)) in pick[1] and names(question, column):
            held.add(id(c))
    # a value whose clause, column, row or caption states a period of the day holding the time the question gives
    # ("我晚上十点半…打车": "表2 夜间时段（22:00—次日5:00）运价标准"; "a call at 2am": "between 23:00 and 06:00") is of
    # its case, however few words it shares ("晚上" is no word of 夜间)
    if minutes := times_given(question):
        held |= {id(c) for c in cands if any(holds(p, t) for p in periods(c.framed) for t in minutes)}
    # a cell in the row a figure of the question singles out is named by it, however few of its words it shares
    rows_held: dict[int, set[str]] = {}
    held |= {id(c) for c in cands if c.cell and _held_row(doc, c, question, rows_held)}
    # … or holds, in another cell, a figure the question gives ("每年交3000块钱": the 3000元 grade's row)
    figures = given_figures(question)
    held |= {id(c) for c in cands if c.cell and row_gives(doc, c.offset, figures)}
    # … and so is a value whose own clause opens with a condition holding it ("妊娠不满12周的，定额支付500元", asked
    # "怀孕10周"), whose bound is no fact of its own
    held |= {id(c) for c in cands if not c.cell and (m := _OPENING_CONDITION.match(c.fragment))
             and c.value not in m.group(0) and meets(m.group(0), question)}
    chosen = [Candidate(**{**c.__dict__, "score": s}) for i, (c, s) in enumerate(ranked)
              if (i < top_k and s >= floor) or id(c) in held]
    return sorted(chosen, key=lambda c: c.offset)


# a scope the question names narrows it only where what each of its asking parts asks is found there at least this
# well, as a share of the best match over all candidates
NARROWED_AWAY = 0.5


def _narrowed_away(cands: list[Candidate], kept: list[Candidate], question: str) -> bool:
    """Whether the sibling scopes a question names leave out what one of its asking parts asks: the candidates kept
    match that part's words less than NARROWED_AWAY as well as the best of all candidates does (the 区位基准价 table
    of a chapter the question does not name)."""
    texts = [c.framed for c in cands]
    bm = BM25(texts)
    ids = {id(c) for c in kept}
    for part in question_parts(question):
        scores = _score(texts, with_end_words(part), bm)
        best = max(scores, default=0.0)
        if best > 0 and max((s for c, s in zip(cands, scores) if id(c) in ids), default=0.0) < NARROWED_AWAY * best:
            return True
    return False


def _all_candidates(doc: Document) -> list[Candidate]:
    structure = doc.structure
    carried = _carried_heads(doc)
    clauses_of: dict[int, list[Span]] = {}
    frags_of: dict[int, list[Span]] = {}
    for c in doc.clauses:
        clauses_of.setdefault(c.sentence, []).append(c)
    for f in doc.fragments:
        frags_of.setdefault(f.sentence, []).append(f)
    cands: list[Candidate] = _cell_candidates(doc)
    for si, sentence in enumerate(doc.sentences):
        if structure.table_at(sentence.start) is not None:
            continue  # table rows became cell candidates
        own = _head(sentence)
        block = structure.block_at(sentence.start)
        lead = block.lead_in if block is not None and block.kind == "list_item" else ""
        scope = _scope(doc, sentence.start)
        for clause in clauses_of.get(si, []):
            has_head = bool(own) and clause.start == sentence.start
            quote = clause.text if (not own or has_head) else sentence.text
            quote = " ".join(quote.split())
            if len(quote) > MAX_SOURCE:
                quote = " ".join(clause.text.split())
            if len(quote) > MAX_SOURCE:
                continue
            pieces = _units(clause, frags_of.get(si, []))
            for k, (unit, qs) in enumerate(pieces):
                text = unit.text
                head = lead or carried.get(si, "") if not own or own in text else own
                if k and _continues(text[: qs[0].start]):
                    # "…a hospital benefit of £40 for each complete 24 hours, up to £1,500 in total": a fragment
                    # that opens with function words only continues the one before, which says what its value is
                    prev = pieces[k - 1][0].text
                    prev += " " if prev[-1:].isascii() and not prev.endswith(" ") else ""
                    head = prev if not head or head in prev else head + prev
                for m in qs:
                    at = unit.start + m.start
                    if not _is_value(doc, at, at + len(m.text)):
                        continue
                    if grouped := _group_item(doc, sentence, at):
                        # a value inside "(breakfast $12, lunch $18)": its item, under the words that lead the group
                        g_head, item, item_start = grouped
                        cands.append(Candidate(quote, g_head, item, m.text, at - item_start, at, scope=scope))
                        continue
                    cands.append(Candidate(quote, head, _without_groups(text, m.start), m.text, m.start, at,
                                           scope=scope))
    return cands


def asked_predicates(question: str) -> list[str]:
    """The predicate words a question names (after synonym expansion), e.g. 起付线, 报销比例, cap."""
    q = expand_question(question).lower()
    return [w for w in PREDICATE_WORDS if w in q]


def predicate_asked(predicate: str, question: str) -> bool | None:
    """Whether a labelled predicate is one the question asks for; None when the question names none."""
    asked = asked_predicates(question)
    if not asked:
        return None
    p = predicate.lower()
    stems = {stem(t) for t in _WORD.findall(p)}
    return any(w in p or (len(p) >= 2 and p in w) or (w.isascii() and stem(w) in stems) for w in asked)


def _score(texts: list[str], question: str, bm: BM25 | None = None, titles: list[str] = ()) -> list[float]:
    """BM25 of each text against the expanded question, with predicate words weighted up, and the words of what titles
    the document (titles), or shortens it in the question, weighted down: they name what every value of it is about."""
    # (the day of the question's case is no word of it: "2025年8月" matches the 8 of "8周"; its year may name a
    # period's table)
    for d in find_dates(question):
        year = str(d.first.year)
        question = question[:d.start] + year + " " * (d.end - d.start - len(year)) + question[d.end:]
    query = expand_question(question)
    bm = bm or BM25(texts)
    told = {t for title in titles for t in terms(title)} | {
        t for stretch in abbreviated(question, list(titles)) for t in terms(stretch)}
    base = bm.scores(query, {t: TITLE_WEIGHT for t in told if not t.isascii()})
    asked = [w for w in PREDICATE_WORDS if w in query.lower()]
    if not asked:
        return base
    boost = bm.scores(" ".join(asked))
    return [b + (PREDICATE_BOOST - 1) * x for b, x in zip(base, boost)]


_NUMERAL_DIGITS_ZH = {"一": "1", "二": "2", "两": "2", "三": "3", "四": "4", "五": "5", "六": "6", "七": "7", "八": "8",
                      "九": "9", "十": "10"}


def _numerals_unnamed(subject: str, own: set[str], question: str) -> set[str]:
    """The Chinese numerals setting a subject apart that the question does not name with what they count ("一类" of
    一类区域, "三级"): a numeral of another count ("第一套房", "那一档") names no 一类."""
    out = set()
    numerals = "".join(_NUMERAL_DIGITS_ZH) + "0123456789"
    for n in own & _NUMERAL_DIGITS_ZH.keys():
        at = subject.find(n)
        after = subject[at + 1:at + 2]
        if not after or not CJK_RUN.match(after) or after in _NUMERAL_DIGITS_ZH:
            continue
        # (… or in a list or range of such numerals ending in it, "一、二类区域", "一至二级"; a grade's 甲 of 级, "三甲医院")
        said = rf"(?:{n}|{_NUMERAL_DIGITS_ZH[n]})(?:[、，,和与及至到或～~—\-]*[{numerals}])*[、，,和与及至到或～~—\-]*"
        if not re.search(said + re.escape(after), question) \
                and not (after == "级" and re.search(rf"(?:{n}|{_NUMERAL_DIGITS_ZH[n]})[甲乙丙]", question)):
            out.add(n)
    return out


def _numerals_named(subject: str, own: set[str], question: str) -> bool:
    """Whether each Chinese numeral that sets a subject apart is named with what it counts (_numerals_unnamed)."""
    return not _numerals_unnamed(subject, own, question)


def focus(subjects: list[str], question: str, graded: bool = False) -> set[str] | None:
    """The subjects a question singles out ("在三级医院…" → the 三级 subjects), or None when it names none.

    Each subject is reduced to the units that set it apart from the other subjects (三 for 三级定点医疗机构
    beside 一级/二级…); a subject is in focus when all its distinguishing units occur in the question. When
    no subject, or every subject, is in focus, the question singles nothing out.

    graded (facts that state the same thing): when no subject is wholly named, the subjects the question names
    most of (at least half their distinguishing units, more than any other subject) are in focus — "二级医疗
    机构的起付线" names most of 二级定点医疗机构 and nothing of 参保老年人.
    """
    uniq = list(dict.fromkeys(subjects))
    if len(uniq) < 2:
        return None
    sets = {s: set(units(s)) - QUERY_STOP_ZH for s in uniq}
    common = set.intersection(*sets.values())
    q = set(units(question))
    hits = {s for s, u in sets.items() if (u - common) and (u - common) <= q and _numerals_named(s, u - common, question)}
    # a subject that other subjects hold whole, most of them ("住院" beside "次住院", "二级定点医疗机构住院的", …),
    # names what they share, not one of them: the question naming it singles none out
    others = len(uniq) - 1
    hits = {s for s in hits if not ((held := sum(sets[s] < sets[o] for o in uniq if o != s)) >= 2
                                    and held * 2 >= others)}
    # of two subjects the question names whole, the one with more of its words named is the one it means:
    # "out of network" names both "Employee Only In-network" and "Employee Only Out-of-network", the second more
    hits = {s for s in hits if not any(sets[s] < sets[t] for t in hits)}
    if hits and len(hits) < len(uniq):
        return hits
    if hits or not graded:
        return None
    share = {s: len((u - common) & q - _numerals_unnamed(s, u - common, question)) / len(u - common)
             for s, u in sets.items() if u - common}
    best = max(share.values(), default=0.0)
    hits = {s for s, x in share.items() if x == best}
    # what the question names of them must hold a unit only they have (二 of 二级…, not 住院 that other labels
    # happen to carry too)
    own = {u for s in hits for u in (sets[s] - common) & q - _numerals_unnamed(s, sets[s] - common, question)
           if not any(u in sets[o] for o in uniq if o not in hits)}
    return hits if best >= 0.5 and own and len(hits) < len(uniq) else None
