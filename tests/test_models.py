"""Model resolution and GGUF validation: metadata from the gguf library, bad files rejected in Python."""


import pytest

from aegis_tui.errors import ModelError
from aegis_tui.models import inspect_model, resolve_model


def test_embedded_model_metadata(embedded_model):
    info = inspect_model(embedded_model)
    assert (info.architecture, info.quantization) == ("gemma3", "Q4_K_M")
    assert (info.n_layers, info.kv_heads, info.head_dim_k, info.sliding_window) == (18, 1, 256, 512)
    assert info.n_vocab == 262144 and info.chat_template is None
    assert 0 < info.weights_bytes < info.file_size


def test_second_architecture(smollm2_model):
    info = inspect_model(smollm2_model)
    assert info.architecture == "llama" and info.chat_template


def test_resolution_order(tmp_path, monkeypatch, embedded_model):
    monkeypatch.delenv("AEGIS_MODEL", raising=False)
    models = tmp_path / "models"
    assert str(resolve_model(None, models)) == embedded_model  # nothing local: embedded
    models.mkdir()
    (models / "b.gguf").write_bytes(b"GGUF")
    (models / "a.gguf").write_bytes(b"GGUF")
    assert resolve_model(None, models).name == "a.gguf"  # first models/*.gguf
    monkeypatch.setenv("AEGIS_MODEL", "/env/model.gguf")
    assert str(resolve_model(None, models)) == "/env/model.gguf"  # $AEGIS_MODEL beats models/
    assert str(resolve_model("/cli.gguf", models)) == "/cli.gguf"  # --model beats everything


@pytest.fixture
def bad_files(tmp_path, smollm2_model):
    text = tmp_path / "notes.gguf"
    text.write_text("hello, not a model")
    truncated = tmp_path / "truncated.gguf"
    with open(smollm2_model, "rb") as src:
        truncated.write_bytes(src.read(1_000_000))
    header_only = tmp_path / "header.gguf"
    header_only.write_bytes(b"GGUF\x03\x00\x00\x00")
    arch = tmp_path / "clip.gguf"
    _write_gguf(arch, "clip")
    return {"missing": tmp_path / "missing.gguf", "bad magic": text, "truncated": truncated,
            "cut header": header_only, "unsupported": arch}


def _write_gguf(path, arch):
    import gguf
    import numpy as np

    w = gguf.GGUFWriter(str(path), arch)
    w.add_block_count(1)
    w.add_tensor("x.weight", np.zeros((4, 4), dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


@pytest.mark.parametrize("kind, message", [
    ("missing", "not found"),
    ("bad magic", "not a GGUF"),
    ("truncated", "truncated"),
    ("cut header", "corrupt or truncated"),
    ("unsupported", "unsupported architecture 'clip'"),
])
def test_bad_model_files(bad_files, kind, message, cli):
    with pytest.raises(ModelError, match=message):
        inspect_model(bad_files[kind])
    proc = cli("models", "--model", str(bad_files[kind]))
    assert proc.returncode == 2
    assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr
