"""The TUI's fact index: background indexing with progress, the Facts view, CSV export, cancelling, answering."""

from __future__ import annotations

import asyncio
import csv
import functools
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from fakes import FakeEngine, FakeGauge
from textual.widgets import DataTable

from aegis_tui.answer.pipeline import PipelineConfig
from aegis_tui.samples import sample_path
from aegis_tui.tui import AegisApp
from aegis_tui.tui.document_view import DocumentView
from aegis_tui.tui.facts_pane import FactsPane
from aegis_tui.tui.indexing import duration, index_text
from aegis_tui.tui.panes import PaneTabs
from aegis_tui.tui.questions import QuestionInput

DOCS = Path(__file__).parent / "docs"
LODGING_Q = "What is the nightly lodging cap?"
PARKING_Q = "How much is airport parking refunded per day?"
SIZE = (160, 48)


@dataclass(frozen=True)
class IndexScenario:
    """A document's whole fact index, then one question answered from it (strategy index), as the TUI does."""

    sample: str          # a bundled sample's name, or a file under tests/docs
    question: str
    mode: str = "two-stage"
    strategy: str = "index"
    script: None = None

    @property
    def path(self) -> Path:
        return DOCS / self.sample if "." in self.sample else sample_path(self.sample)

    def ask(self, engine):
        from aegis_tui.answer.factindex import IndexStore
        from aegis_tui.answer.pipeline import Pipeline
        from aegis_tui.text.document import Document

        doc = Document.load(self.path)
        store = IndexStore(engine, "recording")
        store.indexer(doc).run(threading.Event())
        return Pipeline(engine, PipelineConfig(strategy="index"), indexes=store).answer(doc, self.question)


# What the flows below ask, replayed from tests/data/replies.json (re-record: python tests/record_replies.py).
RECORDED = [
    IndexScenario("policy_en", LODGING_Q),
    IndexScenario("r_mileage_en.md", PARKING_Q),
]


def make_app(tmp_path, doc="policy_en", delay_s: float = 0.0, **kwargs) -> AegisApp:
    """The app indexing a document (strategy index) with a replaying fake engine and a fixed gauge."""
    engines: list[FakeEngine] = []

    def factory():
        engines.append(FakeEngine(delay_s=delay_s))
        return engines[-1]

    app = AegisApp(IndexScenario(doc, "").path, engine_factory=factory, gauge=FakeGauge(), export_dir=tmp_path,
                   poll_interval=0.2, pipeline_config=PipelineConfig(strategy="index"), **kwargs)
    app.fake_engines = engines
    return app


def sync(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return asyncio.run(fn(*args, **kwargs))

    return wrapper


async def wait_for(pilot, predicate, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        for engine in pilot.app.fake_engines:
            assert not engine.missing, engine.missing[0]  # a request the recording lacks: say which
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for the app: {pilot.app.index_progress} {notes(pilot.app)}")
        await pilot.pause(0.05)


def indexed(app: AegisApp, name: str | None = None) -> bool:
    """Whether the open document's index run finished with every value labelled."""
    p, run = app.index_progress, app.index_run
    return (p is not None and p.complete and run is not None and run.worker.is_finished
            and (name is None or Path(run.document.path).name == name))


def status(app: AegisApp) -> str:
    return str(app.query_one("#index-status").render())


def notes(app: AegisApp) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app._notifications]


@pytest.mark.parametrize("seconds, text", [
    (None, "…"),          # no rate yet
    (12.4, "12 s"),
    (185, "3 min 05 s"),
])
def test_duration(seconds, text):
    assert duration(seconds) == text


@pytest.mark.parametrize("done, total, verified, running, text", [
    # complete: no rate, no ETA
    (64, 64, 36, False, "indexed 64/64 · 36 verified"),
    # running: the rate and the time left
    (10, 40, 6, True, "indexing 10/40 · 6 verified · 2.0 values/s · ETA 15 s"),
    # cancelled part-way
    (10, 40, 6, False, "indexing stopped at 10/40 · 6 verified"),
])
def test_index_text(done, total, verified, running, text):
    from aegis_tui.answer.factindex import Progress

    p = Progress(done, total, verified, done - verified, 2.0, (total - done) / 2.0)
    assert index_text(p, running) == text


@sync
async def test_opening_a_document_indexes_it_and_the_facts_view_lists_it(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: indexed(app))
        index = app.indexer.index
        p = app.index_progress
        assert (p.done, p.total) == (index.total, index.total) and p.verified == len(index.facts) > 5
        assert status(app) == f"indexed {p.total}/{p.total} · {p.verified} verified"
        bar = app.query_one("#index-progress")
        assert (bar.progress, bar.total) == (p.total, p.total)
        # the Facts view (Ctrl+F) lists every verified fact in document order
        await pilot.press("ctrl+f")
        facts = app.query_one(FactsPane)
        assert facts.display and not app.query_one("#report").display
        assert [r.key for r in facts.rows] == [f.key for f in index.ordered_facts()]
        assert app.query_one("#facts-table").row_count == p.verified
        # the filter narrows the rows to those mentioning it
        await pilot.press(*"lodging")
        await pilot.pause()
        shown = facts.shown
        assert 0 < len(shown) < len(facts.rows)
        assert all("lodging" in " ".join((r.section, r.subject, r.predicate, r.value, r.source)).lower()
                   for r in shown)
        assert {r.value for r in shown} >= {"$250 per night", "$400 per night"}
        # selecting a row highlights its evidence: the value's characters in the document
        await pilot.press("enter")  # from the filter to the rows
        await pilot.press("down")
        view = app.query_one(DocumentView)
        row = shown[1]
        await wait_for(pilot, lambda: set(view.spans) >= set(row.spans))
        start, end, _ = next(s for s in row.spans if s[2] == "value")
        assert app.document.text[start:end] == row.value
        # the filter can be emptied again; Ctrl+F goes back to the report
        facts.query_one("#facts-filter").value = ""
        await pilot.pause()
        assert len(facts.shown) == len(facts.rows)
        await pilot.press("ctrl+f")
        assert app.query_one("#report").display and not facts.display


@sync
async def test_facts_export_as_csv(tmp_path):
    from aegis_tui.answer.factindex import CSV_FIELDS

    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: indexed(app))
        await pilot.press("ctrl+f")
        await pilot.press("ctrl+s")  # in the Facts view Ctrl+S exports the table
        out = tmp_path / "policy_en.facts.csv"
        await wait_for(pilot, lambda: out in app.exports)
        rows = list(csv.reader(out.open(encoding="utf-8", newline="")))
        assert rows[0] == CSV_FIELDS
        assert len(rows) - 1 == app.index_progress.verified
        assert {r[4] for r in rows[1:]} >= {"$250 per night", "$400 per night"}
        assert any("Facts exported" in n for n in notes(app))


