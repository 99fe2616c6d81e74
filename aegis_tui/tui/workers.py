"""The app's workers: blocking work (model, document, answers, polling, export) run in threads; they only post messages."""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path

from ..errors import one_line
from . import messages as m
from .runs import QuestionRun


class AppWorkers:
    """Mixed into AegisApp: each method runs in a worker thread and reports back through post_message."""

    def _load_model(self) -> None:
        t0 = time.perf_counter()
        try:
            engine = self.engine_factory()
        except Exception as exc:  # a bad model must never crash the UI
            self.post_message(m.ModelFailed(one_line(exc)))
            return
        if self._closing:
            engine.close()
            return
        self.post_message(m.ModelProgress("predicting the memory ledger …"))
        try:
            from .ledger_view import engine_ledger

            ledger = engine_ledger(engine)
        except Exception:  # the ledger is informative; the model works without it
            ledger = None
        self.post_message(m.ModelReady(engine, time.perf_counter() - t0, ledger, self._index_store(engine)))

    def _index_store(self, engine):
        """The IndexStore for this engine when documents are indexed (the CLI's cache options), else None."""
        if not self.indexing:
            return None
        from ..answer.factindex import IndexStore

        info = getattr(engine, "model_info", None)
        in_memory = partial(IndexStore, engine, info.name if info is not None else self.model_label)
        if self.index_store is None:
            return in_memory()
        try:
            return self.index_store(engine)  # reads the model file's fingerprint: here, not on the UI thread
        except Exception as exc:
            self.post_message(m.IndexWarning(f"the index cache is off ({one_line(exc)}); indexing in memory"))
            return in_memory()

    def _load_document(self, path: str) -> None:
        from ..text.document import Document

        try:
            document = Document.load(path)
            document.structure  # noqa: B018 - built here, in the worker, not when the pane first draws
            self.post_message(m.DocumentOpened(document))
        except Exception as exc:
            self.post_message(m.DocumentFailed(path, one_line(exc)))
        else:
            from ..text.entities import load_segmenter

            load_segmenter(document.text)  # (here, not in the first question's answer; no document failure)

    def _answer(self, run: QuestionRun, mode: str) -> None:
        last = {"t": 0.0, "state": ""}

        def on_event(ev) -> None:  # called from engine / pipeline threads; throttled to ~10 messages/s
            now = time.monotonic()
            if ev.state != last["state"] or now - last["t"] >= 0.1:
                last.update(t=now, state=ev.state)
                self.post_message(m.QuestionProgress(run.qid, mode, ev.state, ev.detail, ev.tokens))

        try:
            ans = self.pipeline.answer(run.document, run.question, mode, on_event=on_event, cancel=run.cancel)
        except Exception as exc:
            self.post_message(m.QuestionFailed(run.qid, mode, one_line(exc)))
            return
        self.post_message(m.QuestionAnswered(run.qid, mode, ans))

    def _poll_work(self) -> None:
        stats = sample = None
        history: list = []
        try:
            engine = self.engine
            stats = engine.stats() if engine is not None else None
            sample, history = self.gauge.latest(), self.gauge.history()
        except Exception:  # a failed reading shows as "n/a"; the next poll tries again
            pass
        finally:
            self.post_message(m.Polled(stats, sample, history))

    def _export_work(self, run: QuestionRun, folder: Path) -> None:
        from .export import write_report

        try:
            self.post_message(m.Exported([str(p) for p in write_report(run, folder, self.audit)]))
        except Exception as exc:
            self.post_message(m.ExportFailed(one_line(exc)))
