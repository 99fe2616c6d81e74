"""The TUI at the default 80×24 terminal: one pane at a time, each with rows; tables in the document pane."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from fakes import FakeEngine, FakeGauge

from aegis_tui.answer.realize import EntityAwareRealizer
from aegis_tui.answer.states import Answer, Outcome
from aegis_tui.answer.verify import Tier1CodeVerifier
from aegis_tui.schema import parse_payload
from aegis_tui.tui import AegisApp
from aegis_tui.tui import messages as m
from aegis_tui.tui.document_view import DocumentView
from aegis_tui.tui.panes import PANES, PaneTabs
from aegis_tui.tui.questions import QuestionInput, QuestionsList
from aegis_tui.tui.report_pane import ReportPane
from aegis_tui.tui.runs import QuestionRun, RunState

NARROW = (80, 24)
DOCS = Path(__file__).parent / "docs"
SUBSIDY = DOCS / "r_subsidy_zh.md"  # a table of allowances; its facts file holds two true facts and two tampered


def make_app(tmp_path, factory=None, doc=SUBSIDY) -> AegisApp:
    return AegisApp(doc, engine_factory=factory or FakeEngine, gauge=FakeGauge(), export_dir=tmp_path,
                    poll_interval=0.2)


async def wait_for(pilot, predicate, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError("timed out waiting for the app")
        await pilot.pause(0.05)


async def ready(pilot) -> None:
    app = pilot.app
    await wait_for(pilot, lambda: app.pipeline is not None and app.document is not None)
    app.query_one(QuestionInput).cursor_blink = False
    await pilot.pause()


async def answered(pilot) -> None:
    """Deliver a verified answer for the document's facts file the way a worker does (QuestionAnswered).

    The facts are verified and realized for real; only the model's part (which facts) comes from the file, so
    these layout tests do not depend on recorded model replies.
    """
    app = pilot.app
    await ready(pilot)
    doc = app.document
    payload = parse_payload(Path(doc.path).with_suffix(".facts.json").read_text(encoding="utf-8"))
    report = Tier1CodeVerifier(doc).verify(payload)
    text = EntityAwareRealizer().realize(report, doc)
    ans = Answer("各岗位交通补贴是多少？", "two-stage", answer=text, state=Outcome.DONE, strategy="fan-out",
                 report=report, attempts=1)
    run = QuestionRun(1, ans.question, doc, [])
    run.add_mode("two-stage", RunState.QUEUED)
    app.runs[1] = run
    app.query_one(QuestionsList).upsert(run)
    app.show_run(1)
    app.post_message(m.QuestionAnswered(1, "two-stage", ans))
    await wait_for(pilot, lambda: run.finished and app.query_one(ReportPane).rows)
    await pilot.pause()


def visible_rows(app, selector: str) -> int:
    """Rows of content a widget shows on screen (0 when hidden or squeezed out)."""
    w = app.query_one(selector)
    if not w.display or not all(a.display for a in w.ancestors_with_self if hasattr(a, "display")):
        return 0
    return w.content_region.height if w.region.height else 0


@pytest.mark.parametrize("size, narrow", [
    ((80, 24), True),     # the default terminal: tabs
    ((119, 40), True),    # just under the breakpoint
    ((120, 40), False),   # at the breakpoint: side by side
    ((160, 48), False),   # the wide snapshot size
])
def test_breakpoint(tmp_path, size, narrow):
    async def body():
        app = make_app(tmp_path)
        async with app.run_test(size=size) as pilot:
            await ready(pilot)
            assert app.screen.has_class("-narrow") is narrow
            assert app.query_one(PaneTabs).display is narrow
            if not narrow:  # every pane has rows at once
                for sel in ("#document", "#answer", "#report", "#gauge", "#slots"):
                    assert visible_rows(app, sel) >= 3, sel

    asyncio.run(body())


@pytest.mark.parametrize("pane, shown, min_rows", [
    ("document", "#document", 12),
    ("answer", "#answer", 6),
    ("report", "#report", 12),
    ("monitor", "#gauge", 6),
])
def test_each_pane_is_usable_at_80x24(tmp_path, pane, shown, min_rows):
    async def body():
        app = make_app(tmp_path)
        async with app.run_test(size=NARROW) as pilot:
            await answered(pilot)
            app.query_one(PaneTabs).show(pane)
            await pilot.pause()
            assert visible_rows(app, shown) >= min_rows
            assert visible_rows(app, "#question") >= 1  # the question box stays on every pane
            others = {"document": "#document", "answer": "#answer", "report": "#report", "monitor": "#gauge"}
            for name, sel in others.items():
                if name != pane:
                    assert visible_rows(app, sel) == 0, sel

    asyncio.run(body())


def test_ctrl_t_cycles_panes(tmp_path):
    async def body():
        app = make_app(tmp_path)
        async with app.run_test(size=NARROW) as pilot:
            await ready(pilot)
            seen = [app.query_one(PaneTabs).pane]
            for _ in PANES:
                await pilot.press("ctrl+t")
                seen.append(app.query_one(PaneTabs).pane)
            assert seen == [*PANES, PANES[0]]
            assert app.screen.has_class("-pane-document")

    asyncio.run(body())


@pytest.fixture
def frozen(monkeypatch):
    import aegis_tui.answer.pipeline
    import aegis_tui.tui.app
    import aegis_tui.tui.runs

    clock = SimpleNamespace(perf_counter=lambda: 100.0, monotonic=lambda: 100.0)
    for module in (aegis_tui.answer.pipeline, aegis_tui.tui.app, aegis_tui.tui.runs):
        monkeypatch.setattr(module, "time", clock)
    return clock


@pytest.mark.parametrize("pane", ["report", "document"])
def test_narrow_snapshot(snap_compare, tmp_path, frozen, pane):
    """80×24 after an answer: the report with its evidence, and the document with the fact highlighted."""
    app = make_app(tmp_path)  # no request reaches the engine: the answer is delivered as a worker would

    async def run_before(pilot):
        await answered(pilot)
        app.query_one(PaneTabs).show("report")
        await pilot.pause()
        app.query_one("#facts").focus()
        await pilot.press("down")  # the second fact: 巡检岗 · 市内交通补贴 · 650元, a table cell
        app.query_one(PaneTabs).show(pane)
        await pilot.pause()

    assert snap_compare(app, terminal_size=NARROW, run_before=run_before)


# ---- tables in the document pane ----------------------------------------------------------------------
def shown_lines(view: DocumentView) -> list[str]:
    return ["".join(seg.text for seg in strip).rstrip() for strip in view._strips]


def text_of(line: str) -> str:
    """A shown line without its line-number gutter."""
    return re.sub(r"^\s*\d*\s│ ?", "", line)


def bar_cells(line: str) -> list[int]:
    """The terminal cells where a table line draws its column bars."""
    from rich.cells import cell_len

    body = text_of(line)
    return [cell_len(body[:i]) for i, ch in enumerate(body) if ch in "│├┼┤"]


@pytest.mark.parametrize("doc, form, size, rows, aligned", [
    # a Chinese table: CJK cells are two terminal cells wide, bars line up on every row and on the rule
    (SUBSIDY, "md", (80, 24), 5, True),
    # an English table
    (DOCS / "r_mileage_en.md", "md", (80, 24), 5, True),
    # the same tables read from DOCX and PDF (their canonical Markdown)
    (SUBSIDY, "docx", (80, 24), 5, True),
    (DOCS / "r_mileage_en.md", "pdf", (80, 24), 5, True),
    # a pane narrower than the table's aligned form keeps its pipe text, wrapped (nothing cut off)
    (SUBSIDY, "md", (36, 24), 5, False),
])
def test_tables_are_drawn_as_tables(tmp_path, doc, form, size, rows, aligned):
    from docbuilder import write_docx, write_pdf

    if form != "md":
        doc = {"docx": write_docx, "pdf": write_pdf}[form](doc.read_text(encoding="utf-8"), tmp_path / f"d.{form}")

    async def body():
        app = make_app(tmp_path, doc=doc)
        async with app.run_test(size=size) as pilot:
            await ready(pilot)
            view = app.query_one(DocumentView)
            lines = shown_lines(view)
            table = app.document.structure.tables[0]
            drawn = [ln for ln in lines if "│" in text_of(ln) or "┼" in ln]
            if aligned:
                assert len(drawn) == rows
                assert len({tuple(bar_cells(ln)) for ln in drawn}) == 1  # every row's bars in the same cells
                assert any("┼" in ln for ln in drawn) and not any("| " in ln for ln in lines)
                for cell in table.rows[-1]:
                    assert cell.text in drawn[-1]
            else:
                joined = "".join(text_of(ln) for ln in lines)
                assert not drawn and "| --- | --- | --- |".replace(" ", "") in joined.replace(" ", "")
                assert all(c.text in joined for row in table.rows for c in row)

    asyncio.run(body())


@pytest.mark.parametrize("index, where, cell_text", [
    (0, "where: table 1, row 3, column 3", "760"),   # 客户经理 · 跨市
    (1, "where: table 1, row 2, column 2", "650"),   # 巡检岗 · 市内
    (3, "where: table 1, row 4, column 2", "880"),   # tampered: 880 stands under 市内, the fact says 跨市
])
def test_selected_fact_marks_its_cell(tmp_path, index, where, cell_text):
    async def body():
        app = make_app(tmp_path)
        async with app.run_test(size=(160, 48)) as pilot:
            await answered(pilot)
            report = app.query_one(ReportPane)
            report.select(index)
            await pilot.pause()
            evidence = str(app.query_one("#evidence").render())
            assert where in evidence and "第三条 补贴标准" in evidence
            view = app.query_one(DocumentView)
            cells = [(s, e) for s, e, k in view.spans if k == "cell"]
            assert [app.document.text[s:e] for s, e in cells] == [cell_text]
            # the cell is painted edge to edge (its padding too), the number itself in the value's colour
            row = view.row_of(cells[0][0])
            cell_bg = view.get_component_rich_style("document-view--cell").bgcolor
            value_bg = view.get_component_rich_style("document-view--value").bgcolor
            segs = list(view._strips[row])
            painted = "".join(seg.text for seg in segs if seg.style and seg.style.bgcolor == cell_bg)
            number = "".join(seg.text for seg in segs if seg.style and seg.style.bgcolor == value_bg)
            assert number == cell_text and painted.strip() == "" and len(painted) >= 2

    asyncio.run(body())


def test_enter_on_a_fact_shows_its_cell_at_80x24(tmp_path):
    async def body():
        app = make_app(tmp_path)
        async with app.run_test(size=NARROW) as pilot:
            await answered(pilot)
            tabs = app.query_one(PaneTabs)
            tabs.show("report")
            await pilot.pause()
            app.query_one("#facts").focus()
            await pilot.press("down")  # the cursor passing a row stays on the report
            assert tabs.pane == "report"
            await pilot.press("enter")  # choosing it shows the document, the cell in view
            await pilot.pause()
            assert tabs.pane == "document" and app.screen.has_class("-pane-document")
            view = app.query_one(DocumentView)
            cell = next(s for s, _, k in view.spans if k == "cell")
            top = view.scroll_offset.y
            assert top <= view.row_of(cell) < top + view.scrollable_content_region.height

    asyncio.run(body())


@pytest.mark.parametrize("quote, where", [
    ("| 物流配送员 | 880 | 1150 |", "where: line 11, col 1"),   # a dropped table row: where its quote starts
    ("补贴随当月工资一并发放，年度合计不超过12000元。", "where: line 15, col 1"),
    ("不在文件里的一句话。", None),                                       # a quote the document lacks: no place
])
def test_dropped_fact_says_where_its_quote_stands(quote, where):
    from aegis_tui.text.document import Document
    from aegis_tui.tui.report_pane import fact_rows

    doc = Document.load(SUBSIDY)
    dropped = {"fact": {"subject": "物流配送员", "predicate": "跨市", "object_value": "880元", "source_text": quote},
               "rule": "table_binding", "detail": "column 市内", "prev": "{}"}
    ans = Answer("q", "two-stage", rejected=[dropped])
    (row,) = fact_rows(ans, doc)
    assert row.verdict == "dropped"
    if where is None:
        assert not row.details[0].startswith("where:") and row.spans == []
    else:
        assert row.details[0].startswith(where) and "第" in row.details[0]


def test_export_names_where_each_value_stands(tmp_path):
    import json

    from aegis_tui.text.document import Document
    from aegis_tui.tui.export import write_report

    doc = Document.load(SUBSIDY)
    payload = parse_payload(SUBSIDY.with_suffix(".facts.json").read_text(encoding="utf-8"))
    ans = Answer("q", "two-stage", answer="…", state=Outcome.DONE, report=Tier1CodeVerifier(doc).verify(payload))
    run = QuestionRun(1, "q", doc, [])
    run.add_mode("two-stage", RunState.QUEUED)
    run.answers["two-stage"] = ans
    json_path, md_path = write_report(run, tmp_path)
    facts = json.loads(json_path.read_text(encoding="utf-8"))["facts"]
    assert facts[0]["location"]["describe"] == "table 1, row 3, column 3"
    assert facts[0]["heading_path"][-1] == "第三条 补贴标准"
    md = md_path.read_text(encoding="utf-8")
    assert "- where: table 1, row 3, column 3 · in 外勤人员交通补贴办法 › 第三条 补贴标准" in md
    assert "- where: line 15, col 20" in md  # the paragraph fact, under 第四条


def test_asking_from_the_document_pane_shows_the_answer_pane(tmp_path):
    import threading

    loaded = threading.Event()

    def slow_engine():  # the model is still loading: the question waits, and the pane follows it
        loaded.wait(10)
        return FakeEngine()

    async def body():
        app = make_app(tmp_path, factory=slow_engine)
        async with app.run_test(size=NARROW) as pilot:
            await wait_for(pilot, lambda: app.document is not None)
            tabs = app.query_one(PaneTabs)
            assert tabs.pane == "document"
            box = app.query_one(QuestionInput)
            box.focus()
            box.value = "巡检岗市内补贴多少？"
            await pilot.press("enter")
            await pilot.pause()
            assert tabs.pane == "answer" and app.runs[1].state["two-stage"] == RunState.WAITING
            assert visible_rows(app, "#answer") >= 6
            loaded.set()

    asyncio.run(body())
