"""CLI subcommands: each module has register(subparsers) and a run function set as args.func."""

from __future__ import annotations

import argparse
import json
import sys


def add_model_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", metavar="PATH", help="GGUF model (default: $AEGIS_MODEL, models/*.gguf, embedded)")


def add_format_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=["text", "json"], default="text", help="output format")


def print_json(obj) -> None:
    json.dump(obj, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


def add_engine_args(p: argparse.ArgumentParser) -> None:
    """Options that size the engine: slots, per-slot context, KV cache type, GPU layers."""
    add_model_arg(p)
    p.add_argument("--parallel", type=int, default=4, metavar="N", help="n_parallel slots (default 4)")
    p.add_argument("--ctx", type=int, default=4096, metavar="N", help="context tokens per slot (default 4096)")
    p.add_argument("--kv-type", choices=["f16", "q8_0", "q4_0"], default="f16", help="KV cache type")
    p.add_argument("--gpu-layers", type=int, default=None, metavar="N",
                   help="layers to offload (default: all when the build can offload, else 0)")


def open_engine(args):
    """Resolve and validate the model, then load the engine sized by the engine options."""
    from ..engine import Engine, EngineConfig
    from ..errors import InputError
    from ..models import inspect_model, resolve_model

    if args.parallel < 1 or args.parallel > 64:
        raise InputError("--parallel must be between 1 and 64")
    if args.ctx < 256:
        raise InputError("--ctx must be at least 256 tokens")
    path = resolve_model(args.model)
    inspect_model(path)
    return Engine(EngineConfig(model_path=str(path), n_parallel=args.parallel, n_ctx_per_slot=args.ctx,
                               kv_type=args.kv_type, n_gpu_layers=args.gpu_layers))
