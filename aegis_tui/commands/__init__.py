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
