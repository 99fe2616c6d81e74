"""CLI subcommands: each module has register(subparsers) and a run function set as args.func."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from ..errors import InputError

# One floor for --ctx in every command (engine_config checks it): the ledger's fit search and its suggestions
# step in 256 tokens, as llama.cpp pads n_ctx to 256 cells, and a smaller slot holds no prompt with a document.
MIN_CTX = 256
MAX_PARALLEL = 64
SAMPLE_DOCS = {"zh": "policy_zh", "en": "policy_en"}  # DOC given as sample:zh / sample:en


def add_model_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", metavar="PATH", help="GGUF model (default: $AEGIS_MODEL, models/*.gguf, embedded)")


def add_format_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=["text", "json"], default="text", help="output format")


def print_json(obj) -> None:
    json.dump(obj, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


def show(*items) -> None:
    """Print lines of text and rich tables to stdout, each item on its own line(s); when stdout is not a terminal
    (CI, a pipe): plain text, unwrapped, without trailing spaces."""
    from rich.console import Console

    if sys.stdout.isatty():
        out = Console(highlight=False, markup=False, emoji=False)
        for item in items:  # one print each: rich would join neighbouring strings on one line
            out.print(item)
        return
    # rich would take $COLUMNS or 80 columns for a pipe and wrap table cells that scripts grep
    out = Console(color_system=None, width=400, highlight=False, markup=False, emoji=False, soft_wrap=True)
    with out.capture() as cap:
        for item in items:
            out.print(item)
    sys.stdout.write("".join(line.rstrip() + "\n" for line in cap.get().splitlines()))


def table(*columns: str, right: tuple[str, ...] = (), cut: dict[str, int] | None = None):
    """A borderless rich Table with a bold header: `right` columns right-aligned, `cut` columns cut to that
    many cells with an ellipsis (CJK characters count two, as the terminal draws them)."""
    from rich import box
    from rich.table import Table

    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1, 0, 0), header_style="bold")
    cut = cut or {}
    for name in columns:
        t.add_column(name, justify="right" if name in right else "left", max_width=cut.get(name),
                     no_wrap=name in cut, overflow="ellipsis" if name in cut else "fold")
    return t


def document_path(spec: str) -> str:
    """A DOC argument as a path: sample:zh / sample:en name the bundled samples, anything else is a path."""
    if not spec.startswith("sample:"):
        return spec
    name = SAMPLE_DOCS.get(spec.split(":", 1)[1])
    if name is None:
        raise InputError(f"unknown sample {spec!r} (use {' or '.join('sample:' + k for k in SAMPLE_DOCS)})")
    from ..samples import sample_path

    return str(sample_path(name))


def load_document(spec: str):
    """The Document a DOC argument names (see document_path)."""
    from ..text.document import Document

    return Document.load(Path(document_path(spec)))


def add_engine_args(p: argparse.ArgumentParser, backend: bool = True) -> None:
    """Options that size the engine: slots, per-slot context, KV cache type, GPU layers (EngineConfig's defaults),
    and (backend=True, for commands that open an engine) --backend URL to use a served model instead."""
    from ..engine.config import EngineConfig
    from ..memory.ggml import KV_TYPES

    d = {f.name: f.default for f in dataclasses.fields(EngineConfig) if f.default is not dataclasses.MISSING}
    add_model_arg(p)
    if backend:
        add_backend_args(p)
    p.add_argument("--parallel", type=int, default=d["n_parallel"], metavar="N",
                   help="n_parallel slots decoding at once (default: %(default)s)")
    p.add_argument("--ctx", type=int, default=d["n_ctx_per_slot"], metavar="N",
                   help="context tokens per slot (default: %(default)s); llama.cpp's n_ctx is slots × ctx "
                        "plus the prefix cache's cells")
    p.add_argument("--kv-type", choices=list(KV_TYPES), default=d["kv_type"], help="KV cache type (default: %(default)s)")
    p.add_argument("--gpu-layers", type=int, default=None, metavar="N",
                   help="layers to offload, counting the output layer as one (default: all when the build "
                        "can offload, else 0)")


def add_backend_args(p: argparse.ArgumentParser) -> None:
    """--backend URL (default $AEGIS_BACKEND): an OpenAI-compatible server runs the model; see engine/remote.py."""
    import os

    from ..engine.remote import ENV_API_KEY, ENV_BACKEND, KINDS

    p.add_argument("--backend", metavar="URL", default=os.environ.get(ENV_BACKEND) or None,
                   help=f"run the model on this OpenAI-compatible server (llama-server, vLLM, llama-cpp-python) "
                        f"instead of in-process (default: ${ENV_BACKEND}); API key from ${ENV_API_KEY}; "
                        f"--parallel is then the requests kept in flight")
    p.add_argument("--backend-model", metavar="NAME", help="the served model to use (default: the server's first)")
    p.add_argument("--backend-kind", choices=KINDS, default="auto",
                   help="grammar dialect: llama (llama.cpp's `grammar`) or vllm (structured outputs); "
                        "auto asks the server (default: %(default)s)")
    p.add_argument("--backend-timeout", type=float, default=120.0, metavar="S",
                   help="seconds to wait for the server's next byte (default: %(default)s)")


def engine_config(args, path):
    """The EngineConfig the engine options describe, for the model at path; InputError for out-of-range sizes."""
    from ..engine import EngineConfig

    if args.parallel < 1 or args.parallel > MAX_PARALLEL:
        raise InputError(f"--parallel must be between 1 and {MAX_PARALLEL}")
    if args.ctx < MIN_CTX:
        raise InputError(f"--ctx must be at least {MIN_CTX} tokens")
    return EngineConfig(model_path=str(path), n_parallel=args.parallel, n_ctx_per_slot=args.ctx,
                        kv_type=args.kv_type, n_gpu_layers=args.gpu_layers)


def open_engine(args):
    """Resolve and validate the model, then load the engine sized by the engine options; with --backend, connect
    to that server instead (InputError, one line, for a wrong URL or model)."""
    if getattr(args, "backend", None):
        return open_remote(args)
    from ..engine import Engine
    from ..models import inspect_model, resolve_model

    path = resolve_model(args.model)
    config = engine_config(args, path)
    inspect_model(path)
    return Engine(config)


def open_remote(args):
    """The RemoteEngine --backend names; --model PATH, if given, is a local copy of the served GGUF (its chat
    template and facts)."""
    from ..engine.remote import RemoteEngine

    if args.parallel < 1 or args.parallel > MAX_PARALLEL:
        raise InputError(f"--parallel must be between 1 and {MAX_PARALLEL}")
    if args.backend_timeout <= 0:
        raise InputError("--backend-timeout must be positive")
    return RemoteEngine(args.backend, model=args.backend_model, kind=args.backend_kind, n_parallel=args.parallel,
                        n_ctx_per_slot=args.ctx, timeout=args.backend_timeout, local_model=args.model)
