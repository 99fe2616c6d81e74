"""Check the ledger against real llama.cpp contexts: build them and read the buffer sizes llama.cpp logs."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ..errors import EngineError
from .ggml import type_id
from .ledger import LedgerConfig, MiB, predict

# "load_tensors:   CPU_Mapped model buffer size =   235.16 MiB"
_MODEL_BUF = re.compile(r"load_tensors:\s+(\S+) model buffer size =\s+([\d.]+) MiB")
# "llama_kv_cache:        CPU KV buffer size =    12.00 MiB"
_KV_BUF = re.compile(r"llama_kv_cache:\s+(\S+) KV buffer size =\s+([\d.]+) MiB")
_OUT_BUF = re.compile(r"llama_context:\s+(\S+)\s+output buffer size =\s+([\d.]+) MiB")
_COMPUTE_BUF = re.compile(r"sched_reserve:\s+(\S+) compute buffer size =\s+([\d.]+) MiB")
_FLASH = re.compile(r"resolve_fused_ops: Flash Attention (enabled|not supported)")
# The logged sizes have two decimals of MiB: the reading itself is only good to half a hundredth.
LOG_RESOLUTION = 0.005 * MiB


def _sum(pattern: re.Pattern, lines: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for ln in lines:
        m = pattern.search(ln)
        if m:
            out[m.group(1)] = out.get(m.group(1), 0) + round(float(m.group(2)) * MiB)
    return out


@dataclass
class ProofRow:
    """One figure of one config: what the ledger predicted and what llama.cpp reported."""

    model: str
    config: str
    quantity: str
    predicted: int
    reported: int

    @property
    def error(self) -> float:
        return (self.predicted - self.reported) / self.reported if self.reported else float("inf")

    def as_dict(self) -> dict:
        return {"model": self.model, "config": self.config, "quantity": self.quantity,
                "predicted": self.predicted, "reported": self.reported, "error": self.error}


class LoadedModel:
    """A GGUF loaded once (n_gpu_layers=0) through engine.native, ready to build several contexts."""

    def __init__(self, path: str, n_gpu_layers: int = 0, n_threads: int = 1) -> None:
        from ..engine.native import llama, log_capture

        self.ll = llama()
        self.log = log_capture()
        self.path = str(path)
        self.n_threads = n_threads
        mark = self.log.mark()
        params = self.ll.llama_model_default_params()
        params.n_gpu_layers = n_gpu_layers
        params.vocab_only = False
        self.model = self.ll.llama_model_load_from_file(self.path.encode(), params)
        if not self.model:
            raise EngineError(f"llama.cpp could not load {path}")
        lines = self.log.since(mark)
        self.model_buffers = _sum(_MODEL_BUF, lines)
        self.model_size = int(self.ll.llama_model_size(self.model))

    def context_buffers(self, cfg: LedgerConfig) -> dict[str, dict[str, int]]:
        """Create and free one context for cfg; the KV, output and compute buffers it logged, per device."""
        ll = self.ll
        cp = ll.llama_context_default_params()
        cp.n_ctx = cfg.n_ctx
        cp.n_seq_max = cfg.n_seq_max
        cp.n_batch = cfg.n_batch
        cp.n_ubatch = cfg.n_ubatch
        cp.kv_unified = cfg.kv_unified
        cp.swa_full = cfg.swa_full
        cp.type_k = type_id(cfg.kv_type_k)
        cp.type_v = type_id(cfg.kv_type_v)
        cp.flash_attn_type = -1 if cfg.flash_attn is None else int(cfg.flash_attn)
        cp.offload_kqv = cfg.offload_kqv
        if cfg.n_outputs_max:
            cp.n_outputs_max = cfg.n_outputs_max
        cp.n_threads = cp.n_threads_batch = self.n_threads
        mark = self.log.mark()
        ctx = ll.llama_init_from_model(self.model, cp)
        lines = self.log.since(mark)
        if not ctx:
            errors = [ln for ln in lines if "error" in ln.lower()][-1:]
            raise EngineError(f"llama.cpp refused the context {describe(cfg)}: {' '.join(errors) or 'no reason'}")
        try:
            flash = [m.group(1) == "enabled" for m in map(_FLASH.search, lines) if m]
            return {"kv": _sum(_KV_BUF, lines), "output": _sum(_OUT_BUF, lines),
                    "compute": _sum(_COMPUTE_BUF, lines), "flash_attn": {"": int(flash[-1]) if flash else -1}}
        finally:
            ll.llama_free(ctx)

    def close(self) -> None:
        if self.model:
            self.ll.llama_model_free(self.model)
            self.model = None


def describe(cfg: LedgerConfig) -> str:
    kv = cfg.kv_type_k if cfg.kv_type_k == cfg.kv_type_v else f"{cfg.kv_type_k}/{cfg.kv_type_v}"
    return (f"n_ctx={cfg.n_ctx} seqs={cfg.n_seq_max} {kv} {'unified' if cfg.kv_unified else 'split'}"
            + (" swa_full" if cfg.swa_full else "") + (f" out={cfg.n_outputs_max}" if cfg.n_outputs_max else "")
            + ("" if cfg.flash_attn is None else (" fa" if cfg.flash_attn else " no-fa")))


def compare(info, loaded: LoadedModel, configs: list[LedgerConfig]) -> list[ProofRow]:
    """Predicted vs reported rows: weights once per model, then KV, output and compute per config."""
    name = info.architecture
    first = predict(info, configs[0])
    rows = [ProofRow(name, "model load", "weights (host)", first.total("cpu", "weights"),
                     loaded.model_buffers.get("CPU_Mapped", loaded.model_buffers.get("CPU", 0)))]
    repack = sum(ln.bytes for ln in first.lines if ln.name == "CPU repack copy")
    if repack or "CPU_REPACK" in loaded.model_buffers:
        rows.append(ProofRow(name, "model load", "CPU repack copy", repack, loaded.model_buffers.get("CPU_REPACK", 0)))
    for cfg in configs:
        rep = loaded.context_buffers(cfg)
        # flash attention 'auto' is resolved by llama.cpp after the KV cache is built; predict with its choice
        fa = rep["flash_attn"][""]
        led = predict(info, replace(cfg, flash_attn=bool(fa)) if cfg.flash_attn is None and fa >= 0 else cfg)
        d = describe(cfg)
        rows.append(ProofRow(name, d, "KV cache", led.total(kind="kv"), sum(rep["kv"].values())))
        out = sum(ln.bytes for ln in led.lines if ln.name.startswith("output buffer"))
        rows.append(ProofRow(name, d, "output buffer", out, sum(rep["output"].values())))
        comp = sum(ln.bytes for ln in led.lines if "compute buffer" in ln.name)
        rows.append(ProofRow(name, d, "compute buffer (estimate)", comp, sum(rep["compute"].values())))
    return rows


# The proof's configs: several n_ctx (one not a multiple of 256), slot counts, KV types, split/unified caches.
PROOF_CONFIGS = [
    LedgerConfig(n_ctx=4096, n_seq_max=4),
    LedgerConfig(n_ctx=2048, n_seq_max=4, kv_unified=False, kv_type_k="q8_0", kv_type_v="q8_0"),
    LedgerConfig(n_ctx=3000, n_seq_max=3, kv_type_k="q4_0", kv_type_v="q4_0", swa_full=True),
    LedgerConfig(n_ctx=1000, n_seq_max=1, kv_type_k="q8_0", kv_type_v="f16", n_ubatch=256),
    # the engine's shape: 4 slots + 4 prefix sequences, few logits rows, so a layer's activations dominate
    LedgerConfig(n_ctx=10240, n_seq_max=8, n_batch=512, n_outputs_max=8),
    LedgerConfig(n_ctx=4096, n_seq_max=4, n_outputs_max=4, flash_attn=False),
]


def proof_models() -> list[str]:
    """The embedded Gemma 3 (sliding window) and SmolLM2 (llama architecture) when installed."""
    from ..models import embedded_model_path, smollm2_path

    paths = [str(embedded_model_path())]
    smol = smollm2_path()
    if smol is not None:
        paths.append(str(smol))
    return paths


def run_proof(paths: list[str] | None = None, configs: list[LedgerConfig] | None = None,
              n_threads: int = 1) -> list[ProofRow]:
    """Load each model once, build every config's context from it, and compare."""
    from ..models import inspect_model

    rows: list[ProofRow] = []
    for path in paths or proof_models():
        info = inspect_model(path)
        loaded = LoadedModel(path, n_threads=n_threads)
        try:
            rows.extend(compare(info, loaded, configs or PROOF_CONFIGS))
        finally:
            loaded.close()
    return rows


def format_table(rows: list[ProofRow]) -> str:
    head = f"{'model':<8} {'config':<40} {'quantity':<26} {'predicted MiB':>13} {'reported MiB':>12} {'error':>8}"
    out = [head, "-" * len(head)]
    for r in rows:
        out.append(f"{r.model:<8} {r.config:<40} {r.quantity:<26} {r.predicted / MiB:>13.2f} "
                   f"{r.reported / MiB:>12.2f} {r.error:>+8.2%}")
    return "\n".join(out)
