"""`aegis bench ...`: benchmarks; each lives in aegis_tui/bench/<name>.py with register(subparsers)."""

from __future__ import annotations

import importlib

BENCHES = ["ladder", "ab", "longdoc", "batch", "engine", "verify", "ledger", "faults", "soak"]


def register(sub) -> None:
    p = sub.add_parser("bench", help="benchmarks: tables to stdout, JSON and plots to --out DIR")
    bsub = p.add_subparsers(dest="bench", metavar="BENCH", required=True)
    for name in BENCHES:
        try:
            module = importlib.import_module(f"aegis_tui.bench.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"aegis_tui.bench.{name}":
                continue
            raise
        module.register(bsub)
