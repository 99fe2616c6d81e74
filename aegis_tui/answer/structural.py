"""Rules that follow the document's structure: table cells bind to their headers, facts to their heading scope."""

from __future__ import annotations

import bisect
import functools
import re
from collections import OrderedDict
from dataclasses import dataclass

from ..text.document import Document
from ..text.entities import mentions, paired_units, series_name, units
from ..text.lexicon import NEGATED_EN, NUMBERED_NAME_EN
from ..text.quantity import QuantityMatch
from ..text.ranges import ordinal_matches
from ..text.roles import Role, number_roles, role_at
from ..text.structure import Cell, Structure, Table
from .report import CheckResult
from .rules import FactContext

# numbering that opens a heading or caption: 第三章, 第12条, 一、, （二）, 2.1, Section 4, Table 2
_NUMBERING = re.compile(
    r"^\s*(?:第[零〇一二两三四五六七八九十百千\d]+(?:[编章节条款]|部分)(?:之[一二三四五六七八九十]+)?|[一二三四五六七八九十]+、"
    r"|[（(][一二三四五六七八九十\d]+[)）]|\d+(?:\.\d+)*(?:[.、)](?!\d)|\s)|(?:chapter|part|section|article|table|附?表)\s*(?:[\dIVXivx]+|(?-i:[A-Z])(?![A-Za-z]|-[A-Za-z])\.?\d*)(?:[.\-–][\dIVXivx]+)*[.:]?"
    r"(?:\s+[—–-](?=\s))?)\s*", re.IGNORECASE)
# a header's unit in parentheses: 省内（元/人）, Rate (USD)
PARENTHESIS = re.compile(r"[（(][^（()）]*[)）]")  # one parenthesis, full- or half-width
_EDGE = " \t：:。.，,；;、"
# what makes a header's parenthesis its unit ("（元/人天）", "(per withdrawal)", "（折合美元）", "(%)")
_UNIT_MARK = re.compile(r"[元%％/$£€¥每]|\b(?:per|usd|rmb|eur|gbp|in\s+(?:days|hours|months|years|dollars))\b",
                        re.IGNORECASE)
# beyond this many rows, rows are told apart by their full labels only (comparing every pair is quadratic)
PAIRWISE_LIMIT = 60


def title_of(text: str) -> str:
    """A heading or caption without its numbering and closing colon: '第二章 在职职工体检' -> '在职职工体检'."""
    return _NUMBERING.sub("", text, count=1).strip(_EDGE)


def short_title(caption: str, limit: int) -> str:
    """A caption that is a title ("疗休养补助标准如下"), not a sentence about the whole table ("参保人员…按下表规定
    支付"): at most limit characters and no clause punctuation; else ""."""
    return caption if caption and len(caption) <= limit and not any(p in caption for p in "，,；;。") else ""


_ORDINAL = re.compile(r"第?[一二三四五六七八九十甲乙丙丁]{1,2}|[A-Z]|[IVX]{1,4}|\d{1,2}")


def ordinal_apart(mine: str, other: str) -> tuple[int, int] | None:
    """Where two names alike but for an ordinal differ ("一类地区", "二类地区": (0, 1); "Tier 1", "Tier 2": (5, 6)), else
    None."""
    if len(other) != len(mine) or other == mine:
        return None
    at = next(i for i, (x, y) in enumerate(zip(mine, other)) if x != y)
    end = len(mine) - next(i for i, (x, y) in enumerate(zip(mine[::-1], other[::-1])) if x != y)
    return (at, end) if end - at <= 2 and _ORDINAL.fullmatch(mine[at:end]) and _ORDINAL.fullmatch(other[at:end]) \
        else None


