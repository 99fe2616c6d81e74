"""The gauge: the real no-NVML path on this machine, and the GPU path through a fake pynvml module."""

from __future__ import annotations

import os
import sys
import threading
import time
import types

import pytest

from aegis_tui.memory.gauge import Gauge, GaugeSample, gpu_memory_total, memory_budget, na, sparkline


class NVMLError(Exception):
    pass


class NVMLError_LibraryNotFound(NVMLError):  # noqa: N801 - pynvml's own naming
    pass


def fake_pynvml(*, init_error=None, fail=(), mib_used=1024, delay=0.0, pid=None):
    """A stand-in for nvidia-ml-py with the calls the gauge makes; `fail` names calls that raise."""
    m = types.ModuleType("pynvml")
    m.NVMLError = NVMLError
    m.NVML_TEMPERATURE_GPU = 0
    m.nvmlMemory_v2 = 0x02000028
    m.active = 0
    m.max_active = 0
    m.calls = []
    lock = threading.Lock()

    def call(name, value):
        m.calls.append(name)
        if name in fail:
            raise NVMLError(name)
        return value

    def init():
        if init_error:
            raise init_error
    m.nvmlInit = init
    m.nvmlShutdown = lambda: call("shutdown", None)
    m.nvmlDeviceGetHandleByIndex = lambda i: call("handle", object())
    m.nvmlDeviceGetName = lambda h: call("name", b"Fake GPU 8GB")

    def memory(handle, version=None):
        with lock:
            m.active += 1
            m.max_active = max(m.max_active, m.active)
        try:
            time.sleep(delay)
            name = "memory_v2" if version == m.nvmlMemory_v2 else "memory_v1"
            return call(name, types.SimpleNamespace(used=mib_used << 20, total=8192 << 20, free=0))
        finally:
            with lock:
                m.active -= 1
    m.nvmlDeviceGetMemoryInfo = memory
    m.nvmlDeviceGetUtilizationRates = lambda h: call("util", types.SimpleNamespace(gpu=37, memory=5))
    m.nvmlDeviceGetTemperature = lambda h, s: call("temp", 61)
    m.nvmlDeviceGetPowerUsage = lambda h: call("power", 123_456)
    procs = [types.SimpleNamespace(pid=1, usedGpuMemory=1 << 20),
             types.SimpleNamespace(pid=os.getpid() if pid is None else pid, usedGpuMemory=300 << 20)]
    m.nvmlDeviceGetComputeRunningProcesses = lambda h: call("procs", procs)
    return m


@pytest.fixture
def with_pynvml(monkeypatch):
    def install(**kw):
        mod = fake_pynvml(**kw)
        monkeypatch.setitem(sys.modules, "pynvml", mod)
        return mod
    return install


def test_real_path_never_raises():
    s = Gauge().sample_once()
    assert s.kind in ("gpu", "ram")
    if s.kind == "ram":  # this machine: no NVIDIA driver, so host memory with the reason in the label
        assert s.label.startswith("RAM (no GPU gauge: ")
        assert s.total_bytes > 0 and 0 < s.used_bytes <= s.total_bytes and s.process_bytes > 0
        assert s.temperature_c is None and s.power_w is None
        assert gpu_memory_total() == (None, s.label)


def test_gpu_path_reads_every_field(with_pynvml):
    nv = with_pynvml()
    s = Gauge().sample_once()
    assert s.kind == "gpu" and s.label == "GPU 0: Fake GPU 8GB"
    assert (s.used_bytes, s.total_bytes, s.process_bytes) == (1024 << 20, 8192 << 20, 300 << 20)
    assert (s.util_percent, s.temperature_c, s.power_w) == (37.0, 61.0, 123.456)
    assert "memory_v2" in nv.calls and "memory_v1" not in nv.calls  # the v2 memory API first
    assert s.used_fraction == pytest.approx(0.125)


