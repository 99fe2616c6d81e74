"""The ledger as one writes it on a whiteboard: formula, exact KV per layer group, a GPU/CPU table, the verdict.

`aegis ledger` prints it and the TUI's ledger screen shows it; both build it here from the same parameters.
"""

from __future__ import annotations

import dataclasses
import io
from dataclasses import dataclass

from .fit import DEFAULT_MARGIN, max_fit, usable
from .gauge import Budget
from .ledger import GiB, Ledger, MiB, predict


@dataclass
class Whiteboard:
    """Lines before the table, the table's rows (name, GPU, CPU; the total last), lines after it."""

    head: list[str]
    rows: list[tuple[str, str, str]]
    foot: list[str]

    def renderable(self):
        """A rich renderable of the whole report (rich is imported here, so this module stays pure)."""
        from rich import box
        from rich.console import Group
        from rich.padding import Padding
        from rich.table import Table
        from rich.text import Text

        table = Table(box=box.HORIZONTALS, show_edge=False, pad_edge=False, padding=(0, 2), header_style="bold")
        table.add_column("")
        table.add_column("GPU", justify="right")
        table.add_column("CPU (host)", justify="right")
        for i, row in enumerate(self.rows):
            last = i == len(self.rows) - 1
            table.add_row(*row, style="bold" if last else None, end_section=i == len(self.rows) - 2)
        return Group(Text("\n".join(self.head)), Text(""), Padding(table, (0, 0, 0, 2), expand=False), Text(""),
                     Text("\n".join(self.foot)))

    def text(self, width: int = 200) -> str:
        """Plain text (no colour codes): for a widget that shows a string."""
        from rich.console import Console

        out = io.StringIO()
        Console(file=out, width=width, color_system=None, highlight=False, markup=False,
                soft_wrap=True).print(self.renderable())
        return "\n".join(line.rstrip() for line in out.getvalue().rstrip("\n").splitlines())


def _mib(n: int) -> str:
    return f"{n / MiB:,.2f} MiB"


def _kv_lines(info, led: Ledger) -> list[str]:
    """The per-token formula, then each layer group's exact KV bytes, then what swa_full costs or saves."""
    st, cfg = led.settings, led.config
    out = ["KV cache per token (every layer full size, the whiteboard formula):", f"  {led.formula}"]
    for g in led.kv_groups:
        what = "sliding-window" if g.swa else "full-attention"
        cells = f"{g.cells:,} cells" + (f" × {g.streams} streams" if g.streams > 1 else "")
        why = ""
        if g.swa:
            why = (" (swa_full: as many as the full layers)" if st.swa_full else
                   f" (window {info.sliding_window} × {st.n_seq_max if st.kv_unified else 1} seqs + n_ubatch "
                   f"{st.n_ubatch}, padded to 256)")
        out.append(f"  {g.layers} {what} layers: {g.bytes_per_token:,} B/token × {cells}{why} = {_mib(g.bytes)}")
    if led.n_swa_layers:
        alt = predict(info, dataclasses.replace(cfg, swa_full=not st.swa_full))
        diff = abs(alt.total(kind="kv") - led.total(kind="kv"))
        out.append(f"  swa_full is {'on' if st.swa_full else 'off'}"
                   + (f": off would save {_mib(diff)}; on keeps every SWA cell so a cached prefix can be "
                      "reused from any point" if st.swa_full else
                      f" (llama.cpp's own default is on): on would cost {_mib(diff)} more"))
    return out


def whiteboard(info, led: Ledger, ctx_per_slot: int, budget: Budget, margin: float = DEFAULT_MARGIN,
               options: list[tuple[int, int]] | None = None) -> Whiteboard:
    """The report for a model (ModelInfo) and its ledger under a budget.

    ctx_per_slot: the engine's per-slot context (the ledger only knows llama.cpp's total n_ctx);
    options: max_fit's (slots, context) pairs when the caller already has them.
    """
    st, cfg = led.settings, led.config
    slots = cfg.slots or cfg.n_seq_max
    spare = max(0, cfg.n_seq_max - slots)
    if options is None:
        options = max_fit(info, cfg, budget.bytes, margin, spare=spare)
    head = [f"Memory ledger: {info.name} ({info.architecture}, {info.quantization}, {_mib(info.file_size)} file)"]
    placement = "CPU only" if led.device == "cpu" else (
        f"{led.gpu_layers}/{info.n_layers} layers on the GPU" + ("" if cfg.n_gpu_layers is None else
                                                                 f" (--gpu-layers {cfg.n_gpu_layers})"))
    head.append(f"config: {slots} slots × {ctx_per_slot} tokens per slot"
                + (f" + {spare} spare prefix sequences" if spare else "") + f", KV {st.type_k}, {placement}")
    head.append(f"llama.cpp context: n_ctx {st.n_ctx}, n_seq_max {st.n_seq_max}, kv_unified "
                f"{str(st.kv_unified).lower()}, swa_full {str(st.swa_full).lower()}, type_k {st.type_k}, "
                f"type_v {st.type_v}, n_batch {st.n_batch}, n_ubatch {st.n_ubatch}")
    head += [""] + _kv_lines(info, led)
    rows = [(ln.name, _mib(ln.bytes) if ln.where == "gpu" else "", _mib(ln.bytes) if ln.where == "cpu" else "")
            for ln in led.lines]
    rows.append(("total", _mib(led.total("gpu")) if led.device == "gpu" else "", _mib(led.total("cpu"))))
    use = usable(budget.bytes, margin)
    where = "GPU" if led.device == "gpu" else "host memory"
    foot = [f"budget ({where}): {budget.bytes / GiB:.2f} GiB from {budget.source}; keeping {margin:.0%} free "
            f"leaves {use / GiB:.2f} GiB"]
    verdict = "fits" if led.total_bytes <= use else "DOES NOT FIT"
    foot.append(f"predicted {led.total_bytes / GiB:.3f} GiB on the {where}: {verdict}, headroom "
                f"{(use - led.total_bytes) / GiB:+.3f} GiB")
    fit = ", ".join(f"{s} × {c:,}" for s, c in options if c) or "nothing fits"
    foot.append(f"largest slots × context per slot that fit: {fit} (per-slot context capped at the model's "
                f"trained {info.context_length:,})")
    foot += [f"note: {n}" for n in led.notes]
    return Whiteboard(head, rows, foot)
