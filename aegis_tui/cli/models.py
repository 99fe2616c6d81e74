"""`aegis models`: list the embedded and local GGUF models with metadata read from each file."""

from __future__ import annotations

from ..errors import ModelError
from ..models import embedded_model_path, inspect_model, local_models
from . import add_format_arg, print_json, show, table


def register(sub) -> None:
    p = sub.add_parser("models", help="list embedded and local models with their GGUF metadata")
    p.add_argument("--model", metavar="PATH", help="describe this one GGUF file")
    p.add_argument("--models-dir", default="models", help="folder of local *.gguf files (default: models)")
    add_format_arg(p)
    p.set_defaults(func=run)


def _human(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def run(args) -> int:
    rows = []
    if args.model:
        rows.append(("--model", inspect_model(args.model)))
    else:
        rows.append(("embedded", inspect_model(embedded_model_path())))
        for path in local_models(args.models_dir):
            try:
                rows.append(("local", inspect_model(path)))
            except ModelError as exc:
                rows.append(("local", exc))
    if args.format == "json":
        print_json([
            {"source": src, **info.summary()} if not isinstance(info, Exception) else {"source": src, "error": str(info)}
            for src, info in rows
        ])
        return 0
    t = table("source", "architecture", "quant", "size", "layers", "kv heads", "head dim", "context", "path",
              right=("size", "layers", "kv heads", "head dim", "context"))
    for src, info in rows:
        if isinstance(info, Exception):
            t.add_row(src, *[""] * 7, f"error: {info}")
            continue
        head = f"{info.head_dim_k}" if info.head_dim_k == info.head_dim_v else f"{info.head_dim_k}/{info.head_dim_v}"
        t.add_row(src, info.architecture, info.quantization, _human(info.file_size), str(info.n_layers),
                  str(info.kv_heads), head, str(info.context_length), info.path)
        notes = []
        if info.sliding_window:
            notes.append(f"sliding window {info.sliding_window}")
        notes.append("chat template" if info.chat_template else "no chat template (base model: completion prompts)")
        notes.append(f"vocab {info.n_vocab}")
        t.add_row(*[""] * 8, f"{info.name}; " + "; ".join(notes), end_section=True)  # under its path
    show(t)
    return 0
