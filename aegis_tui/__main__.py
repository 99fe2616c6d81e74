"""The `aegis` command line: parses arguments, dispatches, and is the one place errors become exit codes."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from . import __version__
from .errors import AegisError, BudgetError, InputError

# name -> module in aegis_tui.cli with register(subparsers) and run(args) -> int
COMMANDS = ["tui", "ask", "index", "verify", "grammar", "ledger", "bench", "audit", "models", "eval"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="aegis", description="Offline document QA where every number is verified against the document."
    )
    parser.add_argument("--version", action="store_true",
                        help="print the version and whether this llama.cpp build can offload to a GPU")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"aegis_tui.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"aegis_tui.cli.{name}":
                continue  # command not built yet
            raise
        module.register(sub)
    return parser


def offload_line() -> str:
    """One line: can this llama.cpp build offload to a GPU, through which ggml backend, onto which device."""
    try:
        import llama_cpp

        from .engine.native import offload_support

        gpu, backends, devices = offload_support()
    except (ImportError, OSError) as exc:
        return f"llama.cpp: cannot be loaded ({exc})"
    accel = [b for b in backends if b != "CPU"]
    gpus = [d for d in devices if not d.startswith("CPU")]
    if gpu:
        what = f"GPU offload available via {', '.join(accel) or 'a GPU backend'}"
    elif accel:
        what = f"CPU only: built with {', '.join(accel)} but no GPU device found"
    else:
        what = "CPU only: this build cannot offload to a GPU"
    detail = f"llama-cpp-python {llama_cpp.__version__}; ggml backends: {', '.join(backends) or 'n/a'}"
    return f"llama.cpp: {what} ({detail}" + (f"; devices: {', '.join(gpus)})" if gpus else ")")


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = set(parser._subparsers._group_actions[0].choices)  # noqa: SLF001
    # `aegis` alone, or `aegis DOC`, opens the terminal UI
    if "tui" in commands and (not argv or (argv[0] not in commands and not argv[0].startswith("-"))):
        argv = ["tui", *argv]
    args = parser.parse_args(argv)
    if args.version:
        print(f"aegis {__version__}\n{offload_line()}")
        return 0
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except BudgetError as exc:
        print(f"aegis: {exc}", file=sys.stderr)
        return 1
    except InputError as exc:
        print(f"aegis: {exc}", file=sys.stderr)
        return 2
    except AegisError as exc:
        print(f"aegis: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("aegis: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
