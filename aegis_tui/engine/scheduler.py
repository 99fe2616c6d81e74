"""The thread that owns the llama.cpp context: admission, one llama_decode per step for all slots, sampling."""

from __future__ import annotations

import threading
import time
from collections import deque

import numpy as np

from ..errors import EngineError
from .batch import Batch, MemOps
from .grammar_matcher import MaskFiller
from .handle import FinishReason, Piece
from .prefill import Item, halve_prompt_chunks, inflight_match, plan_step
from .prefix_cache import KvLedger, PrefixCache
from .sampling import Sampler, constrained_choice
from .slots import Request, Slot, TextStream

SHARE_MIN_TOKENS = 16  # wait for an in-flight prefill only when it saves more than this many tokens


class Scheduler:
    """Runs requests on n_parallel slots of one context; every public method is safe from any thread."""

    def __init__(self, core) -> None:
        self.core = core
        cfg = core.config
        self.cfg = cfg
        self.ll = core.ll
        self.slots = [Slot(i) for i in range(cfg.n_parallel)]
        self.waiting: deque[Request] = deque()
        self.cv = threading.Condition()
        self.cancels: list = []
        self.calls: deque = deque()
        self.closing = False
        self.batch = Batch(self.ll, core.n_batch)
        self.mem = MemOps(self.ll, core.mem)
        self.ledger = KvLedger()
        spare = list(range(cfg.n_parallel, cfg.n_seq_max))
        self.cache = PrefixCache(spare, cfg.cache_tokens, self.ledger, self.mem, core.n_swa, core.swa_full)
        self.n_vocab = core.n_vocab
        self.masks = MaskFiller(cfg.n_parallel, self.n_vocab)
        self.tok_log: deque[tuple[float, int]] = deque()
        self.kv_used = 0
        self.prefill_limit = core.n_batch
        self.steps = 0
        self.fatal: str | None = None
        self._step_tokens = 0
        self.thread = threading.Thread(target=self._run, name="aegis-engine", daemon=True)
        self.thread.start()

    # -- caller side ---------------------------------------------------------------------------------

    def enqueue(self, req: Request) -> None:
        with self.cv:
            if self.closing:
                req.handle._finish(req.unstarted(FinishReason.CLOSED, "engine closed"))
                return
            self.waiting.append(req)
            self.cv.notify()

    def cancel(self, handle) -> None:
        with self.cv:
            for req in self.waiting:
                if req.handle is handle:
                    self.waiting.remove(req)
                    handle._finish(req.unstarted(FinishReason.CANCELLED, None))
                    return
            self.cancels.append(handle)
            self.cv.notify()

    def call(self, fn, timeout: float | None = 30.0):
        """Run fn() on the scheduler thread between steps and return its result."""
        box: dict = {}
        done = threading.Event()
        with self.cv:
            if self.closing or not self.thread.is_alive():
                raise EngineError("engine closed")
            self.calls.append((fn, box, done))
            self.cv.notify()
        if not done.wait(timeout):
            raise TimeoutError("engine did not answer")
        if "error" in box:
            raise box["error"]
        return box.get("value")

    def close(self, timeout: float | None = None, join: bool = True) -> None:
        with self.cv:
            self.closing = True
            self.cv.notify_all()
        if not join:
            return
        self.thread.join(timeout)
        self.masks.close()

    def queue_len(self) -> int:
        return len(self.waiting)

    # -- scheduler thread ----------------------------------------------------------------------------

    def _run(self) -> None:
        reason, error = FinishReason.CLOSED, "engine closed"
        try:
            while True:
                with self.cv:
                    while not (self.closing or self.waiting or self.cancels or self.calls
                               or any(s.busy for s in self.slots)):
                        self.cv.wait()
                    if self.closing:
                        break
                    calls, self.calls = list(self.calls), deque()
                    cancels, self.cancels = self.cancels, []
                for fn, box, done in calls:
                    try:
                        box["value"] = fn()
                    except Exception as exc:  # handed back to the caller
                        box["error"] = exc
                    done.set()
                for h in cancels:
                    for s in self.slots:
                        if s.req is not None and s.req.handle is h:
                            self._finish(s, FinishReason.CANCELLED)
                self._admit()
                self._resolve_waits()
                if any(s.busy for s in self.slots):
                    self._step()
        except BaseException as exc:  # a bug, a fatal llama.cpp error, a callback's SystemExit: end every request
            reason, error = FinishReason.ERROR, f"engine failure: {exc!r}"
            self.fatal = error
        finally:
            with self.cv:
                self.closing = True
                waiting, self.waiting = list(self.waiting), deque()
                calls, self.calls = list(self.calls), deque()
            for fn, box, done in calls:
                box["error"] = RuntimeError("engine closed")
                done.set()
            for s in self.slots:
                if s.busy:
                    req = s.req
                    try:
                        self._finish(s, reason, error)
                    except Exception:  # the failure left the slot half torn down: its caller still gets its end
                        req.handle._finish(req.unstarted(reason, error))
            for req in waiting:
                req.handle._finish(req.unstarted(reason, error))

    def _admit(self) -> None:
        for slot in self.slots:
            if slot.busy:
                continue
            with self.cv:
                if not self.waiting:
                    return
                req = self.waiting.popleft()
            if req.handle.cancel_requested:
                req.handle._finish(req.unstarted(FinishReason.CANCELLED, None))
                continue
            self._start(slot, req)

    def _start(self, slot: Slot, req: Request) -> None:
        slot.reset()
        slot.req = req
        slot.t_admit = time.perf_counter()
        slot.sampler = Sampler(req.sampling)
        slot.stream = TextStream(req.stop)
        if req.grammar is not None:
            try:
                slot.matcher = self.core.compiler.matcher(req.grammar)
            except Exception as exc:
                self._finish(slot, FinishReason.ERROR, str(exc))
                return
        self.mem.seq_rm(slot.id)
        entry, n = self.cache.lookup(req.prompt) if self.cache.enabled else (None, 0)
        src, m = inflight_match(self.slots, slot, req.prompt)
        if src is not None and m > n + SHARE_MIN_TOKENS:
            # Another slot is prefilling the same document right now: wait for it instead of repeating it.
            slot.wait_src, slot.wait_req, slot.wait_n = src, src.req, m
            return
        self._place(slot, entry, n)

    def _place(self, slot: Slot, entry, n: int) -> None:
        if entry is not None and n > 0:
            self.cache.use(entry, slot.id, n)
            slot.node = self.ledger.new(entry.node, n)
        else:
            n = 0
            slot.node = self.ledger.new(None, 0)
        slot.n_past = slot.prompt_pos = slot.cached = n

    def _resolve_waits(self) -> None:
        """Slots waiting on another slot's prefill take its cells once it has decoded the shared part."""
        for s in self.slots:
            src = s.wait_src
            if src is None:
                continue
            if src.req is not s.wait_req:  # the source ended early: fall back to the cache or a cold start
                s.wait_src = s.wait_req = None
                entry, n = self.cache.lookup(s.req.prompt) if self.cache.enabled else (None, 0)
                self._place(s, entry, n)
            elif src.prompt_pos >= s.wait_n:
                n = s.wait_n
                self.mem.seq_cp(src.id, s.id, 0, n)
                s.node = self.ledger.new(src.node, n)
                s.n_past = s.prompt_pos = s.cached = n
                s.wait_src = s.wait_req = None

    # -- one step: build the batch, decode, sample -------------------------------------------------------

    def _start_masks(self, items: list[Item]):
        return self.masks.start([(s.matcher.m, s.id) for s, _, want in items
                                 if want and s.matcher is not None and s.matcher.kind == "llg"])

    def _step(self) -> None:
        items = plan_step(self.slots, self.batch.n, self.prefill_limit)
        if not items:
            return
        masks = self._start_masks(items)
        while True:
            rows = self.batch.fill((s.id, toks, s.n_past, want) for s, toks, want in items)
            rc = self.ll.llama_decode(self.core.ctx, self.batch.b)
            if rc == 0:
                break
            if rc == 1 and self._relieve_kv(items):
                items = [it for it in items if it[0].busy]
                items = halve_prompt_chunks(items)
                if items:
                    continue
                if masks is not None:
                    masks.result()
                return
            if masks is not None:
                masks.result()
            for s in {it[0] for it in items}:
                if s.busy:
                    self._finish(s, FinishReason.ERROR, f"llama_decode failed (code {rc})")
            return
        self.steps += 1
        if self.prefill_limit < self.batch.n:
            self.prefill_limit = min(self.batch.n, self.prefill_limit * 2)
        now = time.perf_counter()
        masks_ready = False
        self._step_tokens = 0
        for s, toks, _ in items:
            if not s.busy:
                continue
            n = len(toks)
            was_prefill = s.prefilling
            s.n_past += n
            s.node.length = s.n_past
            if was_prefill:
                s.prompt_pos += n
                if not s.prefilling:
                    self.cache.insert(s.req.prompt, s.id, s.node)
            else:
                s.pending = s.pending[n:]
        self.kv_used = self.ledger.cells()  # before any piece goes out, so stats() agrees with what callers saw
        for (s, _, _), row in zip(items, rows):
            if row < 0 or not s.busy:
                continue
            if s.matcher is not None and s.matcher.kind == "llg" and not masks_ready:
                masks.result()
                masks_ready = True
            self._sample(s, row, now)
        if masks is not None and not masks_ready:
            masks.result()
        self._account(now, self._step_tokens)

    def _relieve_kv(self, items: list[Item]) -> bool:
        """"No KV slot": drop a cached prefix, else halve prompt chunks, else fail the newest request."""
        if self.cache.evict_lru():
            return True
        if any(s.prefilling and len(t) > 1 for s, t, _ in items):
            self.prefill_limit = max(1, min(self.prefill_limit, max(len(t) for _, t, _ in items)) // 2)
            return True
        victim = max((it[0] for it in items if it[0].busy), key=lambda s: s.t_admit, default=None)
        if victim is None:
            return False
        self._finish(victim, FinishReason.ERROR, "KV cache full")
        return True

    def _sample(self, s: Slot, row: int, now: float) -> None:
        ptr = self.ll.llama_get_logits_ith(self.core.ctx, row)
        logits = np.ctypeslib.as_array(ptr, shape=(self.n_vocab,))
        tok = constrained_choice(s.sampler, logits, s.matcher, self.masks.mask[s.id])
        if tok < 0:
            self._finish(s, FinishReason.ERROR, "the grammar allows no token here")
            return
        self._accept(s, tok, now)

    def _accept(self, s: Slot, tok: int, now: float) -> None:
        if s.t_first is None:
            s.t_first = now
        if self.core.is_eog(tok):
            self._finish(s, FinishReason.EOG)
            return
        m = s.matcher
        if m is not None and not m.consume([tok]):
            self._finish(s, FinishReason.ERROR, f"grammar matcher error: {m.error()}")
            return
        new = [tok]
        req = s.req
        if m is not None and self.cfg.jump_forward and not m.is_stopped():
            room = min(req.max_tokens - s.generated - 1, self.cfg.n_ctx_per_slot - s.n_past - 2)
            ff = m.ff_tokens()[:max(0, room)]
            if ff and m.consume(ff):
                new.extend(ff)
                s.forced += len(ff)
        s.out.extend(new)
        s.generated += len(new)
        self._step_tokens += len(new)
        s.unsent_tokens += len(new)
        text = s.stream.feed(self.core.token_bytes(new))
        if text:
            self._emit(s, text, now)
        if s.stream.stopped:
            self._finish(s, FinishReason.STOP)
        elif m is not None and m.is_stopped():
            self._finish(s, FinishReason.GRAMMAR)
        elif s.generated >= req.max_tokens or s.n_past + len(new) >= self.cfg.n_ctx_per_slot:
            self._finish(s, FinishReason.LENGTH)
        else:
            s.pending = new

    def _emit(self, s: Slot, text: str, now: float) -> None:
        if s.t_last_piece is not None:
            s.itl.append(now - s.t_last_piece)
        s.t_last_piece = now
        s.req.handle._emit(Piece(text, now, s.unsent_tokens))
        s.unsent_tokens = 0

    def _finish(self, s: Slot, reason: FinishReason, error: str | None = None) -> None:
        req = s.req
        if req is None:
            return
        now = time.perf_counter()
        if s.stream is not None and reason != FinishReason.STOP:
            tail = s.stream.flush()
            if tail:
                self._emit(s, tail, now)
        self.mem.seq_rm(s.id)
        if s.node is not None:
            self.ledger.kill(s.node)
        if s.matcher is not None:
            s.matcher.close()
        completion = s.completion(reason, error, now)
        s.reset()
        self.cache.enforce_budget()
        self.kv_used = self.ledger.cells()
        req.handle._finish(completion)

    def _account(self, now: float, n: int) -> None:
        self.tok_log.append((now, n))
        while self.tok_log and now - self.tok_log[0][0] > 5.0:
            self.tok_log.popleft()
        self.kv_used = self.ledger.cells()

    def tokens_per_s(self, window: float = 5.0) -> float:
        """Generated tokens per second over the last `window` seconds (0 when idle)."""
        now = time.perf_counter()
        log = [(t, n) for t, n in list(self.tok_log) if now - t <= window]
        if not log:
            return 0.0
        span = max(now - log[0][0], 1e-3)
        return sum(n for _, n in log) / span
