"""Number roles: which numbers are values (amounts, rates, limits) and which are section numbers, dates or codes."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from .lexicon import CJK_RANGE, POSED_NUMBER_BEFORE
from .quantity import Quantity, find_quantities, parse_quantity, width_fold

if TYPE_CHECKING:
    from .document import Document
    from .structure import Structure, Table


class Role(StrEnum):
    """What a number in a document is: only VALUE numbers may become facts."""

    VALUE = "value"
    SECTION = "section"        # section, article, list or clause number: "6.2", "第十二条", "1.", "（一）"
    DATE = "date"              # dates, years, times of day
    VERSION = "version"        # "v2.1", document codes like "FIN-07"
    PHONE = "phone"            # phone numbers and extensions
    IDENTIFIER = "identifier"  # ids, file and policy numbers, model names, other codes


@dataclass(frozen=True)
class NumberRole:
    """One number of the document: text == document.text[start:end]; quantity for values (unit maybe a header's)."""

    start: int
    end: int
    text: str
    role: Role
    quantity: Quantity | None = None
    unit_from: str = ""  # "" (the unit is in the text), "column header", "row header" or "table caption"


def number_roles(document: Document) -> list[NumberRole]:
    """Every number in the document with its role, in document order (built once per document)."""
    return document.roles


def role_at(document: Document, start: int, end: int) -> NumberRole | None:
    """The first number overlapping [start, end) (the number at start when the span is empty), if any."""
    roles = document.roles
    stop = max(end, start + 1)
    for r in roles[max(0, bisect.bisect_right(roles.starts, start) - 1):]:
        if r.start >= stop:
            break
        if r.end > start:
            return r
    return None


def values_in(document: Document, start: int, end: int) -> list[NumberRole]:
    """The VALUE numbers lying wholly inside [start, end)."""
    roles = document.roles
    out = []
    for r in roles[bisect.bisect_left(roles.starts, start):]:
        if r.start >= end:
            break
        if r.end <= end and r.role is Role.VALUE:
            out.append(r)
    return out


class RoleList(list):
    """The roles of one document in order, with their start offsets for bisecting."""

    def __init__(self, roles: list[NumberRole]):
        super().__init__(sorted(roles, key=lambda r: r.start))
        self.starts = [r.start for r in self]


# ---- patterns that are never values -------------------------------------------------------------------------
_CN = "零〇一二两三四五六七八九十百千"
_MONTHS = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
           r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
# Digits border on ASCII letters and digits only: "编号HR-2025-07", "于2025-03-01起" (CJK is \w, so no \b)
_L, _R = r"(?<![0-9A-Za-z])", r"(?![0-9A-Za-z])"
_SPECIAL = re.compile("|".join([
    rf"(?P<section>第[{_CN}\d]+[条章节款项编](?:之[{_CN}]+)?|[（(][{_CN}]+[)）]|(?<![^\s>|])[{_CN}]+、|[①-⑳])",
    r"(?P<docno>[〔\[［(（]\d{4}[〕\]］)）]\s*\d+\s*号)",
    rf"(?P<phone>(?<![0-9A-Za-z.])(?:\+\d{{1,3}}[\s-]?)?(?:\(\d{{2,4}}\)\s?\d{{3,4}}-\d{{4}}|\d{{3,4}}-\d{{3,4}}-\d{{4}}"
    rf"|0\d{{2,3}}-\d{{7,8}}|1[3-9]\d{{9}})(?![0-9A-Za-z]|\.\d)|(?:\bext\.?|\bextension|分机|(?<=\d)转)\s*\d{{1,6}}{_R})",
    rf"(?P<date>\b{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}{_R}|{_L}\d{{1,2}}\s+{_MONTHS}\s+\d{{4}}{_R}"
    rf"|\b{_MONTHS}\s+(?:\d{{4}}|\d{{1,2}}(?:st|nd|rd|th)?){_R}|{_L}\d{{4}}-\d{{1,2}}-\d{{1,2}}{_R}"
    rf"|{_L}\d{{1,2}}/\d{{1,2}}/\d{{2,4}}{_R}|{_L}\d{{1,2}}:\d{{2}}(?:\s?[ap]\.?m\.?)?{_R})",
    rf"(?P<version>(?-i:{_L}[A-Z][A-Z0-9]{{1,9}}-\d+(?:[-.]\d+)*{_R})|{_L}[vV]\d+(?:\.\d+)*{_R}"
    rf"|\b(?:version|revision|rev\.)\s*\d+(?:\.\d+)*{_R}|(?<=版本)\s*[vV]?\d+(?:\.\d+)*{_R})",
]), re.IGNORECASE)
# A local number written after a phone word ("call the desk on 555-0142"): the shape alone could be a range.
_PHONE_WORDS = re.compile(r"(?:\b(?:call|phone|telephone|tel|fax|hotline|dial|contact|text)\b|电话|热线|传真|手机|联系)"
                          r"[^\n\d]{0,24}?(?P<number>\+?\(?\d[\d ()-]{5,}\d)", re.IGNORECASE)
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
_LINE_NUMBER = re.compile(r"^[ \t\u3000]*(?:#{1,6}[ \t]+|[-*+>][ \t]+)?(\d+(?:\.\d+)*)(?:[.、)）]|(?=[ \t\u3000]))")
_BEFORE_WORD = re.compile(r"([A-Za-z.§#]+(?:/[A-Za-z]+)?|编号|电话|热线|传真|手机|附件|附表|附录|注)[\s:：]*$")
_SECTION_BEFORE = {"section", "sec.", "article", "art.", "§", "clause", "chapter", "part", "item", "paragraph", "para.",
                   "para", "rule", "schedule", "annex", "appendix", "page", "p.", "step", "level", "tier", "grade",
                   "phase", "table", "figure", "fig.", "line", "levels", "tiers", "grades", "phases", "stage", "stages",
                   "附件", "附表", "附录",  # (an appendix's number: "符合附件1规定的准入标准")
                   "注", "note", "notes"}  # (… and a note's: "| 见注2 |", "see Note 3")
# the second and later numbers of a list after such a word: "Classes 2 and 3", "Severity 1, 2 or 3"
_LISTED_AFTER_WORD = re.compile(r"([A-Za-z.§#]+)\s+\d+(?:\s*,\s*\d+)*\s*(?:,|\band\b|\bor\b|\bto\b|\bthrough\b|-|–)\s*$",
                                re.IGNORECASE)
_ID_BEFORE = {"no.", "no", "number", "#", "id", "code", "form", "编号", "ref", "ref.", "iso", "gb", "gb/t",
              "ansi", "iec", "class", "classes", "category", "categories", "type", "types", "severity", "priority",
              "band", "option", "tranche", "series", "zone"}
_PHONE_BEFORE = {"tel", "tel.", "phone", "telephone", "fax", "call", "hotline", "电话", "热线", "传真", "手机"}
# an item's number inside a paragraph listing run-in items ("注：1.家庭人口按照…确定；2.家庭总资产净值包括…"): after a
# colon, a semicolon or a sentence's end, a point and the item's first Chinese word after it
_RUN_IN_ITEM = re.compile(rf"\d{{1,2}}[.．、](?=[{CJK_RANGE}])")
_RUN_IN_BEFORE = re.compile(r"[：:；;。]$")
_LEADER = re.compile(r"(?:\.{3,}|…+|·{3,})\s*$")
_ORDINAL_AFTER = set("条章节款项级类档号批期届位名")
_HEADER_UNIT = re.compile(r"[（(]([^()（）]{1,16})[)）]|单位[:：]\s*([^\s，,。;；|]{1,8})|\bin\s+([A-Za-z$%€£¥]{1,8})\b")


def header_unit(header: str) -> str | None:
    """The unit a header or caption states: "省内（元/人）" -> "元/人", "Maximum Rate ($)" -> "$", "单位：万元"."""
    for m in _HEADER_UNIT.finditer(header):
        unit = _UNIT_LABEL.sub("", next(g for g in m.groups() if g).strip())
        # a rate per two things ("元/人·天", "元/人/天"): per the first of them, as its dimension goes; an amount per
        # a thing no unit names ("元/证", "元/项": each certificate's, each award's) is that amount
        cuts = (unit, *(unit[:i] for i in reversed(range(len(unit))) if unit[i] in "·/" and "/" in unit[:i]))
        for cut in (*cuts, *unit.split("/")[:1 if "/" in unit else 0]):
            if _with_unit("1", cut) is not None:
                return cut
    return None


_UNIT_LABEL = re.compile(r"^单位\s*[:：]\s*")


def _with_unit(number: str, unit: str) -> Quantity | None:
    symbol = re.match(r"(?:us\$|[$¥€£])", unit, re.IGNORECASE)
    split = f"{unit[:symbol.end()]}{number}{unit[symbol.end():]}" if symbol else ""  # "$/mile" -> "$1/mile"
    for text in (f"{number}{unit}", f"{unit}{number}", f"{number} {unit}", split):
        q = parse_quantity(text)
        if q is not None and q.dimension not in ("number", "date"):
            return q
    return None


def build_roles(document: Document) -> RoleList:
    """Find and classify every number of a document (the work behind Document.roles)."""
    text = document.text
    structure = document.structure
    taken: list[tuple[int, int]] = []
    out: list[NumberRole] = []

    def free(s: int, e: int) -> bool:
        i = bisect.bisect_right(taken, (s, 10**12)) - 1
        if i >= 0 and taken[i][1] > s:
            return False
        return not (i + 1 < len(taken) and taken[i + 1][0] < e)

    def add(s: int, e: int, role: Role, q: Quantity | None = None, unit_from: str = "") -> None:
        bisect.insort(taken, (s, e))
        out.append(NumberRole(s, e, text[s:e], role, q, unit_from))

    folded = width_fold(text)
    for m in _PHONE_WORDS.finditer(folded):
        if sum(c.isdigit() for c in m.group("number")) >= 5:
            add(m.start("number"), m.end("number"), Role.PHONE)
    for m in _SPECIAL.finditer(folded):
        if not free(m.start(), m.end()):
            continue
        kind = m.lastgroup
        role = {"section": Role.SECTION, "docno": Role.IDENTIFIER, "phone": Role.PHONE, "date": Role.DATE,
                "version": Role.VERSION}[kind]
        add(m.start(), m.end(), role)
    _table_values(document, structure, free, add)
    headings = {m.group(1) for h in structure.headings if (m := _LINE_NUMBER.match(h.text)) and "." in m.group(1)}
    pos = 0
    for line in text.split("\n"):
        line_number = _LINE_NUMBER.match(width_fold(line))
        if line_number and not (line_number.group(0)[-1] in ".、)）" or "." in line_number.group(1)):
            block = structure.block_at(pos + line_number.start(1))
            line_number = line_number if block and block.kind == "heading" else None
        for qm in find_quantities(line):
            s, e = pos + qm.start, pos + qm.end
            if not free(s, e):
                continue
            q = qm.quantity
            if line_number and line_number.start(1) == qm.start and "." in line_number.group(1) \
                    and q.dimension != "number" and qm.text[len(line_number.group(1)):].strip()[:1].isupper():
                # a clause's number opening its line, read with the capitalised word after it as a unit ("9.4 Days of
                # temporary housing must be used …"): the number is the clause's, the word its sentence's first
                add(s, s + len(line_number.group(1)), Role.SECTION)
                continue
            if q.dimension == "date":
                add(s, e, Role.DATE, q)
            elif q.dimension == "number" and (line_number and line_number.start(1) == qm.start
                                              or qm.text in headings or _LEADER.search(folded[max(0, s - 8):s])
                                              or _RUN_IN_ITEM.match(text, s)
                                              and _RUN_IN_BEFORE.search(text[max(0, s - 1):s])
                                              or POSED_NUMBER_BEFORE.search(folded, max(0, s - 4), s)
                                              and folded[e:e + 1] in ":：.．、"):
                add(s, e, Role.SECTION)
            elif q.dimension == "number" and _phone_context(folded, s, qm.text):
                add(s, e, Role.PHONE)
            elif q.dimension == "number" and (role := _word_role(folded, s, e)) is not None:
                add(s, e, role)  # "ISO 9001", "Form 1040", "每年1月"
            elif q.dimension == "number" and (_CODE_BEFORE.search(text, max(0, s - 24), s)
                                              or re.fullmatch(r"0\d+", qm.text)):
                add(s, e, Role.IDENTIFIER)  # a form's code, "endorsement HM 04 20", "HO 00 03"; a zero-padded "04"
            else:
                add(s, e, Role.VALUE, q)
        pos += len(line) + 1
    for m in _DIGITS.finditer(folded):
        if free(m.start(), m.end()):
            add(m.start(), m.end(), _leftover_role(folded, m))
    return RoleList(out)


# a code of capital letters right before a number, maybe with number groups between ("HM 04 20", "HO-3")
_CODE_BEFORE = re.compile(r"(?<![A-Za-z])[A-Z]{2,5}(?:[ -]\d{1,4})*[ -]$")


def _phone_context(folded: str, start: int, digits: str) -> bool:
    word = _BEFORE_WORD.search(folded[max(0, start - 16):start])
    return bool(word) and word.group(1).lower() in _PHONE_BEFORE and sum(c.isdigit() for c in digits) >= 5


def _word_role(folded: str, s: int, e: int) -> Role | None:
    """What the words around a number make it: a page reference, a date, a version, a phone, a section, an id."""
    word = _BEFORE_WORD.search(folded[max(0, s - 16):s])
    before = word.group(1).lower() if word else ""
    if _LEADER.search(folded[max(0, s - 8):s]):
        return Role.SECTION  # a page reference after dot leaders (a table of contents)
    if re.fullmatch(_MONTHS, before) or folded[e:e + 1] == "月" and folded[e - 1:e].isdigit():
        return Role.DATE  # "March 5", "1月"
    if before in ("version", "v.", "rev.", "revision"):
        return Role.VERSION
    if before in _PHONE_BEFORE:
        return Role.PHONE
    if before in _SECTION_BEFORE:
        return Role.SECTION
    if before in _ID_BEFORE:
        return Role.IDENTIFIER
    listed = _LISTED_AFTER_WORD.search(folded[max(0, s - 40):s])
    if listed and listed.group(1).lower() in _SECTION_BEFORE:
        return Role.SECTION
    if listed and listed.group(1).lower() in _ID_BEFORE:
        return Role.IDENTIFIER
    return None


def _leftover_role(folded: str, m: re.Match) -> Role:
    """A number the quantity finder left out: a list marker, an ordinal, a code, a time, a reference."""
    s, e = m.span()
    role = _word_role(folded, s, e)
    if role is not None:
        return role
    prev = folded[s - 1] if s else ""
    after = folded[e] if e < len(folded) else ""
    if after in _ORDINAL_AFTER or prev in "第(（" and after in ")）":
        return Role.SECTION
    line_start = folded.rfind("\n", 0, s) + 1
    if _LINE_NUMBER.match(folded[line_start:e + 1]):
        return Role.SECTION
    if prev == ":" or after == ":":
        return Role.DATE
    if len(m.group(0)) == 4 and m.group(0).isdigit() and 1900 <= int(m.group(0)) <= 2199:
        return Role.DATE  # a year in "2024-2025"
    return Role.IDENTIFIER


def _table_values(document: Document, structure: Structure, free, add) -> None:
    """Table cells: numbers in a numbering column are list numbers; a bare number takes its header's unit."""
    text = document.text
    for table in structure.tables:
        caption_unit = table_unit(text, table)
        width = max((len(r) for r in table.rows), default=0)
        numbering = table.numbering_columns()
        column_units = {c: header_unit(table.column_header(c)) for c in range(width)}
        for row in table.rows[table.header_rows:]:
            row_unit = header_unit(table.row_header(row[0].row)) if row else None
            for cell in row:
                if table.is_label(cell.col) or not cell.text or not free(cell.start, cell.end):
                    continue
                if cell.col in numbering and cell.text.isdigit():
                    add(cell.start, cell.end, Role.SECTION)
                    continue
                plain = parse_quantity(cell.text)
                if plain is None or plain.dimension not in ("number", "date") or plain.unit not in ("", "date_y"):
                    continue  # not a bare number: its own unit (or no quantity) decides
                for unit, source in ((column_units.get(cell.col), "column header"), (row_unit, "row header"),
                                     (caption_unit, "table caption")):
                    q = _with_unit(cell.text.strip(), unit) if unit else None
                    if q is not None:
                        add(cell.start, cell.end, Role.VALUE, q, source)
                        break


def table_unit(text: str, table: Table) -> str | None:
    """The unit a table's caption, or a unit line just above the table, states for its bare cells."""
    return header_unit(table.caption) or _unit_line_before(text, table)


_UNIT_LINE = re.compile(r"^\s*[（(]?\s*(?:单位|units?|amounts\s+in)\b", re.IGNORECASE)


def _unit_line_before(text: str, table: Table) -> str | None:
    """A "单位：元" / "Unit: USD" line just above a table."""
    above = text[max(0, table.start - 120):table.start].rstrip().rsplit("\n", 1)[-1]
    if _UNIT_LINE.match(above) and (unit := header_unit(above)):
        return unit  # "（单位：元/平方米·采暖期）": a rate per two things, as a header states it
    m = re.search(r"(?:单位|unit|units|amounts in)\s*[:：]?\s*(\S{1,8})\s*$", above, re.IGNORECASE)
    if m and _with_unit("1", m.group(1).rstrip("）)")) is not None:
        return m.group(1).rstrip("）)")
    return None