@sync
async def test_question_during_indexing_answers_from_the_index(tmp_path):
    app = make_app(tmp_path, delay_s=0.05)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.pipeline is not None and app.index_run is not None)
        qid = None
        box = app.query_one(QuestionInput)
        box.value = LODGING_Q
        await pilot.press("enter")
        qid = max(app.runs)
        await wait_for(pilot, lambda: app.runs[qid].finished)
        ans = app.runs[qid].answer
        assert app.runs[qid].summary_state() == "DONE" and ans.strategy == "index"
        assert "$250" in ans.answer
        await wait_for(pilot, lambda: indexed(app))
        # once the index is complete a question labels nothing: it chooses among the verified facts
        n = len(app.engine.calls)
        box.value = LODGING_Q
        await pilot.press("enter")
        q2 = max(app.runs)
        await wait_for(pilot, lambda: app.runs[q2].finished)
        assert app.runs[q2].answer.answer == ans.answer
        assert all(r.max_tokens != 64 for r in app.engine.calls[n:])  # no label request (LABEL_MAX_TOKENS)


@sync
async def test_opening_another_document_cancels_the_run(tmp_path):
    app = make_app(tmp_path, delay_s=0.3)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.index_progress is not None and app.index_progress.done >= 1)
        first = app.index_run
        first_indexer = app.indexer
        app._open(DOCS / "r_mileage_en.md")
        await wait_for(pilot, lambda: first.cancel.is_set())
        await wait_for(pilot, lambda: first.worker.is_finished, timeout=10)
        assert not first_indexer.index.complete  # stopped part-way: its in-flight requests were cancelled
        await wait_for(pilot, lambda: indexed(app, "r_mileage_en.md"))
        assert status(app).startswith("indexed 7/7")
        assert [r.key for r in app.query_one(FactsPane).rows] == [f.key for f in app.indexer.index.ordered_facts()]
        await wait_for(pilot, lambda: app.engine.stats().busy_slots == 0 and app.engine.stats().queue_len == 0)


@sync
async def test_quitting_mid_index_leaves_no_run_going(tmp_path):
    app = make_app(tmp_path, delay_s=0.5)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.index_progress is not None and app.engine.stats().busy_slots > 0)
        run, indexer = app.index_run, app.indexer
    assert run.cancel.is_set()
    end = time.monotonic() + 30
    while indexer._running and time.monotonic() < end:  # Indexer.run returned: the thread is done
        time.sleep(0.05)
    assert not indexer._running and not indexer.index.complete


