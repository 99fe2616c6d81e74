"""The app's fact index: a background run per opened document, its progress line, the Facts view and CSV export."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from textual.widgets import Label, ProgressBar

from ..errors import one_line
from . import messages as m
from .document_view import DocumentView
from .facts_pane import FactsPane
from .panes import PaneTabs

PROGRESS_EVERY_S = 0.25   # at most four progress messages a second from the indexing thread
FACTS_EVERY_S = 0.5       # the Facts table is rebuilt at most twice a second while the index grows


def duration(seconds: float | None) -> str:
    """A time left as people say it: '…' when unknown, '12 s', '3 min 05 s'."""
    if seconds is None:
        return "…"
    s = int(round(seconds))
    return f"{s} s" if s < 60 else f"{s // 60} min {s % 60:02d} s"


def index_text(p, running: bool) -> str:
    """The progress line: values done / total, verified, and while running the rate and time left."""
    if p.complete:
        return f"indexed {p.done}/{p.total} · {p.verified} verified"
    if not running:
        return f"indexing stopped at {p.done}/{p.total} · {p.verified} verified"
    return (f"indexing {p.done}/{p.total} · {p.verified} verified · {p.rate:.1f} values/s · "
            f"ETA {duration(p.eta_s)}")


@dataclass
class IndexRun:
    """The background index run of one document: set cancel to stop it (in-flight requests are cancelled)."""

    document: object
    cancel: threading.Event
    worker: object


class AppIndexing:
    """Mixed into AegisApp: starts, shows and cancels the fact index of the open document; the Facts view."""

    indexes = None            # IndexStore, once the model is ready (strategy "index" only)
    index_run: IndexRun | None = None
    indexer = None            # the Indexer of the document the progress line shows
    index_progress = None
    _facts_t = 0.0
    _facts_pending = False

    @property
    def indexing(self) -> bool:
        """Whether this app indexes documents in the background (the pipeline answers from the index)."""
        return getattr(self.pipeline_config, "strategy", "") == "index"

    # ---- runs ------------------------------------------------------------------------------------------
    def _start_index(self) -> None:
        """Index the open document in the background, unless that is already going (called on ready/open)."""
        doc = self.document
        if self.indexes is None or doc is None or self._closing:
            return
        run = self.index_run
        if run is not None and run.document.sha256 == doc.sha256 and not run.cancel.is_set() \
                and not run.worker.is_finished:
            return
        self._cancel_index()
        cancel = threading.Event()
        worker = self.run_worker(partial(self._index_work, self.indexes, doc, cancel), thread=True, group="index",
                                 name=f"index-{Path(doc.path).name}", exit_on_error=False)
        self.index_run = IndexRun(doc, cancel, worker)
        self.indexer = self.index_progress = None
        self._show_index_line(f"indexing {Path(doc.path).name}: finding its values …")
        self.query_one(FactsPane).show_facts(doc, [])
        self.query_one(FactsPane).set_status("Indexing: verified facts appear here as they are found.")

    def _cancel_index(self) -> None:
        if self.index_run is not None:
            self.index_run.cancel.set()

    def _index_work(self, store, document, cancel: threading.Event) -> None:
        """Worker: label every value of the document through the engine's slots until done or cancelled."""
        from ..errors import AegisError

        indexer = None
        last = [0.0]

        def progress(p, running: bool = True) -> None:  # indexer threads and questions' ensure() call this
            now = time.monotonic()
            if not running or p.complete or now - last[0] >= PROGRESS_EVERY_S:
                last[0] = now
                self.post_message(m.IndexProgress(document, indexer, p, running))

        try:
            indexer = store.indexer(document)  # reads and re-verifies the cache: in this thread, not the UI's
            indexer.on_progress = progress
            progress(indexer.progress())
            self._post_index_warnings(store)
            while not cancel.is_set():
                try:
                    indexer.run(cancel)
                    break
                except AegisError:
                    if not indexer.busy:  # not "a question is labelling its values": a real failure
                        raise
                    cancel.wait(0.1)  # a question's ensure() is labelling; the rest waits for it
        except Exception as exc:  # the index is an accelerator: answers still label what they need
            self.post_message(m.IndexFailed(document, one_line(exc)))
        finally:
            if indexer is not None:
                progress(indexer.progress(), running=False)
            self._post_index_warnings(store)

    def _post_index_warnings(self, store) -> None:
        for w in store.warnings():
            self.post_message(m.IndexWarning(w))

    # ---- messages --------------------------------------------------------------------------------------
    def on_index_progress(self, msg: m.IndexProgress) -> None:
        run = self.index_run
        if not self.is_running or run is None or msg.document is not run.document or msg.indexer is None:
            return  # a cancelled run's last words, or the app shutting down
        self.indexer, self.index_progress = msg.indexer, msg.progress
        running = msg.running and not run.cancel.is_set()
        self._show_index_line(index_text(msg.progress, running), msg.progress)
        now = time.monotonic()
        if not msg.running or msg.progress.complete or now - self._facts_t >= FACTS_EVERY_S:
            self._refresh_facts()
        elif not self._facts_pending:  # the last change before a pause still reaches the table
            self._facts_pending = True
            self.set_timer(FACTS_EVERY_S, self._refresh_facts)

    def on_index_failed(self, msg: m.IndexFailed) -> None:
        if self.is_running:
            self.notify(msg.error, title="Indexing failed", severity="error", timeout=8)

    def on_index_warning(self, msg: m.IndexWarning) -> None:
        if self.is_running and msg.warning not in self._index_warned:
            self._index_warned.add(msg.warning)
            self.notify(msg.warning, title="Index cache", severity="warning", timeout=8)

    def on_facts_exported(self, msg: m.FactsExported) -> None:
        if self.is_running:
            self.exports.append(Path(msg.path))
            self.notify(msg.path, title="Facts exported")

    def on_facts_pane_fact_selected(self, msg: FactsPane.FactSelected) -> None:
        if not self.is_running:
            return
        shown = self.query_one(FactsPane).document
        if shown is not None and (self.document is None or self.document.sha256 != shown.sha256):
            self._set_document(shown)  # a question about another document was on screen: show the facts' own
        self.query_one(DocumentView).highlight(msg.spans)
        if msg.chosen and msg.spans:
            self.query_one(PaneTabs).show("document")  # narrow: the evidence is on the document pane

    def _show_index_line(self, text: str, p=None) -> None:
        self.query_one("#index-status", Label).update(text)
        bar = self.query_one("#index-progress", ProgressBar)
        if p is None:
            bar.update(total=None, progress=0)
        else:
            bar.update(total=max(p.total, 1), progress=p.done if p.total else 1)

    def _refresh_facts(self) -> None:
        self._facts_pending = False
        if not self.is_running or self.indexer is None:
            return
        self._facts_t = time.monotonic()
        index = self.indexer.index
        with index.lock:
            facts = index.ordered_facts()
        pane = self.query_one(FactsPane)
        pane.show_facts(index.document, facts)
        p = self.index_progress
        if p is not None and not facts:
            pane.set_status("No verified facts yet." if not p.complete else
                            f"None of the {p.total} values of this document has a verified fact.")

    # ---- actions ---------------------------------------------------------------------------------------
    def action_facts(self) -> None:
        """Show the Facts view (narrow: its tab; wide: in place of the report), or go back to the report."""
        if not self.indexing:
            self.notify("The fact index is off: start with aegis tui --strategy index.", severity="warning")
            return
        tabs = self.query_one(PaneTabs)
        if self.screen.has_class("-narrow"):
            showing = tabs.pane == "facts"
            tabs.show("report" if showing else "facts")
        else:
            showing = self.screen.has_class("-facts")
            self.screen.set_class(not showing, "-facts")
        if not showing:
            self.query_one("#facts-filter").focus()

    def action_export_facts(self) -> None:
        if self.indexer is None:
            self.notify("No fact index yet: open a document once the model is ready.", severity="warning")
            return
        self.run_worker(partial(self._export_facts_work, self.indexer, self.export_dir), thread=True,
                        name="export-facts", exit_on_error=False)

    def _export_facts_work(self, indexer, folder: Path) -> None:
        """Worker: the verified fact table as <doc stem>.facts.csv in the export folder (as `aegis index --format csv`)."""
        from ..answer.factindex import write_csv  # the one CSV layout, shared with the CLI

        try:
            root = Path(folder).expanduser()
            root.mkdir(parents=True, exist_ok=True)
            path = root / f"{Path(indexer.index.document.path).stem}.facts.csv"
            body = indexer.index.to_json()
            tmp = path.with_name(path.name + ".tmp")
            with tmp.open("w", encoding="utf-8", newline="") as out:
                write_csv(body, out)
            tmp.replace(path)  # a reader never sees half a table
            self.post_message(m.FactsExported(str(path)))
        except Exception as exc:
            self.post_message(m.ExportFailed(one_line(exc)))