def classes(table, col: int) -> bool:
    """Whether a table's column is one of the classes of a series and no more, its header alike but for an ordinal
    to another value column's with nothing around the ordinal but the series' name ("一类地区" beside "二类地区", "第二档",
    "Band A" beside "Band B", "Tier 1"; not "门诊限额" beside "住院限额", nor "交通补贴·一类城市" or "A类住宿费上限", which
    name their measure too), or the series' others ("其他城市" beside "一类城市" and "二类城市")."""
    cols = value_columns(table)
    if col not in cols:
        return False
    mine = header_name(table.column_header(col)).strip()  # (without its unit: "一类城市（每人每天）")
    heads = [header_name(table.column_header(c)).strip() for c in cols if c != col]

    def bare(a: str, b: str) -> bool:
        # (the series' name around the ordinal, and no measure: "Band A", "三类地区", "第二档"; not "A类住宿费上限")
        span = ordinal_apart(a, b)
        return span is not None and (len(a.split()) <= 2 if a.isascii() else a[:span[0]] in ("", "第")
                                     and len(a) - span[1] <= 3)

    if any(bare(mine, h) for h in heads):
        return True
    # (… or a group of a series' members by their numbers and nothing more, beside another of that series: "Bands 1
    # and 2" beside "Bands 3, 4 and 5")
    if (group := _series_group(mine)) and any(_series_group(h) == group for h in heads):
        return True
    return not mine.isascii() and len(mine) > 2 and any(
        h[-2:] == mine[-2:] and any(bare(h, x) for x in heads) for h in heads)


def _series_group(header: str) -> str:
    """The series a header names members of by their numbers alone ("Bands 3, 4 and 5" → band), else ''."""
    m = NUMBERED_NAME_EN.fullmatch(header)
    return series_name(m.group(1)) if m else ""


def header_units(text: str) -> list[str]:
    """The parenthesised parts of a header, which may name its unit: '省内（元/人）' -> ['元/人']."""
    return [m.group()[1:-1].strip() for m in PARENTHESIS.finditer(text)]


@functools.lru_cache(maxsize=4096)  # column_name asks it of every header of a table, per cell and per check
def header_name(text: str, *, keep_qualifier: bool = False) -> str:
    """A header without its unit in parentheses: '省内（元/人）' -> '省内'. A parenthesis that is no unit and holds a
    figure stays: it says which ('Full-semester (15-week) courses' beside '8-week session courses'); keep_qualifier:
    so does any that is no unit ('职工医保（在职）')."""
    # a header joined from header rows ('通讯补贴（元/月） / 区外') keeps its levels apart
    def bare(part: str) -> str:
        return PARENTHESIS.sub(lambda m: m.group() if (keep_qualifier or any(ch.isdigit() for ch in m.group()))
                          and not _UNIT_MARK.search(m.group()) else " ", part)

    parts = [" ".join(bare(part).split()).strip(_EDGE) for part in text.split(" / ")]
    return " / ".join(p for p in parts if p) or text.strip()


def column_name(table: Table, col: int) -> str:
    """A column's header as its values' label: without its unit, but with a parenthesis that tells it from a
    column of the same name ('职工医保（在职）' beside '职工医保（退休）')."""
    own = header_name(table.column_header(col))
    twins = own and any(header_name(table.column_header(c)) == own for c in range(max((len(r) for r in table.rows[:table.header_rows]), default=0))
                         if c != col)
    return header_name(table.column_header(col), keep_qualifier=True) if twins else own


def keyed_alike(doc, table: Table) -> bool:
    """Whether another table of the document has the same column headers as this one, under another caption (the
    matching scale "from 1 April 2025" and the one "up to 31 March 2025"): only the captions tell their cells apart."""
    heads = [c.text.strip() for r in table.rows[:table.header_rows] for c in r]
    return any(t.index != table.index and t.caption != table.caption
               and [c.text.strip() for r in t.rows[:t.header_rows] for c in r] == heads for t in doc.structure.tables)


def caption_name(caption: str) -> str:
    """What a caption names, without its number and its unit: "Table 2 — Maximum Company matching contribution from
    1 April 2025 (% of Pensionable Salary)" → "Maximum Company matching contribution from 1 April 2025"."""
    return header_name(title_of(caption).lstrip("—–- ")).strip()


def shared_ends(a: str, b: str) -> tuple[int, int]:
    """The lengths of the prefix and of the suffix two texts share, character by character."""
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    j = 0
    while j < min(len(a), len(b)) - i and a[-1 - j] == b[-1 - j]:
        j += 1
    return i, j


def distinct(own: str, other: str) -> tuple[str, str]:
    """What sets two sibling titles apart: each without the prefix and suffix they share.

    '在职职工体检' / '退休人员体检' -> ('在职职工', '退休人员'); English is compared word by word.
    """
    a, b = title_of(own), title_of(other)
    if a.isascii() and b.isascii():
        wa, wb = a.split(), b.split()
        i = 0
        while i < min(len(wa), len(wb)) and wa[i].lower() == wb[i].lower():
            i += 1
        j = 0
        while j < min(len(wa), len(wb)) - i and wa[-1 - j].lower() == wb[-1 - j].lower():
            j += 1
        return " ".join(wa[i:len(wa) - j]), " ".join(wb[i:len(wb) - j])
    i, j = shared_ends(a, b)
    return a[i:len(a) - j].strip(_EDGE), b[i:len(b) - j].strip(_EDGE)


