"""The ledger against real llama.cpp contexts: weights and KV within 1 % of the buffer sizes it logs."""

from __future__ import annotations

import pytest

from aegis_tui.memory.ledger import LedgerConfig
from aegis_tui.memory.proof import LOG_RESOLUTION, ProofRow, format_table, run_proof

pytestmark = pytest.mark.model

CONFIGS = [
    LedgerConfig(n_ctx=4096, n_seq_max=4),  # unified f16; gemma3's SWA layers hold 512 × 4 + 512 cells
    LedgerConfig(n_ctx=2048, n_seq_max=4, kv_unified=False, kv_type_k="q8_0", kv_type_v="q8_0"),  # 4 streams
    LedgerConfig(n_ctx=3000, n_seq_max=3, kv_type_k="q4_0", kv_type_v="q4_0", swa_full=True),  # padded to 3072
    LedgerConfig(n_ctx=10240, n_seq_max=8, n_batch=512, n_outputs_max=8, flash_attn=False),  # engine-like
]


@pytest.fixture(scope="module")
def rows(embedded_model, smollm2_model) -> list[ProofRow]:
    rows = run_proof([embedded_model, smollm2_model], CONFIGS)
    print("\n" + format_table(rows))
    return rows


def _close(r: ProofRow, rel: float) -> bool:
    return abs(r.predicted - r.reported) <= max(rel * r.reported, LOG_RESOLUTION)


def test_every_config_was_built(rows):
    for arch in ("gemma3", "llama"):
        kv = [r for r in rows if r.model == arch and r.quantity == "KV cache"]
        assert len(kv) == len(CONFIGS) and all(r.reported > 0 for r in kv)


@pytest.mark.parametrize("quantity", ["weights (host)", "KV cache", "output buffer"])
def test_within_one_percent(rows, quantity):
    checked = [r for r in rows if r.quantity == quantity]
    assert checked
    bad = [r for r in checked if not _close(r, 0.01)]
    assert not bad, format_table(bad)


def test_compute_estimate_within_25_percent(rows):
    checked = [r for r in rows if r.quantity.startswith("compute")]
    bad = [r for r in checked if not _close(r, 0.25)]
    assert not bad, format_table(bad)


def test_swa_cache_is_smaller_than_full(rows):
    # gemma3 at n_ctx 4096, 4 seqs: 3 full layers × 4096 + 15 SWA layers × 2560 cells, 1 KiB per cell-layer
    row = next(r for r in rows if r.model == "gemma3" and r.quantity == "KV cache")
    assert row.reported == (3 * 4096 + 15 * 2560) * 1024
