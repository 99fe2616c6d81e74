"""The one door to llama.cpp: lazy `llama_cpp` import, backend init once, and a log capture buffer."""

from __future__ import annotations

import ctypes
import threading
from contextlib import contextmanager

_lock = threading.Lock()
_module = None
_log: LlamaLog | None = None
_log_callback = None  # the ctypes callback object; module-level so it is never garbage-collected


def llama():
    """The `llama_cpp` module, imported on first use, with `llama_backend_init()` called exactly once."""
    global _module
    if _module is not None:
        return _module
    with _lock:
        if _module is None:
            import llama_cpp

            # Importing llama_cpp installs its own stderr logger; ours replaces it before anything logs.
            _install_log(llama_cpp)
            llama_cpp.llama_backend_init()
            _module = llama_cpp
    return _module


def tokenize(vocab, text: str, add_special: bool = True) -> list[int]:
    """Tokens of text in a llama.cpp vocabulary; special-token text such as <start_of_turn> is parsed as the token."""
    ll = llama()
    data = text.encode("utf-8")
    cap = len(data) + 16
    arr = (ctypes.c_int32 * cap)()
    n = ll.llama_tokenize(vocab, data, len(data), arr, cap, add_special, True)
    if n < 0:
        cap = -n
        arr = (ctypes.c_int32 * cap)()
        n = ll.llama_tokenize(vocab, data, len(data), arr, cap, add_special, True)
    return list(arr[:n])


class LlamaLog:
    """Everything llama.cpp and ggml log, kept as complete lines (fragments joined) instead of printed."""

    def __init__(self, max_lines: int = 20000) -> None:
        self.lines: list[str] = []
        self.levels: list[int] = []
        self._partial = ""
        self._partial_level = 1
        self._max = max_lines
        self._dropped = 0
        self._lock = threading.Lock()

    def feed(self, level: int, text: str) -> None:
        """Append raw text from the callback; a line is complete at its newline."""
        with self._lock:
            if level != 5 and not self._partial:
                self._partial_level = level
            buf = self._partial + text
            parts = buf.split("\n")
            self._partial = parts.pop()
            for line in parts:
                self.lines.append(line)
                self.levels.append(self._partial_level)
            over = len(self.lines) - self._max
            if over > 0:
                del self.lines[:over]
                del self.levels[:over]
                self._dropped += over

    def mark(self) -> int:
        """A position in the stream of lines; pass it to since() to get what was logged after it."""
        with self._lock:
            return self._dropped + len(self.lines)

    def since(self, mark: int) -> list[str]:
        with self._lock:
            start = max(0, mark - self._dropped)
            out = list(self.lines[start:])
            if self._partial:
                out.append(self._partial)
            return out

    def errors_since(self, mark: int) -> list[str]:
        """Lines logged at warn/error level after mark (for error messages)."""
        with self._lock:
            start = max(0, mark - self._dropped)
            return [ln for ln, lv in zip(self.lines[start:], self.levels[start:]) if lv in (2, 3)]


def log_capture() -> LlamaLog:
    """The process-wide LlamaLog, installed as llama.cpp's (and so ggml's) log callback on first call."""
    if _log is None:
        llama()
    assert _log is not None
    return _log


def _install_log(mod) -> None:
    global _log, _log_callback
    log = LlamaLog()

    def _cb(level, text, _user_data):
        try:
            log.feed(int(level), text.decode("utf-8", "replace") if text else "")
        except Exception:  # an exception must never cross back into C
            pass

    _log_callback = mod.llama_log_callback(_cb)
    # llama_log_set also calls ggml_log_set, so backend (ggml/CUDA) messages land here too.
    mod.llama_log_set(_log_callback, ctypes.c_void_p(0))
    _log = log


class _Captured:
    text = ""


_stderr_lock = threading.Lock()


@contextmanager
def stderr_captured():
    """Redirect file descriptor 2 around a llama.cpp call that fprintf()s past the log hook (the GBNF parser).

    Whatever it wrote is in `.text` afterwards; nothing reaches the terminal (it would print over the UI).
    """
    import os
    import sys
    import tempfile

    cap = _Captured()
    with _stderr_lock, tempfile.TemporaryFile() as tmp:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(tmp.fileno(), 2)
        try:
            yield cap
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            cap.text = tmp.read().decode("utf-8", "replace")


def offload_support() -> tuple[bool, list[str], list[str]]:
    """Whether this llama.cpp build can offload layers to a GPU, its ggml backends (e.g. CUDA, CPU) and devices.

    Reads llama_supports_gpu_offload and ggml's backend registry; loads llama.cpp (not a model).
    """
    ll = llama()
    backends: list[str] = []
    devices: list[str] = []
    try:
        # llama-cpp-python binds no backend-registry calls; its handle on libggml reaches ggml's own exports
        from llama_cpp._ggml import libggml as g

        g.ggml_backend_reg_count.restype = g.ggml_backend_dev_count.restype = ctypes.c_size_t
        g.ggml_backend_reg_get.restype = g.ggml_backend_dev_get.restype = ctypes.c_void_p
        g.ggml_backend_reg_get.argtypes = g.ggml_backend_dev_get.argtypes = [ctypes.c_size_t]
        for fn in (g.ggml_backend_reg_name, g.ggml_backend_dev_name, g.ggml_backend_dev_description):
            fn.restype, fn.argtypes = ctypes.c_char_p, [ctypes.c_void_p]
        backends = [g.ggml_backend_reg_name(g.ggml_backend_reg_get(i)).decode()
                    for i in range(g.ggml_backend_reg_count())]
        for i in range(g.ggml_backend_dev_count()):
            dev = g.ggml_backend_dev_get(i)
            devices.append(f"{g.ggml_backend_dev_name(dev).decode()} ({g.ggml_backend_dev_description(dev).decode()})")
    except (ImportError, AttributeError, OSError):  # an older build without the registry: offload flag only
        pass
    return bool(ll.llama_supports_gpu_offload()), backends, devices