def _setting_apart(own: str, other: str) -> tuple[frozenset[str], frozenset[str]]:
    """What sets two sibling headers apart, as units a question would share with them (paired_units): English
    words by their stems, Chinese characters, but a numeral or a function character only with its neighbour ("一"
    setting 一类城市 apart from 二类城市 is matched by "一类", never by the 一 of "一个月")."""
    a, b = title_of(own), title_of(other)
    if a.isascii() and b.isascii():
        return tuple(paired_units(part, singles=True) for part in distinct(own, other))  # type: ignore
    i, j = shared_ends(a, b)
    return _apart(a, i, len(a) - j), _apart(b, i, len(b) - j)


def _apart(text: str, start: int, end: int) -> frozenset[str]:
    """paired_units of the part of a Chinese header that sets it apart; where that part is an ordinal's ("首" of 首套住房
    beside 第二套住房), the ordinal too, as ordinal_units writes it, and its 首 no word alone (首付 names no 首套住房)."""
    out = paired_units(text, start, end)
    held = {f"#{n}{counter}" for a, b, n, counter in ordinal_matches(text) if counter and a <= start and b >= end}
    return out - {"首"} | held if held else out


def ordinal_units(text: str) -> set[str]:
    """The ordinals a question names, each with what it counts ("二套房", "第二套" → #2套): what _apart matches."""
    return {f"#{n}{counter}" for _, _, n, counter in ordinal_matches(text) if counter}


def names(label: str, name: str) -> bool:
    """Whether a label names a header or title: all its words in order ('standard room rate' names 'Standard room').

    A header of several header rows ('通讯补贴 / 区外') is named when each of its levels is, in any order
    ('区外通讯补贴').
    """
    levels = [part for part in name.split(" / ") if units(part)] if name else []
    return bool(levels) and all(mentions(part, label) for part in levels)


@dataclass
class Scopes:
    """Sibling headings of one document: for each heading path, the titles beside its last heading."""

    siblings: dict[tuple[str, ...], list[str]]

    def beside(self, path: tuple[str, ...]) -> list[tuple[int, str, str]]:
        """(level, own title, sibling title) for every level of a heading path that has siblings."""
        out = []
        for level in range(len(path)):
            own = path[level]
            for other in self.siblings.get(path[:level], []):
                if other != own:
                    out.append((level, own, other))
        return out


_SCOPES: OrderedDict[str, Scopes] = OrderedDict()


def scopes(document: Document) -> Scopes:
    """The sibling headings of a document, built once per text from its structure's heading blocks."""
    found = _SCOPES.get(document.sha256)
    if found is None:
        siblings: dict[tuple[str, ...], list[str]] = {}
        for block in document.structure.blocks:
            path = block.heading_path
            if block.kind == "heading" and path:
                kids = siblings.setdefault(path[:-1], [])
                if path[-1] not in kids:
                    kids.append(path[-1])
        found = _SCOPES[document.sha256] = Scopes(siblings)
        while len(_SCOPES) > 8:
            _SCOPES.popitem(last=False)
    return found


def cell_of(structure: Structure, m: QuantityMatch) -> tuple[Table, Cell] | None:
    """The body cell a value stands in (a header cell or a value outside tables gives None)."""
    found = structure.cell_at(m.start)
    if found is None:
        return None
    table, cell = found
    if cell.row < table.header_rows or not cell.start <= m.start < m.end <= cell.end:
        return None
    return table, cell


def unit_header(document: Document, offset: int, unit_from: str) -> str:
    """The header or caption a table value takes its unit from (NumberRole.unit_from), '' outside tables."""
    found = document.structure.cell_at(offset)
    if found is None:
        return ""
    table, cell = found
    return {"column header": table.column_header(cell.col), "row header": table.row_header(cell.row),
            "table caption": table.caption}.get(unit_from, "")


def value_columns(table: Table) -> list[int]:
    """The columns of a table that hold values, not row labels."""
    width = max((len(r) for r in table.rows), default=0)
    return [c for c in range(width) if not table.is_label(c)]


