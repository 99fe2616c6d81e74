"""Live memory gauge: NVML device readings on a non-overlapping poller, falling back to a RAM gauge."""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from dataclasses import dataclass

_SPARK = "▁▂▃▄▅▆▇█"


@dataclass(frozen=True)
class GaugeSample:
    """One reading; any field NVML (or psutil) could not give is None, shown as "n/a"."""

    kind: str  # "gpu" (NVML) or "ram" (host memory: no GPU, no driver, or no NVML library)
    label: str
    used_bytes: int | None
    total_bytes: int | None
    process_bytes: int | None  # this process: its GPU memory, or its resident set on the RAM gauge
    util_percent: float | None  # GPU utilisation, or CPU utilisation on the RAM gauge
    temperature_c: float | None
    power_w: float | None
    t: float  # time.monotonic() when taken

    @property
    def used_fraction(self) -> float | None:
        if self.used_bytes is None or not self.total_bytes:
            return None
        return self.used_bytes / self.total_bytes


def na(value, fmt: str = "{}") -> str:
    """A field for display: formatted, or "n/a" when the reading is missing."""
    return "n/a" if value is None else fmt.format(value)


def sparkline(samples: list[GaugeSample], width: int = 30) -> str:
    """Used memory over the last `width` samples as block characters (a gap where a reading is missing)."""
    out = []
    for s in samples[-width:]:
        f = s.used_fraction
        out.append(" " if f is None else _SPARK[min(len(_SPARK) - 1, int(f * len(_SPARK)))])
    return "".join(out)


class _Nvml:
    """An open NVML handle on one device; every reading is guarded on its own."""

    def __init__(self, index: int) -> None:
        import pynvml  # nvidia-ml-py; ImportError here means "no NVML"

        self.nv = pynvml
        pynvml.nvmlInit()
        try:
            self.handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            name = pynvml.nvmlDeviceGetName(self.handle)
        except Exception:
            pynvml.nvmlShutdown()
            raise
        self.name = name.decode() if isinstance(name, bytes) else str(name)
        self.index = index

    def _try(self, fn, *args):
        try:
            return fn(*args)
        except Exception:  # NVMLError_NotSupported, NoPermission, a missing symbol on an old driver ...
            return None

    def memory(self):
        nv = self.nv
        mem = self._try(lambda: nv.nvmlDeviceGetMemoryInfo(self.handle, version=nv.nvmlMemory_v2))
        return mem if mem is not None else self._try(nv.nvmlDeviceGetMemoryInfo, self.handle)

    def process_bytes(self) -> int | None:
        procs = self._try(self.nv.nvmlDeviceGetComputeRunningProcesses, self.handle)
        if procs is None:
            return None
        pid = os.getpid()
        for p in procs:
            if getattr(p, "pid", None) == pid:
                used = getattr(p, "usedGpuMemory", None)
                return int(used) if isinstance(used, int) else None
        return None  # not listed (no context yet, or a PID namespace hides it)

    def sample(self) -> GaugeSample:
        nv = self.nv
        mem = self.memory()
        util = self._try(nv.nvmlDeviceGetUtilizationRates, self.handle)
        temp = self._try(nv.nvmlDeviceGetTemperature, self.handle, nv.NVML_TEMPERATURE_GPU)
        power_mw = self._try(nv.nvmlDeviceGetPowerUsage, self.handle)
        return GaugeSample(
            kind="gpu", label=f"GPU {self.index}: {self.name}",
            used_bytes=int(mem.used) if mem is not None else None,
            total_bytes=int(mem.total) if mem is not None else None,
            process_bytes=self.process_bytes(),
            util_percent=float(util.gpu) if util is not None else None,
            temperature_c=float(temp) if temp is not None else None,
            power_w=power_mw / 1000.0 if power_mw is not None else None,
            t=time.monotonic(),
        )

    def close(self) -> None:
        self._try(self.nv.nvmlShutdown)


def _ram_sample(reason: str) -> GaugeSample:
    used = total = rss = cpu = None
    try:
        import psutil

        vm = psutil.virtual_memory()
        total, used = int(vm.total), int(vm.total - vm.available)
        rss = int(psutil.Process().memory_info().rss)
        cpu = float(psutil.cpu_percent(interval=None))
    except Exception:
        pass
    return GaugeSample("ram", f"RAM (no GPU gauge: {reason})", used, total, rss, cpu, None, None, time.monotonic())


