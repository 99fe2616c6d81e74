"""A FakeEngine that speaks the real engine's interface with scripted, deterministic replies (for UI tests)."""

from __future__ import annotations

import json
import queue
import re
import threading
import time
from dataclasses import dataclass

from aegis_tui.engine.config import EngineConfig
from aegis_tui.engine.handle import Completion, EngineStats, Piece, RequestHandle, RequestStats, SlotState
from aegis_tui.memory.gauge import GaugeSample

# The fan-out label prompt ends with the clause and value of one candidate (prompts.label_prompt).
_LABEL = re.compile(r"(?:条款：|Clause: )(?P<clause>[^\n]*)\n(?:数值：|Value: )(?P<value>[^\n]*)\n"
                    r"(?:[^\n]*\n)?(?:答案：|Answer: )$")
PREDICATES = ["最高支付限额", "起付线", "报销比例", "支付比例", "限额", "补助", "标准", "比例",
              "cap", "limit", "rate", "allowance", "deadline"]
_CUT = re.compile(r"^.*[：:，,；;（）()、]")
PROSE = {"zh": "根据文件，起付线和报销比例按医疗机构级别确定。", "en": "According to the document, it depends."}


def label_for(clause: str, value: str) -> dict:
    """The scripted label: subject = text just before the value, predicate = the first known word in the clause."""
    before = clause[: clause.find(value)] if value in clause else clause
    subject = _CUT.sub("", before).strip(" 在的为是") or before.strip() or clause
    subject = re.sub(r"(住院的|的)?(报销比例|起付线)?为?$", "", subject) or subject
    low = clause.lower()
    predicate = next((p for p in PREDICATES if p in low), clause[:8])
    return {"subject": subject, "predicate": predicate}


def reply_for(prompt: str, grammar: str | None) -> str:
    """Deterministic text for a prompt: a label JSON for fan-out prompts, one sentence for prose prompts."""
    m = _LABEL.search(prompt)
    if grammar is not None and m:
        return json.dumps(label_for(m["clause"], m["value"]), ensure_ascii=False)
    zh = "答案：" in prompt[-40:] or "【文件】" in prompt
    return PROSE["zh" if zh else "en"]


@dataclass
class _Req:
    handle: RequestHandle
    prompt: str
    grammar: str | None
    max_tokens: int
    t_submit: float


class FakeEngine:
    """n_parallel worker threads play slots; each request streams its scripted reply in pieces, delay_s in all."""

    chat_template = None
    bos_text = ""
    eos_text = ""

    def __init__(self, n_parallel: int = 4, delay_s: float = 0.0, model_path: str | None = None,
                 fail_submit: Exception | None = None, clock=time.perf_counter) -> None:
        from aegis_tui.models import embedded_model_path, inspect_model

        path = str(model_path or embedded_model_path())
        self.config = EngineConfig(model_path=path, n_parallel=n_parallel, n_ctx_per_slot=4096)
        self.model_info = inspect_model(path)
        self.n_gpu_layers = 0
        self.delay_s = delay_s
        self.clock = clock  # piece timestamps; a frozen clock makes timings (and snapshots) deterministic
        self.fail_submit = fail_submit
        self.prompts: list[str] = []
        self._queue: queue.Queue = queue.Queue()
        self._slots: list[_Req | None] = [None] * n_parallel
        self._generated = [0] * n_parallel
        self._lock = threading.Lock()
        self._closed = False
        self._threads = [threading.Thread(target=self._serve, args=(i,), daemon=True) for i in range(n_parallel)]
        for t in self._threads:
            t.start()

    def submit(self, prompt, *, grammar=None, max_tokens=256, sampling=None, stop=None, on_piece=None):
        if self._closed:
            from aegis_tui.errors import EngineError

            raise EngineError("engine is closed")
        if self.fail_submit is not None:
            raise self.fail_submit
        handle = RequestHandle(on_piece, cancel_fn=lambda h: None)
        with self._lock:
            self.prompts.append(prompt)
        self._queue.put(_Req(handle, prompt, grammar, max_tokens, self.clock()))
        return handle

    def _serve(self, slot: int) -> None:
        while True:
            req = self._queue.get()
            if req is None:
                return
            with self._lock:
                self._slots[slot], self._generated[slot] = req, 0
            self._run(slot, req)
            with self._lock:
                self._slots[slot] = None

    def _run(self, slot: int, req: _Req) -> None:
        text = reply_for(req.prompt, req.grammar)
        chunks = [text[i:i + 4] for i in range(0, len(text), 4)]
        stats = RequestStats(queue_s=self.clock() - req.t_submit, prompt_tokens=len(req.prompt) // 2)
        out, reason = "", "eog"
        for chunk in chunks:
            if self._closed or req.handle.cancel_requested:
                reason = "closed" if self._closed else "cancelled"
                break
            if self.delay_s:
                time.sleep(self.delay_s / len(chunks))
            out += chunk
            with self._lock:
                self._generated[slot] += 1
            stats.generated_tokens += 1
            req.handle._emit(Piece(chunk, self.clock(), 1))
        stats.e2e_s = self.clock() - req.t_submit
        req.handle._finish(Completion(out, reason, None, list(range(stats.generated_tokens)), stats))

    def stats(self) -> EngineStats:
        with self._lock:
            slots = [SlotState(i, r is not None, r.handle.id if r else None, self._generated[i] if r else 0,
                               len(r.prompt) // 2 if r else 0) for i, r in enumerate(self._slots)]
        kv = sum(s.prompt_tokens + s.generated for s in slots)
        return EngineStats(n_slots=len(slots), busy_slots=sum(s.busy for s in slots),
                           queue_len=self._queue.qsize(), kv_used=kv, kv_total=self.config.n_ctx,
                           tokens_per_s=0.0, slots=slots, prefix_cache_entries=0)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for _ in self._threads:
            self._queue.put(None)


class FakeGauge:
    """A gauge with one fixed sample, so snapshots are stable; counts polls."""

    def __init__(self, kind: str = "ram") -> None:
        self.sample = GaugeSample(kind, "RAM (no GPU gauge: NVML library not found)" if kind == "ram" else
                                  "GPU 0: Fake H100", 6 * 2**30, 16 * 2**30, 420 * 2**20, 12.0, None, None, 1.0)
        self.samples = [GaugeSample(kind, self.sample.label, (2 + i % 8) * 2**30, 16 * 2**30, 420 * 2**20,
                                    12.0, None, None, float(i)) for i in range(30)] + [self.sample]
        self.started = self.stopped = False

    def start(self):
        self.started = True
        return self

    def stop(self) -> None:
        self.stopped = True

    def latest(self) -> GaugeSample:
        return self.sample

    def history(self) -> list[GaugeSample]:
        return list(self.samples)
