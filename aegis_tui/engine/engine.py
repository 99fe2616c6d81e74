"""Engine: loads one model and one context, validates submissions, and hands them to the scheduler."""

from __future__ import annotations

import ctypes
import sys
import threading
from typing import Callable

import numpy as np

from ..errors import ContextOverflowError, EngineError, ModelError
from ..memory.ggml import type_id
from . import native
from .config import FLASH_ATTN, EngineConfig, Sampling
from .grammar_matcher import GrammarCompiler
from .handle import EngineStats, Piece, RequestHandle, SlotState
from .scheduler import Scheduler
from .slots import Request


class Engine:
    """One model, one llama.cpp context, n_parallel slots; submit() from any thread."""

    # Chat-template tokens render as nothing: tokenize() adds the model's BOS itself, and generation ends at EOG.
    bos_text = ""
    eos_text = ""

    def __init__(self, config: EngineConfig) -> None:
        from ..models import inspect_model

        self.config = config
        self.model_info = inspect_model(config.model_path)  # ModelError before llama.cpp sees the file
        self.chat_template: str | None = self.model_info.chat_template
        self.ll = ll = native.llama()
        self.log = native.log_capture()
        self.model = self.ctx = None
        self._closed = False
        self._lock = threading.Lock()
        self._piece_cache: dict[int, bytes] = {}
        mark = self.log.mark()

        mp = ll.llama_model_default_params()
        gpu = ll.llama_supports_gpu_offload()
        mp.n_gpu_layers = (999 if gpu else 0) if config.n_gpu_layers is None else config.n_gpu_layers
        self.n_gpu_layers = mp.n_gpu_layers
        self.ledger = self._preflight(gpu)  # BudgetError before anything is allocated
        self.model = ll.llama_model_load_from_file(config.model_path.encode(), mp)
        if not self.model:
            raise ModelError(f"{config.model_path}: llama.cpp could not load the model: {self._log_error(mark)}")
        self.vocab = ll.llama_model_get_vocab(self.model)
        self.n_vocab = ll.llama_vocab_n_tokens(self.vocab)
        self.n_swa = ll.llama_model_n_swa(self.model)

        self.settings = config.llama_context_settings(self.n_swa)
        self.swa_full = self.settings["swa_full"]
        cp = ll.llama_context_default_params()
        cp.n_ctx = self.settings["n_ctx"]
        cp.n_batch = self.settings["n_batch"]
        cp.n_ubatch = self.settings["n_ubatch"]
        cp.n_seq_max = self.settings["n_seq_max"]
        cp.n_threads = config.n_threads
        cp.n_threads_batch = config.n_threads_batch or config.n_threads
        cp.kv_unified = True
        cp.swa_full = self.swa_full
        cp.type_k = type_id(self.settings["type_k"])
        cp.type_v = type_id(self.settings["type_v"])
        cp.flash_attn_type = FLASH_ATTN[self.settings["flash_attn"]]
        cp.n_outputs_max = self.settings["n_outputs_max"]
        cp.no_perf = True
        self.ctx = ll.llama_init_from_model(self.model, cp)
        if not self.ctx:
            ll.llama_model_free(self.model)
            self.model = None
            raise EngineError(f"llama.cpp could not create the context ({self.settings}): {self._log_error(mark)}")
        self.load_log = self.log.since(mark)
        self.mem = ll.llama_get_memory(self.ctx)
        self.n_batch = ll.llama_n_batch(self.ctx)
        self.n_ctx = ll.llama_n_ctx(self.ctx)
        self.compiler = GrammarCompiler(config.model_path, self.vocab)
        self.compiler.prepare()  # the grammar tokenizer builds while the caller reads its document
        self._eog_cache: dict[int, bool] = {}
        self._sched = Scheduler(self)

    def _preflight(self, gpu: bool):
        """Predict memory with the ledger and refuse a config that will not fit (with what would)."""
        from ..memory.fit import check_fits
        from ..memory.gauge import memory_budget
        from ..memory.ledger import ledger_config_from_settings

        cfg = self.config
        settings = cfg.llama_context_settings(self.model_info.sliding_window)
        budget = memory_budget(gpu and self.n_gpu_layers > 0)  # host RAM when NVML sees no GPU: a CPU plan
        lcfg = ledger_config_from_settings({**settings, "n_parallel": cfg.n_parallel, "gpu": budget.gpu,
                                            "n_gpu_layers": self.n_gpu_layers if budget.gpu else 0})
        return check_fits(self.model_info, lcfg, budget.bytes)

    # -- model facts ---------------------------------------------------------------------------------

    @property
    def n_ctx_per_slot(self) -> int:
        return self.config.n_ctx_per_slot

    @property
    def n_parallel(self) -> int:
        return self.config.n_parallel

    def _log_error(self, mark: int) -> str:
        lines = self.log.errors_since(mark) or self.log.since(mark)[-3:]
        return "; ".join(ln.strip() for ln in lines[-3:]) or "no details logged"

    def is_eog(self, tok: int) -> bool:
        hit = self._eog_cache.get(tok)
        if hit is None:
            hit = self._eog_cache[tok] = bool(self.ll.llama_vocab_is_eog(self.vocab, tok))
        return hit

    def token_bytes(self, tokens) -> bytes:
        """The bytes of generated tokens (control tokens render as nothing)."""
        out = []
        cache = self._piece_cache
        for t in tokens:
            b = cache.get(t)
            if b is None:
                b = cache[t] = self._piece(int(t))
            out.append(b)
        return b"".join(out)

    def _piece(self, tok: int) -> bytes:
        buf = ctypes.create_string_buffer(64)
        n = self.ll.llama_token_to_piece(self.vocab, tok, buf, 64, 0, False)
        if n < 0:
            buf = ctypes.create_string_buffer(-n)
            n = self.ll.llama_token_to_piece(self.vocab, tok, buf, -n, 0, False)
        return buf.raw[:n]

    def tokenize(self, text: str, add_special: bool = True) -> list[int]:
        """Tokens of text; special-token text such as <start_of_turn> is parsed as the special token."""
        return native.tokenize(self.vocab, text, add_special)

    # -- requests ------------------------------------------------------------------------------------

    def submit(self, prompt: str | list[int], *, grammar: str | None = None, max_tokens: int = 256,
               sampling: Sampling = Sampling(), stop: list[str] | None = None,
               on_piece: Callable[[Piece], None] | None = None) -> RequestHandle:
        """Queue a request; raises ContextOverflowError / GrammarError / EngineError before anything runs."""
        if self._closed:
            raise EngineError("engine is closed")
        if not self._sched.thread.is_alive():
            raise EngineError(f"the engine has stopped: {self._sched.fatal or 'its thread ended'}")
        tokens = self.tokenize(prompt) if isinstance(prompt, str) else [int(t) for t in prompt]
        if not tokens:
            raise EngineError("empty prompt")
        if len(tokens) >= self.n_ctx_per_slot:
            raise ContextOverflowError(
                f"prompt is {len(tokens)} tokens; a slot holds {self.n_ctx_per_slot} "
                "(prompt plus at least one generated token): raise --ctx or use a shorter document"
            )
        if max_tokens < 1:
            raise EngineError("max_tokens must be at least 1")
        if any(t < 0 or t >= self.n_vocab for t in tokens):
            raise EngineError("prompt has token ids outside the vocabulary")
        compiled = self.compiler.compile(grammar) if grammar is not None else None
        handle = RequestHandle(on_piece, cancel_fn=self._sched.cancel, alive_fn=self._sched.thread.is_alive)
        req = Request(handle, np.asarray(tokens, dtype=np.int32), max_tokens, sampling, compiled, list(stop or []))
        self._sched.enqueue(req)
        return handle

    def generate(self, prompt: str | list[int], **kwargs):
        """submit() and wait: the Completion."""
        return self.submit(prompt, **kwargs).result()

    # -- state ---------------------------------------------------------------------------------------

    def stats(self) -> EngineStats:
        s = self._sched
        slots = []
        for sl in s.slots:
            req = sl.req
            slots.append(SlotState(sl.id, req is not None, req.handle.id if req else None, sl.generated,
                                   len(req.prompt) if req else 0))
        return EngineStats(
            n_slots=len(slots), busy_slots=sum(x.busy for x in slots), queue_len=s.queue_len(),
            kv_used=s.kv_used, kv_total=self.n_ctx, tokens_per_s=s.tokens_per_s(), slots=slots,
            prefix_cache_entries=len(s.cache.entries),
        )

    def seq_positions(self) -> dict[int, tuple[int, int]]:
        """llama.cpp's own view: (pos_min, pos_max) of every sequence that holds cells (-1: empty)."""
        def probe():
            out = {}
            for seq in range(self.config.n_seq_max):
                lo = self.ll.llama_memory_seq_pos_min(self.mem, seq)
                hi = self.ll.llama_memory_seq_pos_max(self.mem, seq)
                if hi >= 0:
                    out[seq] = (lo, hi)
            return out

        return self._sched.call(probe)

    def next_token_logits(self, tokens: list[int]) -> np.ndarray:
        """Logits after tokens, decoded alone in an idle slot's sequence (a probe for tests and diagnostics)."""
        sched = self._sched

        def probe():
            free = [s for s in sched.slots if not s.busy]
            if not free:
                raise EngineError("no idle slot for a probe")
            seq = free[0].id
            sched.mem.seq_rm(seq)
            b = sched.batch
            try:
                for start in range(0, len(tokens), b.n):
                    (row,) = b.fill([(seq, tokens[start:start + b.n], start, True)])
                    rc = self.ll.llama_decode(self.ctx, b.b)
                    if rc != 0:
                        raise EngineError(f"llama_decode failed (code {rc})")
                ptr = self.ll.llama_get_logits_ith(self.ctx, row)
                return np.ctypeslib.as_array(ptr, shape=(self.n_vocab,)).copy()
            finally:
                sched.mem.seq_rm(seq)

        return sched.call(probe)

    def exclusive(self, fn: Callable[[], object], timeout: float | None = 30.0):
        """fn() run on the engine thread between steps, so nothing else decodes meanwhile; its result."""
        return self._sched.call(fn, timeout)

    def state_bytes(self) -> int:
        """llama_state_get_size: bytes of the context's state, which grows with the KV cells in use."""
        return self._sched.call(lambda: int(self.ll.llama_state_get_size(self.ctx)))

    def clear_prefix_cache(self) -> None:
        def drop():
            self._sched.cache.clear()
            self._sched.kv_used = self._sched.ledger.cells()

        self._sched.call(drop)

    def set_grammar_fallback(self, on: bool) -> None:
        """Pin llama.cpp's GBNF sampler instead of llguidance (for benchmarks and tests)."""
        self.compiler.force_fallback = on

    def set_jump_forward(self, on: bool) -> None:
        self.config.jump_forward = on

    # -- lifetime ------------------------------------------------------------------------------------

    def close(self) -> None:
        """End every request (finish_reason "closed"), stop the thread, free the context and model."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        sched = getattr(self, "_sched", None)
        if sched is not None:
            if threading.current_thread() is sched.thread:
                # called from an on_piece callback: the scheduler ends its loop, the context stays allocated
                sched.close(join=False)
                return
            sched.close()
        compiler = getattr(self, "compiler", None)
        if compiler is not None:
            compiler.join()
        if sys.is_finalizing():
            return  # at interpreter exit the native library may already be half torn down
        if self.ctx:
            self.ll.llama_free(self.ctx)
            self.ctx = None
        if self.model:
            self.ll.llama_model_free(self.model)
            self.model = None

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass
