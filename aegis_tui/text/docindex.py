"""Per-document index for verification: per-line quantities and sentence bounds, built once per text."""

from __future__ import annotations

import re
from collections import OrderedDict

from .document import Document
from .quantity import Quantity, QuantityMatch, find_quantities

# A list item's marker: （一） (1) 一、 1. 1、 - •
LIST_ITEM = re.compile(r"^\s*(?:[（(][一二三四五六七八九十\d]+[)）]|[一二三四五六七八九十]+、|\d+[.、)）](?!\d)|[-•*·])")


# ---- per-document index (built once per document text, shared by verifiers) ----------------------------------
class DocumentIndex:
    """Lazily computed per-line quantities and sentence bounds of one document."""

    def __init__(self, document: Document):
        self.document = document
        self.text = document.text
        self._line_quantities: dict[int, list[QuantityMatch]] = {}
        self._all: set[Quantity] | None = None

    def line_bounds(self, offset: int) -> tuple[int, int]:
        start = self.text.rfind("\n", 0, offset) + 1
        end = self.text.find("\n", offset)
        return start, len(self.text) if end < 0 else end

    def _quantities_of_line(self, line_start: int) -> list[QuantityMatch]:
        found = self._line_quantities.get(line_start)
        if found is None:
            _, end = self.line_bounds(line_start)
            found = [QuantityMatch(m.start + line_start, m.end + line_start, m.text, m.quantity)
                     for m in find_quantities(self.text[line_start:end])]
            self._line_quantities[line_start] = found
        return found

    def quantities_in(self, start: int, end: int) -> list[QuantityMatch]:
        """Quantities lying wholly inside [start, end) of the document."""
        out: list[QuantityMatch] = []
        pos = start
        while pos < end:
            ls, le = self.line_bounds(pos)
            out.extend(m for m in self._quantities_of_line(ls) if m.start >= start and m.end <= end)
            pos = le + 1
        return out

    def sentence_bounds(self, offset: int) -> tuple[int, int]:
        """The sentence around an offset: within its line, between CJK terminators or a sentence-final '.'."""
        ls, le = self.line_bounds(offset)
        line = self.text[ls:le]
        rel = offset - ls
        start, end = 0, len(line)
        for m in re.finditer(r"[。！？!?]|\.(?=\s|$)", line):
            if m.end() <= rel:
                start = m.end()
            elif m.start() >= rel:
                end = m.end()
                break
        return ls + start, ls + end

    def head_lines(self, offset: int, limit: int = 12) -> str:
        """The enumeration head above a list item line ("统筹基金的报销比例为：" above "（一）…85%"), if any."""
        ls, _ = self.line_bounds(offset)
        if not LIST_ITEM.match(self.text[ls:ls + 8]):
            return ""
        pos = ls
        for _ in range(limit):
            if pos == 0:
                return ""
            ps, _ = self.line_bounds(pos - 1)
            line = self.text[ps:pos - 1]
            if line.rstrip().endswith(("：", ":")):
                return line
            if line.strip() and not LIST_ITEM.match(line):
                return ""
            pos = ps
        return ""

    def all_quantities(self) -> set[Quantity]:
        if self._all is None:
            self._all = {m.quantity for m in self.quantities_in(0, len(self.text))}
        return self._all


_INDEXES: OrderedDict[str, DocumentIndex] = OrderedDict()


def document_index(document: Document) -> DocumentIndex:
    """The cached index of a document, keyed by its sha256 (a few recent documents are kept)."""
    index = _INDEXES.get(document.sha256)
    if index is None or index.text != document.text:
        index = _INDEXES[document.sha256] = DocumentIndex(document)
        while len(_INDEXES) > 8:
            _INDEXES.popitem(last=False)
    _INDEXES.move_to_end(document.sha256)
    return index
