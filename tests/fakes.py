"""The one fake engine: it speaks EngineProtocol and replays replies recorded from the real embedded model.

Every reply a test gets was produced once by `aegis_tui.engine.Engine` on the embedded GGUF, for exactly that
request (prompt, grammar, max_tokens, sampling, stop), and stored in tests/data/replies.json. A request the
recording lacks raises UnrecordedRequest; the fake never invents text. After changing a prompt, a grammar, a
sampling setting or a recorded scenario, re-record with

    python tests/record_replies.py

Tests that need a specific misbehaviour (invalid JSON, a cut-off, a swapped label) pass a `script`: it answers
the requests it wants to and returns None for the rest, which are replayed.
"""

from __future__ import annotations

import functools
import hashlib
import json
import queue
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from aegis_tui.engine.config import EngineConfig, Sampling
from aegis_tui.engine.handle import Completion, EngineStats, Piece, RequestHandle, RequestStats, SlotState
from aegis_tui.errors import EngineError
from aegis_tui.memory.gauge import GaugeSample

RECORDING = Path(__file__).resolve().parent / "data" / "replies.json"
RERECORD = "python tests/record_replies.py"


def request_key(prompt: str | list[int], grammar: str | None, max_tokens: int, sampling: Sampling | None,
                stop: list[str] | None) -> str:
    """The recording's key: a hash of everything that decides what the model generates."""
    s = sampling or Sampling()
    blob = json.dumps({"prompt": prompt, "grammar": grammar, "max_tokens": max_tokens, "stop": list(stop or []),
                       "sampling": [s.temperature, s.top_p, s.top_k, s.seed]}, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:24]


@dataclass(frozen=True)
class Request:
    """One submit() as a script sees it; n counts this engine's submits from 1."""

    prompt: str | list[int]
    grammar: str | None
    max_tokens: int
    sampling: Sampling
    stop: list[str]
    n: int

    @property
    def key(self) -> str:
        return request_key(self.prompt, self.grammar, self.max_tokens, self.sampling, self.stop)


