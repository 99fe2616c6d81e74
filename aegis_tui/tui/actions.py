"""The app's commands that only read its state: export, copy, open, ledger, pane and question switching."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from ..errors import one_line
from .panes import PaneTabs
from .questions import QuestionsList
from .screens import LedgerScreen, PathScreen


def sample_path(name: str = "policy_zh") -> Path:
    from ..samples import sample_path as bundled

    return bundled(name)


class AppActions:
    """Mixed into AegisApp: actions that start a worker, push a screen or move a cursor."""

    def action_export(self) -> None:
        run = self.current_run()
        if run is None or run.answer is None:
            self.notify("No answered question to export yet.", severity="warning")
            return
        self.run_worker(partial(self._export_work, run, self.export_dir), thread=True, name="export",
                        exit_on_error=False)

    def action_export_to(self) -> None:
        def chosen(folder: str | None) -> None:
            if folder:
                self.export_dir = Path(folder)
                self.action_export()

        self.push_screen(PathScreen("Export the report to folder", str(self.export_dir), "folder"), chosen)

    def action_copy_answer(self) -> None:
        run = self.current_run()
        if run is None or run.answer is None:
            self.notify("No answer to copy yet.", severity="warning")
            return
        self.copy_to_clipboard(run.answer.answer)
        self.notify(f"Copied {len(run.answer.answer)} characters.", title="Answer copied")

    def action_open(self) -> None:
        def chosen(path: str | None) -> None:
            if path:
                self._open(path)

        current = self.document.path if self.document is not None else ""
        self.push_screen(PathScreen("Open a document (.txt / .md / .docx / .pdf)", current, "path/to/document.txt"), chosen)

    def action_open_sample(self, name: str) -> None:
        self._open(sample_path(name))

    def action_ledger(self) -> None:
        if self.engine is None or self.ledger is None:
            self.notify("The ledger needs a loaded model.", severity="warning")
            return
        from .ledger_view import ledger_text

        try:
            text = ledger_text(self.engine, self.ledger, self.gauge.latest())
        except Exception as exc:
            self.notify(one_line(exc), title="Ledger", severity="error")
            return
        self.push_screen(LedgerScreen(text))

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """Pane switching exists only on a narrow screen (the wide layout shows every pane, its footer stays);
        the Facts view only with the fact index."""
        if action in ("facts", "export_facts"):
            return self.indexing  # the Facts view exists only when documents are indexed
        return action != "next_pane" or self.screen.has_class("-narrow")

    def on_resize(self) -> None:
        self.call_after_refresh(self.refresh_bindings)  # after the screen's breakpoint classes are set

    def action_next_pane(self) -> None:
        """On a narrow screen, show the next pane (document → answer → report → monitor → facts)."""
        self.query_one(PaneTabs).cycle()

    def action_next_question(self) -> None:
        if not self.runs:
            return
        ids = list(self.runs)
        nxt = ids[(ids.index(self.current) + 1) % len(ids)] if self.current in ids else ids[0]
        self.query_one(QuestionsList).move_cursor(row=ids.index(nxt))
        self.show_run(nxt)
