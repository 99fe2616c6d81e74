"""Document structure over the canonical text: heading paths, paragraphs, list items with lead-ins, tables."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .document import Document


# the most top-level headings that title a document together (an issuer's, its rules', an explanation's)
TITLES = 3


@dataclass(frozen=True)
class Heading:
    """A heading (Markdown #, a numbered title line, a 第X条 article label): text == text[start:end]."""

    text: str
    level: int
    start: int
    end: int


@dataclass(frozen=True)
class Cell:
    """One table cell: 0-based row/col within its table; start/end = the cell's stripped text span."""

    text: str
    start: int
    end: int
    row: int
    col: int


# a code naming a row ("J02", "MZ001", "YS-0301", "B7.1"): letters then a number
CODE = re.compile(r"[A-Za-z]{1,4}[-.]?\d{1,4}(?:[.-]\d{1,3})?[A-Za-z]?")


def codes(texts: list[str]) -> bool:
    """Whether a column's body texts are codes, one to a row (not a grade some rows share, "G1", "G1", "G2")."""
    return len(texts) >= 2 and len(set(texts)) == len(texts) and all(CODE.fullmatch(t.strip()) for t in texts)


_NUMBERING_HEADER = re.compile(r"^(?:序号|编号|no\.?|nr\.?|#|item|s/n)$", re.IGNORECASE)


@dataclass
class Table:
    """A pipe table: header rows, body rows (ragged allowed), its caption and the column holding row labels."""

    index: int
    start: int
    end: int
    header_rows: int
    rows: list[list[Cell]]
    caption: str = ""
    heading_path: tuple[str, ...] = ()
    row_header_col: int = 0
    row_spans: list[tuple[int, int]] = field(default_factory=list, repr=False)
    label_cols: tuple[int, ...] = ()   # more row-label columns right of row_header_col ("Employee Only | In-network")

    def is_label(self, col: int) -> bool:
        """Whether a column holds row labels (the row-header column and the word columns beside it)."""
        return col == self.row_header_col or col in self.label_cols

    def numbering_columns(self) -> set[int]:
        """The columns that number its rows ("序号", "No."), or that give each row's member of a series by its number
        under the series' name ("| Job title | Function | Grade |" over "| Project Engineer | Engineering | 4 |"): their
        cells count nothing."""
        from .entities import series_name

        width = max((len(r) for r in self.rows), default=0)
        body = self.rows[self.header_rows:]
        return {c for c in range(width) if _NUMBERING_HEADER.match(header := self.column_header(c).strip())
                or series_name(header) and body and all(c < len(r) and r[c].text.strip().isdigit() for r in body)}

    def code_columns(self) -> set[int]:
        """The row-label columns of codes, one to a row ("| J02 | 尿毒症透析治疗 |", "| MZ001 |"): they identify a row,
        they name no class of it."""
        body = self.rows[self.header_rows:]
        return {c for c in self.label_cols if codes([r[c].text.strip() for r in body if c < len(r) and r[c].text.strip()])}

    def column_header(self, col: int) -> str:
        """The header text of a column, header rows joined with " / " ("" when the table has none)."""
        parts: list[str] = []
        for r, row in enumerate(self.rows[:self.header_rows]):
            text = row[col].text if col < len(row) else ""
            if not text and r < self.header_rows - 1:
                # a group header spans the empty cells to its right ("| 补贴（元/月） | |" over "| 区内 | 区外 |")
                text = next((c.text for c in reversed(row[self.row_header_col + 1:col]) if c.text), "")
            if text and text not in parts:
                parts.append(text)
        return " / ".join(parts)

    def row_header(self, row: int) -> str:
        """The row label of a row: its label cells' texts joined ("" when that row has none)."""
        return " ".join(c.text for c in self.label_cells(row) if c.text)

    def row_headers(self) -> list[str]:
        """The row label of each body row (below the header rows), in order."""
        return [self.row_header(r) for r in range(self.header_rows, len(self.rows))]

    def label_cells(self, row: int) -> list[Cell]:
        """The row-label cells of a row, left to right."""
        if not 0 <= row < len(self.rows):
            return []
        cells = self.rows[row]
        return [cells[c] for c in (self.row_header_col, *self.label_cols) if c < len(cells)]

    @cached_property
    def _row_starts(self) -> list[int]:
        return [s for s, _ in self.row_spans]

    def cell_at(self, offset: int) -> Cell | None:
        """The cell whose text span holds an offset (its end included), else None."""
        if not self.start <= offset <= self.end:
            return None
        r = bisect.bisect_right(self._row_starts, offset) - 1
        if r < 0 or offset > self.row_spans[r][1]:
            return None
        cells = self.rows[r]
        c = bisect.bisect_right([cell.start for cell in cells], offset) - 1
        if c >= 0 and cells[c].start <= offset <= cells[c].end:
            return cells[c]
        return None


@dataclass(frozen=True)
class Block:
    """A heading, paragraph, list item or table with the heading path it stands under."""

    kind: str
    start: int
    end: int
    heading_path: tuple[str, ...]
    lead_in: str = ""
    table: int | None = None


@dataclass
class Structure:
    """Blocks in document order, the tables and the headings of one canonical text."""

    blocks: list[Block]
    tables: list[Table]
    headings: list[Heading]
    _starts: list[int] = field(init=False, repr=False)
    _table_starts: list[int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._starts = [b.start for b in self.blocks]
        self._table_starts = [t.start for t in self.tables]

    def block_at(self, offset: int) -> Block | None:
        """The block holding an offset (start <= offset < end), else None."""
        i = bisect.bisect_right(self._starts, offset) - 1
        if i < 0:
            return None
        block = self.blocks[i]
        return block if offset < block.end or offset == block.start == block.end else None

    def table_at(self, offset: int) -> Table | None:
        i = bisect.bisect_right(self._table_starts, offset) - 1
        if i >= 0 and offset <= self.tables[i].end:
            return self.tables[i]
        return None

    def cell_at(self, offset: int) -> tuple[Table, Cell] | None:
        table = self.table_at(offset)
        cell = table.cell_at(offset) if table else None
        return (table, cell) if cell else None

    def heading_path(self, offset: int) -> tuple[str, ...]:
        """The heading path of the block holding an offset, else of the block before it."""
        i = bisect.bisect_right(self._starts, offset) - 1
        return self.blocks[i].heading_path if i >= 0 else ()

    @property
    def title(self) -> str:
        """The document's title: its first heading, when no other heading is of its level ('' otherwise)."""
        heads = self.headings
        if not heads or sum(1 for h in heads if h.level <= heads[0].level) > 1:
            return ""
        return heads[0].text

    @property
    def titles(self) -> list[str]:
        """What titles the whole document: its title, or its few top-level headings when it has several (a cover
        letter's issuer over the rules' own title: "# 华岳能源集团有限公司文件", "# 华岳能源集团有限公司职工学历进修…管理办法";
        "# City of Port Alder", "# Business Licence Fees and Charges"); [] when many headings share the top level."""
        if self.title:
            return [self.title]
        level = min((h.level for h in self.headings), default=0)
        top = [h.text for h in self.headings if h.level == level]
        return top if len(top) <= TITLES else []

    def lead_paragraph(self, offset: int) -> Block | None:
        """The paragraph a run of list items follows, for the list item holding an offset (else None)."""
        i = bisect.bisect_right(self._starts, offset) - 1
        if i < 0 or self.blocks[i].kind != "list_item":
            return None
        while i >= 0 and self.blocks[i].kind == "list_item":
            i -= 1
        return self.blocks[i] if i >= 0 and self.blocks[i].kind == "paragraph" else None


def repealed(document: Document, offset: int) -> bool:
    """Whether an offset stands in a section a heading marks no longer in force ("附件15 …证书目录及标准（已废止，仅供
    参照）", "Schedule 3 (repealed)")."""
    from .lexicon import REPEALED_NOTE

    return any(REPEALED_NOTE.search(h) for h in document.structure.heading_path(offset))


def article_title(document: Document, offset: int) -> str:
    """The title of the numbered article (a 第X条 the outline heads) whose paragraphs, lists or tables hold an offset:
    its run-in title, or the one it gives in brackets or before a space ("第二十三条【一次性工伤医疗补助金】 一次性…按…确定的
    月数计发：" over its table of months, "第十五条　年度资助上限 每名职工…"); '' when the article has none or no
    article holds it."""
    from .lexicon import ARTICLE_TITLE

    path = document.structure.heading_path(offset)
    heads = [h for h in document.structure.headings if h.start <= offset and path and h.text == path[-1]]
    if not heads or (m := ARTICLE_TITLE.match(document.text, heads[-1].start)) is None:
        return ""
    if run_in := heads[-1].text[len(m.group("number")):].strip(" \t\u3000。．"):
        return run_in  # ("第七条 门急诊医疗保险金")
    return next((t.strip() for t in m.group("bracketed", "parenthesized", "spaced") if t), "")


_FORMER: dict[str, frozenset[str]] = {}
_FORMER_ALL: dict[str, frozenset[str]] = {}


def former_names(document: Document) -> frozenset[str]:
    """The short names a document gives the former rules it replaces ("原办法", "2022版办法"): those it defines, and
    those heading a table column whose period ended before the document took effect ("| 2023 Tariff (1 April 2023 –
    31 March 2025) |", "| HTI-0622 (policies issued before 1 March 2025) |")."""
    from .dates import period

    if document.sha256 not in _FORMER_ALL:
        if len(_FORMER_ALL) >= 8:
            _FORMER_ALL.pop(next(iter(_FORMER_ALL)))
        names = set(_defined_former(document))
        force = in_force(document)
        for table in document.structure.tables if force is not None else ():
            for col in range(1, len(table.rows[0]) if table.rows else 0):
                header = table.column_header(col)
                if (bounds := period(header)) is not None and bounds[1] is not None and bounds[1] < force:
                    name = _NAME_BEFORE_ASIDE.match(header)
                    if name is not None and _NAME_LIKE.search(name.group(1)):
                        names.add(name.group(1).strip())
        _FORMER_ALL[document.sha256] = frozenset(names)
    return _FORMER_ALL[document.sha256]


# (a header's name before its aside, "2023 Tariff" of "2023 Tariff (1 April 2023 – 31 March 2025)": a short one with an
# edition's figure or letters, or 原/旧)
_NAME_BEFORE_ASIDE = re.compile(r"\s*([^（(，,/|]{2,24}?)\s*[（(]")
_NAME_LIKE = re.compile(r"\d|[A-Z]{2}|^(?:原|旧)")
_ASIDE = re.compile(r"[（(][^（）()]*[）)]")


_EDITION_TITLE = re.compile(r"《[^》\n]{2,60}?[（(](?P<edition>\d{4}年?版)[）)]》")


def _clause_end(text: str, at: int) -> int:
    """Where the clause from a position ends (at ，。；, or the line's end)."""
    m = re.compile(r"[，,。；;\n]").search(text, at)
    return m.start() if m else len(text)


def _defined_former(document: Document) -> frozenset[str]:
    """The short names a document defines for the former rules it replaces ("以下简称“原办法”", '(the "2021 Policy")')."""
    from .lexicon import (
        FORMER_DOCUMENT,
        FORMER_DOCUMENT_EN,
        FORMER_NAME,
        FORMER_NAME_EN,
        REVISED_AFTER_EN,
        REVISES,
        REVISES_EN,
        SUPERSEDES_LABEL,
    )

    if document.sha256 not in _FORMER:
        if len(_FORMER) >= 8:
            _FORMER.pop(next(iter(_FORMER)))
        text = document.text
        names = set()
        for m in FORMER_DOCUMENT.finditer(text):
            sentence = text[text.rfind("。", 0, m.start()) + 1:text.find("。", m.end()) % (len(text) + 1)]
            if FORMER_NAME.search(m.group("name")) or REVISES.search(sentence):
                names.add(m.group("name"))
        for m in FORMER_DOCUMENT_EN.finditer(text):
            before = text[max(text.rfind(". ", 0, m.start()), text.rfind("\n", 0, m.start())) + 1:m.start()]
            name = re.sub(r"^the\s+", "", m.group("name").strip(), flags=re.IGNORECASE)  # ('("the 2022 Scheme")')
            if name in (document.structure.title or ""):
                continue
            verb = None
            for verb in REVISES_EN.finditer(before):
                pass
            if FORMER_NAME_EN.search(name) or verb is not None and verb.group("new") is None \
                    or REVISED_AFTER_EN.match(text, m.end()):
                names.add(name)
        names.update(m.group("name").strip() for m in SUPERSEDES_LABEL.finditer(text))
        # (a repealed rule's title naming its edition, "《…住房补贴管理办法（2021年版）》（恒岳人发〔2021〕15号）同时废止": the
        # document speaks of it by that edition, "按2021年版办法的标准", "| 项目 | 2021年版 | 本办法 |")
        for m in _EDITION_TITLE.finditer(text):
            if REVISES.search(text, m.end(), _clause_end(text, m.end())) \
                    and m.group("edition") not in (document.structure.title or ""):
                names.add(m.group("edition"))
        _FORMER[document.sha256] = frozenset(names)
    return _FORMER[document.sha256]


def names_in(text: str, names: frozenset[str]) -> bool:
    """Whether a text names one of a document's former rules, in full or by its stem ("2021年版·一类城市" for
    "2021年版办法")."""
    from .lexicon import CJK

    # (its stem drops a word of two characters: not a figure's digit, "2022版" is not named by the 202 of "2025版")
    # (… nor a stem that is a year alone: "2021年版" is not named by any 2021)
    return any(n in text or len(n) > 4 and CJK.match(n[-1]) is not None and CJK.match(n[-2]) is not None
               and not n[-3].isdigit() and n[:-2] in text for n in names)


_IN_FORCE: dict[str, date | None] = {}
_SENTENCE = re.compile(r"[。；;\n]|(?<=[\w)\]])\.\s")


def in_force(document: Document) -> date | None:
    """The day the document's rule takes effect ("本办法自2025年1月1日起施行", "施行日期：2025年1月1日", "applies to all
    policies issued on or after 1 March 2025"); None when it states none."""
    from .dates import find_dates, period
    from .lexicon import EFFECTIVE_LABEL, OWN_RULE, REVISES, REVISES_EN, TAKES_EFFECT

    if document.sha256 not in _IN_FORCE:
        if len(_IN_FORCE) >= 8:
            _IN_FORCE.pop(next(iter(_IN_FORCE)))
        own: list[date] = []
        other: list[date] = []
        former = _defined_former(document)
        for sentence in _SENTENCE.split(document.text):
            # (not the day a rule it replaces took effect: "| Supersedes | … Revision 13 (effective July 1, 2024) |",
            # "原办法自2019年施行以来")
            if not TAKES_EFFECT.search(sentence) or not OWN_RULE.search(sentence) \
                    and (REVISES.search(sentence) or REVISES_EN.search(sentence) or names_in(sentence, former)):
                continue
            days = own if OWN_RULE.search(sentence) else other
            if (label := EFFECTIVE_LABEL.search(sentence)) and (dated := find_dates(sentence[label.end():label.end() + 30])):
                own.append(dated[0].first)
            elif (bounds := period(sentence)) is not None and bounds[0] is not None \
                    and (bounds[1] is None or days is own):  # ("This Schedule applies from 1 April 2025 to 31 March 2026")
                days.append(bounds[0])
        # (the day stated most often, the later of two as often: a step a clause schedules, "apply to bills … on or
        # after August 1, 2025", is not when the document takes effect)
        days = own or other
        _IN_FORCE[document.sha256] = max(days, key=lambda d: (days.count(d), d), default=None)
    return _IN_FORCE[document.sha256]


# a year written as a span of two ("2024/25", "2025-26", "2025–2026"), the second the year after the first
_YEAR_SPAN = re.compile(r"(?<![\d/])(?P<a>(?:19|20)\d\d)\s*[/–-]\s*(?P<b>\d\d(?:\d\d)?)(?![\d/])")
_YEAR_SPANS: dict[str, dict[str, tuple[date, date]]] = {}


def _spans_of_years(text: str):
    for m in _YEAR_SPAN.finditer(text):
        a, b = int(m.group("a")), int(m.group("b"))
        if b == a + 1 or b == (a + 1) % 100:
            yield m


def year_spans(document: Document) -> dict[str, tuple[date, date]]:
    """The years written as spans that the document dates ("the financial year 2025/26, which runs from 1 April 2025 to
    31 March 2026"): each as written, with its first and last day. Only a span the document dates is read: a
    financial year starts on different days in different places."""
    from .dates import period

    if document.sha256 not in _YEAR_SPANS:
        if len(_YEAR_SPANS) >= 8:
            _YEAR_SPANS.pop(next(iter(_YEAR_SPANS)))
        out: dict[str, tuple[date, date]] = {}
        for sentence in _SENTENCE.split(document.text):
            found = list(_spans_of_years(sentence))
            for i, m in enumerate(found):
                # (the dates after it, up to the next such year: "2024/25, which ran from 1 April 2024 to 31 March 2025")
                after = sentence[m.end():found[i + 1].start() if i + 1 < len(found) else len(sentence)]
                bounds = period(after[:80])
                if bounds is not None and bounds[0] is not None and bounds[1] is not None \
                        and bounds[0].year == int(m.group("a")) and bounds[1].year == bounds[0].year + 1:
                    out.setdefault(_year_key(m), bounds)
        _YEAR_SPANS[document.sha256] = out
    return _YEAR_SPANS[document.sha256]


def _year_key(m: re.Match) -> str:
    return f"{m.group('a')}/{int(m.group('b')) % 100:02d}"


def _year_period(document: Document, text: str) -> tuple[date, date] | None:
    """The period of a year span a text names that the document dates ("Band B 2024/25"), else None."""
    spans = year_spans(document) if _YEAR_SPAN.search(text) else {}
    return next((spans[k] for m in _spans_of_years(text) if (k := _year_key(m)) in spans), None)


def period_scopes(document: Document, offset: int, title: bool = True) -> list[str]:
    """What may name the period of the figures at an offset, nearest first: their column's header, their table's
    caption, the headings over them (without title, not the topmost: a scheme's title names its own year over
    sections of other years too)."""
    found = document.structure.cell_at(offset)
    scopes = [found[0].column_header(found[1].col), found[0].caption] if found is not None else []
    path = document.structure.heading_path(offset)
    return scopes + list(reversed(path if title else path[1:]))


def dated(document: Document, offset: int, *, title: bool = True) -> tuple[date | None, date | None] | None:
    """The period the figures at an offset are of, as their column header, their table's caption or the nearest
    heading bounding one says ("| 原办法（执行至2024年12月31日） |", "表 … (permits starting before 1 April 2025)",
    "附件1 出差城市分类表（自2025年3月1日起适用）"): first and last day, None where open; None when nothing bounds one."""
    from .dates import period

    # (… or the year span it names, as the document dates it: "| General waste 2024/25 |", the financial year 2024/25
    # "which ran from 1 April 2024 to 31 March 2025")
    for text in period_scopes(document, offset, title=title):
        if text and ((bounds := period(text)) is not None or (bounds := _year_period(document, text)) is not None):
            return bounds
    return None


def current(document: Document, offset: int) -> bool:
    """Whether the figure at an offset is marked as the document's own, current rule: its column headed so beside a
    former rule's ("| 项目 | 原办法 | 本办法（自2025年1月1日起） |", "| 2023 Tariff | 2025 Tariff (from 1 April 2025) |") or
    its period starting when the document takes effect ("Table 1 — Resident permit prices from 1 April 2025")."""
    from .lexicon import CURRENT_RULE

    force = in_force(document)
    if force is not None and (bounds := dated(document, offset)) is not None and bounds[0] is not None \
            and bounds[0] >= force:
        return True
    found = document.structure.cell_at(offset)
    if found is None:
        return False
    table, here = found
    header = table.column_header(here.col)
    if CURRENT_RULE.search(header):
        return any(superseded(document, cell.start, 0) for cell in table.rows[here.row] if cell is not here)
    # (… or its caption or column names a later edition of the rule the document replaces: "Table 3 — Temporary
    # Accommodation (Version 6.0)" where Version 5.2 is the former, "| 2025 Scheme |" beside "| 2022 Scheme |"; not one
    # itself replaced, "Edition 3 (… 1 April 2023 – 31 March 2025)" beside Edition 2 and the current Edition 4)
    if _later_edition(f"{header} {table.caption}", former_names(document)) and not superseded(document, here.start, 0):
        return True
    # (… or its column is one of a pair told apart only by their periods, the other's ended: "Zone 1 — 2025/26" beside
    # "Zone 1 — 2024/25 (until 31 March 2025)")
    undated = _UNDATED.sub("", header).strip()
    return bool(undated) and not superseded(document, here.start, 0) and any(
        _UNDATED.sub("", table.column_header(c)).strip() == undated and superseded(document, cell.start, 0)
        for c, cell in enumerate(table.rows[here.row]) if cell is not here)


def _later_edition(text: str, former: frozenset[str]) -> bool:
    """Whether a text names an edition of the same name as a former rule's, numbered after it ("Version 6.0" beside
    the former Version 5.2, "2025 Scheme" beside the 2022 Scheme)."""
    def number(x: str) -> tuple[int, ...]:
        return tuple(int(d) for d in re.findall(r"\d+", x))

    for name in former:
        if m := re.fullmatch(r"([A-Za-z]+)\s+(\d[\d.]*)", name):  # (a name and its number: "Version 5.2")
            own, named = m.group(2), re.findall(rf"\b{m.group(1)}\s+(\d[\d.]*\d|\d)", text)
        elif m := re.fullmatch(r"((?:19|20)\d\d)\s+([A-Za-z]+)", name):  # (a year and its name: "2022 Scheme")
            own, named = m.group(1), re.findall(rf"\b((?:19|20)\d\d)\s+{m.group(2)}\b", text)
        else:
            continue
        if any(number(x) > number(own) for x in named):
            return True
    return False


def earlier_column(table, col: int) -> bool:
    """Whether a table's column is one of a pair told apart only by their years or periods, the other's later ("| Ward |
    Zone 2024/25 | Zone 2025/26 |", "| 2024年度类别 | 2025年度类别 |"): what it states is the earlier edition's."""
    def years(header: str) -> list[int]:
        return [int(y) for y in re.findall(r"(?<!\d)(?:19|20)\d\d(?!\d)", header)]

    from .dates import period, undated

    header = table.column_header(col)
    width = len(table.rows[0]) if table.rows else 0
    # (… or by the periods they bound by dates, its own ending before the other's begins: "| Band to 30 September 2025 |
    # Band from 1 October 2025 |", "| 2025年6月30日前类别 | 2025年7月1日起类别 |")
    # (a bare name either side, not a member's own date, "Band (registered before 1 April 2017)" beside "Band (registered
    # on or after …)": both classifications hold now)
    if (bounds := period(header)) is not None and bounds[1] is not None and (name := undated(header)) \
            and not re.search(r"[（()）]", name) and len(name.split()) <= 3 and (name.isascii() or len(name) <= 6) and any(
            c != col and (later := period(other := table.column_header(c))) is not None and later[0] is not None
            and later[0] > bounds[1] and undated(other) == name for c in range(width)):
        return True
    bare, own = _UNDATED.sub("", header).strip(), years(header)
    return bool(bare) and bool(own) and any(
        c != col and _UNDATED.sub("", other := table.column_header(c)).strip() == bare and years(other)
        and max(years(other)) > max(own) for c in range(width))


def named_years(text: str) -> set[str]:
    """The year spans a text names, each as "2024/25" ("the 2024/25 scheme", "2024-2025")."""
    return {_year_key(m) for m in _spans_of_years(text)}


# a header's period and edition years ("2024/25", "(until 31 March 2025)", "2025年"), which tell two columns of one
# measure apart
_UNDATED = re.compile(r"[（(][^（）()]*[）)]|\b\d{4}(?:\s*[/–-]\s*\d{2,4})?\b|\d{4}年(?:度)?")


def superseded(document: Document, offset: int, length: int) -> bool:
    """Whether the value at an offset (of a length) is one a change replaced: it stands in a section marked no longer
    in force (repealed), in a table column for the former rule ("| 原规定（V3.2） | 现规定（V4.0） |"), under a header,
    caption or heading whose period ended before the document took effect, in an aside or a sentence naming the former
    rule alone, or is what a clause says the change is from ("由相当于2个月租金降为相当于1个月租金", "the fee was increased
    from $40 to $45")."""
    from .lexicon import (
        CHANGED_FROM,
        CHANGED_TO,
        CURRENT_RULE,
        FORMER_ASIDE,
        FORMER_HEADER,
        FORMERLY,
        OWN_RULE,
    )

    s = document.structure
    if repealed(document, offset):
        return True
    former = former_names(document)
    if (found := s.cell_at(offset)) is not None:
        # (a column or a table the document heads by the name of a rule it replaces: "| 城市类别 | 本制度 | 2022版办法 |",
        # "2022版办法住宿费标准（单位：元/人·晚）：" over its table)
        # (not a caption naming both, "员工出差适用2022版办法还是本制度，以…出发日期确定：")
        # (or a period ending before the document takes effect: "| 原办法（执行至2024年12月31日） |", "Appendix B — … prices
        # (permits starting before 1 April 2025)")
        header, caption = found[0].column_header(found[1].col), found[0].caption
        # (… or a table whose caption marks it the former rule, its columns none of their own periods: "表3-1 失业保险金月
        # 标准（原标准，适用于2025年9月及以前月份的失业保险金）"; a table comparing "| 原标准 | 新标准 |" is told by its columns)
        table = found[0]
        compared = any(FORMER_HEADER.search(h) or CURRENT_RULE.search(h)
                       for c in range(len(table.rows[0]) if table.rows else 0) if (h := table.column_header(c)))
        return bool(FORMER_HEADER.search(header)) or names_in(header, former) \
            or (names_in(caption, former) or not compared and FORMER_HEADER.search(caption)) \
            and not CURRENT_RULE.search(f"{header} {caption}") or _ended(document, offset)
    if _ended(document, offset):
        return True
    text = document.text
    # (… or a clause's aside giving the former rule's figure: "不予报销（2022版办法为6个月）", "(2021 Policy: £3,000)",
    # "(previously £45)")
    opened = max(text.rfind("（", max(0, offset - 30), offset), text.rfind("(", max(0, offset - 30), offset))
    if opened >= 0 and not {"）", ")"} & set(text[opened:offset]):
        aside = text[opened + 1:offset]
        if any(aside.startswith(n) for n in former) or FORMER_ASIDE.match(aside.lstrip()):
            return True
    # (… or a sentence stating the former rule's figure by its name alone: "Under the 2023 Tariff six-month permits cost
    # 60% of the annual price", "2021年版办法中，杭州市为二类城市")
    start = max(text.rfind(c, 0, offset) for c in ("。", "；", ". ", "\n")) + 1
    ends = [e for c in ("。", "；", ". ", "\n") if (e := text.find(c, offset)) >= 0]
    # (outside its asides: "超过3个月的，不予报销（2022版办法为6个月）" states the rule, the aside the former's)
    # (naming it before the value or in the value's own clause: "每次6元，原标准为每次5元" and "每次3元，与原标准相同" state
    # the rule first; "An annual permit cost £60 under the 2023 Tariff" the former's)
    sentence = _ASIDE.sub("", text[start:min(ends, default=len(text))])
    clause_end = min([e for c in ("，", ",", "；", ";") if (e := text.find(c, offset)) >= 0]
                     + [min(ends, default=len(text))])
    if names_in(_ASIDE.sub("", text[start:clause_end]), former) and not CURRENT_RULE.search(sentence) \
            and not OWN_RULE.search(sentence):
        return True
    # (… or a figure the clause says it formerly was: "B档员工在一类城市的月度住房补贴原为每月3000元", "previously £45")
    if FORMERLY.search(text, max(0, offset - 12), offset):
        return True
    return bool(CHANGED_FROM.search(text[max(0, offset - 60):offset])
                and CHANGED_TO.match(text[offset + length:offset + length + 40]))


def _ended(document: Document, offset: int) -> bool:
    """Whether the figures at an offset are of a period that ended before the document took effect."""
    force = in_force(document)
    return force is not None and (bounds := dated(document, offset)) is not None and bounds[1] is not None \
        and bounds[1] < force


def illustrative(document: Document, offset: int) -> bool:
    """Whether the value at an offset states a case the document works through or asks about, not its rule: it
    stands in a worked example ("示例一：某职工本人工资为6,000元…", the list of sums after it, a section of examples) or
    in a question the document poses ("问：超过60岁还在工地干活，受伤后能拿到哪些钱？", "Q: I was hired 5 months
    before…")."""
    from .lexicon import EXAMPLE_HEADING, EXAMPLE_OPENER, POSED_QUESTION

    s = document.structure
    block = s.block_at(offset)
    if block is None:
        return False
    # (a section of examples, not the document's title: "Example Co. Medical Plan" is a plan)
    if any(EXAMPLE_HEADING.search(h) for h in block.heading_path if h != s.title):
        return True
    text = document.text
    if EXAMPLE_OPENER.match(text[block.start:block.end]):
        return True
    # (a posed question is its line: the answer below it, "A: …" or "答：…", states the rule)
    if POSED_QUESTION.match(text[text.rfind("\n", 0, offset) + 1:offset]):
        return True
    lead = s.lead_paragraph(offset)
    if lead is not None and EXAMPLE_OPENER.match(text[lead.start:lead.end]):
        return True
    sentence = document.sentence_at(offset)
    return sentence is not None and sentence.text.rstrip(" *_\t").endswith(("？", "?"))


def structure(document: Document) -> Structure:
    """The structure of a document (built once and cached on the Document)."""
    return document.structure


def build_structure(text: str) -> Structure:
    """Parse a canonical text once: markdown-it-py blocks, then numbered titles and list items inside them."""
    from .outline import build  # the builder imports these classes

    return build(text)
