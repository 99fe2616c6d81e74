"""The `aegis` command line: parses arguments, dispatches, and is the one place errors become exit codes."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from .errors import AegisError, BudgetError, InputError

# name -> module in aegis_tui.cli with register(subparsers) and run(args) -> int
COMMANDS = ["tui", "ask", "verify", "grammar", "ledger", "bench", "audit", "models", "eval"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="aegis", description="Offline document QA where every number is verified against the document."
    )
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


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = set(parser._subparsers._group_actions[0].choices)  # noqa: SLF001
    # `aegis` alone, or `aegis DOC`, opens the terminal UI
    if "tui" in commands and (not argv or (argv[0] not in commands and not argv[0].startswith("-"))):
        argv = ["tui", *argv]
    args = parser.parse_args(argv)
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
