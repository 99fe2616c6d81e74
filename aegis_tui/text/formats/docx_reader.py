"""DOCX to canonical Markdown (python-docx): heading styles, numbered and bulleted paragraphs, tables, in body order."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from ...errors import DocumentError
from .source import SegmentMap, SourceLocation
from .writer import MarkdownWriter, short_title

_NS = {"w": "http://schemas.openxmlformats.org/wordprocessingml/2006/main"}
_HEADING_STYLE = re.compile(r"^(?:heading|标题)\s*(\d)$", re.IGNORECASE)
_CN_DIGITS = "零一二三四五六七八九"


def _chinese(n: int) -> str:
    """1 -> 一, 10 -> 十, 12 -> 十二, 21 -> 二十一 (list counters stay below a thousand)."""
    if n < 10:
        return _CN_DIGITS[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return ("" if tens == 1 else _CN_DIGITS[tens]) + "十" + (_CN_DIGITS[ones] if ones else "")
    return str(n)


def _roman(n: int) -> str:
    out = ""
    for value, letters in ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"),
                           (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):
        while n >= value:
            out += letters
            n -= value
    return out


def _format_counter(n: int, fmt: str) -> str:
    if fmt in ("lowerLetter", "upperLetter"):
        letter = chr(ord("a") + (n - 1) % 26)
        return letter.upper() if fmt == "upperLetter" else letter
    if fmt in ("lowerRoman", "upperRoman"):
        return _roman(n).upper() if fmt == "upperRoman" else _roman(n)
    if fmt.startswith(("chinese", "ideograph", "japaneseCounting", "taiwaneseCounting")):
        return _chinese(n)
    return str(n)


class _Numbering:
    """Word's automatic list numbers: numId/ilvl -> format and level text, with running counters."""

    def __init__(self, document):
        self.levels: dict[tuple[str, int], tuple[str, str]] = {}
        self.starts: dict[tuple[str, int], int] = {}
        self.counters: dict[str, list[int]] = {}
        try:
            root = document.part.numbering_part.element
        except (KeyError, NotImplementedError, AttributeError):
            return
        abstract = {a.get(_w("abstractNumId")): a for a in _x(root, "./w:abstractNum")}
        for num in _x(root, "./w:num"):
            ids = _x(num, "./w:abstractNumId/@w:val")
            definition = abstract.get(ids[0]) if ids else None
            if definition is None:
                continue
            for lvl in _x(definition, "./w:lvl"):
                fmt = (_x(lvl, "./w:numFmt/@w:val") or ["decimal"])[0]
                text = (_x(lvl, "./w:lvlText/@w:val") or ["%1."])[0]
                start = (_x(lvl, "./w:start/@w:val") or ["1"])[0]
                key = (num.get(_w("numId")), int(lvl.get(_w("ilvl"), "0")))
                self.levels[key] = (fmt, text)
                self.starts[key] = int(start) if start.isdigit() else 1

    def marker(self, num_id: str, ilvl: int) -> str:
        fmt, text = self.levels.get((num_id, ilvl), ("bullet", ""))
        counts = self.counters.setdefault(num_id, [0] * 9)
        counts[ilvl] = counts[ilvl] + 1 if counts[ilvl] else self.starts.get((num_id, ilvl), 1)
        for deeper in range(ilvl + 1, 9):
            counts[deeper] = 0
        if fmt in ("bullet", "none") or not text:
            return "- "
        label = re.sub(r"%(\d)", lambda m: _format_counter(max(counts[int(m.group(1)) - 1], 1), fmt), text)
        return label + " " if label[-1:] in ".)" else label


@lru_cache(maxsize=64)
def _xpath(path: str):
    from lxml import etree

    return etree.XPath(path, namespaces=_NS)


def _x(element, path: str) -> list:
    """XPath with the w: prefix bound, on python-docx's elements and plain lxml ones alike."""
    return _xpath(path)(element)


def _w(name: str) -> str:
    return "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}" + name


def _num_pr(paragraph, style) -> tuple[str, int] | None:
    """The paragraph's numbering (numId, ilvl), from its own properties or its style's."""
    found = _x(paragraph._p, "./w:pPr/w:numPr")
    while not found and style is not None:
        found = _x(style.element, "./w:pPr/w:numPr")
        style = style.base_style
    if not found:
        return None
    num_id = (_x(found[0], "./w:numId/@w:val") or ["0"])[0]
    ilvl = int((_x(found[0], "./w:ilvl/@w:val") or ["0"])[0])
    return (num_id, ilvl) if num_id != "0" else None


