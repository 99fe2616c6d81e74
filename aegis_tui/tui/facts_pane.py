"""The Facts view: the document's verified fact table as it is indexed, filterable; a row shows its evidence."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Input, Static

from .report_pane import _spans_of, clip, where_line

COLUMNS = [("section", 12), ("subject", 20), ("predicate", 16), ("value", 14), ("where", 14)]  # fits the wide pane


@dataclass(frozen=True)
class IndexRow:
    """One verified fact as the Facts view shows it: its cells, what the filter searches, its evidence."""

    key: str
    section: str
    subject: str
    predicate: str
    value: str
    where: str
    source: str
    details: str
    spans: tuple[tuple[int, int, str], ...]

    def matches(self, needle: str) -> bool:
        """Whether a (lower-cased) filter occurs in the section, subject, predicate, value or source text."""
        return not needle or any(needle in s.lower() for s in (self.section, self.subject, self.predicate,
                                                               self.value, self.source))


def index_row(fact, document) -> IndexRow:
    """The row of an IndexedFact: the value's place in the document, its quote/value/subject spans."""
    from ..answer.report import locate

    verdict = fact.verdict
    spans = [s for c in verdict.checks for s in _spans_of(c, document)]
    anchor = verdict.anchor
    if not spans and anchor is not None:  # no check located it: mark the value at its anchor
        spans = [(anchor, anchor + len(fact.fact.object_value), "value")]
    found = locate(document, anchor)
    where = found["location"]["describe"] if found["location"] else ""
    f = fact.fact
    checks = " ".join(f"✓ {c.rule}" for c in verdict.checks if c.passed)
    details = "\n".join([f"{f.subject} · {f.predicate} · {f.object_value}", where_line(document, anchor),
                         f"quote: {f.source_text}", checks])
    return IndexRow(fact.key, fact.section, f.subject, f.predicate, f.object_value, where, f.source_text,
                    details, tuple(dict.fromkeys(spans)))


class FactsPane(Vertical):
    """A filter box over a DataTable of the verified facts, and the selected fact's evidence below."""

    BINDINGS = [Binding("ctrl+s", "app.export_facts", "Export CSV")]  # inside the Facts view, export the table

    @dataclass
    class FactSelected(Message):
        """A fact row was highlighted: the document should show its evidence spans."""

        spans: list[tuple[int, int, str]]
        chosen: bool = False  # Enter or a click: a narrow screen switches to the document

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.document = None
        self.rows: list[IndexRow] = []       # every verified fact, in document order
        self.shown: list[IndexRow] = []      # the rows the filter keeps
        self._cache: dict[str, IndexRow] = {}
        self._status = "The fact index starts when the model is ready and a document is open."

    def compose(self) -> ComposeResult:
        yield Input(placeholder="Filter facts (section, subject, predicate, value, quote)", id="facts-filter")
        table = DataTable(id="facts-table", cursor_type="row", zebra_stripes=True)
        for label, width in COLUMNS:
            table.add_column(label, width=width)
        yield table
        yield Static(self._status, id="facts-evidence")

    @property
    def needle(self) -> str:
        return self.query_one("#facts-filter", Input).value.strip().lower()

    def set_status(self, text: str) -> None:
        """The line shown when no fact is selected (index off, not started, empty)."""
        self._status = text
        if not self.shown:
            self.query_one("#facts-evidence", Static).update(text)

    def show_facts(self, document, facts) -> None:
        """Show these IndexedFacts (document order) of a document; rows already built are reused."""
        if document is not self.document:
            self.document, self._cache = document, {}
        rows = []
        for f in facts:
            row = self._cache.get(f.key)
            if row is None:
                row = self._cache[f.key] = index_row(f, document)
            rows.append(row)
        if [r.key for r in rows] != [r.key for r in self.rows]:
            self.rows = rows
            self._fill()

    def _fill(self) -> None:
        """Refill the table with the rows the filter keeps, keeping the cursor on the same fact."""
        table = self.query_one("#facts-table", DataTable)
        current = self.shown[table.cursor_row].key if 0 <= table.cursor_row < len(self.shown) else None
        needle = self.needle
        self.shown = [r for r in self.rows if r.matches(needle)]
        table.clear()
        for r in self.shown:
            cells = [clip(c, w) for c, (_, w) in zip((r.section, r.subject, r.predicate, r.value, r.where),
                                                     COLUMNS)]
            cells[3] = Text(cells[3], style="bold green")
            table.add_row(*cells, key=r.key)
        keys = [r.key for r in self.shown]
        if current in keys:
            table.move_cursor(row=keys.index(current), animate=False)
        if not self.shown:
            self.query_one("#facts-evidence", Static).update(
                f"No fact matches “{needle}”." if needle and self.rows else self._status)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "facts-filter":
            event.stop()
            self._fill()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "facts-filter":  # Enter in the filter goes to the rows
            event.stop()
            self.query_one("#facts-table", DataTable).focus()

    def select(self, index: int, chosen: bool = False) -> None:
        if not 0 <= index < len(self.shown):
            return
        row = self.shown[index]
        self.query_one("#facts-evidence", Static).update(Text(row.details))
        self.post_message(self.FactSelected(list(row.spans), chosen))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self.select(event.cursor_row)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.select(event.cursor_row, chosen=True)
