"""Benchmark run options: the arguments engine benchmarks share and their checks, made before anything loads."""

from __future__ import annotations

from pathlib import Path

from ..cli import add_format_arg
from ..errors import InputError
from ..models import inspect_model, resolve_model

MAX_CONCURRENCY = 64
MAX_TOKENS_LIMIT = 4096


def add_run_args(p, name: str) -> None:
    """Options every engine benchmark shares: the document, threads, GPU layers, output folder, progress."""
    p.add_argument("--doc", default="policy_zh", help="sample name or document path (default policy_zh)")
    p.add_argument("--doc-chars", type=int, help="cut the document at a line end before N chars (quick: 1200)")
    p.add_argument("--threads", type=int, help="CPU threads for the engine")
    p.add_argument("--n-gpu-layers", type=int, help="layers to offload (default: all when a GPU is available)")
    p.add_argument("--out", metavar="DIR", help=f"write {name}.json and {name}.png there")
    p.add_argument("--no-progress", action="store_true", help="no progress output on stderr")
    add_format_arg(p)


def parse_concurrency(text: str, limit: int = MAX_CONCURRENCY, name: str = "--concurrency") -> list[int]:
    """'1,2,4,8' -> [1, 2, 4, 8]; InputError for non-integers, values < 1 or > limit."""
    out: list[int] = []
    for part in str(text).split(","):
        part = part.strip()
        if not part:
            continue
        try:
            c = int(part)
        except ValueError:
            raise InputError(f"{name}: '{part}' is not an integer") from None
        if c < 1 or c > limit:
            raise InputError(f"{name}: {c} is outside 1..{limit}")
        if c not in out:
            out.append(c)
    if not out:
        raise InputError(f"{name}: give at least one level, e.g. 1,2,4,8")
    return out


def check_range(name: str, value: int, lo: int, hi: int) -> int:
    if value < lo or value > hi:
        raise InputError(f"{name}: {value} is outside {lo}..{hi}")
    return value


def resolve_checked_model(explicit: str | None) -> str:
    """--model (or its defaults) validated as a GGUF before anything loads; ModelError (exit 2) otherwise."""
    path = resolve_model(explicit)
    inspect_model(path)
    return str(path)


def check_out_dir(out_dir: str | None) -> None:
    """Fail before a long run, not after it, when --out cannot be created."""
    if not out_dir:
        return
    p = Path(out_dir)
    if p.exists() and not p.is_dir():
        raise InputError(f"--out {out_dir}: exists and is not a directory")
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--out {out_dir}: cannot create it ({exc.strerror})") from None