@dataclass(frozen=True)
class Reply:
    """What a request produced: text, finish reason, the pieces as streamed (text, tokens) and token counts."""

    text: str
    finish_reason: str = "eog"
    pieces: tuple[tuple[str, int], ...] = ()
    tokens: tuple[int, ...] = ()
    prompt_tokens: int = 0

    def stream(self) -> tuple[tuple[str, int], ...]:
        """The pieces to emit; a scripted reply without pieces streams as one piece."""
        return self.pieces or (((self.text, max(1, len(self.text) // 2)),) if self.text else ())


Script = Callable[[Request], Reply | None]


class UnrecordedRequest(EngineError):
    """The recording has no reply for a request: re-record instead of guessing."""


class Recording:
    """Replies by request key, read from and written to one JSON file (sorted, so diffs are reviewable)."""

    def __init__(self, path: Path = RECORDING, model: str = "", replies: dict | None = None) -> None:
        self.path, self.model = Path(path), model
        self.replies: dict[str, dict] = replies or {}

    @classmethod
    def load(cls, path: Path = RECORDING) -> Recording:
        if not Path(path).exists():
            return cls(path)
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return cls(path, data["model"], data["replies"])

    def get(self, key: str) -> Reply | None:
        entry = self.replies.get(key)
        if entry is None:
            return None
        return Reply(entry["text"], entry["finish_reason"], tuple((t, n) for t, n in entry["pieces"]),
                     tuple(entry["tokens"]), entry["prompt_tokens"])

    def add(self, req: Request, reply: Reply) -> None:
        s = req.sampling
        prompt = req.prompt if isinstance(req.prompt, str) else json.dumps(req.prompt)
        self.replies[req.key] = {
            # the request, abridged, so a reviewer can tell which reply changed
            "prompt_end": prompt[-160:], "grammar_start": (req.grammar or "")[:120], "max_tokens": req.max_tokens,
            "sampling": {"temperature": s.temperature, "top_p": s.top_p, "top_k": s.top_k, "seed": s.seed},
            "stop": req.stop,
            "text": reply.text, "finish_reason": str(reply.finish_reason), "pieces": [list(p) for p in reply.pieces],
            "tokens": list(reply.tokens), "prompt_tokens": reply.prompt_tokens,
        }

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {"recorded_with": RERECORD, "model": self.model, "replies": dict(sorted(self.replies.items()))}
        self.path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


_RECORDINGS: dict[Path, Recording] = {}


def recording(path: Path = RECORDING) -> Recording:
    """The committed recording, read once per test session."""
    if path not in _RECORDINGS:
        _RECORDINGS[path] = Recording.load(path)
    return _RECORDINGS[path]


@functools.cache
def model_info(path: str):
    """The GGUF's metadata, read once per test session: every test has its own empty AEGIS_CACHE_DIR (so no
    on-disk metadata cache), and parsing the vocabulary in an app's loader thread while the UI renders takes
    tens of seconds on a busy machine."""
    from aegis_tui.models import inspect_model

    return inspect_model(path)


@dataclass
class _Job:
    """A request waiting for, or streaming in, a slot."""

    handle: RequestHandle
    req: Request
    reply: Reply
    t_submit: float
    cancelled: threading.Event


class FakeEngine:
    """EngineProtocol over recorded replies: n_parallel threads play slots, each reply streams in delay_s.

    record_from: a real engine to ask (and record) when the recording lacks a request; only
    tests/record_replies.py passes one. clock: piece timestamps (a frozen clock keeps snapshots stable).
    """

    bos_text = ""
    eos_text = ""

    def __init__(self, n_parallel: int = 4, delay_s: float = 0.0, *, script: Script | None = None,
                 replies: Recording | None = None, fail_submit: Exception | None = None,
                 clock=time.perf_counter, record_from=None) -> None:
        from aegis_tui.models import embedded_model_path

        self.recording = replies if replies is not None else recording()
        self.record_from = record_from
        if record_from is not None:
            self.config, self.model_info = record_from.config, record_from.model_info
        else:
            path = str(embedded_model_path())
            self.config = EngineConfig(model_path=path, n_parallel=n_parallel, n_ctx_per_slot=4096)
            self.model_info = model_info(path)
            if self.recording.model and self.recording.model != Path(path).name:
                raise UnrecordedRequest(f"the replies were recorded with {self.recording.model}, the embedded "
                                        f"model is {Path(path).name}: re-record with `{RERECORD}`")
        self.chat_template = self.model_info.chat_template  # as the real engine renders prompts
        self.n_gpu_layers = 0
        self.delay_s = delay_s
        self.script = script
        self.clock = clock
        self.fail_submit = fail_submit
        self.calls: list[Request] = []
        self.missing: list[str] = []  # messages of requests the recording lacked (also raised)
        self.forwarded: list[tuple[Request, RequestHandle, list[tuple[str, int]]]] = []
        self._queue: queue.Queue = queue.Queue()
        self._slots: list[_Job | None] = [None] * n_parallel
        self._generated = [0] * n_parallel
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._open = threading.Event()  # cleared by hold(): replies wait in their slots until release()
        self._open.set()
        self._threads = [threading.Thread(target=self._serve, args=(i,), daemon=True) for i in range(n_parallel)]
        for t in self._threads:
            t.start()

    # -- EngineProtocol --------------------------------------------------------------------------------
    def submit(self, prompt, *, grammar=None, max_tokens=256, sampling=Sampling(), stop=None, on_piece=None):
        if self._closed.is_set():
            raise EngineError("engine is closed")
        if self.fail_submit is not None:
            raise self.fail_submit
        with self._lock:
            req = Request(prompt, grammar, max_tokens, sampling or Sampling(), list(stop or []), len(self.calls) + 1)
            self.calls.append(req)
        reply = self.script(req) if self.script is not None else None
        if reply is None:
            reply = self.recording.get(req.key)
        if reply is None and self.record_from is not None:
            return self._forward(req, on_piece)
        if reply is None:
            tail = (prompt if isinstance(prompt, str) else str(prompt))[-80:]
            msg = (f"no recorded reply for request {req.key} (prompt ending {tail!r}, max_tokens {max_tokens}, "
                   f"{req.sampling}); re-record with `{RERECORD}` (add the test's scenario to its RECORDED list)")
            self.missing.append(msg)
            raise UnrecordedRequest(msg)
        cancelled = threading.Event()
        handle = RequestHandle(on_piece, cancel_fn=lambda h: cancelled.set())
        self._queue.put(_Job(handle, req, reply, self.clock(), cancelled))
        return handle

    def tokenize(self, text: str, add_special: bool = True) -> list[int]:
        """The model's real tokens (llama.cpp with the GGUF's vocabulary only, no weights)."""
        from aegis_tui.engine import native
        from aegis_tui.engine.grammar_matcher import vocab_model

        vocab = native.llama().llama_model_get_vocab(vocab_model(self.config.model_path))
        return native.tokenize(vocab, text, add_special)

    def stats(self) -> EngineStats:
        with self._lock:
            slots = [SlotState(i, j is not None, j.handle.id if j else None, self._generated[i] if j else 0,
                               j.reply.prompt_tokens if j else 0) for i, j in enumerate(self._slots)]
        kv = sum(s.prompt_tokens + s.generated for s in slots)
        return EngineStats(n_slots=len(slots), busy_slots=sum(s.busy for s in slots),
                           queue_len=self._queue.qsize(), kv_used=kv, kv_total=self.config.n_ctx,
                           tokens_per_s=0.0, slots=slots, prefix_cache_entries=0)

    def hold(self) -> None:
        """Hold every reply in its slot (requests still queue and take slots) until release(): a test can then
        act while requests are surely in flight. A cancel or close still ends a held reply at once."""
        self._open.clear()

    def release(self) -> None:
        self._open.set()

    def close(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        with self._lock:
            for job in self._slots:
                if job is not None:
                    job.cancelled.set()  # wakes a slow reply; it ends as "closed"
        for _ in self._threads:
            self._queue.put(None)

    # -- slots -----------------------------------------------------------------------------------------
    def _serve(self, slot: int) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            with self._lock:
                self._slots[slot], self._generated[slot] = job, 0
            self._run(slot, job)
            with self._lock:
                self._slots[slot] = None

    def _run(self, slot: int, job: _Job) -> None:
        pieces = job.reply.stream()
        stats = RequestStats(queue_s=self.clock() - job.t_submit, prompt_tokens=job.reply.prompt_tokens)
        out, reason, tokens = "", job.reply.finish_reason, 0
        while not (self._open.is_set() or job.cancelled.is_set() or self._closed.is_set()):
            job.cancelled.wait(0.01)
        for text, n in pieces:
            if self.delay_s:
                job.cancelled.wait(self.delay_s / len(pieces))  # not sleep: cancel() and close() end it at once
            if self._closed.is_set() or job.cancelled.is_set():
                reason = "closed" if self._closed.is_set() else "cancelled"
                break
            out += text
            tokens += n
            with self._lock:
                self._generated[slot] += n
            if stats.ttft_s is None:
                stats.ttft_s = self.clock() - job.t_submit
            job.handle._emit(Piece(text, self.clock(), n))
        stats.generated_tokens = tokens
        stats.e2e_s = self.clock() - job.t_submit
        job.handle._finish(Completion(out, reason, None, list(job.reply.tokens[:tokens]), stats))

    # -- recording -------------------------------------------------------------------------------------
    def _forward(self, req: Request, on_piece):
        """Ask the real engine; save() stores its reply once it has finished."""
        pieces: list[tuple[str, int]] = []

        def capture(piece: Piece) -> None:
            pieces.append((piece.text, piece.n_tokens))
            if on_piece is not None:
                on_piece(piece)

        handle = self.record_from.submit(req.prompt, grammar=req.grammar, max_tokens=req.max_tokens,
                                         sampling=req.sampling, stop=req.stop or None, on_piece=capture)
        self.forwarded.append((req, handle, pieces))
        return handle

    def keep_forwarded(self) -> int:
        """Store the finished forwarded replies in the recording; the number stored."""
        kept = 0
        for req, handle, pieces in self.forwarded:
            c = handle.result()
            if c.finish_reason in ("cancelled", "closed", "error"):
                continue
            self.recording.add(req, Reply(c.text, str(c.finish_reason), tuple(pieces), tuple(c.tokens),
                                          c.stats.prompt_tokens))
            kept += 1
        self.forwarded.clear()
        return kept


@dataclass(frozen=True)
class Scenario:
    """One pipeline call a test makes; tests/record_replies.py runs each through the real engine."""

    sample: str
    question: str
    mode: str = "two-stage"
    strategy: str = "fan-out"
    script: Script | None = None

    def ask(self, engine):
        """The Answer the pipeline gives for this scenario with engine."""
        from aegis_tui.answer.pipeline import Pipeline, PipelineConfig
        from aegis_tui.samples import sample_path
        from aegis_tui.text.document import Document

        pipeline = Pipeline(engine, PipelineConfig(strategy=self.strategy))
        return pipeline.answer(Document.load(sample_path(self.sample)), self.question, self.mode)


class FakeGauge:
    """A gauge with one fixed sample, so snapshots are stable; counts polls."""

    def __init__(self, kind: str = "ram") -> None:
        self.sample = GaugeSample(kind, "RAM (no GPU gauge: NVML library not found)" if kind == "ram" else
                                  "GPU 0: Fake H100", 6 * 2**30, 16 * 2**30, 420 * 2**20, 12.0, None, None, 1.0)
        self.samples = [GaugeSample(kind, self.sample.label, (2 + i % 8) * 2**30, 16 * 2**30, 420 * 2**20,
                                    12.0, None, None, float(i)) for i in range(30)] + [self.sample]
        self.started = self.stopped = False

    def start(self):
        self.started = True
        return self

    def stop(self) -> None:
        self.stopped = True

    def latest(self) -> GaugeSample:
        return self.sample

    def history(self) -> list[GaugeSample]:
        return list(self.samples)
