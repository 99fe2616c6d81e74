"""The verification report pane: one row per fact (kept or dropped) and the evidence of the selected row."""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Static

KINDS = {"source_verbatim": "quote", "value_in_source": "value"}
COLUMNS = [("#", 3), ("subject", 24), ("predicate", 14), ("value", 10), ("verdict", 8), ("failing rule", 15)]


def clip(text: str, width: int) -> str:
    """Text cut to `width` terminal cells with an ellipsis (CJK characters are two cells wide)."""
    if cell_len(text) <= width:
        return text
    out, used = [], 0
    for ch in text:
        w = cell_len(ch)
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + "…"


@dataclass(frozen=True)
class FactRow:
    """A fact as the report shows it: its fields, verdict, first failing rule, details and evidence spans."""

    subject: str
    predicate: str
    value: str
    verdict: str  # pass / fail / dropped
    failing_rule: str
    details: list[str] = field(default_factory=list)
    spans: list[tuple[int, int, str]] = field(default_factory=list)


def _spans_of(check, document) -> list[tuple[int, int, str]]:
    ev = check.evidence or {}
    out = []
    if "offset" in ev and "length" in ev:
        out.append((ev["offset"], ev["offset"] + ev["length"], KINDS.get(check.rule, "value")))
    if "subject_offset" in ev:
        out.append((ev["subject_offset"], ev["subject_offset"] + ev["subject_length"], "subject"))
    return out


def _where(ev: dict | None, document) -> str:
    if not ev:
        return ""
    if "line" in ev:
        return f"line {ev['line']}, column {ev['column']}, offset {ev['offset']}, length {ev['length']}"
    if "value_offset" in ev and document is not None:
        pos = document.position(ev["value_offset"])
        return f"value at line {pos.line}, column {pos.column}, offset {ev['value_offset']}"
    return ""


def where_line(document, offset: int | None) -> str:
    """Where a fact's value stands in the source (page, table/row/column or line) and the sections above it."""
    from ..answer.report import locate

    found = locate(document, offset)
    if found["location"] is None:
        return "where: the value was not found in the document"
    path = " › ".join(found["heading_path"])
    return f"where: {found['location']['describe']}" + (f" · in {path}" if path else "")


def fact_rows(answer, document) -> list[FactRow]:
    """Rows for an Answer: the verified report's facts, then the facts dropped after the last attempt."""
    rows: list[FactRow] = []
    report = getattr(answer, "report", None)
    for fv in (report.facts if report is not None else []):
        details, spans = [where_line(document, fv.anchor)] if document is not None else [], []
        for c in fv.checks:
            where = _where(c.evidence, document)
            details.append(f"{'✓' if c.passed else '✗'} {c.rule}: {c.detail}" + (f"  [{where}]" if where else ""))
            spans += _spans_of(c, document)
        f = fv.fact
        rows.append(FactRow(f.subject, f.predicate, f.object_value, fv.verdict,
                            fv.failed_rules[0] if fv.failed_rules else "", details, spans))
    for r in getattr(answer, "rejected", []) or []:
        fact = r.get("fact") or {}
        quote = fact.get("source_text") or r.get("candidate") or ""
        span = document.find(quote) if (quote and document is not None) else None
        spans = [(span.start, span.end, "quote")] if span is not None else []
        where = ""
        if span is not None:
            pos = document.position(span.start)
            where = f"  [quote at line {pos.line}, column {pos.column}, offset {span.start}, length {span.end - span.start}]"
        details = ([where_line(document, span.start)] if span is not None else []) + [
            f"✗ {r.get('rule', '?')}: {r.get('detail', '')}", f"  model said: {r.get('prev', '')}",
            f"  quote: {quote}{where}"]
        rows.append(FactRow(fact.get("subject", "—"), fact.get("predicate", "—"), fact.get("object_value", "—"),
                            "dropped", r.get("rule", ""), details, spans))
    return rows


class ReportPane(Vertical):
    """A DataTable of facts and, below it, the selected fact's checks with line, column and offset."""

    @dataclass
    class FactSelected(Message):
        """A report row was highlighted: the document should show its evidence spans."""

        row: FactRow
        chosen: bool = False  # Enter or a click (not just the cursor passing): a narrow screen shows the document

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.rows: list[FactRow] = []
        self.answer = None

    def compose(self) -> ComposeResult:
        table = DataTable(id="facts", cursor_type="row", zebra_stripes=True)
        for label, width in COLUMNS:
            table.add_column(label, width=width)
        yield table
        yield Static("Ask a question to see which facts were verified.", id="evidence")

    def show(self, answer, document) -> None:
        """Fill the table for an Answer (None: empty); showing the same Answer again keeps the selected row."""
        if answer is not None and answer is self.answer:
            return
        self.answer = answer
        self.rows = fact_rows(answer, document) if answer is not None else []
        table = self.query_one("#facts", DataTable)
        table.clear()
        for i, r in enumerate(self.rows):
            style = {"pass": "green", "fail": "red", "dropped": "yellow"}[r.verdict]
            cells = [str(i + 1), r.subject, r.predicate, r.value, r.verdict.upper(), r.failing_rule or "—"]
            cells = [clip(c, w) for c, (_, w) in zip(cells, COLUMNS)]
            cells[4] = Text(cells[4], style=style)
            table.add_row(*cells, key=str(i))
        evidence = self.query_one("#evidence", Static)
        if answer is None:
            evidence.update("Ask a question to see which facts were verified.")
        elif not self.rows:
            evidence.update("No facts: the answer is a fallback." if answer.mode == "two-stage"
                            else "Baseline answers are not verified (no facts).")
        else:
            self.select(0)

    def select(self, index: int, chosen: bool = False) -> None:
        if not 0 <= index < len(self.rows):
            return
        row = self.rows[index]
        self.query_one("#evidence", Static).update(Text("\n".join(row.details)))
        self.post_message(self.FactSelected(row, chosen))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.row_key is not None and event.row_key.value is not None:
            self.select(int(event.row_key.value))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key is not None and event.row_key.value is not None:
            self.select(int(event.row_key.value), chosen=True)