@sync
async def test_a_cached_index_is_complete_at_once(tmp_path):
    from aegis_tui.answer.factindex import IndexStore

    def store(engine):
        return IndexStore(engine, "fake", tmp_path / "cache")

    app = make_app(tmp_path, index_store=store)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: indexed(app))
        verified = app.index_progress.verified
    again = make_app(tmp_path, index_store=store)
    async with again.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: indexed(again))
        assert again.index_progress.verified == verified
        assert again.engine.calls == []  # every label came from the cache, re-verified
        assert status(again) == f"indexed {again.index_progress.total}/{again.index_progress.total} · {verified} verified"


@sync
async def test_an_unwritable_cache_is_a_warning(tmp_path):
    from aegis_tui.answer.factindex import IndexStore

    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory should be")
    app = make_app(tmp_path, index_store=lambda engine: IndexStore(engine, "fake", blocker / "index"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: indexed(app))
        await wait_for(pilot, lambda: any(n.startswith("Index cache:") for n in notes(app)))
        assert app.index_progress.verified > 5  # indexed in memory all the same


@sync
async def test_narrow_facts_pane(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: indexed(app))
        tabs = app.query_one(PaneTabs)
        assert tabs.panes[-1] == "facts"
        await pilot.press("ctrl+f")
        assert tabs.pane == "facts" and app.query_one(FactsPane).display
        await pilot.press("enter", "enter")  # the filter, then the first row: its evidence on the document pane
        await wait_for(pilot, lambda: tabs.pane == "document")
        assert app.query_one(DocumentView).spans


@sync
async def test_a_fact_shows_its_own_document(tmp_path):
    from aegis_tui.text.document import Document

    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: indexed(app))
        app._set_document(Document.load(DOCS / "r_mileage_en.md"))  # as when a question about it is shown
        await pilot.press("ctrl+f", "enter")
        # (the rows take the keys once they have the focus and are filled: a busy machine may not have done either;
        # the cursor stays on the fact it was on while the rows filled in, so it need not be on the first row)
        table = app.query_one("#facts-table", DataTable)
        await wait_for(pilot, lambda: table.has_focus and table.row_count >= 2)
        if table.cursor_row >= table.row_count - 1:
            await pilot.press("home")
            await wait_for(pilot, lambda: table.cursor_row == 0)
        start = table.cursor_row
        await pilot.press("down")
        await wait_for(pilot, lambda: app.document.path.endswith("policy_en.txt") and table.cursor_row == start + 1)
        row = app.query_one(FactsPane).shown[start + 1]
        await wait_for(pilot, lambda: set(app.query_one(DocumentView).spans) >= set(row.spans))



def test_narrow_facts_snapshot(snap_compare, tmp_path):
    """80×24, the Facts tab: the progress line complete, the filtered rows and the selected fact's evidence."""
    app = make_app(tmp_path)

    async def run_before(pilot):
        await wait_for(pilot, lambda: indexed(app))
        await pilot.press("ctrl+f")
        app.query_one("#facts-filter").cursor_blink = False
        await pilot.press(*"cities", "enter", "down")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


# ---- the real model --------------------------------------------------------------------------------------
@pytest.mark.model
@sync
async def test_index_with_real_model_then_from_the_cache(embedded_model, tmp_path):
    """Cold: a question asked while indexing is answered from verified facts; warm: the cache completes at once."""
    from aegis_tui.answer.factindex import IndexStore
    from aegis_tui.cli.index import model_id
    from aegis_tui.cli.tui import engine_factory
    from aegis_tui.engine import EngineConfig

    config = EngineConfig(model_path=embedded_model, n_parallel=4, n_ctx_per_slot=4096)

    def app_on_cache() -> AegisApp:
        app = AegisApp(sample_path("policy_en"), engine_factory=engine_factory(config), gauge=FakeGauge(),
                       pipeline_config=PipelineConfig(strategy="index"), export_dir=tmp_path, poll_interval=0.5,
                       index_store=lambda engine: IndexStore(engine, model_id(engine), tmp_path / "cache"))
        app.fake_engines = []
        return app

    app = app_on_cache()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.pipeline is not None, timeout=120)
        app.query_one(QuestionInput).value = LODGING_Q
        await pilot.press("enter")
        qid = max(app.runs)
        await wait_for(pilot, lambda: app.runs[qid].finished and indexed(app), timeout=600)
        ans = app.runs[qid].answer
        assert ans.state == "done" and {"$250 per night", "$400 per night"} <= {
            fv.fact.object_value for fv in ans.report.verified}
        verified = app.index_progress.verified
        assert verified >= 10 and len(app.query_one(FactsPane).rows) == verified
    warm = app_on_cache()
    async with warm.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: indexed(warm), timeout=120)
        assert warm.index_progress.verified == verified and warm.indexer.requests == 0