def table_evidence(document: Document, table: Table, cell: Cell) -> dict:
    """Where a cell stands, as a person counts it: table, row (header row = 1), column, and their headers."""
    return {"table": table.index + 1, "row": cell.row + 1, "column": cell.col + 1,
            "row_header": table.row_header(cell.row), "column_header": table.column_header(cell.col),
            "caption": table.caption, "offset": cell.start, "length": cell.end - cell.start}


def sibling_tables(document: Document, table: Table) -> list[Table]:
    """Tables under the same parent heading as table (their captions tell them apart)."""
    parent = table.heading_path[:-1] if table.heading_path else ()
    return [t for t in document.structure.tables if t.index != table.index
            and (t.heading_path[:-1] if t.heading_path else ()) == parent]


# what makes a header another's negation, not a narrower case of it ("非夏季月份" beside "夏季月份", "Non-resident")
_NEGATING = frozenset({"非", "不", "无", "未", "non", "no"})


def identifies(label: str, own: str, others: list[str], *, derived: bool = False,
               common: frozenset[str] = frozenset(), elsewhere: str = "") -> bool:
    """Whether a label names a header, or shares words with what sets it apart from each other header (and none
    of theirs): 'nightly rate' picks 'Maximum Nightly Rate' beside 'Maximum Weekly Rate'. derived: English words
    compare by their stems, as a question paraphrases a header ('entertaining' picks 'Entertainment limit'); a
    fact's label, made of the document's own words, is compared as written. common: words that name no other
    header however its own omits them (the document title's: 救助 of a 医疗救助 rule's "住院救助比例" beside
    "门诊慢特病年度限额", asked "门诊慢特病一年最多救助多少钱"). elsewhere: the other parts of a question asking several
    things, which may ask a header holding this one's words by its own ("后面每30分钟又收多少")."""
    if derived:  # a word a question negates names nothing ("non-reserved", "no contract")
        label = NEGATED_EN.sub(" ", label)
    if names(label, own):
        return True
    others = [o for o in others if o and o != own]
    if not others:
        return False

    # a question: its words joined as paired_units joins them, and its single units for a header set apart by
    # one ("Tier 1" beside "Tier 2", 月 beside 年)
    mine = paired_units(label, singles=True) | ordinal_units(label) if derived else set(units(label))
    named_apart = False
    for other in others:
        d_own, d_other = _setting_apart(own, other) if derived else (set(units(t)) for t in distinct(own, other))
        # a unit both parts share sets neither apart: '市' of 跨市 and 市内
        d_own, d_other = d_own - d_other, d_other - d_own
        if not d_own and d_other and derived and not any(u[:1] in _NEGATING or u in _NEGATING for u in d_other) \
                and d_other & (paired_units(elsewhere, singles=True) if elsewhere else frozenset()):
            # (a header whose words another's hold beside words of its own, "白天首小时" beside "白天首小时后每30分钟", is
            # set apart by naming none of those: a question's "首小时收多少" asks it, "后面每30分钟收多少" the other; not
            # beside its negation, "非夏季月份", which is no narrower case of it; only where another part of the question,
            # elsewhere, asks by the other's own words: "白天停两个小时多少钱" picks neither)
            if (mine & d_other) - common:
                return False
            continue
        if not mine & d_own or (mine & d_other) - common:
            return False
        named_apart = True
    # (… where it names some word of the header at all)
    return named_apart or bool((mine & paired_units(title_of(own), singles=True)) - common)


