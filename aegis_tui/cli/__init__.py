"""CLI subcommands: each module has register(subparsers) and a run function set as args.func."""

from __future__ import annotations

import argparse
import dataclasses
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
    """Options that size the engine: slots, per-slot context, KV cache type, GPU layers (EngineConfig's defaults)."""
    from ..engine.config import KV_TYPES, EngineConfig

    d = {f.name: f.default for f in dataclasses.fields(EngineConfig) if f.default is not dataclasses.MISSING}
    add_model_arg(p)
    p.add_argument("--parallel", type=int, default=d["n_parallel"], metavar="N",
                   help="n_parallel slots decoding at once (default: %(default)s)")
    p.add_argument("--ctx", type=int, default=d["n_ctx_per_slot"], metavar="N",
                   help="context tokens per slot (default: %(default)s); llama.cpp's n_ctx is slots × ctx "
                        "plus the prefix cache's cells")
    p.add_argument("--kv-type", choices=list(KV_TYPES), default=d["kv_type"], help="KV cache type (default: %(default)s)")
    p.add_argument("--gpu-layers", type=int, default=None, metavar="N",
                   help="layers to offload, counting the output layer as one (default: all when the build "
                        "can offload, else 0)")


def engine_config(args, path):
    """The EngineConfig the engine options describe, for the model at path; InputError for out-of-range sizes."""
    from ..engine import EngineConfig
    from ..errors import InputError

    if args.parallel < 1 or args.parallel > 64:
        raise InputError("--parallel must be between 1 and 64")
    if args.ctx < 256:
        raise InputError("--ctx must be at least 256 tokens")
    return EngineConfig(model_path=str(path), n_parallel=args.parallel, n_ctx_per_slot=args.ctx,
                        kv_type=args.kv_type, n_gpu_layers=args.gpu_layers)


def open_engine(args):
    """Resolve and validate the model, then load the engine sized by the engine options."""
    from ..engine import Engine
    from ..models import inspect_model, resolve_model

    path = resolve_model(args.model)
    config = engine_config(args, path)
    inspect_model(path)
    return Engine(config)
