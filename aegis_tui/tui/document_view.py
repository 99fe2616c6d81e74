"""The document pane: wrapped text with line numbers, tables as aligned columns, evidence highlighted in view."""

from __future__ import annotations

import re

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

_WORD = re.compile(r"[A-Za-z0-9.,%$'-]")
KIND_ORDER = ("quote", "cell", "subject", "value")  # later kinds are painted over earlier ones


def wrap_ranges(line: str, width: int) -> list[tuple[int, int]]:
    """Rows of a line as (start, end) character ranges at most `width` cells wide; English breaks after a space.

    Numbers and words are not split when a row can break before them; every character stays in exactly one
    row, so row offsets map back to document offsets exactly.
    """
    if not line:
        return [(0, 0)]
    rows, start, cells, soft = [], 0, 0, -1  # soft: the last position a row may start at without splitting a word
    for i, ch in enumerate(line):
        if i > start and (line[i - 1] == " " or not (_WORD.match(line[i - 1]) and _WORD.match(ch))):
            soft = i
        w = cell_len(ch)
        if cells + w > width and i > start and ch != " ":  # a space may hang past the edge: rows start with words
            cut = soft if soft > start else i
            rows.append((start, cut))
            start, soft = cut, -1
            cells = cell_len(line[start:i])
        cells += w
    rows.append((start, len(line)))
    return rows


class DocumentView(ScrollView, can_focus=True):
    """Shows a Document; highlight() marks character spans (quote, value) and scrolls the first into view."""

    COMPONENT_CLASSES = {
        "document-view--gutter", "document-view--quote", "document-view--subject", "document-view--value",
        "document-view--cell", "document-view--rule", "document-view--header",
    }
    DEFAULT_CSS = """
    DocumentView { background: $surface; scrollbar-gutter: stable; }
    DocumentView > .document-view--gutter { color: $text-muted; }
    DocumentView > .document-view--quote { background: $warning 35%; }
    DocumentView > .document-view--subject { background: $accent 50%; }
    DocumentView > .document-view--value { background: $error 70%; text-style: bold; }
    DocumentView > .document-view--cell { background: $primary 60%; text-style: underline; }
    DocumentView > .document-view--rule { color: $text-muted; }
    DocumentView > .document-view--header { text-style: bold; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.document = None
        self.spans: list[tuple[int, int, str]] = []  # (start, end, "quote" | "cell" | "subject" | "value")
        self._strips: list[Strip] = []
        self._rows: list[tuple[int, int]] = []  # per strip: (document offset of its first char, its length)
        self._wrapped_for = -1

    # ---- public ------------------------------------------------------------------------------------------
    def set_document(self, document) -> None:
        self.document = document
        self.spans = []
        self._wrapped_for = -1
        self._rewrap()
        self.scroll_home(animate=False)

    def highlight(self, spans: list[tuple[int, int, str]]) -> None:
        """Mark spans (document offsets) and scroll so the first one is in view; a value in a table marks its cell."""
        spans = list(spans)
        if self.document is not None:
            spans += evidence_cells(self.document, spans)
        self.spans = sorted(spans, key=lambda s: (KIND_ORDER.index(s[2]), s[0], s[1]))
        self._wrapped_for = -1
        self._rewrap()
        if spans:
            self.scroll_to_offset(min(s for s, _, _ in spans))

    def row_of(self, offset: int) -> int:
        """The wrapped row that shows a document offset."""
        for i, (start, length) in enumerate(self._rows):
            if start <= offset < start + max(length, 1):
                return i
            if start > offset:
                return max(0, i - 1)
        return max(0, len(self._rows) - 1)

    def scroll_to_offset(self, offset: int) -> None:
        row = self.row_of(offset)
        top = max(0, row - self.scrollable_content_region.height // 3)
        self.scroll_to(y=top, animate=False, immediate=True)

    # ---- layout ------------------------------------------------------------------------------------------
    def on_resize(self) -> None:
        self._rewrap()

    def _rewrap(self) -> None:
        width = self.scrollable_content_region.width
        if self.document is None or width <= 0:
            self._strips, self._rows = [], []
            self.virtual_size = Size(max(width, 0), 0)
            self.refresh()
            return
        if width == self._wrapped_for:
            return
        self._wrapped_for = width
        console = self.app.console
        # full (not partial) styles: a translucent background is blended with the pane's own
        gutter_style = self.get_component_rich_style("document-view--gutter")
        styles = {k: self.get_component_rich_style(f"document-view--{k}")
                  for k in (*KIND_ORDER, "rule", "header")}
        text = self.document.text
        lines = text.split("\n")
        digits = len(str(len(lines)))
        body = max(8, width - digits - 3)
        grids = table_grids(self.document, body)
        strips: list[Strip] = []
        rows: list[tuple[int, int]] = []
        offset = 0
        for number, line in enumerate(lines, 1):
            t = Text(line, end="")
            for start, end, kind in self.spans:
                lo, hi = max(start, offset), min(end, offset + len(line))
                if lo < hi:
                    t.stylize(styles[kind], lo - offset, hi - offset)
            grid = grids.get(offset)
            pieces = ([(0, len(line), grid.render(t, offset, self.spans, styles))] if grid is not None
                      else [(a, b, t[a:b]) for a, b in wrap_ranges(line, body)])
            for i, (a, b, shown) in enumerate(pieces):
                label = f"{number:>{digits}} │ " if i == 0 else f"{'':>{digits}} │ "
                segs = [Segment(label, gutter_style), *shown.render(console)]
                strips.append(Strip(segs).crop_extend(0, width, Style()))
                rows.append((offset + a, b - a))
            offset += len(line) + 1
        self._strips, self._rows = strips, rows
        self.virtual_size = Size(width, len(strips))
        self.refresh()

    def render_line(self, y: int) -> Strip:
        _, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        idx = scroll_y + y
        base = self.rich_style
        if idx >= len(self._strips):
            return Strip.blank(width, base)
        return self._strips[idx].apply_style(base).crop_extend(0, width, base).apply_offsets(0, idx)


def evidence_cells(document, spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The table cells that hold an evidence value, as (start, end, "cell") spans."""
    cells = set()
    for start, _, kind in spans:
        found = document.structure.cell_at(start) if kind == "value" else None
        if found is not None:
            cells.add((found[1].start, found[1].end, "cell"))
    return sorted(cells)