def _bind_cell(ctx: FactContext, table: Table, cell: Cell) -> CheckResult:
    label = f"{ctx.fact.subject} {ctx.fact.predicate}"
    ev = table_evidence(ctx.document, table, cell)
    row = header_name(table.row_header(cell.row))
    rows = [header_name(h) for h in table.row_headers()]
    if not table.is_label(cell.col) and row and not identifies(label, row, rows) and not _names_own_cell(label, table,
                                                                                                     cell.row):
        # which other row the fact names (pairwise only for tables of modest size: it is quadratic)
        other = next((r for r in rows if r != row and (names(label, r) if len(rows) > PAIRWISE_LIMIT else
                                                          identifies(label, r, rows))), "")
        why = f"it names row '{other}'" if other else "neither subject nor predicate names it"
        return CheckResult("table_binding", False, f"'{ctx.fact.object_value}' stands in row '{row}' of table "
                           f"{table.index + 1}; {why}", ev)
    column = column_name(table, cell.col)
    cols = value_columns(table)
    headers = [column_name(table, c) for c in cols]
    if column and identifies(label, column, headers):
        how = f"column '{column}'"
    elif other := next((c for c in headers if c and c != column and identifies(label, c, headers)), ""):
        return CheckResult("table_binding", False, f"'{ctx.fact.object_value}' stands in column '{column}', "
                           f"but the fact names column '{other}'", ev)
    elif len(cols) > 1 and column:
        return CheckResult("table_binding", False, f"'{ctx.fact.object_value}' stands in column '{column}' of "
                           f"table {table.index + 1}; the fact does not name that column", ev)
    else:
        frame = [column, title_of(table.caption)] + [title_of(h) for h in reversed(table.heading_path)]
        how = next((f"'{f}'" for f in frame if f and (names(label, f) or _shares_words(label, f))), "")
        if not how and column:
            return CheckResult("table_binding", False, f"'{ctx.fact.object_value}' stands under '{column}' in "
                               f"table {table.index + 1}; the fact names neither it nor the table's caption or "
                               "section", ev)
    for sibling in sibling_tables(ctx.document, table):
        mine, theirs = distinct(table.caption, sibling.caption)
        if theirs and names(label, theirs) and not (mine and names(label, mine)):
            return CheckResult("table_binding", False, f"the fact names '{theirs}' of table {sibling.index + 1}, "
                               f"but '{ctx.fact.object_value}' stands in table {table.index + 1} ('{mine}')", ev)
    return CheckResult("table_binding", True, f"'{ctx.fact.object_value}' is the cell of row '{row}' and "
                       f"{how} in table {table.index + 1}", ev)


def _names_own_cell(label: str, table: Table, row: int) -> bool:
    """Whether a label names in full a label cell of the row that no other row has in its column, and no other row's
    cell of that column: "尿毒症透析治疗（血液透析、腹膜透析）" names its row of "| 甲类 | J02 | 尿毒症透析治疗（…） |" without its
    class and code, whatever characters its aside shares with another row's name."""
    body = range(table.header_rows, len(table.rows))
    cells = table.label_cells(row)

    column = {c.col: [header_name(r[c.col].text) for r in (table.rows[i] for i in body) if c.col < len(r)]
              for c in cells}
    for cell in cells:
        own = header_name(cell.text)
        if own and column[cell.col].count(own) == 1 and names(label, own) \
                and not any(o != own and o and names(label, o) for o in column[cell.col]):
            # (… and names no other row's label in another label column: "Zone 2 Hilltop" of the Zone 1 row)
            return not any(o and o != header_name(other.text) and names(label, o)
                           for other in cells if other is not cell for o in column[other.col])
    return False


def _shares_words(label: str, frame: str) -> bool:
    """Whether a label shares a content word (or a CJK pair) with a caption or heading."""
    a, b = set(units(label)), set(units(frame))
    words = {u for u in a & b if len(u) > 2}
    pairs = {x + y for x, y in zip(units(label), units(label)[1:])} & {x + y for x, y in zip(units(frame), units(frame)[1:])}
    return bool(words or pairs)


_ROLE_NAMES = {Role.SECTION: "a section, article or list number", Role.DATE: "a date or year",
               Role.VERSION: "a version", Role.PHONE: "a phone number", Role.IDENTIFIER: "an identifier or code"}


def roles_in(document: Document, start: int, end: int) -> list:
    """Every number (any role) lying inside [start, end)."""
    roles = number_roles(document)
    out = []
    for r in roles[bisect.bisect_left(roles.starts, start):]:
        if r.start >= end:
            break
        if r.end <= end:
            out.append(r)
    return out


def numbers_of(text: str) -> set[float]:
    """The plain numbers written in a text ('v3.2' -> {3.2}, '2025-03-01' -> {2025, 3, 1})."""
    return {float(n) for n in re.findall(r"\d+(?:\.\d+)?", text)}


