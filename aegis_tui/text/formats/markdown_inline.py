"""Markdown's inline markup out of the canonical text: emphasis markers and link targets are how a file is written,
not what it says. "**第十九条** 私车公用补助…" would otherwise put asterisks into quotes and labels; a subject
"*第十九条** 私车公用补助…" names nothing a reader sees. Block syntax (headings, lists, tables) stays: the
structure is read from it.

Pure text: the markers are removed and a source map keeps every canonical offset's line and column in the file.
"""

from __future__ import annotations

import bisect
import re

from .source import SourceLocation, SourceMap

# paired strong or emphasis markers around text that neither starts nor ends with a space ("**第十九条**",
# "__Total__", "*per person*"); a lone marker, a list bullet ("* item") or a rule ("***") is not paired
_STRONG = re.compile(r"(\*\*|__)(?=[^\s*_])([^\n]*?[^\s*_\\])\1")
_EMPHASIS = re.compile(r"(?<![\w*\\])\*(?=[^\s*])([^\n*]*?[^\s*\\])\*(?![\w*])")
# an inline link or image: its text is what the reader sees ("[Schedule 2](#schedule-2)")
_LINK = re.compile(r"!?\[([^\]\n]+)\]\([^)\n]*\)")


class MarkdownMap(SourceMap):
    """The map of a Markdown file whose inline markup was removed: canonical offsets to the file's line/column."""

    def __init__(self, source_text: str, kept: list[tuple[int, int]]):
        super().__init__(source_text, "markdown")
        self._kept = kept  # (canonical start, source start) of each run of kept characters, in order
        self._starts = [c for c, _ in kept]

    def locate(self, offset: int) -> SourceLocation:
        i = bisect.bisect_right(self._starts, offset) - 1
        canonical, source = self._kept[i] if i >= 0 else (0, 0)
        return super().locate(source + offset - canonical)


def strip_inline_markup(text: str) -> tuple[str, SourceMap]:
    """The text without emphasis markers and link targets, and its source map (the identity map when there
    were none). Table rows keep their pipes."""
    removed: list[tuple[int, int]] = []  # [start, end) source spans to drop
    for line_start, line in _lines(text):
        for pattern, groups in ((_LINK, (1,)), (_STRONG, (2,)), (_EMPHASIS, (1,))):
            for m in pattern.finditer(line):
                if any(a <= line_start + m.start() < b for a, b in removed):
                    continue
                keep = [(m.start(g), m.end(g)) for g in groups]
                at = m.start()
                for a, b in keep:
                    if a > at:
                        removed.append((line_start + at, line_start + a))
                    at = b
                if m.end() > at:
                    removed.append((line_start + at, line_start + m.end()))
    if not removed:
        return text, SourceMap(text, "markdown")
    removed.sort()
    out, kept, at = [], [], 0
    length = 0
    for a, b in removed:
        if a < at:  # overlapping spans (a marker inside a link's text): drop what is left of it
            a = at
        if a > at:
            kept.append((length, at))
            out.append(text[at:a])
            length += a - at
        at = max(at, b)
    kept.append((length, at))
    out.append(text[at:])
    return "".join(out), MarkdownMap(text, kept)


def _lines(text: str):
    start = 0
    for line in text.split("\n"):
        yield start, line
        start += len(line) + 1
