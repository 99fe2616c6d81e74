"""Grammar constraints per slot: llguidance matchers (fast path) or llama.cpp's GBNF sampler (fallback)."""

from __future__ import annotations

import ctypes
import threading
import warnings
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ..errors import GrammarError
from . import native

_tok_lock = threading.Lock()
_tokenizers: dict[str, object] = {}  # model path -> llguidance LLTokenizer (building one takes ~2 s)
_vocab_models: dict[str, object] = {}  # model path -> vocab-only llama_model, kept for the process lifetime


def vocab_model(model_path: str):
    """A vocab-only llama_model for a GGUF (no weights, fast), never freed.

    The llguidance tokenizer keeps a raw pointer to the vocabulary it was built from and calls llama_tokenize
    through it; building it from an engine's model would leave it dangling once that engine is closed (a
    segfault in the next engine for the same file). A process-lifetime vocabulary keeps the pointer valid.
    """
    with _tok_lock:
        return _vocab_model_locked(model_path)


def _vocab_model_locked(model_path: str):
    model = _vocab_models.get(model_path)
    if model is None:
        ll = native.llama()
        params = ll.llama_model_default_params()
        params.vocab_only = True
        params.n_gpu_layers = 0
        model = ll.llama_model_load_from_file(model_path.encode(), params)
        if not model:
            raise GrammarError(f"{model_path}: llama.cpp could not load the vocabulary")
        _vocab_models[model_path] = model
    return model


def llg_tokenizer(model_path: str):
    """The llguidance tokenizer for a model file, built once per process on its own vocabulary.

    Built on the process-lifetime vocabulary (see vocab_model), with its EOS/EOT tokens as end of generation.
    """
    with _tok_lock:
        tok = _tokenizers.get(model_path)
        if tok is None:
            ll = native.llama()
            own_vocab = ll.llama_model_get_vocab(_vocab_model_locked(model_path))
            eog = sorted({t for t in (ll.llama_vocab_eos(own_vocab), ll.llama_vocab_eot(own_vocab))
                          if t >= 0 and ll.llama_vocab_is_eog(own_vocab, t)})
            from llguidance.llamacpp import lltokenizer_from_vocab

            with warnings.catch_warnings():  # it calls a deprecated llama_cpp alias once per token
                warnings.simplefilter("ignore", DeprecationWarning)
                tok = lltokenizer_from_vocab(own_vocab, eos_token=eog or None)
            _tokenizers[model_path] = tok
        return tok


@dataclass
class CompiledGrammar:
    """A grammar ready to start matchers from: an llguidance template matcher, or GBNF text for llama.cpp."""

    kind: str  # "llg" or "gbnf"
    text: str
    template: object | None = None  # LLMatcher in its initial state (deep-copied per request)
    llg_error: str = ""


class GrammarCompiler:
    """Compiles GBNF once per text (LRU) and hands out fresh per-request matchers."""

    def __init__(self, model_path: str, vocab, max_cached: int = 16) -> None:
        self._model_path = model_path
        self._vocab = vocab
        self._cache: OrderedDict[str, CompiledGrammar] = OrderedDict()
        self._lock = threading.Lock()
        self._max = max_cached
        self.force_fallback = False  # tests and benchmarks can pin the llama.cpp GBNF path
        self._preparing: threading.Thread | None = None

    def prepare(self) -> None:
        """Start building the llguidance tokenizer in the background (about 3 s on 2 cores for a 262k-token
        vocabulary, once per model file and process), so the first grammar-constrained request does not wait for
        it; compile() takes it from the cache, or waits on its lock while it is being built."""
        with _tok_lock:
            if self._model_path in _tokenizers or self._preparing is not None:
                return

        def build() -> None:
            try:
                llg_tokenizer(self._model_path)
            except Exception:  # noqa: BLE001 - compile() raises it again, where a caller can act on it
                pass

        self._preparing = threading.Thread(target=build, name="aegis-llg-tokenizer", daemon=True)
        self._preparing.start()

    def join(self) -> None:
        """Wait for a tokenizer build prepare() started (an engine closing must not leave it running)."""
        if self._preparing is not None:
            self._preparing.join()

    def compile(self, text: str) -> CompiledGrammar:
        key = ("F:" if self.force_fallback else "L:") + text
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
        compiled = self._compile(text)
        with self._lock:
            self._cache[key] = compiled
            while len(self._cache) > self._max:
                self._cache.popitem(last=False)
        return compiled

    def _compile(self, text: str) -> CompiledGrammar:
        llg_error = "disabled"
        if not self.force_fallback:
            import llguidance

            try:
                grammar = llguidance.grammar_from("gbnf", text)
                matcher = llguidance.LLMatcher(llg_tokenizer(self._model_path), grammar, log_level=0)
                if matcher.is_error():
                    llg_error = matcher.get_error()
                else:
                    _warm_up(matcher)
                    return CompiledGrammar("llg", text, matcher)
            except (ValueError, RuntimeError, TypeError) as exc:
                llg_error = str(exc)
        sampler, gbnf_error = init_gbnf_sampler(self._vocab, text)
        if sampler is None:
            raise GrammarError(
                "grammar rejected by both grammar engines: "
                f"llguidance: {_first_line(llg_error)}; llama.cpp: {_first_line(gbnf_error)}"
            )
        native.llama().llama_sampler_free(sampler)
        return CompiledGrammar("gbnf", text, None, llg_error)

    def matcher(self, compiled: CompiledGrammar):
        """A fresh matcher for one request."""
        if compiled.kind == "llg":
            return LlgMatcher(compiled.template.deep_copy())
        sampler, err = init_gbnf_sampler(self._vocab, compiled.text)
        if sampler is None:
            raise GrammarError(f"llama.cpp rejected the grammar: {_first_line(err)}")
        return GbnfMatcher(sampler)