def number_role(ctx: FactContext) -> CheckResult:
    """Only a value may be a fact's object: not a section number, date, version, phone number or code."""
    if not ctx.numeric or ctx.quantity is None or ctx.span is None:
        return CheckResult("number_role", True, "not applicable")
    if not ctx.value_matches:
        # the value is not a quantity of the quote; it may still be the digits of a section number or a date
        for found in roles_in(ctx.document, ctx.span.start, ctx.span.end):
            if found.role is not Role.VALUE and float(ctx.quantity.value) in numbers_of(found.text):
                return CheckResult("number_role", False, f"'{ctx.fact.object_value}' is "
                                   f"{_ROLE_NAMES.get(found.role, found.role.value)} ('{found.text}'), not a value",
                                   {"role": found.role.value, "offset": found.start, "length": found.end - found.start})
        return CheckResult("number_role", True, "not applicable")
    seen = []
    for m in ctx.value_matches:
        found = role_at(ctx.document, m.start, m.end)
        if found is None or found.role is Role.VALUE:
            ev = {"role": Role.VALUE.value, "offset": m.start, "length": m.end - m.start}
            if found is not None and found.unit_from:
                ev["unit_from"] = found.unit_from
            return CheckResult("number_role", True, f"'{m.text}' is a value", ev)
        seen.append((m, found))
    m, found = seen[0]
    return CheckResult("number_role", False, f"'{found.text}' is {_ROLE_NAMES.get(found.role, found.role.value)}, "
                       "not a value", {"role": found.role.value, "offset": found.start, "length": found.end - found.start})


def table_binding(ctx: FactContext) -> CheckResult:
    """A table cell's fact names the cell's row header and its column header (or caption or section)."""
    if not ctx.numeric or not ctx.value_matches:
        return CheckResult("table_binding", True, "not applicable")
    structure = ctx.document.structure
    cells = [found for m in ctx.value_matches if (found := cell_of(structure, m))]
    if not cells:
        return CheckResult("table_binding", True, "the value does not stand in a table")
    results = [_bind_cell(ctx, table, cell) for table, cell in cells]
    return next((r for r in results if r.passed), results[0])


def scope(ctx: FactContext) -> CheckResult:
    """The subject names no other scope than its quote's section: a sibling heading's own words mark another."""
    if ctx.span is None:
        return CheckResult("scope", True, "not applicable")
    at = ctx.value_matches[0].start if ctx.value_matches else ctx.span.start
    path = ctx.document.structure.heading_path(at)
    ev = {"heading_path": list(path)}
    known = scopes(ctx.document)
    subject = ctx.fact.subject
    ss, se = ctx.doc_index.sentence_bounds(at)
    if mentions(subject, ctx.span.text) or mentions(subject, ctx.document.text[ss:se]):
        return CheckResult("scope", True, f"the quoted sentence itself names '{subject}'", ev)
    for _, own, other in known.beside(path):
        mine, theirs = distinct(own, other)
        if theirs and names(subject, theirs) and not (mine and names(subject, mine)):
            return CheckResult("scope", False, f"'{subject}' names '{theirs}' ({other}), but the quote stands "
                               f"under '{own}'", ev | {"names": other})
    return CheckResult("scope", True, f"under {' › '.join(path) or 'the document'}", ev)


# the phrase opening a clause before its comma names whom the clause is about when it is at most this long
TOPIC_MAX = 24
TOPIC_COMMAS = "，,"
CLAUSE_ENDS = "，,；;。：:\n"


def clause_start(text: str, at: int) -> int:
    """Where the clause holding position `at` of a text begins: after the last clause end before it, else 0."""
    return max(text.rfind(p, 0, at) for p in CLAUSE_ENDS) + 1


def value_at(fact) -> int:
    """Where a fact's value stands in its quote; -1 when the quote does not hold it as written. Not inside another
    figure: "5天" stands after "15天" in "每年累计不得超过15天，单次不得超过5天"."""
    value, quote = fact.object_value, fact.source_text
    if value[:1].isdigit() or value[-1:].isdigit():
        edges = (r"(?<![\d.])" if value[:1].isdigit() else "") + re.escape(value) + (r"(?!\d)" if value[-1:].isdigit() else "")
        if m := re.search(edges, quote):
            return m.start()
    return quote.find(value)


def clause_topic(fact) -> str:
    """The phrase that opens a fact's clause before a comma, when its subject and value follow it: whom the
    clause is about ("参保男职工的未就业配偶，产前检查费用按每孕次限额800元支付", "For part-time staff, the benefit
    is 60%"); '' when the subject opens the clause itself or the phrase holds a figure."""
    quote = fact.source_text
    at, s = value_at(fact), quote.find(fact.subject)
    if at < 0 or s < 0 or s > at:
        return ""
    cut = max(quote.rfind(p, 0, s) for p in TOPIC_COMMAS)
    if cut < 0:
        return ""
    start = clause_start(quote, cut)
    topic = quote[start:cut].strip()
    return topic if 1 < len(topic) <= TOPIC_MAX and not any(ch.isdigit() for ch in topic) else ""
