"""Engine settings: model, slots, context, KV cache type and the llama.cpp context settings they resolve to."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..errors import EngineError
from ..memory.ggml import KV_TYPES

FLASH_ATTN = {"auto": -1, "off": 0, "on": 1}


@dataclass(frozen=True)
class Sampling:
    """Per-request sampling: temperature 0 is greedy; top_k 0 and top_p 1 switch those filters off."""

    temperature: float = 0.0
    top_p: float = 1.0
    top_k: int = 0
    seed: int = 0

    @property
    def greedy(self) -> bool:
        return self.temperature <= 0.0 or self.top_k == 1


def _default_threads() -> int:
    return max(1, min(os.cpu_count() or 2, 8))


@dataclass
class EngineConfig:
    """Everything the engine needs to load a model and size its slots; see llama_context_settings()."""

    model_path: str
    n_parallel: int = 4
    n_ctx_per_slot: int = 4096  # a ~3000-character Chinese document is ~2,100 Gemma tokens
    n_batch: int = 512
    n_ubatch: int = 512
    kv_type: str = "f16"
    kv_type_v: str | None = None  # None: same as kv_type
    n_gpu_layers: int | None = None  # None: all layers when llama.cpp can offload, else 0
    flash_attn: str = "auto"  # auto / on / off; a quantised V cache needs it on (auto is turned on)
    swa_full: bool | None = None  # None: on for sliding-window models while the prefix cache is on
    jump_forward: bool = True
    spare_prefix_seqs: int = 4  # extra sequences that hold cached prompt prefixes; 0 disables the cache
    prefix_cache_tokens: int | None = None  # KV cells the cached prefixes may hold alone; None: n_ctx_per_slot
    seed: int = 0
    n_threads: int = field(default_factory=_default_threads)
    n_threads_batch: int | None = None

    def __post_init__(self) -> None:
        self.model_path = str(self.model_path)
        if self.n_parallel < 1:
            raise EngineError("n_parallel must be at least 1")
        if self.n_ctx_per_slot < 16:
            raise EngineError("n_ctx_per_slot must be at least 16 tokens")
        if self.n_batch < 1 or self.n_ubatch < 1:
            raise EngineError("n_batch and n_ubatch must be positive")
        if self.spare_prefix_seqs < 0:
            raise EngineError("spare_prefix_seqs cannot be negative")
        for name in (self.kv_type, self.kv_type_v or self.kv_type):
            if name not in KV_TYPES:
                raise EngineError(f"unknown KV cache type '{name}' (choose from {', '.join(KV_TYPES)})")
        if self.flash_attn not in FLASH_ATTN:
            raise EngineError(f"flash_attn must be one of {', '.join(FLASH_ATTN)}")
        if (self.kv_type_v or self.kv_type) != "f16" and self.flash_attn == "off":
            raise EngineError(
                f"a quantised V cache ({self.kv_type_v or self.kv_type}) needs flash attention; "
                "use flash_attn='auto' or 'on', or kv_type='f16'"
            )

    @property
    def cache_tokens(self) -> int:
        if self.spare_prefix_seqs == 0:
            return 0
        return self.n_ctx_per_slot if self.prefix_cache_tokens is None else max(0, self.prefix_cache_tokens)

    @property
    def n_ctx(self) -> int:
        """Total KV cells: every slot's full context plus what cached prefixes may hold on their own."""
        return self.n_parallel * self.n_ctx_per_slot + self.cache_tokens

    @property
    def n_seq_max(self) -> int:
        return self.n_parallel + self.spare_prefix_seqs

    def resolved_swa_full(self, sliding_window: int) -> bool:
        """swa_full as used: explicit if set, else on for SWA models with a prefix cache.

        With swa_full off llama.cpp's SWA cache keeps only the last n_swa positions of each sequence
        (cells masked by the window are overwritten lazily), so a cached prefix can be continued only at
        its end; a prompt that shares a shorter part of it (same document, another question) would need
        SWA cells that may already be gone. A full-size SWA cache keeps them, at n_ctx cells per SWA layer.
        """
        if self.swa_full is not None:
            return self.swa_full
        return sliding_window > 0 and self.spare_prefix_seqs > 0

    def resolved_flash_attn(self) -> str:
        if (self.kv_type_v or self.kv_type) != "f16" and self.flash_attn == "auto":
            return "on"
        return self.flash_attn

    def llama_context_settings(self, sliding_window: int | None = None) -> dict:
        """The llama_context_params this config resolves to (the ledger reports the same values).

        sliding_window: the model's SWA window; None reads it from the GGUF (ModelError if unreadable).
        """
        if sliding_window is None:
            from ..models import inspect_model

            sliding_window = inspect_model(self.model_path).sliding_window
        n_batch = min(self.n_batch, self.n_ctx)
        return {
            "n_ctx": self.n_ctx,
            "n_seq_max": self.n_seq_max,
            "kv_unified": True,
            "swa_full": self.resolved_swa_full(sliding_window),
            "type_k": self.kv_type,
            "type_v": self.kv_type_v or self.kv_type,
            "flash_attn": self.resolved_flash_attn(),
            "n_batch": n_batch,
            "n_ubatch": min(self.n_ubatch, n_batch),
            # logits rows: the scheduler asks for at most one per sequence in a batch; the default (n_batch)
            # would reserve n_batch × n_vocab floats (512 MiB for a 262k vocabulary)
            "n_outputs_max": self.n_seq_max,
        }
