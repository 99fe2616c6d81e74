"""Ledger maths against hand-computed cases, the ggml type table, the fit check and the whiteboard report."""

from __future__ import annotations

import pytest

from aegis_tui.errors import BudgetError
from aegis_tui.memory.fit import check_fits, max_context
from aegis_tui.memory.gauge import Budget
from aegis_tui.memory.ggml import GGML_TYPES, KV_TYPES, row_bytes, type_id, type_name
from aegis_tui.memory.ledger import (
    GiB,
    LedgerConfig,
    MiB,
    ledger_config_from_settings,
    predict,
    resolve_context,
    swa_layers,
)
from aegis_tui.memory.whiteboard import whiteboard
from aegis_tui.models import ModelInfo, TensorInfo


def synthetic(arch="qwen2", n_layers=28, n_head=28, n_head_kv=4, head_dim=128, n_embd=3584, n_vocab=152064,
              window=0, tied=False, layer_bytes=1000, embd_bytes=5000, out_bytes=7000, ctx=32768, pattern=None):
    """A ModelInfo with the geometry of a real model and round tensor sizes (no file needed)."""
    tensors = [TensorInfo("token_embd.weight", "Q8_0", [n_embd, n_vocab], embd_bytes),
               TensorInfo("output_norm.weight", "F32", [n_embd], 4 * n_embd)]
    if not tied:
        tensors.append(TensorInfo("output.weight", "Q6_K", [n_embd, n_vocab], out_bytes))
    for il in range(n_layers):
        tensors.append(TensorInfo(f"blk.{il}.ffn_down.weight", "Q4_K", [4 * n_embd, n_embd], layer_bytes))
    return ModelInfo(
        path="synthetic.gguf", file_size=0, architecture=arch, name=arch, quantization="Q4_K_M",
        n_layers=n_layers, n_embd=n_embd, n_head=n_head, n_head_kv=[n_head_kv] * n_layers, head_dim_k=head_dim,
        head_dim_v=head_dim, context_length=ctx, sliding_window=window, sliding_window_pattern=pattern or [],
        n_vocab=n_vocab, tensors=tensors, extra={"feed_forward_length": 4 * n_embd},
    )


QWEN = synthetic()  # Qwen2.5-7B: 28 layers, 4 KV heads, head dim 128
GEMMA = synthetic("gemma3", n_layers=18, n_head=4, n_head_kv=1, head_dim=256, n_embd=640, n_vocab=262144,
                  window=512, tied=True)


@pytest.mark.parametrize("kv_type, per_token", [
    ("f16", 57_344),  # the reference study: 2 × 28 × 4 × 128 × 2 B
    ("q8_0", 30_464),  # 34 bytes per 32 values: 57,344 × 34/64
    ("q4_0", 16_128),  # 18 bytes per 32 values: 57,344 × 18/64
])
def test_qwen_kv_per_token(kv_type, per_token):
    led = predict(QWEN, LedgerConfig(n_ctx=4096, kv_type_k=kv_type, kv_type_v=kv_type))
    assert led.kv_bytes_per_token == per_token
    assert led.kv_bytes_per_token_all_layers == per_token
    assert led.total(kind="kv") == per_token * 4096


def test_qwen_4096_tokens_is_235_mb():
    led = predict(QWEN, LedgerConfig(n_ctx=4096))
    assert led.total(kind="kv") == 234_881_024  # ≈ 235 MB (224 MiB), the reference study's figure
    assert "2 × 28 × 4 × 128 × 2 B = 57,344 B/token" in led.formula


@pytest.mark.parametrize("cfg, n_ctx, n_ctx_seq, streams", [
    (LedgerConfig(n_ctx=1000), 1024, 1024, 1),  # padded up to 256
    (LedgerConfig(n_ctx=4096, n_seq_max=4), 4096, 4096, 1),  # unified: one stream holds every sequence
    (LedgerConfig(n_ctx=3000, n_seq_max=3, kv_unified=False), 3072, 1024, 3),  # 3072/3 = 1024 per stream
    (LedgerConfig(n_ctx=2048, n_seq_max=3, kv_unified=False), 2304, 768, 3),  # 682 per seq, padded to 768
])
def test_context_padding(cfg, n_ctx, n_ctx_seq, streams):
    st = resolve_context(QWEN, cfg)
    assert (st.n_ctx, st.n_ctx_seq, st.n_stream) == (n_ctx, n_ctx_seq, streams)
    assert predict(QWEN, cfg).total(kind="kv") == 57_344 * n_ctx_seq * streams


