"""ggml tensor types: enum ids, block layouts and row sizes; the one table the ledger, proof and engine use."""

from __future__ import annotations

from typing import NamedTuple


class GgmlType(NamedTuple):
    """One ggml_type: its enum value (ggml.h) and block layout (ggml's type_traits)."""

    id: int
    block_values: int  # values per block: 1 for float types, 32 for the legacy quantisations
    block_bytes: int


# Only the types a KV cache or a settings dict can name; weight types come from the GGUF as names.
GGML_TYPES: dict[str, GgmlType] = {
    "f32": GgmlType(0, 1, 4), "f16": GgmlType(1, 1, 2), "q4_0": GgmlType(2, 32, 18), "q4_1": GgmlType(3, 32, 20),
    "q5_0": GgmlType(6, 32, 22), "q5_1": GgmlType(7, 32, 24), "q8_0": GgmlType(8, 32, 34),
    "iq4_nl": GgmlType(20, 32, 18), "bf16": GgmlType(30, 1, 2),
}
_BY_ID = {t.id: name for name, t in GGML_TYPES.items()}
# The KV cache types Aegis offers (--kv-type, EngineConfig.kv_type).
KV_TYPES = ("f16", "q8_0", "q4_0")
# Weight types (GGUF names) the CPU backend repacks into a second, interleaved copy (x86 AVX2 / ARM NEON).
CPU_REPACK_TYPES = {"Q4_0", "Q4_K", "IQ4_NL"}


def type_name(t) -> str:
    """Normalise a type given as 'q8_0', 'Q8_0' or a ggml_type integer."""
    if isinstance(t, int):
        if t not in _BY_ID:
            raise ValueError(f"unknown ggml type {t}")
        return _BY_ID[t]
    name = str(t).lower()
    if name not in GGML_TYPES:
        raise ValueError(f"unknown KV cache type {t!r}")
    return name


def type_id(t) -> int:
    """The ggml_type integer llama_context_params.type_k / type_v take."""
    return GGML_TYPES[type_name(t)].id


def is_quantised(t) -> bool:
    return GGML_TYPES[type_name(t)].block_values > 1


def bytes_per_value(t) -> float:
    blk = GGML_TYPES[type_name(t)]
    return blk.block_bytes / blk.block_values


def row_bytes(t, n_values: int) -> int:
    """Bytes of a row of n_values in a ggml type (ggml_row_size); quantised rows are whole blocks."""
    blk = GGML_TYPES[type_name(t)]
    if n_values % blk.block_values:
        raise ValueError(f"{n_values} values are not a whole number of {t} blocks of {blk.block_values}")
    return n_values // blk.block_values * blk.block_bytes