@pytest.mark.parametrize("fail, missing", [
    ({"temp", "power"}, {"temperature_c", "power_w"}),  # sensors not supported: n/a, the rest stays
    ({"procs"}, {"process_bytes"}),  # no permission to list processes
    ({"memory_v2", "memory_v1"}, {"used_bytes", "total_bytes"}),  # no memory reading at all
    ({"util"}, {"util_percent"}),
])
def test_each_field_na_on_its_own(with_pynvml, fail, missing):
    with_pynvml(fail=fail)
    s = Gauge().sample_once()
    assert s.kind == "gpu"
    fields = {"used_bytes", "total_bytes", "process_bytes", "util_percent", "temperature_c", "power_w"}
    assert {f for f in fields if getattr(s, f) is None} == missing
    assert na(s.temperature_c, "{:.0f} °C") == ("n/a" if "temperature_c" in missing else "61 °C")


def test_v1_memory_api_fallback(with_pynvml):
    nv = with_pynvml(fail={"memory_v2"})
    s = Gauge().sample_once()
    assert s.total_bytes == 8192 << 20 and "memory_v1" in nv.calls


def test_process_not_listed_is_na(with_pynvml):
    with_pynvml(pid=-5)  # our PID is not in the list (no context yet, or another PID namespace)
    assert Gauge().sample_once().process_bytes is None


def test_no_driver_falls_back_to_ram(with_pynvml):
    with_pynvml(init_error=NVMLError_LibraryNotFound())
    s = Gauge().sample_once()
    assert s.kind == "ram" and s.label == "RAM (no GPU gauge: NVML library not found)"
    assert s.total_bytes > 0


def test_library_missing_falls_back_to_ram(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import pynvml raises ImportError
    s = Gauge().sample_once()
    assert s.kind == "ram" and "nvidia-ml-py not installed" in s.label


def test_thread_never_overlaps_and_history_is_bounded(with_pynvml):
    nv = with_pynvml(delay=0.02)
    g = Gauge(interval_s=0.001, history=5).start()
    # a caller sampling at the same time must wait for the poller, not run beside it
    for _ in range(5):
        g.sample_once()
    deadline = time.monotonic() + 5
    while len(nv.calls) < 40 and time.monotonic() < deadline:
        time.sleep(0.01)
    g.stop()
    assert nv.max_active == 1
    hist = g.history()
    assert len(hist) == 5 and g.latest() is hist[-1]
    assert [s.t for s in hist] == sorted(s.t for s in hist)
    assert "shutdown" in nv.calls


def test_sparkline():
    def s(used):
        return GaugeSample("gpu", "x", used, 100 if used is not None else None, None, None, None, None, 0.0)
    assert sparkline([s(0), s(50), s(99), s(None)]) == "▁▅█ "
    assert sparkline([s(10)] * 50, width=8) == "▁" * 8


@pytest.mark.parametrize("nvml, gpu, explicit, expect", [
    # an explicit budget wins, for whichever device the plan is for
    (True, True, 12 << 30, (12 << 30, "--vram-budget", True)),
    (False, False, 2 << 30, (2 << 30, "--vram-budget", False)),
    # a GPU plan with a GPU NVML sees: the GPU's total, named
    (True, True, None, (8192 << 20, "GPU 0: Fake GPU 8GB", True)),
    # a GPU plan but NVML sees no GPU: host RAM, and the plan becomes a CPU run
    (False, True, None, ("ram", "system RAM (no GPU seen by NVML: a CPU run)", False)),
    # a CPU plan beside a GPU: host RAM, without blaming NVML
    (True, False, None, ("ram", "system RAM (a CPU run)", False)),
])
def test_memory_budget(with_pynvml, nvml, gpu, explicit, expect):
    import psutil

    with_pynvml(init_error=None if nvml else NVMLError_LibraryNotFound())
    b = memory_budget(gpu, explicit, "--vram-budget", sample=Gauge().sample_once())
    want = psutil.virtual_memory().total if expect[0] == "ram" else expect[0]
    assert (b.bytes, b.source, b.gpu) == (want, *expect[1:])


def test_memory_budget_reads_nvml_only_for_a_gpu_plan(with_pynvml):
    nv = with_pynvml()
    assert not memory_budget(False).gpu and nv.calls == []  # a CPU plan never opens NVML
    assert memory_budget(True).bytes == 8192 << 20 and "memory_v2" in nv.calls
