"""Benchmark output: result tables (rich on a terminal, Markdown when piped), JSON files, the final print."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from rich.cells import cell_len

from ..cli import print_json
from ..errors import InputError


def fmt(v, nd: int = 3) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{nd}f}"
    return str(v)


@dataclass
class Table:
    """A results table: a rich table on a terminal, else Markdown (greppable, pasteable into BENCHMARKS.md)."""

    headers: list[str]
    rows: list[list]
    align: str | None = None  # "l" or "r" per column; default: the first left, the rest right

    def _align(self) -> str:
        return self.align or "l" + "r" * (len(self.headers) - 1)

    def markdown(self) -> str:
        cells = [[str(h) for h in self.headers]] + [[fmt(c) for c in r] for r in self.rows]
        # display cells, not characters: a CJK character takes two columns
        widths = [max(cell_len(r[i]) for r in cells) for i in range(len(self.headers))]
        align = self._align()

        def line(r):
            padded = [(c + " " * (w - cell_len(c))) if a == "l" else (" " * (w - cell_len(c)) + c)
                      for c, w, a in zip(r, widths, align)]
            return "| " + " | ".join(padded) + " |"

        sep = "|" + "|".join(("-" * (w + 1) + ":") if a == "r" else ("-" * (w + 2)) for w, a in zip(widths, align)) + "|"
        return "\n".join([line(cells[0]), sep] + [line(r) for r in cells[1:]])

    def rich(self):
        # rich's console and tables load only for a terminal: every `aegis` start imports the bench modules
        from rich import box
        from rich.table import Table as RichTable

        t = RichTable(box=box.SIMPLE_HEAD, show_edge=False)
        for h, a in zip(self.headers, self._align()):
            t.add_column(str(h), justify="left" if a == "l" else "right", no_wrap=True)
        for r in self.rows:
            t.add_row(*(fmt(c) for c in r))
        return t


Block = str | Table  # one line of text, or a table


def emit(blocks: list[Block], file=None) -> None:
    """Print a text report: rich tables when the output is a terminal, else plain lines and Markdown tables."""
    out = file or sys.stdout
    if not (hasattr(out, "isatty") and out.isatty()):
        out.write("\n".join(b.markdown() if isinstance(b, Table) else b for b in blocks) + "\n")
        out.flush()
        return
    from rich.console import Console
    from rich.measure import Measurement

    console = Console(file=out, highlight=False)
    for b in blocks:
        if isinstance(b, Table):
            t = b.rich()
            # never squeeze a wide table into "…" cells: a narrow terminal wraps its lines instead
            natural = Measurement.get(console, console.options.update_width(10_000), t).maximum
            wide = console if natural <= console.width else Console(file=out, highlight=False, width=natural)
            wide.print(t, crop=False)
        else:
            console.print(b, markup=False, soft_wrap=True)


def write_json(out_dir: str | None, name: str, obj) -> Path | None:
    if not out_dir:
        return None
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
        path = out / name
        path.write_text(json.dumps(obj, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"--out {out_dir}: cannot write {name} ({exc.strerror})") from None
    return path


def finish(args, result: dict, name: str, plot_name: str, text_report) -> int:
    """Write NAME.json and NAME.png under --out, then print the result as text or JSON (the exit code: 0)."""
    if args.out:
        write_json(args.out, f"{name}.json", result)
        from . import plots

        result["plot"] = str(getattr(plots, plot_name)(result, os.path.join(args.out, f"{name}.png")))
    if args.format == "json":
        print_json(result)
    else:
        emit(text_report(result))
        if args.out:
            print(f"\nWrote {os.path.join(args.out, name + '.json')} and {result['plot']}")
    return 0
