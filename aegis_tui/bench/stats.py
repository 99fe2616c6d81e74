"""Timing statistics: one request and one batch as a benchmark sees them, percentiles, scaling phases."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field


def mean(values) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def percentile(values, p: float) -> float | None:
    """Linear-interpolated percentile (numpy's default), p in [0, 100]; None for no values."""
    vals = sorted(v for v in values if v is not None)
    if not vals:
        return None
    k = (len(vals) - 1) * p / 100.0
    lo, hi = math.floor(k), math.ceil(k)
    return vals[lo] + (vals[hi] - vals[lo]) * (k - lo)


def ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 3) if a is not None and b else None


def rnd(x: float | None, nd: int = 4) -> float | None:
    return None if x is None else round(x, nd)


def loadavg() -> list[float] | None:
    """The 1/5/15-minute load averages, to tell whether numbers were taken on a busy machine."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        return None


@dataclass
class RequestResult:
    """One request as a benchmark sees it (seconds; tokens)."""

    ttft_s: float | None
    e2e_s: float
    queue_s: float
    generated_tokens: int
    prompt_tokens: int = 0
    cached_tokens: int = 0
    finish_reason: str = ""
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.finish_reason not in ("error", "closed", "cancelled")

    @property
    def tpot_s(self) -> float | None:
        if self.ttft_s is None or self.generated_tokens < 2:
            return None
        return (self.e2e_s - self.ttft_s) / (self.generated_tokens - 1)


@dataclass
class BatchResult:
    """C requests sent together: their results and the wall time from the first send to the last finish."""

    concurrency: int
    wall_s: float
    requests: list[RequestResult] = field(default_factory=list)

    def row(self) -> dict:
        ok = [r for r in self.requests if r.ok]
        ttfts = [r.ttft_s for r in ok]
        gen = sum(r.generated_tokens for r in ok)
        return {
            "concurrency": self.concurrency, "completed": len(ok), "total": len(self.requests),
            "avg_ttft_s": rnd(mean(ttfts)), "max_ttft_s": rnd(max((t for t in ttfts if t is not None), default=None)),
            "p50_ttft_s": rnd(percentile(ttfts, 50)), "p99_ttft_s": rnd(percentile(ttfts, 99)),
            "tpot_s": rnd(mean(r.tpot_s for r in ok), 5),
            "throughput_tok_s": rnd(gen / self.wall_s if self.wall_s > 0 else None, 2),
            "wall_s": rnd(self.wall_s), "avg_queue_s": rnd(mean(r.queue_s for r in ok)),
            "generated_tokens": gen, "min_generated": min((r.generated_tokens for r in ok), default=0),
            "max_generated": max((r.generated_tokens for r in ok), default=0),
            "cached_tokens": sum(r.cached_tokens for r in ok),
            "errors": [r.error for r in self.requests if not r.ok][:3],
        }


def phases(rows: list[dict], n_parallel: int) -> list[str]:
    """Name each row's phase from throughput growth vs the previous row: linear, sublinear or saturated.

    Scaling efficiency e = log(throughput gain) / log(concurrency gain): 1 when throughput doubles with C,
    0 when it stays flat. e >= 0.7 is linear, e < 0.25 (or a loss) is saturated, in between sublinear.
    """
    out = []
    prev = None
    for r in rows:
        c, thr = r["concurrency"], r.get("throughput_tok_s")
        if prev is None or not thr or not prev[1] or c <= prev[0]:
            name = "baseline"
        else:
            e = math.log(thr / prev[1]) / math.log(c / prev[0])
            r["scaling_efficiency"] = round(e, 3)
            name = "linear" if e >= 0.7 else "saturated" if e < 0.25 else "sublinear"
        if c > n_parallel:
            name += " (queued: C > slots)"
        out.append(name)
        prev = (c, thr)
    return out
