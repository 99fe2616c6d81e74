"""Test helper: write one Markdown test document as .docx (python-docx) and .pdf (reportlab), block for block."""

from __future__ import annotations

import re
from pathlib import Path


def blocks(markdown: str) -> list[tuple[str, object]]:
    """The blocks of a simple Markdown document: ("heading", (level, text)), ("paragraph", text),
    ("item", text) for "- " bullets, ("numbered", text) for lines with typed numbers, ("table", rows)."""
    out: list[tuple[str, object]] = []
    for chunk in re.split(r"\n\s*\n", markdown.strip()):
        lines = chunk.splitlines()
        if lines[0].startswith("#"):
            hashes, _, text = lines[0].partition(" ")
            out.append(("heading", (len(hashes), text.strip())))
        elif lines[0].lstrip().startswith("|"):
            rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines
                    if not re.fullmatch(r"\s*\|?[\s:|-]+\|?\s*", line)]
            out.append(("table", rows))
        elif lines[0].startswith("- "):
            out.extend(("item", line[2:].strip()) for line in lines)
        elif all(re.match(r"\d+[.、)]", line) for line in lines):
            out.extend(("numbered", line.strip()) for line in lines)  # typed numbers, one paragraph each
        else:
            out.append(("paragraph", " ".join(line.strip() for line in lines)))
    return out


def write_docx(markdown: str, path: Path) -> Path:
    import docx

    document = docx.Document()
    for kind, value in blocks(markdown):
        if kind == "heading":
            level, text = value
            document.add_heading(text, level - 1)  # "#" is the Title, "##" Heading 1, ...
        elif kind in ("paragraph", "numbered"):
            document.add_paragraph(value)
        elif kind == "item":
            document.add_paragraph(value, style="List Bullet")
        else:
            width = max(len(r) for r in value)
            table = document.add_table(rows=len(value), cols=width)
            for r, row in enumerate(value):
                for c, text in enumerate(row):
                    table.cell(r, c).text = text
    document.save(str(path))
    return path


_SIZES = {1: 18, 2: 15, 3: 13}
_BODY = 10


def write_pdf(markdown: str, path: Path, page_height: float = 842) -> Path:
    """A text-layer PDF: headings in larger type, wrapped paragraphs, "- " items, ruled tables (CID font STSong)."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.pdfgen import canvas

    font = "STSong-Light"
    if font not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(UnicodeCIDFont(font))
    c = canvas.Canvas(str(path), pagesize=(595, page_height))
    left, right, margin = 60, 535, 60
    y = page_height - margin

    def need(height: float) -> None:
        nonlocal y
        if y - height < margin:
            c.showPage()
            y = page_height - margin

    def wrap(text: str, size: float) -> list[str]:
        lines, line = [], ""
        tokens = re.findall(r"[\u3000-\u9fff\uff00-\uffef]|[^\s\u3000-\u9fff\uff00-\uffef]+\s*|\s+", text)
        for token in tokens:
            if pdfmetrics.stringWidth((line + token).rstrip(), font, size) > right - left and line:
                lines.append(line.rstrip())
                line = token.lstrip()
            else:
                line += token
        return lines + [line.rstrip()] if line.strip() else lines

    def text_lines(lines: list[str], size: float) -> None:
        nonlocal y
        for line in lines:
            need(size * 1.3)
            y -= size * 1.3
            c.setFont(font, size)
            c.drawString(left, y, line)

    for kind, value in blocks(markdown):
        if kind == "heading":
            level, text = value
            text_lines([text], _SIZES[level])
        elif kind in ("paragraph", "item", "numbered"):
            text_lines(wrap(("- " if kind == "item" else "") + value, _BODY), _BODY)
        else:
            width = max(len(r) for r in value)
            col = (right - left) / width
            row_h = _BODY * 2
            need(row_h * len(value) + 4)
            top = y - 4
            xs = [left + i * col for i in range(width + 1)]
            ys = [top - i * row_h for i in range(len(value) + 1)]
            c.grid(xs, ys)
            c.setFont(font, _BODY)
            for r, row in enumerate(value):
                for k, text in enumerate(row):
                    c.drawString(xs[k] + 4, ys[r + 1] + _BODY * 0.6, text)
            y = ys[-1]
        y -= _BODY * 1.2
    c.save()
    return path
