"""A request as the scheduler sees it, the slot that runs it, and incremental text with stop strings."""

from __future__ import annotations

import codecs
import time
from dataclasses import dataclass, field

import numpy as np

from .config import Sampling
from .grammar_matcher import CompiledGrammar
from .handle import Completion, RequestHandle, RequestStats
from .prefix_cache import KvNode
from .sampling import Sampler


@dataclass(eq=False)
class Request:
    """A validated submission waiting for (or holding) a slot."""

    handle: RequestHandle
    prompt: np.ndarray
    max_tokens: int
    sampling: Sampling
    grammar: CompiledGrammar | None
    stop: list[str]
    t_submit: float = field(default_factory=time.perf_counter)

    def unstarted(self, reason: str, error: str | None) -> Completion:
        """The completion of a request that ends before it got a slot (cancelled, closed, engine failure)."""
        now = time.perf_counter()
        stats = RequestStats(queue_s=now - self.t_submit, e2e_s=now - self.t_submit, prompt_tokens=len(self.prompt))
        return Completion("", reason, error, [], stats)


class TextStream:
    """Bytes of generated tokens to text: holds back split UTF-8 characters and possible stop-string starts."""

    def __init__(self, stop: list[str]) -> None:
        self._dec = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.text = ""
        self.emitted = 0
        self.stop = [s for s in stop if s]
        self.stopped = False

    def feed(self, data: bytes) -> str:
        """Add token bytes; return the text that can be shown now ('' while a character or stop is pending)."""
        self.text += self._dec.decode(data)
        if self.stop:
            start = max(0, self.emitted - max(len(s) for s in self.stop))
            hits = [i for i in (self.text.find(s, start) for s in self.stop) if i >= 0]
            if hits:
                cut = min(hits)
                self.text = self.text[:cut]
                self.stopped = True
                return self._take(cut)
            return self._take(len(self.text) - self._held_back())
        return self._take(len(self.text))

    def flush(self) -> str:
        if not self.stopped:
            self.text += self._dec.decode(b"", final=True)
        return self._take(len(self.text))

    def _held_back(self) -> int:
        best = 0
        for s in self.stop:
            for k in range(min(len(s) - 1, len(self.text)), best, -1):
                if self.text.endswith(s[:k]):
                    best = k
                    break
        return best

    def _take(self, upto: int) -> str:
        upto = max(upto, self.emitted)
        out = self.text[self.emitted:upto]
        self.emitted = upto
        return out


class Slot:
    """One of the n_parallel sequences; seq id == slot id."""

    def __init__(self, sid: int) -> None:
        self.id = sid
        self.req: Request | None = None
        self.reset()

    def reset(self) -> None:
        self.req = None
        self.node: KvNode | None = None
        self.n_past = 0
        self.prompt_pos = 0
        self.pending: list[int] = []
        self.matcher = None
        self.sampler: Sampler | None = None
        self.stream: TextStream | None = None
        self.out: list[int] = []
        self.generated = 0
        self.forced = 0
        self.cached = 0
        self.t_admit = 0.0
        self.t_first: float | None = None
        self.t_last_piece: float | None = None
        self.itl: list[float] = []
        self.unsent_tokens = 0
        self.wait_src: Slot | None = None  # a slot whose prompt prefill this one will share
        self.wait_req: Request | None = None
        self.wait_n = 0

    @property
    def busy(self) -> bool:
        return self.req is not None

    @property
    def prefilling(self) -> bool:
        return self.req is not None and self.wait_src is None and self.prompt_pos < len(self.req.prompt)

    def completion(self, reason: str, error: str | None, now: float) -> Completion:
        """What the slot's request produced, with its timings, as it ends now."""
        req = self.req
        stats = RequestStats(
            queue_s=self.t_admit - req.t_submit,
            ttft_s=(self.t_first - req.t_submit) if self.t_first is not None else None,
            e2e_s=now - req.t_submit,
            prompt_tokens=len(req.prompt),
            cached_tokens=self.cached,
            generated_tokens=self.generated,
            itl_s=self.itl,
            forced_tokens=self.forced,
        )
        text = self.stream.text if self.stream is not None else ""
        return Completion(text, reason, error, list(self.out), stats)
