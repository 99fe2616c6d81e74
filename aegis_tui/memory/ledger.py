"""Memory ledger from GGUF metadata: weights, KV cache and buffers per device, and whether a config fits."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from ..errors import BudgetError
from .ggml import CPU_REPACK_TYPES, bytes_per_value, is_quantised, row_bytes, type_name

MiB = 1024 * 1024
GiB = 1024 * MiB
CTX_PAD = 256  # llama_context pads n_ctx (and n_ctx_seq) up to a multiple of 256
SWA_PAD = 256  # llama_kv_cache_iswa pads the sliding-window cache to 256 cells
CUDA_CONTEXT_BYTES = 600 * MiB  # CUDA context, kernels, cuBLAS and pools: ~597 MiB measured on an H200 (CUDA 13)

# Default sliding-window layer pattern per architecture when the GGUF carries none (llama.cpp's
# load_swa_pattern(ml, n, dense_first) calls): layer il is SWA unless it is the pattern's dense layer.
SWA_PATTERNS: dict[str, tuple[int, bool]] = {
    "gemma2": (2, False), "gemma3": (6, False), "cohere2": (4, False), "gpt-oss": (2, False),
    "exaone4": (4, False), "olmo2": (4, False), "afmoe": (4, False), "smallthinker": (4, True),
}


def pad(n: int, multiple: int) -> int:
    return (n + multiple - 1) // multiple * multiple


@dataclass(frozen=True)
class LedgerConfig:
    """What llama.cpp is asked for; mirrors llama_context_params plus where layers live."""

    n_ctx: int  # total context cells requested (all sequences together), before llama.cpp pads it
    n_seq_max: int = 1  # sequences in the context: slots plus spare prefix sequences
    slots: int | None = None  # concurrent requests (n_parallel), for display; defaults to n_seq_max
    kv_type_k: str = "f16"
    kv_type_v: str = "f16"
    kv_unified: bool = True
    swa_full: bool = False
    n_gpu_layers: int | None = None  # None or -1: every layer and the output layer
    gpu: bool = False  # a GPU backend exists; without one every byte lives in host memory
    flash_attn: bool | None = None  # None: llama.cpp's auto
    n_batch: int = 2048
    n_ubatch: int = 512
    n_outputs_max: int = 0  # 0: llama.cpp's default (n_batch): logits rows reserved in the compute graph
    offload_kqv: bool = True


@dataclass
class ContextSettings:
    """The context llama.cpp will actually build from a LedgerConfig (after its padding rules)."""

    n_ctx: int
    n_ctx_seq: int
    n_seq_max: int
    n_stream: int
    kv_unified: bool
    swa_full: bool
    type_k: str
    type_v: str
    n_batch: int
    n_ubatch: int
    swa_cells: int  # cells per stream of the sliding-window cache (0: model has none)
    flash_attn: bool


@dataclass
class KVGroup:
    """Layers that share a cache size: the full-context layers, or the sliding-window layers."""

    swa: bool
    layers: int
    bytes_per_token: int  # K + V bytes of one cell across these layers
    cells: int  # per stream
    streams: int
    bytes: int


@dataclass
class Line:
    """One row of the ledger: a named amount of memory on one device."""

    name: str
    bytes: int
    where: str  # "gpu" or "cpu"
    kind: str  # "weights", "kv", "overhead"
    note: str = ""


@dataclass
class Ledger:
    """The prediction for one model and config, line by line, with totals per device."""

    model: str
    architecture: str
    config: LedgerConfig
    settings: ContextSettings
    device: str  # where the budget applies: "gpu" when offloading, else "cpu"
    lines: list[Line]
    kv_bytes_per_token: int  # per cell of the full-context layers (what one more token of context costs)
    kv_bytes_per_token_all_layers: int  # the whiteboard figure: every layer as if none had a window
    n_layers: int
    n_swa_layers: int
    gpu_layers: int  # repeating layers offloaded
    formula: str
    kv_groups: list[KVGroup] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def total(self, where: str | None = None, kind: str | None = None) -> int:
        return sum(ln.bytes for ln in self.lines if (where in (None, ln.where)) and (kind in (None, ln.kind)))

    @property
    def weights_bytes(self) -> int:
        return self.total(self.device, "weights")

    @property
    def kv_bytes(self) -> int:
        return self.total(self.device, "kv")

    @property
    def overhead_bytes(self) -> int:
        return self.total(self.device, "overhead")

    @property
    def total_bytes(self) -> int:
        return self.total(self.device)

    def to_dict(self) -> dict:
        s = self.settings
        return {
            "model": self.model, "architecture": self.architecture, "device": self.device,
            "kv_bytes_per_token": self.kv_bytes_per_token,
            "kv_bytes_per_token_all_layers": self.kv_bytes_per_token_all_layers,
            "kv_bytes": self.kv_bytes, "weights_bytes": self.weights_bytes,
            "overhead_bytes": self.overhead_bytes, "total_bytes": self.total_bytes,
            "total_gpu_bytes": self.total("gpu"), "total_cpu_bytes": self.total("cpu"),
            "n_ctx": s.n_ctx, "n_ctx_seq": s.n_ctx_seq, "n_seq_max": s.n_seq_max, "kv_unified": s.kv_unified,
            "swa_full": s.swa_full, "type_k": s.type_k, "type_v": s.type_v, "n_batch": s.n_batch,
            "n_ubatch": s.n_ubatch, "swa_cells": s.swa_cells, "flash_attn": s.flash_attn,
            "n_layers": self.n_layers, "n_swa_layers": self.n_swa_layers, "gpu_layers": self.gpu_layers,
            "slots": self.config.slots or self.config.n_seq_max, "formula": self.formula,
            "kv_groups": [asdict(g) for g in self.kv_groups],
            "lines": [asdict(ln) for ln in self.lines], "notes": list(self.notes),
        }


def swa_layers(info) -> list[bool]:
    """Which layers use the sliding-window cache, by llama.cpp's rule for this architecture."""
    n = info.n_layers
    if not info.sliding_window:
        return [False] * n
    if info.sliding_window_pattern:
        pat = list(info.sliding_window_pattern)
        return (pat + [False] * n)[:n]
    extra = getattr(info, "extra", {}) or {}
    n_pattern = extra.get("sliding_window_pattern") or extra.get("attention.sliding_window_pattern")
    default = SWA_PATTERNS.get(info.architecture)
    if default is None and n_pattern is None:
        return [False] * n  # llama.cpp gives this architecture no SWA cache: every layer is full size
    dense_first = default[1] if default else False
    n_pattern = int(n_pattern if n_pattern is not None else default[0])
    if dense_first:
        return [n_pattern == 0 or il % n_pattern != 0 for il in range(n)]
    return [n_pattern == 0 or il % n_pattern < n_pattern - 1 for il in range(n)]