def _heading_level(paragraph, style, has_title: bool) -> int | None:
    while style is not None:  # a custom style based on "Heading 2" is a level-2 heading too
        if style.name == "Title":
            return 1
        m = _HEADING_STYLE.match(style.name or "")
        if m:
            return min(6, int(m.group(1)) + (1 if has_title else 0))
        style = style.base_style
    outline = _x(paragraph._p, "./w:pPr/w:outlineLvl/@w:val")
    if outline and outline[0].isdigit() and int(outline[0]) < 9:
        return min(6, int(outline[0]) + 1 + (1 if has_title else 0))
    return None


def _all_bold(paragraph, style) -> bool:
    runs = [r for r in paragraph.runs if r.text.strip()]
    style_bold = style is not None and style.font.bold
    return bool(runs) and all(r.bold or r.bold is None and style_bold for r in runs)


def _style_lookup(document):
    """paragraph -> its style, from one table of the document's styles (python-docx's own lookup rescans them)."""
    from docx.enum.style import WD_STYLE_TYPE

    by_id = {s.style_id: s for s in document.styles if s.type == WD_STYLE_TYPE.PARAGRAPH}
    default = document.styles.default(WD_STYLE_TYPE.PARAGRAPH)

    def style_of(paragraph):
        ids = _x(paragraph._p, "./w:pPr/w:pStyle/@w:val")
        return by_id.get(ids[0], default) if ids else default

    return style_of


def read_docx(path: Path, name: str) -> tuple[str, SegmentMap]:
    """Read a .docx into canonical Markdown and its source map (paragraph n, or table/row/column)."""
    with open(path, "rb") as f:
        magic = f.read(8)
    if magic.startswith(b"\xd0\xcf\x11\xe0"):
        raise DocumentError(f"{name}: an encrypted or legacy Word file; save it as .docx without a password")
    if not magic.startswith(b"PK"):
        raise DocumentError(f"{name}: not a .docx file (no ZIP container)")
    try:
        import docx

        document = docx.Document(str(path))
        items = list(document.iter_inner_content())
    except Exception as exc:  # python-docx, zipfile and lxml raise many types on a damaged package
        raise DocumentError(f"{name}: not a readable .docx file ({type(exc).__name__})") from None
    writer = MarkdownWriter("docx")
    numbering = _Numbering(document)
    style_of = _style_lookup(document)
    styles = {id(i): style_of(i) for i in items if i.__class__.__name__ == "Paragraph"}
    has_title = any(style is not None and style.name == "Title" for style in styles.values())
    paragraph_no = table_no = 0
    for item in items:
        if item.__class__.__name__ == "Table":
            table_no += 1
            _table(writer, item, table_no)
            continue
        text = item.text
        style = styles[id(item)]
        style_name = style.name or "" if style is not None else ""
        if not text.strip() or style_name.lower().startswith("toc"):
            continue  # a table of contents repeats the headings with page numbers
        paragraph_no += 1
        loc = SourceLocation("docx", paragraph=paragraph_no)
        level = _heading_level(item, style, has_title)
        num = _num_pr(item, style) if level is None else None
        if level is not None:
            writer.heading(text, level, loc)
        elif num is not None:
            marker = numbering.marker(*num)
            if marker != "- " and text.strip().startswith(marker.strip()):
                marker = ""  # the numbering text is typed into the paragraph already
            writer.list_item(marker, text, loc, depth=num[1])
        elif style_name.startswith("List"):
            writer.list_item("- ", text, loc)
        elif short_title(text) and _all_bold(item, style):
            writer.paragraph([(f"**{text.strip()}**", loc)])  # a bold line standing alone: a heading in Markdown
        else:
            writer.paragraph([(line, loc) for line in text.split("\n")])
    text, source = writer.result()
    if not text.strip():
        raise DocumentError(f"{name}: the document is empty")
    return text, source


def _table(writer: MarkdownWriter, table, number: int) -> None:
    """A Word table as pipe rows: a merged cell's text stands in every grid cell it covers."""
    rows = [[cell.text for cell in row.cells] for row in table.rows]
    header_rows = 0
    for row in table.rows:
        if _x(row._tr, "./w:trPr/w:tblHeader"):
            header_rows += 1
        else:
            break

    def locate(r: int, c: int | None) -> SourceLocation:
        return SourceLocation("docx", table=number, row=r + 1, col=None if c is None else c + 1)

    writer.table(rows, header_rows or 1, locate)
