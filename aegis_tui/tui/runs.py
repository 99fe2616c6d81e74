"""One asked question and its pipeline runs (two-stage, and baseline when that mode is on): UI-side bookkeeping."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from enum import StrEnum

from ..answer.states import State


class RunState(StrEnum):
    """A run's states outside the pipeline's own (State): before the pipeline starts, or when it cannot run."""

    WAITING = "WAITING"  # asked before the model was ready
    QUEUED = "QUEUED"
    FAILED = "FAILED"


FINAL = frozenset({State.DONE, State.FALLBACK, State.CANCELLED, RunState.FAILED})


@dataclass
class QuestionRun:
    """A question over one document: per mode its live state, tokens, detail, and finally the Answer or error."""

    qid: int
    question: str
    document: object
    modes: list[str]
    state: dict[str, State | RunState] = field(default_factory=dict)
    detail: dict[str, str] = field(default_factory=dict)
    tokens: dict[str, int] = field(default_factory=dict)
    answers: dict[str, object] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    cancel: threading.Event = field(default_factory=threading.Event)
    t0: float = field(default_factory=lambda: time.monotonic())
    t_end: float | None = None

    def add_mode(self, mode: str, state: State | RunState = RunState.QUEUED) -> None:
        if mode not in self.modes:
            self.modes.append(mode)
        self.state[mode] = state
        self.detail[mode] = ""
        self.tokens[mode] = 0

    @property
    def finished(self) -> bool:
        return all(self.state.get(m) in FINAL for m in self.modes)

    @property
    def main_mode(self) -> str:
        return self.modes[0]

    @property
    def answer(self):
        """The two-stage Answer (or the first mode's), once finished."""
        return self.answers.get(self.main_mode)

    def summary_state(self) -> State | RunState:
        return self.state.get(self.main_mode, RunState.QUEUED)

    def total_tokens(self) -> int:
        return sum(self.tokens.values())

    def elapsed(self) -> float:
        return (self.t_end or time.monotonic()) - self.t0
