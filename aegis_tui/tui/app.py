"""AegisApp: document, question, verification report, realized answer, live memory gauge and engine slots."""

from __future__ import annotations

import itertools
import time
from functools import partial, wraps
from pathlib import Path
from typing import Callable

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Footer, Header, Label, ProgressBar

from ..answer.states import State
from ..engine.protocol import EngineProtocol
from . import messages as m
from .actions import AppActions, sample_path
from .answer_pane import AnswerPane
from .commands import AegisCommands
from .document_view import DocumentView
from .facts_pane import FactsPane
from .indexing import AppIndexing
from .monitor import GaugePane, SlotsPane, gauge_text, slots_text
from .panes import BREAKPOINT, PaneTabs
from .questions import QuestionInput, QuestionsList
from .report_pane import ReportPane
from .runs import FINAL, QuestionRun, RunState
from .workers import AppWorkers


def _while_running(handler):
    """Drop a message that lands while the app shuts down: the widgets it would update are being removed.

    Workers post from their threads at any time; Textual stops the app (is_running False) before it prunes the
    screen, and a message handled after that would query widgets that are gone (NoMatches).
    """
    @wraps(handler)
    def handle(self, msg):
        if self.is_running:
            return handler(self, msg)

    return handle


class AegisApp(AppIndexing, AppActions, AppWorkers, App):
    """The terminal UI; engine_factory builds the engine in a worker (tests pass a fake, the CLI the real one)."""

    CSS_PATH = "aegis.tcss"
    TITLE = "Aegis"
    COMMANDS = App.COMMANDS | {AegisCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (BREAKPOINT, "-wide")]  # narrow: one pane at a time (PaneTabs)
    BINDINGS = [
        Binding("ctrl+o", "open", "Open"),
        Binding("ctrl+r", "ask", "Ask"),
        Binding("ctrl+t", "next_pane", "Pane"),  # narrow screens only (check_action)
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+b", "toggle_baseline", "Baseline"),
        Binding("ctrl+s", "export", "Export"),
        Binding("ctrl+y", "copy_answer", "Copy"),
        Binding("ctrl+l", "ledger", "Ledger"),
        Binding("ctrl+f", "facts", "Facts"),  # only with the fact index (check_action)
        Binding("ctrl+n", "next_question", "Next Q"),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(self, doc_path: str | Path | None = None,
                 engine_factory: Callable[[], EngineProtocol] | None = None, pipeline_config=None, gauge=None, *,
                 audit=None, export_dir: str | Path = ".", model_label: str = "model",
                 poll_interval: float = 1.0, index_store: Callable[[EngineProtocol], object] | None = None) -> None:
        super().__init__()
        self.doc_path = doc_path
        self.engine_factory = engine_factory
        self.pipeline_config = pipeline_config
        self.audit = audit
        self.export_dir = Path(export_dir)
        self.model_label = model_label
        self.poll_interval = poll_interval
        self.index_store = index_store  # engine -> IndexStore (the CLI's cache options); default: in memory
        self._index_warned: set[str] = set()
        if gauge is None:
            from ..memory.gauge import Gauge

            gauge = Gauge(interval_s=poll_interval, history=60)
        self.gauge = gauge
        self.document = None
        self.engine: EngineProtocol | None = None
        self.pipeline = None
        self.ledger = None
        self.model_error: str | None = None
        self.model_step = "no model"
        self.runs: dict[int, QuestionRun] = {}
        self.current: int | None = None
        self.baseline_mode = False
        self.exports: list[Path] = []
        self._qids = itertools.count(1)
        self._t_load = time.monotonic()
        self._closing = False
        self.polls = 0  # polls shown so far

    # ---- layout ----------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header(show_clock=False, icon="◆")
        yield PaneTabs(id="panes")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield DocumentView(id="document")
                yield QuestionInput(placeholder="Ask about the document, Enter to send (↑/↓ history)", id="question")
            with Vertical(id="right"):
                with Horizontal(id="model-row"):
                    yield Label("", id="model-status")
                    yield ProgressBar(total=None, show_eta=False, show_percentage=False, id="model-progress")
                with Horizontal(id="index-row"):
                    yield Label("", id="index-status")
                    yield ProgressBar(total=None, show_eta=False, show_percentage=True, id="index-progress")
                yield QuestionsList(id="questions")
                yield AnswerPane(id="answer")
                yield ReportPane(id="report")
                yield FactsPane(id="facts-view")
                with Horizontal(id="monitor"):
                    yield GaugePane(id="gauge")
                    yield SlotsPane(id="slots")
        yield Footer()

    def on_mount(self) -> None:
        titles = {"#document": "Document", "#question": "Question", "#questions": "Questions",
                  "#answer": "Answer", "#report": "Verification report", "#gauge": "Memory",
                  "#slots": "Engine slots", "#facts-view": "Facts"}
        for sel, title in titles.items():
            self.query_one(sel).border_title = title
        self.query_one("#question").focus()
        self.screen.set_class(self.indexing, "-indexing")  # the progress line and the Facts view exist
        self.query_one(PaneTabs).enable_facts(self.indexing)
        self.gauge.start()
        self._open(self.doc_path or sample_path())
        if self.engine_factory is not None:
            self.model_step = f"loading {self.model_label} …"
            self.run_worker(self._load_model, thread=True, name="load-model", exit_on_error=False)
        else:
            self.model_error = "no engine configured"
            self.query_one("#model-progress").display = False
        self._show_model_status()
        self._poll()

    def on_unmount(self) -> None:
        self._closing = True
        self._cancel_index()
        for run in self.runs.values():
            run.cancel.set()
        self.gauge.stop()
        if self.engine is not None:
            self.engine.close()

    # ---- helpers -----------------------------------------------------------------------------------------
    def _open(self, path) -> None:
        self.run_worker(partial(self._load_document, str(path)), thread=True, name="open", exit_on_error=False)

    def _poll(self) -> None:
        if not self._closing:
            self.run_worker(self._poll_work, thread=True, group="poll", name="poll", exit_on_error=False)

    def _start(self, run: QuestionRun, mode: str) -> None:
        run.state[mode] = RunState.QUEUED
        self.run_worker(partial(self._answer, run, mode), thread=True, group="answers",
                        name=f"q{run.qid}-{mode}", exit_on_error=False)

    def _show_model_status(self) -> None:
        label = self.query_one("#model-status", Label)
        if self.model_error:
            label.update(f"[b red]model unavailable[/]: {self.model_error}")
        elif self.engine is None:
            label.update(f"[b cyan]{self.model_step}[/] {time.monotonic() - self._t_load:.0f} s · ask away")
        else:
            label.update(self.model_step)

    def _set_document(self, document) -> None:
        self.document = document
        self.query_one(DocumentView).set_document(document)
        self.query_one("#document").border_title = f"Document · {Path(document.path).name}"
        self.sub_title = f"{Path(document.path).name} · {document.language} · {len(document.text):,} chars"

    def current_run(self) -> QuestionRun | None:
        return self.runs.get(self.current) if self.current is not None else None

    def show_run(self, qid: int | None) -> None:
        """Make a question current: its answer, its report and (if another document) its document."""
        self.current = qid
        run = self.current_run()
        if run is not None and run.document is not self.document:
            self._set_document(run.document)
        self.query_one(AnswerPane).show(run, self.baseline_mode or bool(run and "baseline" in run.modes))
        self.query_one(ReportPane).show(run.answer if run else None, run.document if run else None)
        if run is None or run.answer is None:
            self.query_one(DocumentView).highlight([])

    def _refresh_run(self, run: QuestionRun) -> None:
        self.query_one(QuestionsList).upsert(run)
        if run.qid == self.current:
            self.query_one(AnswerPane).show(run, self.baseline_mode or "baseline" in run.modes)

    # ---- messages -----------------------------------------------------------------------------------------
    @_while_running
    def on_model_progress(self, msg: m.ModelProgress) -> None:
        self.model_step = msg.step
        self._show_model_status()

    def on_model_ready(self, msg: m.ModelReady) -> None:
        from ..answer.pipeline import Pipeline, PipelineConfig

        if self._closing or not self.is_running:
            msg.engine.close()
            return
        self.engine, self.ledger, self.indexes = msg.engine, msg.ledger, msg.indexes
        cfg = self.pipeline_config or PipelineConfig()
        info = getattr(msg.engine, "model_info", None)
        if info is not None and not cfg.model_name:
            cfg.model_name = info.name
        self.pipeline = Pipeline(msg.engine, cfg, audit=self.audit, indexes=msg.indexes)
        ec = getattr(msg.engine, "config", None)
        what = f"{info.name} · {info.quantization}" if info is not None else "model"
        shape = f" · {ec.n_parallel} slots × {ec.n_ctx_per_slot} ctx" if ec is not None else ""
        self.model_step = f"[b green]ready[/] {what}{shape} · loaded in {msg.load_s:.1f} s"
        self.query_one("#model-progress").display = False
        self._show_model_status()
        for run in self.runs.values():
            for mode in run.modes:
                if run.state.get(mode) == RunState.WAITING:
                    self._start(run, mode)
                    self._refresh_run(run)
        self._start_index()  # after the waiting questions: their values go to the front of the queue

    @_while_running
    def on_model_failed(self, msg: m.ModelFailed) -> None:
        self.model_error = msg.error
        self.query_one("#model-progress").display = False
        self._show_model_status()
        self.notify(f"The model could not be loaded: {msg.error}", title="Model", severity="error", timeout=10)
        for run in self.runs.values():
            for mode in run.modes:
                if run.state.get(mode) == RunState.WAITING:
                    run.state[mode], run.errors[mode] = RunState.FAILED, f"no model: {msg.error}"
            self._refresh_run(run)

    @_while_running
    def on_document_opened(self, msg: m.DocumentOpened) -> None:
        self._set_document(msg.document)
        if self.current_run() is not None:
            self.show_run(None)  # a new document starts with a clean answer pane; its questions stay listed
        self._start_index()  # cancels the previous document's run

    @_while_running
    def on_document_failed(self, msg: m.DocumentFailed) -> None:
        self.notify(msg.error, title="Cannot open the document", severity="error", timeout=8)

    @_while_running
    def on_question_progress(self, msg: m.QuestionProgress) -> None:
        run = self.runs.get(msg.qid)
        if run is None or run.state.get(msg.mode) in FINAL:
            return
        if msg.state not in FINAL:
            # the final state comes with the Answer (QuestionAnswered): a run is never finished without it
            run.state[msg.mode] = msg.state
        run.tokens[msg.mode] = msg.tokens
        if not msg.detail.endswith(" tokens"):  # token ticks keep the step's own detail line
            run.detail[msg.mode] = msg.detail
        self._refresh_run(run)

    @_while_running
    def on_question_answered(self, msg: m.QuestionAnswered) -> None:
        run = self.runs[msg.qid]
        ans = msg.answer
        run.answers[msg.mode] = ans
        run.state[msg.mode] = ans.state.final_state
        run.tokens[msg.mode] = ans.generated_tokens
        if run.finished:
            run.t_end = time.monotonic()
        self._refresh_run(run)
        if ans.error:
            self.notify(ans.error, title=f"Question {run.qid}: the model failed", severity="error")
        if run.qid == self.current:
            self.show_run(run.qid)
        elif run.finished:
            self.notify(f"Question {run.qid}: {run.summary_state()}", title="Answered")

    @_while_running
    def on_question_failed(self, msg: m.QuestionFailed) -> None:
        run = self.runs[msg.qid]
        run.state[msg.mode], run.errors[msg.mode] = RunState.FAILED, msg.error
        if run.finished:
            run.t_end = time.monotonic()
        self._refresh_run(run)
        self.notify(msg.error, title=f"Question {run.qid} failed", severity="error", timeout=8)

    @_while_running
    def on_polled(self, msg: m.Polled) -> None:
        if self._closing:
            return
        self.query_one(GaugePane).update(gauge_text(msg.sample, msg.history, self.ledger))
        loading = "engine: " + (self.model_error or "loading …")
        self.query_one(SlotsPane).update(slots_text(msg.stats, loading))
        if self.engine is None:
            self._show_model_status()
        for run in self.runs.values():
            if not run.finished:
                self._refresh_run(run)
        self.polls += 1
        self.set_timer(self.poll_interval, self._poll)  # re-armed only after this poll finished

    @_while_running
    def on_exported(self, msg: m.Exported) -> None:
        self.exports += [Path(p) for p in msg.paths]
        self.notify("\n".join(msg.paths), title="Report exported")

    @_while_running
    def on_export_failed(self, msg: m.ExportFailed) -> None:
        self.notify(msg.error, title="Export failed", severity="error")

    @_while_running
    def on_report_pane_fact_selected(self, msg: ReportPane.FactSelected) -> None:
        self.query_one(DocumentView).highlight(msg.row.spans)
        if msg.chosen and msg.row.spans:
            self.query_one(PaneTabs).show("document")  # narrow: the evidence is on the document pane

    @on(DataTable.RowHighlighted, "#questions")
    @on(DataTable.RowSelected, "#questions")
    def _question_chosen(self, event: DataTable.RowHighlighted | DataTable.RowSelected) -> None:
        if event.row_key is not None and event.row_key.value is not None:
            qid = int(event.row_key.value)
            if qid != self.current or isinstance(event, DataTable.RowSelected):
                self.show_run(qid)

    @on(QuestionInput.Submitted, "#question")
    def _question_submitted(self, event: QuestionInput.Submitted) -> None:
        event.stop()
        self.action_ask()

    # ---- actions ------------------------------------------------------------------------------------------
    def action_ask(self) -> None:
        box = self.query_one(QuestionInput)
        text = box.value.strip()
        if not text:
            self.notify("Type a question first.", severity="warning")
            return
        if self.document is None:
            self.notify("Open a document first (Ctrl+O).", severity="error")
            return
        if self.model_error:
            self.notify(f"No model: {self.model_error}", title="Cannot ask", severity="error")
            return
        run = QuestionRun(next(self._qids), text, self.document, [])
        for mode in ["two-stage"] + (["baseline"] if self.baseline_mode else []):
            run.add_mode(mode, RunState.WAITING if self.pipeline is None else RunState.QUEUED)
            if self.pipeline is None:
                run.detail[mode] = "waiting for the model to load"
        self.runs[run.qid] = run
        box.remember(text)
        box.value = ""
        self.query_one(QuestionsList).upsert(run)
        self.show_run(run.qid)
        self.query_one(QuestionsList).move_cursor(row=len(self.runs) - 1)
        if self.query_one(PaneTabs).pane == "document":
            self.query_one(PaneTabs).show("answer")  # narrow: follow the question to its answer
        if self.pipeline is not None:
            for mode in run.modes:
                self._start(run, mode)

    def action_cancel(self) -> None:
        run = self.current_run()
        if run is None or run.finished:
            running = [r for r in self.runs.values() if not r.finished]
            run = running[-1] if running else None
        if run is None:
            self.notify("Nothing to cancel.", severity="warning")
            return
        run.cancel.set()
        for mode in run.modes:
            if run.state.get(mode) == RunState.WAITING:
                run.state[mode] = State.CANCELLED
                run.detail[mode] = "cancelled before the model was ready"
        if run.finished:
            run.t_end = time.monotonic()
        self._refresh_run(run)
        self.notify(f"Cancelling question {run.qid} …", title="Cancel")

    def action_toggle_baseline(self) -> None:
        self.baseline_mode = not self.baseline_mode
        run = self.current_run()
        if self.baseline_mode and run is not None and "baseline" not in run.modes and not self.model_error:
            run.add_mode("baseline", RunState.WAITING if self.pipeline is None else RunState.QUEUED)
            run.t_end = None
            if self.pipeline is not None:
                self._start(run, "baseline")
        self.show_run(self.current)
        state = "on: questions are also answered as free prose" if self.baseline_mode else "off"
        self.notify(f"Baseline mode {state}", title="Baseline")