def resolve_context(info, cfg: LedgerConfig) -> ContextSettings:
    """llama_context's rules: n_batch capped by n_ctx, n_ctx padded to 256, per-stream sizes, SWA cells."""
    n_seq = max(1, cfg.n_seq_max)
    n_ctx = cfg.n_ctx or info.context_length
    n_batch = min(n_ctx, cfg.n_batch)
    n_ubatch = min(n_batch, cfg.n_ubatch or n_batch)
    n_ctx = pad(n_ctx, CTX_PAD)
    if cfg.kv_unified:
        n_ctx_seq = n_ctx
    else:
        n_ctx_seq = pad(n_ctx // n_seq, CTX_PAD)
        n_ctx = n_ctx_seq * n_seq
    type_k, type_v = type_name(cfg.kv_type_k), type_name(cfg.kv_type_v)
    # quantised V needs flash attention: llama_init_from_model switches it on (auto) or refuses (disabled)
    flash = cfg.flash_attn if cfg.flash_attn is not None else True
    if is_quantised(type_v) and cfg.flash_attn is False:
        raise BudgetError(f"a quantised V cache ({type_v}) needs flash attention, which is disabled")
    swa_cells = 0
    if any(swa_layers(info)):
        if cfg.swa_full:
            swa_cells = n_ctx_seq
        else:
            window = info.sliding_window * (n_seq if cfg.kv_unified else 1) + n_ubatch
            swa_cells = pad(min(n_ctx_seq, window), SWA_PAD)
    return ContextSettings(
        n_ctx=n_ctx, n_ctx_seq=n_ctx_seq, n_seq_max=n_seq, n_stream=1 if cfg.kv_unified else n_seq,
        kv_unified=cfg.kv_unified, swa_full=cfg.swa_full, type_k=type_k, type_v=type_v, n_batch=n_batch,
        n_ubatch=n_ubatch, swa_cells=swa_cells, flash_attn=flash,
    )


def _layer_of(name: str) -> int | None:
    if name.startswith("blk."):
        return int(name.split(".")[1])
    return None


def _gpu_split(info, cfg: LedgerConfig) -> tuple[int, bool]:
    """(first offloaded repeating layer, output layer offloaded), by llama_model::load_tensors."""
    n = info.n_layers
    if not cfg.gpu:
        return n, False
    ngl = n + 1 if cfg.n_gpu_layers is None or cfg.n_gpu_layers < 0 else cfg.n_gpu_layers
    i_gpu_start = max(n + 1 - ngl, 0)
    return i_gpu_start, ngl >= 1


def _weights(info, cfg: LedgerConfig, i_gpu_start: int, output_gpu: bool) -> list[Line]:
    """Weights per device. token_embd is the input layer, always on the CPU; a tied output gets a copy."""
    n = info.n_layers
    buckets = {"gpu": 0, "cpu": 0}
    repack = 0
    names = {t.name for t in info.tensors}
    for t in info.tensors:
        il = _layer_of(t.name)
        if il is not None:
            where = "gpu" if i_gpu_start <= il < n and cfg.gpu else "cpu"
            if where == "cpu" and t.type in CPU_REPACK_TYPES and len(t.shape) == 2 and t.name.endswith(".weight"):
                repack += t.n_bytes
        elif t.name.startswith(("token_embd", "pos_embd", "token_types")):
            where = "cpu"
        else:
            where = "gpu" if output_gpu else "cpu"
        buckets[where] += t.n_bytes
    lines = []
    if buckets["gpu"] or cfg.gpu:
        lines.append(Line("weights (offloaded layers)", buckets["gpu"], "gpu", "weights"))
    lines.append(Line("weights (host)", buckets["cpu"], "cpu", "weights", "token embeddings always stay on the CPU"))
    tied = "output.weight" not in names and "token_embd.weight" in names
    if tied and output_gpu:
        emb = next(t.n_bytes for t in info.tensors if t.name == "token_embd.weight")
        lines.append(Line("tied output copy of token_embd", emb, "gpu", "weights",
                          "no output.weight: llama.cpp duplicates the embeddings on the output device"))
    if repack and not cfg.gpu:
        lines.append(Line("CPU repack copy", repack, "cpu", "overhead",
                          "Q4_0/Q4_K/IQ4_NL matmul weights re-laid for SIMD (x86 AVX2, ARM); CPU-dependent"))
    return lines


def _kv(info, st: ContextSettings, is_swa: list[bool], i_gpu_start: int, cfg: LedgerConfig):
    """KV bytes per device and per layer group. Each layer: (K row + V row) × cells × streams."""
    per_dev = {"gpu": 0, "cpu": 0}
    groups: dict[bool, KVGroup] = {}
    per_token_all = 0
    n_embd_v_max = max((info.n_head_kv[il] * info.head_dim_v for il in range(info.n_layers)), default=0)
    variable_v = len({info.n_head_kv[il] * info.head_dim_v for il in range(info.n_layers)}) > 1
    for il in range(info.n_layers):
        n_k = info.head_dim_k * info.n_head_kv[il]
        # without flash attention V is stored transposed, every layer padded to the widest
        n_v = n_embd_v_max if (not st.flash_attn and variable_v) else info.head_dim_v * info.n_head_kv[il]
        if n_k == 0:
            continue
        tok = row_bytes(st.type_k, n_k) + row_bytes(st.type_v, n_v)
        per_token_all += tok
        cells = st.swa_cells if is_swa[il] else st.n_ctx_seq
        g = groups.setdefault(is_swa[il], KVGroup(is_swa[il], 0, 0, cells, st.n_stream, 0))
        g.layers += 1
        g.bytes_per_token += tok
        g.bytes += tok * cells * st.n_stream
        where = "gpu" if cfg.gpu and cfg.offload_kqv and il >= i_gpu_start else "cpu"
        per_dev[where] += tok * cells * st.n_stream
    full = groups.get(False)
    return per_dev, [groups[k] for k in (False, True) if k in groups], (full.bytes_per_token if full else 0), per_token_all


def _compute_estimate(info, st: ContextSettings, cfg: LedgerConfig, any_full: bool, any_swa: bool) -> int:
    """Worst-case graph buffer (f32 activations): the logits step or one layer's step, whichever is larger.

    Logits step: n_vocab × logits rows + two n_embd rows per token. Layer step: residual and FFN
    activations, the KQ masks over every cache cell, and the attention itself (the KQ scores per head
    without flash attention, Q with it). Checked against sched_reserve's figures in ledger_proof.
    """
    n_ub = st.n_ubatch
    n_out = min(n_ub, cfg.n_outputs_max or st.n_batch)
    n_ff = int((getattr(info, "extra", {}) or {}).get("feed_forward_length", 4 * info.n_embd) or 0)
    logits_step = (info.n_vocab * n_out + 2 * info.n_embd * n_ub) * 4
    mask_cells = (st.n_ctx_seq if any_full else 0) + (st.swa_cells if any_swa else 0)
    layer_step = (2 * info.n_embd + 3 * n_ff) * n_ub * 4 + mask_cells * n_ub * (2 if st.flash_attn else 4)
    if st.flash_attn:
        layer_step += info.n_head * info.head_dim_k * n_ub * 4
    else:
        layer_step += info.n_head * st.n_ctx_seq * n_ub * 4
    return max(logits_step, layer_step)


def _formula(info, st: ContextSettings) -> str:
    """The whiteboard per-token formula with this model's numbers filled in (all layers, no window)."""
    b_k, b_v = bytes_per_value(st.type_k), bytes_per_value(st.type_v)
    n_l, h, d_k, d_v = info.n_layers, info.kv_heads, info.head_dim_k, info.head_dim_v
    value = n_l * h * (d_k * b_k + d_v * b_v)
    if d_k == d_v and b_k == b_v:
        return f"2 × L × H_kv × d_head × B = 2 × {n_l} × {h} × {d_k} × {b_k:g} B = {value:,.0f} B/token"
    return (f"L × H_kv × (d_k × B_k + d_v × B_v) = {n_l} × {h} × ({d_k} × {b_k:g} + {d_v} × {b_v:g}) B"
            f" = {value:,.0f} B/token")


def predict(info, cfg: LedgerConfig) -> Ledger:
    """The ledger for a model (ModelInfo) under a config, line by line."""
    st = resolve_context(info, cfg)
    is_swa = swa_layers(info)
    i_gpu_start, output_gpu = _gpu_split(info, cfg)
    lines = _weights(info, cfg, i_gpu_start, output_gpu)
    kv, kv_groups, per_token_full, per_token_all = _kv(info, st, is_swa, i_gpu_start, cfg)
    n_swa = sum(is_swa)
    swa_note = ""
    if n_swa:
        swa_note = (f"{n_swa} sliding-window layers hold {st.swa_cells} cells"
                    + (" (swa_full)" if st.swa_full else f" (window {info.sliding_window})"))
    for where in ("gpu", "cpu"):
        if kv[where] or (where == "cpu" and not cfg.gpu):
            lines.append(Line("KV cache", kv[where], where, "kv", swa_note))
    out_where = "cpu"
    lines.append(Line("output buffer (logits)", info.n_vocab * st.n_seq_max * 4, out_where, "overhead",
                      "n_vocab × n_seq_max × 4 B, host memory"))
    compute = _compute_estimate(info, st, cfg, n_swa < info.n_layers, n_swa > 0)
    compute_where = "gpu" if cfg.gpu and (output_gpu or i_gpu_start < info.n_layers) else "cpu"
    lines.append(Line("compute buffer (estimate)", compute, compute_where, "overhead",
                      "worst-case graph: logits rows × n_vocab or one layer's activations"))
    if compute_where == "gpu":
        mask_cells = (st.n_ctx_seq if n_swa < info.n_layers else 0) + (st.swa_cells if n_swa else 0)
        host = st.n_ubatch * (mask_cells * (2 if st.flash_attn else 4) + 4 * info.n_embd * 4)
        lines.append(Line("host compute buffer (estimate)", host, "cpu", "overhead",
                          "graph inputs staged in pinned host memory: KQ masks, input embeddings"))
        lines.append(Line("CUDA context (estimate)", CUDA_CONTEXT_BYTES, "gpu", "overhead",
                          "driver context, kernels, cuBLAS workspace: not in llama.cpp's buffers"))
    formula = _formula(info, st)
    notes = []
    if n_swa and not st.swa_full:
        notes.append("swa_full is off: sliding-window layers keep only window × sequences + n_ubatch cells")
    if not info.sliding_window_pattern and info.sliding_window and info.architecture not in SWA_PATTERNS:
        notes.append(f"no known sliding-window layer pattern for {info.architecture}: all layers sized full")
    n_gpu = max(0, info.n_layers - i_gpu_start) if cfg.gpu else 0
    return Ledger(
        model=info.name, architecture=info.architecture, config=cfg, settings=st,
        device="gpu" if cfg.gpu and (n_gpu or output_gpu) else "cpu", lines=lines,
        kv_bytes_per_token=per_token_full,
        kv_bytes_per_token_all_layers=per_token_all, n_layers=info.n_layers, n_swa_layers=n_swa,
        gpu_layers=n_gpu, formula=formula, kv_groups=kv_groups, notes=notes,
    )


def _flash(v) -> bool | None:
    """flash_attn as a bool, None (auto) or llama_flash_attn_type (-1 auto, 0 disabled, 1 enabled)."""
    if v is None or isinstance(v, bool):
        return v
    if isinstance(v, str):
        return {"auto": None, "on": True, "enabled": True, "off": False, "disabled": False}[v.lower()]
    return None if int(v) < 0 else bool(int(v))


def ledger_config_from_settings(settings: dict) -> LedgerConfig:
    """LedgerConfig from the engine's resolved llama.cpp context settings (names as in llama_context_params)."""
    def get(*keys, default=None):
        for k in keys:
            if k in settings and settings[k] is not None:
                return settings[k]
        return default

    n_seq = int(get("n_seq_max", default=1))
    return LedgerConfig(
        n_ctx=int(get("n_ctx", default=0)), n_seq_max=n_seq, slots=get("n_parallel", "slots"),
        kv_type_k=type_name(get("type_k", "kv_type_k", "kv_type", default="f16")),
        kv_type_v=type_name(get("type_v", "kv_type_v", "kv_type", default="f16")),
        kv_unified=bool(get("kv_unified", default=True)), swa_full=bool(get("swa_full", default=False)),
        n_gpu_layers=get("n_gpu_layers"), gpu=bool(get("gpu", "gpu_offload", default=False)),
        flash_attn=_flash(get("flash_attn", "flash_attn_type")), n_batch=int(get("n_batch", default=2048)),
        n_ubatch=int(get("n_ubatch", default=512)), n_outputs_max=int(get("n_outputs_max", default=0)),
        offload_kqv=bool(get("offload_kqv", default=True)),
    )
