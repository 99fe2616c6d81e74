"""What callers hold: a request handle that streams pieces, its completion and stats, engine-wide stats."""

from __future__ import annotations

import itertools
import queue
import threading
import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Callable, Iterator

_ids = itertools.count(1)


class FinishReason(StrEnum):
    """Why a request ended; the values are what completions and JSON reports have always said."""

    EOG = "eog"              # the model's end-of-generation token
    LENGTH = "length"        # max_tokens reached: the output is cut off
    GRAMMAR = "grammar"      # the grammar is complete
    STOP = "stop"            # a stop string matched
    CANCELLED = "cancelled"
    CLOSED = "closed"        # the engine closed first
    ERROR = "error"

    @property
    def aborted(self) -> bool:
        """The request was ended from outside or failed, so its text is no answer at all."""
        return self in (FinishReason.CANCELLED, FinishReason.CLOSED, FinishReason.ERROR)


@dataclass(frozen=True)
class Piece:
    """A chunk of generated text with the time it was produced (time.perf_counter) and its token count."""

    text: str
    t: float
    n_tokens: int


@dataclass
class RequestStats:
    """Per-request timings (seconds) and token counts."""

    queue_s: float = 0.0
    ttft_s: float | None = None
    e2e_s: float = 0.0
    prompt_tokens: int = 0
    cached_tokens: int = 0
    generated_tokens: int = 0
    itl_s: list[float] = field(default_factory=list)
    forced_tokens: int = 0


@dataclass
class Completion:
    """The final result of a request."""

    text: str
    finish_reason: FinishReason
    error: str | None
    tokens: list[int]
    stats: RequestStats

    def __post_init__(self) -> None:
        # Callers (the scheduler, test fakes) may pass the plain value; an unknown reason fails here, not later.
        self.finish_reason = FinishReason(self.finish_reason)


@dataclass(frozen=True)
class SlotState:
    """One slot as seen from outside."""

    id: int
    busy: bool
    request_id: int | None
    generated: int
    prompt_tokens: int


@dataclass(frozen=True)
class EngineStats:
    """Engine-wide state: slots, queue, KV cells and recent aggregate generation speed."""

    n_slots: int
    busy_slots: int
    queue_len: int
    kv_used: int
    kv_total: int
    tokens_per_s: float
    slots: list[SlotState]
    prefix_cache_entries: int


_END = object()
_POLL_S = 0.5  # how often a waiting caller asks whether the engine that owes its request is still there
_GRACE_S = 1.0  # a stopping engine ends its requests on the way out; give it this long before ending one here


class RequestHandle:
    """A submitted request: iterate it for Pieces, or wait for result(); cancel() ends it early."""

    def __init__(self, on_piece: Callable[[Piece], None] | None = None, cancel_fn=None,
                 alive_fn: Callable[[], bool] | None = None) -> None:
        self.id = next(_ids)
        self._on_piece = on_piece
        self._cancel_fn = cancel_fn
        self._alive_fn = alive_fn  # False once whatever runs the request is gone (the engine's thread)
        self._pieces: queue.SimpleQueue = queue.SimpleQueue()
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._completion: Completion | None = None
        self._cancel_requested = False
        self._t0 = time.perf_counter()

    @property
    def done(self) -> bool:
        return self._done.is_set() or self._orphaned()

    @property
    def cancel_requested(self) -> bool:
        return self._cancel_requested

    def cancel(self) -> None:
        """Ask the engine to stop this request; its slot and KV cells are freed at the next step."""
        if self.done or self._cancel_requested:
            return
        self._cancel_requested = True
        if self._cancel_fn is not None:
            self._cancel_fn(self)

    def __iter__(self) -> Iterator[Piece]:
        while True:
            try:
                item = self._pieces.get(timeout=_POLL_S if self._alive_fn is not None else None)
            except queue.Empty:
                self._orphaned()  # ends the stream (puts _END) when the engine is gone
                continue
            if item is _END:
                self._pieces.put(_END)  # a second iteration ends at once instead of blocking
                return
            yield item

    def result(self, timeout: float | None = None) -> Completion:
        deadline = None if timeout is None else time.perf_counter() + timeout
        while True:
            left = None if deadline is None else max(0.0, deadline - time.perf_counter())
            step = left if self._alive_fn is None else min(_POLL_S, _POLL_S if left is None else left)
            if self._done.wait(step) or self._orphaned():
                break
            if deadline is not None and time.perf_counter() >= deadline:
                raise TimeoutError(f"request {self.id} did not finish within {timeout} s")
        assert self._completion is not None
        return self._completion

    def _orphaned(self) -> bool:
        """End the request with an error when the engine that runs it has gone without ending it: no waiter
        hangs on a dead engine (its thread ends every request it holds on the way out; this is for the case
        where that failed too). True when the request is done now."""
        if self._done.is_set():
            return True
        if self._alive_fn is None or self._alive_fn():
            return False
        if not self._done.wait(_GRACE_S):
            now = time.perf_counter()
            self._finish(Completion("", FinishReason.ERROR, "the engine stopped without ending this request", [],
                                    RequestStats(queue_s=now - self._t0, e2e_s=now - self._t0)))
        return True

    # -- called by the scheduler thread --------------------------------------------------------------

    def _emit(self, piece: Piece) -> None:
        self._pieces.put(piece)
        if self._on_piece is not None:
            try:
                self._on_piece(piece)
            except Exception:  # a caller's callback must not kill the scheduler
                pass

    def _finish(self, completion: Completion) -> None:
        with self._lock:  # the engine and a waiter that found the engine gone may both end it: the first wins
            if self._done.is_set():
                return
            self._completion = completion
            self._pieces.put(_END)
            self._done.set()
