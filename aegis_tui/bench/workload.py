"""What the engine benchmarks run: the document and questions, our engine sized for them, requests sent at once."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from ..errors import InputError
from .progress import Progress
from .stats import BatchResult, RequestResult


def load_document(name: str, max_chars: int | None = None):
    """A sample ('policy_zh', 'policy_en') or a file path, optionally cut at a line end before max_chars."""
    from ..samples import SAMPLES, sample_path
    from ..text.document import Document

    path = sample_path(name) if name in SAMPLES else Path(name)
    if not path.is_file():
        raise InputError(f"--doc: {name}: no such sample or file (samples: {', '.join(SAMPLES)})")
    doc = Document.load(path)
    if max_chars and len(doc.text) > max_chars:
        cut = doc.text.rfind("\n", 0, max_chars)
        doc = Document.from_text(doc.text[: cut if cut > 0 else max_chars], path=f"{doc.path} (first {max_chars} chars)")
    return doc


def bench_questions(name: str, n: int) -> list[str]:
    """n distinct questions: the sample's questions.json entries, then one per gold fact, numbered if reused."""
    from ..samples import SAMPLES, load_gold, load_questions

    qs: list[str] = []
    if name in SAMPLES:
        qs += [q["question"] for q in load_questions().get(name, [])]
        zh = name.endswith("_zh")
        for f in load_gold(name).atomic_facts:
            qs.append(f"{f.subject}的{f.predicate}是多少？" if zh else f"What is the {f.predicate} for {f.subject}?")
    if not qs:
        qs = ["请概括这份文件的要点。", "What does this document say about limits and amounts?"]
    qs = list(dict.fromkeys(qs))
    return [qs[i % len(qs)] + ("" if i < len(qs) else f" ({i // len(qs) + 1})") for i in range(n)]


def open_engine(model: str, make_prompts, max_tokens: int, n_parallel: int, n_threads: int | None = None,
                n_gpu_layers: int | None = None, guess_ctx: int = 2048):
    """(engine, prompts): prompts = make_prompts(engine) (they need its chat template); slots hold the longest
    prompt plus max_tokens, so the engine is reopened once when the guessed slot size was too small."""
    from ..engine import Engine, EngineConfig

    def build(ctx: int):
        kw = {} if n_threads is None else {"n_threads": n_threads}
        return Engine(EngineConfig(model_path=model, n_parallel=n_parallel, n_ctx_per_slot=ctx,
                                   n_gpu_layers=n_gpu_layers, **kw))

    engine = build(guess_ctx)
    prompts = make_prompts(engine)
    need = -(-(max(len(engine.tokenize(p)) for p in prompts) + max_tokens + 64) // 256) * 256
    if need > engine.n_ctx_per_slot:
        engine.close()
        engine = build(need)
    return engine, prompts


def engine_batch(engine, prompts: list[str], max_tokens: int, progress: Progress | None = None) -> BatchResult:
    """Submit every prompt at once to our engine (stop=None, greedy) and wait for all of them."""
    on_piece = progress.piece if progress is not None else None
    t0 = time.perf_counter()
    handles = [engine.submit(p, max_tokens=max_tokens, stop=None, on_piece=on_piece) for p in prompts]
    results = []
    for h in handles:
        c = h.result()
        s = c.stats
        results.append(RequestResult(s.ttft_s, s.e2e_s, s.queue_s, s.generated_tokens, s.prompt_tokens,
                                     s.cached_tokens, c.finish_reason, c.error))
        if progress is not None:
            progress.done_one()
    return BatchResult(len(prompts), time.perf_counter() - t0, results)


def run_threads(work, n: int) -> float:
    """Run work(i) for i in range(n) on n threads at once; the wall time in seconds."""
    t0 = time.perf_counter()
    threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return time.perf_counter() - t0
