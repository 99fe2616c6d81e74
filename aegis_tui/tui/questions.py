"""The question input (with up/down history) and the list of asked questions with their live progress."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable, Input

from .answer_pane import STATE_STYLE


class QuestionInput(Input):
    """An Input that remembers submitted questions; up and down walk the history."""

    BINDINGS = [
        Binding("up", "history(-1)", "Previous question", show=False),
        Binding("down", "history(1)", "Next question", show=False),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.history: list[str] = []
        self._pos = 0
        self._draft = ""

    def remember(self, text: str) -> None:
        text = text.strip()
        if text and (not self.history or self.history[-1] != text):
            self.history.append(text)
        self._pos = len(self.history)
        self._draft = ""

    def action_history(self, step: int) -> None:
        if not self.history:
            return
        if self._pos == len(self.history):
            self._draft = self.value
        self._pos = max(0, min(len(self.history), self._pos + step))
        self.value = self.history[self._pos] if self._pos < len(self.history) else self._draft
        self.cursor_position = len(self.value)


class QuestionsList(DataTable):
    """One row per asked question: state, tokens streamed and elapsed time, updated as messages arrive."""

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.add_column("#", key="n")
        self.add_column("question", key="question", width=44)
        self.add_column("state", key="state", width=12)
        self.add_column("tokens", key="tokens", width=7)
        self.add_column("time", key="time", width=7)

    def upsert(self, run) -> None:
        state = run.summary_state()
        if "baseline" in run.modes and run.modes[0] != "baseline":
            state_b = run.state.get("baseline", "")
            label = Text(state, style=STATE_STYLE.get(state, "cyan")) + Text(f"+{state_b[:4]}", style="dim")
        else:
            label = Text(state, style=STATE_STYLE.get(state, "cyan"))
        cells = {"n": str(run.qid), "question": run.question, "state": label,
                 "tokens": str(run.total_tokens()), "time": f"{run.elapsed():.1f}s"}
        key = str(run.qid)
        if key in self.rows:
            for col, value in cells.items():
                self.update_cell(key, col, value)
        else:
            self.add_row(*cells.values(), key=key)