class Gauge:
    """Samples every interval_s on a daemon thread; the next sample is armed only after one finishes."""

    def __init__(self, interval_s: float = 1.0, history: int = 60, device_index: int = 0) -> None:
        self.interval_s = interval_s
        self._history: deque[GaugeSample] = deque(maxlen=history)
        self._device_index = device_index
        self._nvml: _Nvml | None = None
        self._reason: str | None = None  # why there is no NVML, once we know
        self._lock = threading.Lock()  # guards the history
        self._sample_lock = threading.Lock()  # one sample at a time, thread or caller
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _open(self) -> None:
        if self._nvml is not None or self._reason is not None:
            return
        try:
            self._nvml = _Nvml(self._device_index)
        except ImportError:
            self._reason = "nvidia-ml-py not installed"
        except Exception as exc:  # NVMLError_LibraryNotFound / DriverNotLoaded / InvalidArgument ...
            self._reason = _nvml_reason(exc)

    def sample_once(self) -> GaugeSample:
        """Take one reading now, keep it in the history and return it; never raises."""
        with self._sample_lock:
            try:
                self._open()
                sample = self._nvml.sample() if self._nvml is not None else _ram_sample(self._reason or "?")
            except Exception as exc:  # a failure mid-way: report it as a RAM reading, keep going
                sample = _ram_sample(f"NVML failed: {type(exc).__name__}")
            with self._lock:
                self._history.append(sample)
            return sample

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample_once()
            self._stop.wait(self.interval_s)  # re-armed after the sample completed: polls never overlap

    def start(self) -> Gauge:
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="aegis-gauge", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=max(2.0, self.interval_s * 2))
            self._thread = None
        with self._sample_lock:
            if self._nvml is not None:
                self._nvml.close()
                self._nvml = None

    def latest(self) -> GaugeSample | None:
        with self._lock:
            return self._history[-1] if self._history else None

    def history(self) -> list[GaugeSample]:
        with self._lock:
            return list(self._history)

    def __enter__(self) -> Gauge:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def _nvml_reason(exc: Exception) -> str:
    name = type(exc).__name__.removeprefix("NVMLError_")
    return {"LibraryNotFound": "NVML library not found", "DriverNotLoaded": "no NVIDIA driver",
            "NoPermission": "no permission for NVML", "InvalidArgument": "no such GPU"}.get(name, name)


def read_once(device_index: int = 0) -> GaugeSample:
    """One reading without a polling thread: the GPU's (NVML) when it sees one, else host RAM."""
    g = Gauge(device_index=device_index)
    try:
        return g.sample_once()
    finally:
        g.stop()


def gpu_memory_total(device_index: int = 0) -> tuple[int | None, str]:
    """The GPU's total memory in bytes and its label when NVML sees one, else (None, why not)."""
    s = read_once(device_index)
    return (s.total_bytes if s.kind == "gpu" else None), s.label


@dataclass(frozen=True)
class Budget:
    """The memory a plan must fit in: how many bytes, where that figure came from, and whose memory it is."""

    bytes: int
    source: str
    gpu: bool  # the GPU's memory (or an explicit budget for a GPU plan); else host RAM


def memory_budget(gpu: bool, explicit_bytes: int | None = None, explicit_source: str = "an explicit budget",
                  sample: GaugeSample | None = None) -> Budget:
    """The budget a plan must fit: an explicit one, else the GPU's total when the plan offloads and NVML
    sees a GPU, else system RAM (and then the plan is a CPU run).

    sample: a reading already taken (the TUI's gauge, the ledger's device probe); else NVML is read here,
    and only when the plan offloads.
    """
    if explicit_bytes is not None:
        return Budget(int(explicit_bytes), explicit_source, gpu)
    if gpu:
        sample = sample or read_once()
        if sample.kind == "gpu" and sample.total_bytes:
            return Budget(sample.total_bytes, sample.label, True)
    import psutil

    seen = sample is not None and sample.kind == "gpu"
    why = "a CPU run" if seen else "no GPU seen by NVML: a CPU run"
    return Budget(int(psutil.virtual_memory().total), f"system RAM ({why})", False)