class TableLine:
    """One line of a pipe table drawn with aligned columns: a row of cells, or the header separator as a rule."""

    def __init__(self, cells, widths: list[int], header: bool) -> None:
        self.cells, self.widths, self.header = cells, widths, header  # cells None: the separator line

    def render(self, line: Text, offset: int, spans, styles) -> Text:
        out = Text(end="")
        if self.cells is None:
            out.append("├" + "┼".join("─" * (w + 2) for w in self.widths) + "┤", styles["rule"])
            return out
        out.append("│", styles["rule"])
        for col, w in enumerate(self.widths):
            cell = self.cells[col] if col < len(self.cells) else None
            pad_style = Style()
            if cell is None:
                shown = Text("")
            else:
                shown = line[cell.start - offset:cell.end - offset]
                if self.header:
                    shown.stylize(styles["header"])
                if any(s <= cell.start and cell.end <= e and k == "cell" for s, e, k in spans):
                    pad_style = styles["cell"]
            out.append(" ", pad_style)
            out.append_text(shown)
            out.append(" " * (w - shown.cell_len) + " ", pad_style)
            out.append("│", styles["rule"])
        return out


def table_grids(document, body: int) -> dict[int, TableLine]:
    """Line start offset -> how to draw that table line, for every table whose aligned form fits `body` cells.

    A table wider than the pane keeps its pipe text, wrapped like any line (nothing is cut off).
    """
    text, out = document.text, {}
    for table in document.structure.tables:
        ncols = max((c.col + 1 for r in table.rows for c in r), default=0)
        widths = [0] * ncols
        for row in table.rows:
            for cell in row:
                widths[cell.col] = max(widths[cell.col], cell_len(text[cell.start:cell.end]))
        if not ncols or sum(widths) + 3 * ncols + 1 > body:
            continue
        by_line = {}
        for r, row in enumerate(table.rows):
            if row:
                by_line[text.rfind("\n", 0, row[0].start) + 1] = (row, r < table.header_rows)
        start = table.start
        while start < table.end:
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
            row, header = by_line.get(start, (None, False))
            if row is not None:
                cells = [None] * ncols
                for cell in row:
                    cells[cell.col] = cell
                out[start] = TableLine(cells, widths, header)
            elif "-" in text[start:end]:
                out[start] = TableLine(None, widths, False)
            start = end + 1
    return out