def _warm_up(template) -> None:
    """Compute a first mask on a copy: llguidance builds lexer states lazily, and copies share them."""
    probe = template.deep_copy()
    probe.compute_bitmask()
    for tok in probe.compute_ff_tokens()[:32]:
        probe.consume_token(tok)
        probe.compute_bitmask()


def _first_line(text: str) -> str:
    text = (text or "").strip()
    return text.splitlines()[0][:300] if text else "unknown error"


def init_gbnf_sampler(vocab, text: str):
    """llama.cpp's GBNF sampler for text, or (None, its error): printed parse errors are captured, not shown."""
    ll = native.llama()
    log = native.log_capture()
    with native.stderr_captured() as err:
        mark = log.mark()
        sampler = ll.llama_sampler_init_grammar(vocab, text.encode("utf-8"), b"root")
    if not sampler:
        printed = [ln.strip() for ln in err.text.splitlines() if "error" in ln]
        errs = printed[:1] or log.errors_since(mark) or log.since(mark)
        return None, "; ".join(e.strip() for e in errs[-3:]) or "parse error"
    return sampler, ""


class MaskFiller:
    """llguidance token bitmasks for a step's constrained slots, computed together on a worker thread."""

    def __init__(self, n_rows: int, n_vocab: int) -> None:
        self.mask = np.zeros((n_rows, (n_vocab + 31) // 32), np.int32)  # row i: sequence i
        self._threads = max(1, min(n_rows, 4))
        self._exec = None
        self._pool: ThreadPoolExecutor | None = None

    def start(self, jobs: list[tuple[object, int]]) -> Future | None:
        """Fill mask rows for (llguidance matcher, row) jobs; None when there are none.

        Started before llama_decode so the two overlap: both release the GIL, and the matchers already hold
        every token up to now. Wait on the future before reading a row.
        """
        if not jobs:
            return None
        if self._exec is None:
            import llguidance

            self._exec = llguidance.LLExecutor(num_threads=self._threads)
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="aegis-mask")
        from llguidance.numpy import fill_next_token_bitmask_par

        return self._pool.submit(fill_next_token_bitmask_par, self._exec, jobs, self.mask)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)


class LlgMatcher:
    """llguidance matcher for one request; masks are filled for all slots together by a MaskFiller."""

    kind = "llg"

    def __init__(self, matcher) -> None:
        self.m = matcher

    def consume(self, tokens: list[int]) -> bool:
        return self.m.consume_tokens(tokens) if len(tokens) > 1 else self.m.consume_token(tokens[0])

    def ff_tokens(self) -> list[int]:
        return self.m.compute_ff_tokens()

    def is_stopped(self) -> bool:
        return self.m.is_stopped()

    def is_error(self) -> bool:
        return self.m.is_error()

    def error(self) -> str:
        return self.m.get_error()

    def close(self) -> None:
        self.m = None


_TD = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)], align=True)


class GbnfMatcher:
    """llama.cpp's grammar sampler with common_sampler's rejection-first trick.

    The token chosen without constraint is checked alone (one grammar step over one candidate); only
    when the grammar rejects it is the grammar applied to the whole vocabulary and the choice redone.
    """

    kind = "gbnf"

    def __init__(self, sampler) -> None:
        self._ll = native.llama()
        self._smpl = sampler
        self._one = np.zeros(1, dtype=_TD)
        self._one_arr = self._array(self._one)
        self._full: np.ndarray | None = None
        self._full_arr = None

    def _array(self, data: np.ndarray):
        arr = self._ll.llama_token_data_array()
        arr.data = data.ctypes.data_as(self._ll.llama_token_data_p)
        arr.size = len(data)
        arr.selected = -1
        arr.sorted = False
        return arr

    def allows(self, token: int) -> bool:
        self._one[0] = (token, 0.0, 0.0)
        self._one_arr.size = 1
        self._one_arr.selected = -1
        self._ll.llama_sampler_apply(self._smpl, ctypes.byref(self._one_arr))
        return bool(np.isfinite(self._one["logit"][0]))

    def mask_logits(self, logits: np.ndarray) -> np.ndarray:
        """Logits with every token the grammar rejects set to -inf (a copy)."""
        n = len(logits)
        if self._full is None or len(self._full) != n:
            self._full = np.zeros(n, dtype=_TD)
            self._full["id"] = np.arange(n, dtype=np.int32)
            self._full_arr = self._array(self._full)
        self._full["logit"] = logits
        self._full_arr.size = n
        self._full_arr.selected = -1
        self._full_arr.sorted = False
        self._ll.llama_sampler_apply(self._smpl, ctypes.byref(self._full_arr))
        return self._full["logit"].copy()

    def consume(self, tokens: list[int]) -> bool:
        for t in tokens:
            self._ll.llama_sampler_accept(self._smpl, int(t))
        return True

    def ff_tokens(self) -> list[int]:
        return []

    def is_stopped(self) -> bool:
        return False

    def is_error(self) -> bool:
        return False

    def error(self) -> str:
        return ""

    def close(self) -> None:
        if self._smpl:
            self._ll.llama_sampler_free(self._smpl)
            self._smpl = None
