"""One answer() call at work: its clock, cancellation, progress events and the engine requests it makes."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Callable

from ..engine.config import Sampling
from ..engine.protocol import EngineProtocol
from ..errors import AegisError
from .prompts import PromptParts, render
from .states import Answer, PipelineEvent, State, Transition


class Cancelled(AegisError):
    """The question was cancelled."""


@dataclass
class Job:
    """Bookkeeping of one answer() call: clock, token count, live handles, events; submits and awaits requests."""

    engine: EngineProtocol
    repair_temperature: float
    clock: Callable[[], float]      # time.perf_counter as the pipeline sees it (tests freeze it there)
    on_event: Callable[[PipelineEvent], None] | None
    cancel: threading.Event
    answer: Answer
    t0: float = field(init=False)
    tokens: int = 0
    first_piece: float | None = None
    handles: list = field(default_factory=list)
    queue_s: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.t0 = self.clock()

    def now(self) -> float:
        return self.clock() - self.t0

    def enter(self, state: State, reason: str) -> None:
        self.answer.transitions.append(Transition(state, round(self.now(), 4), reason))
        self.emit(state, reason)

    def emit(self, state: State, detail: str) -> None:
        if self.on_event is not None:
            self.on_event(PipelineEvent(state, detail, self.tokens, self.now()))

    def on_piece(self, piece) -> None:
        with self.lock:
            self.tokens += piece.n_tokens
            if self.first_piece is None:
                self.first_piece = piece.t
        # requests are only submitted after the machine entered EXTRACT or GENERATE
        self.emit(self.answer.transitions[-1].state, f"{self.tokens} tokens")

    def check(self) -> None:
        if self.cancel.is_set():
            raise Cancelled("cancelled")

    def render(self, parts: PromptParts) -> str:
        """The prompt text in the engine's chat template (completion style without one)."""
        e = self.engine
        return render(parts, e.chat_template, bos_token=e.bos_text, eos_token=e.eos_text)

    def submit(self, prompt: str, grammar: str | None, max_tokens: int, stop=None):
        """Submit one request; the first attempt decodes greedily, repairs sample (seeded by the attempt)."""
        attempt = max(self.answer.attempts, 1)
        sampling = Sampling() if attempt == 1 else Sampling(temperature=self.repair_temperature,
                                                             top_p=0.95, seed=attempt)
        h = self.engine.submit(prompt, grammar=grammar, max_tokens=max_tokens, stop=stop, sampling=sampling,
                               on_piece=self.on_piece)
        self.handles.append(h)
        return h

    def wait(self, handles: list) -> list:
        """The completions of handles, in order, polling so that a cancel is seen within 0.1 s."""
        out = []
        for h in handles:
            while True:
                self.check()
                try:
                    c = h.result(timeout=0.1)
                except TimeoutError:
                    continue
                break
            self.queue_s.append(c.stats.queue_s)
            out.append(c)
        return out
