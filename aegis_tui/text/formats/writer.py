"""The canonical Markdown writer: headings, paragraphs, list items and pipe tables, with a segment per source piece."""

from __future__ import annotations

from ..lexicon import is_cjk
from .source import SegmentMap, SourceLocation


def join_lines(lines: list[str]) -> str:
    """Wrapped lines as one: no space where both sides are CJK ("职工\\n类别" -> "职工类别"), else one space."""
    out = ""
    for line in (part.strip() for part in lines):
        if not line:
            continue
        out += ("" if not out or is_cjk(out[-1]) and is_cjk(line[0]) else " ") + line
    return out


_SENTENCE_PUNCT = set("。；;！？!?，,：:.")


def short_title(text: str) -> bool:
    """Whether emphasised text reads as a title: one short line without sentence punctuation."""
    text = text.strip()
    return 0 < len(text) <= 60 and "\n" not in text and "*" not in text and not any(c in _SENTENCE_PUNCT for c in text)


def cell_text(text: str) -> str:
    """A cell's text on one line with its pipes escaped, as it stands in a pipe row."""
    return " ".join(join_lines(text.splitlines()).split()).replace("|", "\\|")


class MarkdownWriter:
    """Builds the canonical text block by block: one blank line between blocks, list items on adjacent lines."""

    def __init__(self, format: str):
        self.format = format
        self.parts: list[str] = []
        self.pos = 0
        self.segments: list[tuple[int, int, SourceLocation]] = []
        self.last = ""

    def _emit(self, text: str, loc: SourceLocation | None = None) -> None:
        if loc is not None:
            self.segments.append((self.pos, self.pos + len(text), loc))
        self.parts.append(text)
        self.pos += len(text)

    def _begin(self, kind: str) -> None:
        if self.parts:
            self._emit("\n" if kind == self.last == "list_item" else "\n\n")
        self.last = kind

    def heading(self, text: str, level: int, loc: SourceLocation) -> None:
        text = " ".join(text.replace("\u3000", "\x00").split()).replace("\x00", "\u3000")  # one line; 　 kept
        if text:
            self._begin("heading")
            self._emit("#" * max(1, min(level, 6)) + " ")
            self._emit(text, loc)

    def paragraph(self, lines: list[tuple[str, SourceLocation]], joins: list[str] | None = None) -> None:
        """One paragraph from source lines; joins[i] goes between line i and i+1 ("\\n" unless given)."""
        lines = [(t.strip(), loc) for t, loc in lines if t.strip()]
        if not lines:
            return
        self._begin("paragraph")
        for i, (text, loc) in enumerate(lines):
            if i:
                self._emit(joins[i - 1] if joins else "\n")
            self._emit(text, loc)

    def list_item(self, marker: str, text: str, loc: SourceLocation, depth: int = 0) -> None:
        text = text.strip()
        if not text:
            return
        self._begin("list_item")
        self._emit("    " * depth + marker)
        self._emit(text, loc)

    def table(self, rows: list[list[str]], header_rows: int, locate) -> None:
        """Pipe rows; locate(row, col) gives each cell's source location (row and col 0-based)."""
        if not rows:
            return
        width = max(len(r) for r in rows)
        self._begin("table")
        header_rows = max(1, min(header_rows, len(rows)))
        for r, row in enumerate(rows):
            if r:
                self._emit("\n")
            self._emit("|", locate(r, None))
            for c in range(width):
                self._emit(" ")
                self._emit(cell_text(row[c]) if c < len(row) else "", locate(r, c))
                self._emit(" |")
            if r == header_rows - 1:
                self._emit("\n|" + " --- |" * width)

    def result(self) -> tuple[str, SegmentMap]:
        return "".join(self.parts), SegmentMap(self.format, self.segments)
