"""What the index benchmarks share: a sampler (peak RSS, busy slots) and a timed full build of a fact index."""

from __future__ import annotations

import os
import threading
import time

from .stats import mean, rnd


class Sampler:
    """Samples this process's RSS and the engine's busy slots in a thread while a block runs (`with`)."""

    def __init__(self, engine=None, every_s: float = 0.05) -> None:
        import psutil

        self._proc = psutil.Process(os.getpid())
        self.engine = engine
        self.every_s = every_s
        self.peak_rss = self._proc.memory_info().rss
        self.busy: list[int] = []
        self.queued: list[int] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _loop(self) -> None:
        while not self._stop.wait(self.every_s):
            self.sample()

    def sample(self) -> None:
        self.peak_rss = max(self.peak_rss, self._proc.memory_info().rss)
        if self.engine is not None:
            st = self.engine.stats()
            self.busy.append(st.busy_slots)
            self.queued.append(st.queue_len)

    def __enter__(self) -> Sampler:
        """Start sampling; a sampler entered again goes on accumulating (several rounds of one mode)."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.sample()

    def summary(self) -> dict:
        """Peak RSS (MiB) and the mean share of slots busy while sampled (slot utilisation)."""
        n = self.engine.config.n_parallel if self.engine is not None else 0
        busy = mean(self.busy)
        return {"peak_rss_mib": round(self.peak_rss / 2**20, 1),
                "slot_utilisation": rnd(busy / n, 3) if busy is not None and n else None,
                "avg_queue": rnd(mean(self.queued), 2)}


def request_stats(handles: list) -> dict:
    """Requests, generated, prompt and prefix-cached tokens over finished request handles."""
    done = [h.result() for h in handles]
    return {"requests": len(done), "generated_tokens": sum(c.stats.generated_tokens for c in done),
            "prompt_tokens": sum(c.stats.prompt_tokens for c in done),
            "cached_tokens": sum(c.stats.cached_tokens for c in done)}


class Recorder:
    """Wraps an engine to keep every request handle (for tokens per request); everything else passes through."""

    def __init__(self, engine) -> None:
        self._engine = engine
        self.handles: list = []
        self._lock = threading.Lock()

    def __getattr__(self, name):
        return getattr(self._engine, name)

    def submit(self, *args, **kwargs):
        h = self._engine.submit(*args, **kwargs)
        with self._lock:
            self.handles.append(h)
        return h


def build_index(engine, doc, model_id: str, cancel: threading.Event | None = None, on_progress=None) -> tuple:
    """(store, figures): a fresh in-memory IndexStore with the whole document indexed, and what it cost —
    seconds, values, verified, rejected, requests, tokens (per value too), prompt tokens per request,
    slot utilisation and peak RSS while building."""
    from ..answer.factindex import IndexStore

    rec = Recorder(engine)
    store = IndexStore(rec, model_id)
    t = time.perf_counter()
    indexer = store.indexer(doc)          # the document's candidates are computed here
    candidates_s = time.perf_counter() - t
    indexer.on_progress = on_progress
    with Sampler(engine) as sampler:
        t = time.perf_counter()
        indexer.run(cancel or threading.Event())
        build_s = time.perf_counter() - t
    idx = indexer.index
    req = request_stats(rec.handles)
    n = max(1, idx.total)
    figures = {
        "chars": len(doc.text), "values": idx.total, "verified": len(idx.facts), "rejected": len(idx.rejected),
        "pending": idx.total - idx.done, "candidates_s": rnd(candidates_s, 3), "build_s": rnd(build_s, 3),
        "values_per_s": rnd(idx.done / build_s if build_s > 0 else None, 3), **req,
        "requests_per_value": rnd(req["requests"] / n, 3), "tokens_per_value": rnd(req["generated_tokens"] / n, 2),
        "prompt_tokens_per_request": rnd(req["prompt_tokens"] / req["requests"], 1) if req["requests"] else None,
        "cached_share": rnd(req["cached_tokens"] / req["prompt_tokens"], 3) if req["prompt_tokens"] else None,
        **sampler.summary(),
    }
    store.engine = engine  # answers that ensure nothing more need no recording
    indexer.engine = engine
    return store, figures


def fit_line(xs: list[float], ys: list[float]) -> dict:
    """Least-squares y = slope·x + intercept and r² (None when fewer than two distinct x)."""
    n = len(xs)
    if n < 2 or len(set(xs)) < 2:
        return {"slope": None, "intercept": None, "r2": None}
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    slope = sxy / sxx
    intercept = my - slope * mx
    ss_tot = sum((y - my) ** 2 for y in ys)
    ss_res = sum((y - (slope * x + intercept)) ** 2 for x, y in zip(xs, ys))
    return {"slope": slope, "intercept": intercept, "r2": 1 - ss_res / ss_tot if ss_tot > 0 else 1.0}
