"""Source maps: every offset of the canonical text back to where it stands in the source file."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class SourceLocation:
    """Where a canonical offset comes from: line/column, page, paragraph or table/row/column (all 1-based)."""

    format: str
    line: int | None = None
    column: int | None = None
    page: int | None = None
    paragraph: int | None = None
    table: int | None = None
    row: int | None = None
    col: int | None = None

    def describe(self) -> str:
        """As a person would point at it: "page 3, line 12", "table 2, row 4, column 3", "line 23, col 5"."""
        parts = []
        if self.page is not None:
            parts.append(f"page {self.page}")
        if self.table is not None:
            parts.append(f"table {self.table}")
            if self.row is not None:
                parts.append(f"row {self.row}")
            if self.col is not None:
                parts.append(f"column {self.col}")
        elif self.paragraph is not None:
            parts.append(f"paragraph {self.paragraph}")
        elif self.line is not None:
            parts.append(f"line {self.line}")
            if self.column is not None and self.format in ("text", "markdown"):
                parts.append(f"col {self.column}")
        return ", ".join(parts) or "document"


class SourceMap:
    """The identity map of a text file: a canonical offset's own line and column."""

    def __init__(self, text: str, format: str = "text"):
        self.format = format
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def locate(self, offset: int) -> SourceLocation:
        line = bisect.bisect_right(self._line_starts, offset) - 1
        return SourceLocation(self.format, line=line + 1, column=offset - self._line_starts[line] + 1)


class SegmentMap(SourceMap):
    """A converted document's map: canonical [start, end) segments, each with the location it came from."""

    def __init__(self, format: str, segments: list[tuple[int, int, SourceLocation]]):
        self.format = format
        self._segments = sorted(segments, key=lambda s: s[0])
        self._starts = [s for s, _, _ in self._segments]

    def locate(self, offset: int) -> SourceLocation:
        """The segment holding an offset, else the one before it (a blank line, a pipe between cells)."""
        i = bisect.bisect_right(self._starts, offset) - 1
        if i < 0:
            return self._segments[0][2] if self._segments else SourceLocation(self.format)
        start, _, loc = self._segments[i]
        if loc.line is not None and self.format == "pdf" and loc.table is None:
            return replace(loc, column=offset - start + 1)
        return loc