def test_gemma3_swa_pattern_every_sixth_layer_global():
    assert [il for il, swa in enumerate(swa_layers(GEMMA)) if not swa] == [5, 11, 17]
    assert not any(swa_layers(QWEN))  # no window, no SWA layers


@pytest.mark.parametrize("cfg, swa_cells", [
    (LedgerConfig(n_ctx=4096, n_seq_max=4), 2560),  # 512 × 4 seqs + 512 ubatch
    (LedgerConfig(n_ctx=4096, n_seq_max=4, n_ubatch=100), 2304),  # 2148 padded to 256
    (LedgerConfig(n_ctx=1024, n_seq_max=4), 1024),  # never more than the full cache
    (LedgerConfig(n_ctx=4096, n_seq_max=4, swa_full=True), 4096),  # swa_full: full size
    (LedgerConfig(n_ctx=8192, n_seq_max=4, kv_unified=False), 1024),  # per stream: 512 + 512
])
def test_swa_cells(cfg, swa_cells):
    st = resolve_context(GEMMA, cfg)
    assert st.swa_cells == swa_cells
    per_layer = 256 * 2 * 2  # one KV head of 256, K and V, f16
    expected = (3 * st.n_ctx_seq + 15 * swa_cells) * per_layer * st.n_stream
    assert predict(GEMMA, cfg).total(kind="kv") == expected


def test_separate_k_v_types_and_head_sizes():
    info = synthetic(n_layers=2, n_head_kv=2, head_dim=64)
    info.head_dim_v = 128
    led = predict(info, LedgerConfig(n_ctx=256, kv_type_k="q8_0", kv_type_v="f16"))
    # K: 2 heads × 64 values in q8_0 (4 blocks × 34 B); V: 2 heads × 128 values × 2 B; 2 layers
    assert led.kv_bytes_per_token == 2 * (4 * 34 + 256 * 2)


@pytest.mark.parametrize("gpu, ngl, gpu_weights, cpu_weights", [
    (False, None, 0, 5000 + 4 * 8 + 7000 + 4 * 1000),  # no GPU: every byte on the host
    (True, None, 4 * 1000 + 7000 + 4 * 8, 5000),  # all offloaded: token_embd still on the CPU
    (True, 1, 7000 + 4 * 8, 5000 + 4 * 1000),  # 1 = the output layer only
    (True, 3, 2 * 1000 + 7000 + 4 * 8, 5000 + 2 * 1000),  # output + the last 2 repeating layers
    (True, 0, 0, 5000 + 4 * 8 + 7000 + 4 * 1000),  # 0 offloaded
])
def test_weights_split(gpu, ngl, gpu_weights, cpu_weights):
    info = synthetic(n_layers=4, n_embd=8)
    led = predict(info, LedgerConfig(n_ctx=256, gpu=gpu, n_gpu_layers=ngl))
    assert led.total("gpu", "weights") == gpu_weights
    assert led.total("cpu", "weights") == cpu_weights


def test_tied_output_is_copied_to_the_gpu():
    info = synthetic(n_layers=4, n_embd=8, tied=True)
    led = predict(info, LedgerConfig(n_ctx=256, gpu=True))
    assert led.total("gpu", "weights") == 4 * 1000 + 4 * 8 + 5000  # the embeddings' copy for the output
    assert led.total("cpu", "weights") == 5000


def test_gpu_plan_has_cuda_context_and_kv_on_gpu():
    led = predict(QWEN, LedgerConfig(n_ctx=4096, gpu=True))
    names = {ln.name for ln in led.lines if ln.where == "gpu"}
    assert "CUDA context (estimate)" in names and "compute buffer (estimate)" in names
    assert led.device == "gpu" and led.kv_bytes == 234_881_024
    assert led.total_bytes == led.weights_bytes + led.kv_bytes + led.overhead_bytes


def test_check_fits_and_the_suggestion():
    cfg = LedgerConfig(n_ctx=4 * 32768, n_seq_max=4, slots=4, gpu=True)
    with pytest.raises(BudgetError) as err:
        check_fits(QWEN, cfg, budget_bytes=8 * GiB)
    msg = str(err.value)
    assert "largest that fit: 4 slots × " in msg and "1 × " in msg
    best = max_context(QWEN, cfg, 4, 8 * GiB)
    assert best > 0 and f"4 slots × {best} tokens" in msg
    # the suggestion itself fits, and one more 256-token step does not
    assert check_fits(QWEN, LedgerConfig(n_ctx=4 * best, n_seq_max=4, gpu=True), 8 * GiB)
    with pytest.raises(BudgetError):
        check_fits(QWEN, LedgerConfig(n_ctx=4 * (best + 256), n_seq_max=4, gpu=True), 8 * GiB)


