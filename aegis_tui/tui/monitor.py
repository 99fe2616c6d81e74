"""The VRAM (or RAM) gauge with the ledger's prediction beside it, and the engine's slots."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ..memory.gauge import na, sparkline

GiB = 1024 ** 3
MiB = 1024 ** 2


def _size(n: int | None) -> str:
    if n is None:
        return "n/a"
    return f"{n / GiB:.2f} GiB" if n >= GiB else f"{n / MiB:.0f} MiB"


def _bar(fraction: float | None, width: int = 24) -> Text:
    if fraction is None:
        return Text("?" * width, style="dim")
    full = min(width, round(fraction * width))
    style = "green" if fraction < 0.7 else ("yellow" if fraction < 0.9 else "red")
    return Text("█" * full, style=style) + Text("░" * (width - full), style="dim")


def gauge_text(sample, history: list, ledger) -> Text:
    """The gauge: device label, used/total with a bar, this process vs the ledger's prediction, a sparkline."""
    if sample is None:
        return Text("memory gauge: waiting for the first reading …", style="dim")
    gpu = sample.kind == "gpu"
    t = Text()
    if gpu:
        t.append("VRAM · ", style="bold")
        t.append(sample.label + "\n", style="bold")
    else:
        t.append(sample.label + "\n", style="bold yellow")  # "RAM (no GPU gauge: why)"
    t.append("used ")
    t.append_text(_bar(sample.used_fraction, 16))
    pct = "" if sample.used_fraction is None else f" {sample.used_fraction:.0%}"
    t.append(f" {_size(sample.used_bytes)}/{_size(sample.total_bytes)}{pct}\n")
    where = "gpu" if gpu else "cpu"
    predicted = ledger.total(where) if ledger is not None else None
    t.append(f"process {_size(sample.process_bytes)}" + ("" if gpu else " RSS"))
    t.append(f" · ledger {_size(predicted)}", style="cyan")
    if predicted and sample.process_bytes:
        t.append(f" {(sample.process_bytes - predicted) / predicted:+.0%}", style="dim")
    t.append("\n")
    recent = history[-30:]
    t.append(sparkline(recent, width=30), style="green")
    t.append(f" last {len(recent)}\n", style="dim")
    util = "GPU" if gpu else "CPU"
    t.append(f"{util} {na(sample.util_percent, '{:.0f}%')} · temp {na(sample.temperature_c, '{:.0f} °C')}"
             f" · power {na(sample.power_w, '{:.0f} W')}", style="dim")
    return t


def slots_text(stats, loading: str | None = None) -> Text:
    """Each slot busy/idle with tokens generated, then queue length and KV cells used."""
    if stats is None:
        return Text(loading or "engine: not loaded", style="dim")
    t = Text()
    t.append(f"{stats.busy_slots}/{stats.n_slots} busy", style="bold")
    t.append(f" · queue {stats.queue_len} · {stats.tokens_per_s:.1f} tok/s\n")
    t.append(f"KV {stats.kv_used:,}/{stats.kv_total:,} · prefix cache {stats.prefix_cache_entries}\n")
    for s in stats.slots:
        t.append(f"#{s.id} ", style="bold")
        if s.busy:
            t.append("●", style="bold green")
            t.append(f" req {s.request_id}  prompt {s.prompt_tokens:,}  gen {s.generated}\n")
        else:
            t.append("○ idle\n", style="dim")
    return t


class GaugePane(Static):
    """Memory gauge; updated from Polled messages."""


class SlotsPane(Static):
    """Engine slots; updated from Polled messages."""
