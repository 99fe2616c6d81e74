"""Benchmark progress on stderr: a rich progress bar on a terminal, else one counter line per stage."""

from __future__ import annotations

import sys
import threading
import time

REDRAW_S = 0.2  # pieces arrive on the engine thread: redraw at most this often so drawing never slows a run


class Progress:
    """Requests done out of a total, with generated tokens and the current stage."""

    def __init__(self, total: int, stream=None, enabled: bool = True) -> None:
        self.total = max(1, total)
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.done = 0
        self.tokens = 0
        self.label = ""
        self._lock = threading.Lock()
        self._last = 0.0
        self._t0 = time.perf_counter()
        self._bar = self._task = None
        if self.tty:
            self._start_bar()

    def _start_bar(self) -> None:
        # rich loads only for a terminal; no refresh thread: it redraws when counts change (see _draw)
        from rich.console import Console
        from rich.progress import BarColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as Bar

        self._bar = Bar(BarColumn(bar_width=24), TextColumn("{task.completed}/{task.total} requests"),
                        TextColumn("{task.fields[tokens]} tok"), TimeElapsedColumn(),
                        TextColumn("{task.description}"), console=Console(file=self.stream), auto_refresh=False,
                        transient=True, redirect_stdout=False, redirect_stderr=False)
        self._task = self._bar.add_task("", total=self.total, tokens=0)
        self._bar.start()

    def stage(self, label: str) -> None:
        with self._lock:
            self.label = label
            if self.enabled and not self.tty:
                self.stream.write(f"[{self.done}/{self.total}] {label}\n")
                self.stream.flush()
        self._draw(force=True)

    def piece(self, piece) -> None:
        with self._lock:
            self.tokens += piece.n_tokens
        self._draw()

    def add_tokens(self, n: int) -> None:
        with self._lock:
            self.tokens += n
        self._draw()

    def done_one(self, n: int = 1) -> None:
        with self._lock:
            self.done += n
        self._draw(force=True)

    def _draw(self, force: bool = False) -> None:
        if self._bar is None:
            return
        now = time.perf_counter()
        if not force and now - self._last < REDRAW_S:
            return
        self._last = now
        with self._lock:
            if self._bar is None:  # closed meanwhile
                return
            self._bar.update(self._task, completed=self.done, tokens=self.tokens, description=self.label[:40])
            self._bar.refresh()

    def close(self) -> None:
        if self.tty:
            with self._lock:
                bar, self._bar = self._bar, None
            if bar is not None:
                bar.stop()
        elif self.enabled:
            self.stream.write(f"[{self.done}/{self.total}] done in {time.perf_counter() - self._t0:.1f} s\n")
            self.stream.flush()