def test_nothing_fits():
    with pytest.raises(BudgetError, match="not even 1 slot"):
        check_fits(QWEN, LedgerConfig(n_ctx=4096, gpu=True), budget_bytes=100 * MiB)


@pytest.mark.parametrize("settings, expect", [
    # the engine's llama_context_settings(): strings for types and flash attention
    ({"n_ctx": 10240, "n_seq_max": 8, "kv_unified": True, "swa_full": True, "type_k": "q8_0", "type_v": "q8_0",
      "flash_attn": "on", "n_batch": 512, "n_ubatch": 512},
     dict(n_ctx=10240, n_seq_max=8, kv_type_k="q8_0", swa_full=True, flash_attn=True, n_batch=512)),
    # llama_context_params-style integers: ggml_type 2 = q4_0, flash_attn_type -1 = auto
    ({"n_ctx": 4096, "n_seq_max": 2, "type_k": 2, "type_v": 1, "flash_attn_type": -1},
     dict(kv_type_k="q4_0", kv_type_v="f16", flash_attn=None, kv_unified=True)),
])
def test_ledger_config_from_settings(settings, expect):
    cfg = ledger_config_from_settings(settings)
    for key, value in expect.items():
        assert getattr(cfg, key) == value, key


@pytest.mark.parametrize("bad", ["q3_k", 99])
def test_unknown_kv_type(bad):
    with pytest.raises(ValueError):
        type_name(bad)


def test_row_bytes_needs_whole_blocks():
    assert row_bytes("q8_0", 64) == 68
    with pytest.raises(ValueError):
        row_bytes("q4_0", 48)


@pytest.mark.parametrize("name", sorted(GGML_TYPES))
def test_ggml_table_matches_ggml(name):
    # the one type table against ggml's own enum and block sizes, as llama.cpp's gguf-py mirrors them
    import gguf

    ggml = gguf.GGMLQuantizationType[name.upper()]
    assert type_id(name) == ggml.value
    assert (GGML_TYPES[name].block_values, GGML_TYPES[name].block_bytes) == gguf.GGML_QUANT_SIZES[ggml]
    assert type_name(type_id(name)) == type_name(name.upper()) == name


def test_one_kv_type_list():
    from aegis_tui.engine import config

    assert config.KV_TYPES is KV_TYPES and set(KV_TYPES) <= set(GGML_TYPES)


def _board(info, led, budget_gib: float, gpu: bool = False) -> str:
    budget = Budget(int(budget_gib * GiB), "a test budget", gpu)
    return whiteboard(info, led, 4096, budget, options=[(1, 8192), (4, 0)]).text()


def test_whiteboard_report():
    led = predict(QWEN, LedgerConfig(n_ctx=4 * 4096 + 4096, n_seq_max=8, slots=4))
    text = _board(QWEN, led, 64)
    assert text.startswith("Memory ledger: qwen2 (qwen2, Q4_K_M, 0.00 MiB file)")
    assert "config: 4 slots × 4096 tokens per slot + 4 spare prefix sequences, KV f16, CPU only" in text
    assert "2 × L × H_kv × d_head × B = 2 × 28 × 4 × 128 × 2 B = 57,344 B/token" in text
    assert "28 full-attention layers: 57,344 B/token × 20,480 cells = 1,120.00 MiB" in text
    assert "budget (host memory): 64.00 GiB from a test budget; keeping 30% free leaves 44.80 GiB" in text
    assert ": fits, headroom +" in text
    assert "largest slots × context per slot that fit: 1 × 8,192 (per-slot context capped" in text
    rows = {line.split("  ")[1].strip(): line for line in text.splitlines() if line.startswith("  ") and "MiB" in line}
    assert rows["KV cache"].endswith("1,120.00 MiB") and rows["total"].endswith(f"{led.total('cpu') / MiB:,.2f} MiB")
    assert "\x1b" not in text


def test_whiteboard_gpu_and_not_fitting():
    led = predict(GEMMA, LedgerConfig(n_ctx=4 * 8192, n_seq_max=4, slots=4, gpu=True))
    text = _board(GEMMA, led, 0.25, gpu=True)
    assert "KV f16, 18/18 layers on the GPU" in text
    assert "15 sliding-window layers" in text and "swa_full is off" in text
    assert "budget (GPU): 0.25 GiB" in text and "DOES NOT FIT" in text
    assert "CUDA context (estimate)" in text
