"""PDF to canonical Markdown (pdfplumber): ruled tables as pipe rows, the other text line by line, page and line kept."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from ...errors import DocumentError
from ..lexicon import is_cjk
from .source import SegmentMap, SourceLocation
from .writer import MarkdownWriter, short_title

# pdfplumber needs ~50 ms a page and more on dense ones: past this a PDF is refused instead of read for minutes
MAX_PDF_PAGES = 500
_BREAK_BEFORE = re.compile(r"^(?:\*\*|第[零〇一二两三四五六七八九十百千\d]+[条章节编]|[（(][一二三四五六七八九十\d]+[)）]|"
                           r"[一二三四五六七八九十]+、|\d+(?:\.\d+)*[.、)]?\s|[-•·▪*]\s|\|)")
_PAGE_NUMBER = re.compile(r"^[\s\-–—]*(?:page\s*)?\d+(?:\s*(?:/|of)\s*\d+)?[\s\-–—]*$|^第\s*\d+\s*页(?:\s*[，,]?\s*共\s*\d+\s*页)?$",
                          re.IGNORECASE)
_BOLD_FONT = re.compile(r"bold|black|heavy|semibold|demi", re.IGNORECASE)
_BULLET = re.compile(r"^(?:[•·▪◦●]\s*|[-*]\s+)")


def read_pdf(path: Path, name: str) -> tuple[str, SegmentMap]:
    """Read a PDF with a text layer into canonical Markdown and a page/line (or page/table/row/column) map."""
    try:
        import pdfplumber

        pdf = pdfplumber.open(str(path))
    except Exception as exc:  # pdfminer wraps its errors in PdfminerException; a damaged file raises others
        cause = exc.args[0] if exc.args and isinstance(exc.args[0], Exception) else exc
        if type(cause).__name__ in ("PDFPasswordIncorrect", "PDFEncryptionError", "PDFEncryptionWarning"):
            raise DocumentError(f"{name}: the PDF is encrypted; a password is needed to read it") from None
        raise DocumentError(f"{name}: not a readable PDF ({type(cause).__name__})") from None
    with pdf:
        try:
            count = _page_count(pdf)
            if count > MAX_PDF_PAGES:
                raise DocumentError(f"{name}: {count} pages is more than the {MAX_PDF_PAGES}-page limit for PDF "
                                    "documents; split it first")
            pages = [_read_page(page) for page in pdf.pages]
        except DocumentError:
            raise
        except Exception as exc:
            raise DocumentError(f"{name}: not a readable PDF ({type(exc).__name__})") from None
    if not any(items for items in pages):
        raise DocumentError(f"{name}: no text layer; run OCR first")
    lines = [i[6] for items in pages for i in items if i[0] == "line"]
    total = sum(len(t) for t in lines)
    if total and sum(len(m) for t in lines for m in re.findall(r"\(cid:\d+\)", t)) > 0.3 * total:
        raise DocumentError(f"{name}: the PDF's fonts map no characters to text; run OCR first")
    return _write(_drop_running_lines(pages), name)


def _drop_running_lines(pages: list[list[tuple]]) -> list[list[tuple]]:
    """Drop page numbers and running headers/footers: margin lines that are a page number or repeat on many pages."""
    def key(item: tuple) -> str:
        return re.sub(r"\d+", "#", item[6].strip().lower())

    seen = Counter(k for items in pages for k in {key(i) for i in items if i[0] == "line" and i[7]})
    repeated = max(2, len(pages) // 2)
    return [[i for i in items if not (i[0] == "line" and i[7] and (_PAGE_NUMBER.match(i[6]) or seen[key(i)] >= repeated
                                                                        and len(pages) >= 3))]
            for items in pages]


def _page_count(pdf) -> int:
    from pdfminer.pdftypes import resolve1

    try:
        return int(resolve1(resolve1(pdf.doc.catalog["Pages"])["Count"]))
    except (KeyError, TypeError, ValueError):
        return len(pdf.pages)


def _read_page(page) -> list[tuple]:
    """A page's items top to bottom: ("line", top, bottom, x0, x1, size, text, in_margin), ("table", top, rows)."""
    # a framed note or a one-column box is text, not a table
    tables = [t for t in page.find_tables() if len(t.rows) >= 2 and max(len(r.cells) for r in t.rows) >= 2]
    boxes = [t.bbox for t in tables]

    def outside(obj) -> bool:
        if obj.get("object_type") != "char":
            return True
        cx, cy = (obj["x0"] + obj["x1"]) / 2, (obj["top"] + obj["bottom"]) / 2
        return not any(x0 <= cx <= x1 and top <= cy <= bottom for x0, top, x1, bottom in boxes)

    text_page = page.filter(outside) if boxes else page
    items: list[tuple] = []
    for line in text_page.extract_text_lines(return_chars=True, strip=True):
        if not line["text"].strip():
            continue
        sizes = sorted(c["size"] for c in line["chars"]) or [0]
        margin = line["top"] < 0.07 * page.height or line["bottom"] > 0.93 * page.height
        bold = all(_BOLD_FONT.search(c.get("fontname", "")) for c in line["chars"] if not c["text"].isspace())
        text = f"**{line['text'].strip()}**" if bold and short_title(line["text"]) else line["text"]
        items.append(("line", line["top"], line["bottom"], line["x0"], line["x1"], round(sizes[len(sizes) // 2], 1),
                      text, margin))
    for table in tables:
        rows = _table_rows(table)
        if rows:
            items.append(("table", table.bbox[1], rows))
    items.sort(key=lambda i: i[1])
    return items


def _table_rows(table) -> list[list[str]]:
    """Cell texts by grid position; a merged cell's text stands in every grid cell it covers."""
    texts = table.extract()
    grid = [row.cells for row in table.rows]
    anchors = [(box, texts[r][c] or "") for r, row in enumerate(grid) for c, box in enumerate(row)
               if box is not None and c < len(texts[r])]
    col_x = {}
    row_y = {}
    for r, row in enumerate(grid):
        for c, box in enumerate(row):
            if box is not None:
                col_x[c] = min(col_x.get(c, box[0]), box[0])
                row_y[r] = min(row_y.get(r, box[1]), box[1])
    out = []
    for r, row in enumerate(texts):
        cells = []
        for c, text in enumerate(row):
            if text is None and c in col_x and r in row_y:
                x, y = col_x[c] + 0.5, row_y[r] + 0.5
                text = next((t for (x0, top, x1, bottom), t in anchors if x0 <= x <= x1 and top <= y <= bottom), "")
            cells.append(text or "")
        out.append(cells)
    return out


def _write(pages: list[list[tuple]], name: str) -> tuple[str, SegmentMap]:
    writer = MarkdownWriter("pdf")
    sizes: Counter = Counter()
    for items in pages:
        for item in items:
            if item[0] == "line":
                sizes[item[5]] += len(item[6])
    body = sizes.most_common(1)[0][0] if sizes else 0
    larger = sorted({s for s in sizes if s >= body * 1.15}, reverse=True)
    table_no = 0
    for page_no, items in enumerate(pages, 1):
        right = max((i[4] for i in items if i[0] == "line"), default=0)
        left = min((i[3] for i in items if i[0] == "line"), default=0)
        para: list[tuple[str, SourceLocation]] = []
        joins: list[str] = []
        prev = None
        line_no = 0

        def flush() -> None:
            if para:
                writer.paragraph(list(para), list(joins))
                para.clear()
                joins.clear()

        for item in items:
            if item[0] == "table":
                flush()
                prev = None
                table_no += 1
                number = table_no
                writer.table(item[2], 1, lambda r, c, n=number, p=page_no: SourceLocation(
                    "pdf", page=p, table=n, row=r + 1, col=None if c is None else c + 1))
                continue
            _, top, bottom, x0, x1, size, text, _ = item
            line_no += 1
            loc = SourceLocation("pdf", line=line_no, page=page_no)
            if size in larger and len(text) <= 120:
                flush()
                writer.heading(text, larger.index(size) + 1, loc)
                prev = None
                continue
            bullet = _BULLET.match(text)
            starts_block = bullet or _BREAK_BEFORE.match(text)
            if prev is not None and not starts_block:
                p_top, p_bottom, p_x1 = prev
                gap = top - p_bottom
                short = p_x1 < right - 0.15 * max(1.0, right - left)
                if gap <= 0.6 * (bottom - top) and not short:
                    last = para[-1][0]
                    if re.search(r"[a-z]-$", last) and text[0].islower():  # a word hyphenated at the line end
                        para[-1] = (last[:-1], para[-1][1])
                        joins.append("")
                    else:
                        joins.append("" if is_cjk(last[-1]) and is_cjk(text[0]) else " ")
                    para.append((text, loc))
                    prev = (top, bottom, x1)
                    continue
            flush()
            if bullet:
                writer.list_item("- ", text[bullet.end():], loc)
                prev = None
                continue
            para.append((text, loc))
            prev = (top, bottom, x1)
            if text.startswith("**"):  # a bold title line stands alone
                flush()
                prev = None
        flush()
    text, source = writer.result()
    if not text.strip():
        raise DocumentError(f"{name}: no text layer; run OCR first")
    return text, source
