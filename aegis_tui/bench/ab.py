"""`aegis bench ab`: single-stage prose (baseline) vs two-stage extract → verify → realize, C questions at once."""

from __future__ import annotations

import os
import threading
import time

from ..answer.states import Outcome
from ..cli import add_model_arg
from .options import (
    MAX_CONCURRENCY,
    MAX_TOKENS_LIMIT,
    add_run_args,
    check_out_dir,
    check_range,
    resolve_checked_model,
)
from .progress import Progress
from .report import Block, Table, finish, fmt
from .stats import loadavg, mean, ratio, rnd
from .workload import bench_questions, load_document, open_engine, run_threads

MODES = (("baseline", "baseline"), ("two_stage", "two-stage"))


def register(bsub) -> None:
    p = bsub.add_parser("ab", help="A/B at C=4: single-stage prose vs two-stage (extract, verify, realize)")
    add_model_arg(p)
    p.add_argument("--concurrency", type=int, default=4, help="questions answered at once (default 4)")
    p.add_argument("--parallel", type=int, default=4, help="engine slots (default 4)")
    p.add_argument("--max-tokens", type=int, help="prose answer budget of the baseline (default 200; quick 64)")
    p.add_argument("--strategy", choices=["fan-out", "single-pass"], default="fan-out", help="two-stage extraction")
    p.add_argument("--top-k", type=int, help="two-stage candidates after relevance ranking (default 16; quick 6)")
    p.add_argument("--no-warmup", action="store_true", help="skip priming the document prefix before each mode")
    p.add_argument("--quick", action="store_true", help="a 1200-char document, 64 prose tokens, 6 candidates")
    add_run_args(p, "ab")
    p.set_defaults(func=run)


class TimedEngine:
    """Wraps the engine to record, per calling thread, when each request's engine work started and ended."""

    def __init__(self, engine) -> None:
        self._engine = engine
        self._lock = threading.Lock()
        self.calls: dict[int, list] = {}

    def __getattr__(self, name):
        return getattr(self._engine, name)

    def submit(self, *args, **kwargs):
        t = time.perf_counter()
        h = self._engine.submit(*args, **kwargs)  # tokenising and grammar compiling count as overhead
        now = time.perf_counter()
        with self._lock:
            self.calls.setdefault(threading.get_ident(), []).append((now, h, now - t))
        return h

    def take(self) -> list:
        with self._lock:
            return self.calls.pop(threading.get_ident(), [])


def engine_seconds(calls: list) -> float:
    """Union of [submitted, finished] over a question's requests: the time the engine was working for it."""
    spans = sorted((t, t + h.result().stats.e2e_s) for t, h, _ in calls)
    total, cur_s, cur_e = 0.0, None, None
    for s, e in spans:
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    return total + (cur_e - cur_s if cur_e is not None else 0.0)


def run(args) -> int:
    c = check_range("--concurrency", args.concurrency, 1, MAX_CONCURRENCY)
    par = check_range("--parallel", args.parallel, 1, MAX_CONCURRENCY)
    mt = args.max_tokens if args.max_tokens is not None else (64 if args.quick else 200)
    mt = check_range("--max-tokens", mt, 1, MAX_TOKENS_LIMIT)
    check_out_dir(args.out)
    doc_chars = args.doc_chars if args.doc_chars is not None else (1200 if args.quick else None)
    doc = load_document(args.doc, doc_chars)
    model = resolve_checked_model(args.model)
    top_k = check_range("--top-k", (6 if args.quick else 16) if args.top_k is None else args.top_k, 1, 64)
    result = measure(model, doc, args.doc, c, par, mt, strategy=args.strategy, top_k=top_k, warmup=not args.no_warmup,
                     threads=args.threads, n_gpu_layers=args.n_gpu_layers, quick=args.quick,
                     progress=not args.no_progress)
    return finish(args, result, "ab", "plot_ab", text_report)


def measure(model: str, doc, doc_name: str, c: int, par: int, prose_tokens: int, *, strategy: str = "fan-out",
            top_k: int = 16, warmup: bool = True, threads=None, n_gpu_layers=None, quick: bool = False,
            progress: bool = True) -> dict:
    """Answer C questions at once in each mode and compare; before each mode a 1-token request primes the
    document prefix (warm, as in a session where the document is already open)."""
    from ..answer.pipeline import Pipeline, PipelineConfig
    from ..answer.prompts import facts_prompt, label_prompt, prose_prompt, render
    from ..answer.relevance import enumerate_candidates

    questions = bench_questions(doc_name, c + 1)  # the last one only primes the prefix cache
    cfg = PipelineConfig(strategy=strategy, prose_max_tokens=prose_tokens, top_k=top_k,
                         model_name=os.path.basename(model))
    longest = max(prose_tokens, cfg.label_max_tokens if strategy == "fan-out" else cfg.facts_max_tokens)

    def prompts(e) -> list[str]:
        """The two priming prompts first, then every label prompt the questions can produce (slot sizing)."""
        warm_q = questions[c]
        out = [render(prose_prompt(doc.text, warm_q, doc.language), e.chat_template)]
        cands = enumerate_candidates(doc, warm_q, top_k=top_k) if strategy == "fan-out" else []
        first = label_prompt(doc.text, warm_q, cands[0], doc.language) if cands else None
        out.append(render(first or facts_prompt(doc.text, warm_q, doc.language), e.chat_template))
        for q in questions:
            if strategy != "fan-out":
                out.append(render(facts_prompt(doc.text, q, doc.language), e.chat_template))
                continue
            out += [render(label_prompt(doc.text, q, cand, doc.language), e.chat_template)
                    for cand in enumerate_candidates(doc, q, top_k=top_k)]
        return out

    # + 160 tokens: a repair attempt appends the failed answer and the rule that rejected it
    engine, primes = open_engine(model, prompts, longest + 160, par, threads, n_gpu_layers)
    primes = primes[:2]
    prog = Progress(2 * (c + int(warmup)), enabled=progress)
    load_before = loadavg()
    try:
        timed = TimedEngine(engine)
        pipe = Pipeline(timed, cfg)
        out: dict = {
            "model": model, "quick": quick, "concurrency": c, "n_parallel": par, "strategy": strategy,
            "prose_max_tokens": prose_tokens, "top_k": top_k, "warm": warmup,
            "document": {"name": doc_name, "chars": len(doc.text), "language": doc.language},
            "settings": {**engine.settings, "n_ctx_per_slot": engine.n_ctx_per_slot,
                         "n_threads": engine.config.n_threads, "n_gpu_layers": engine.n_gpu_layers},
            "questions": questions[:c], "answers": {},
        }
        for (key, mode), prime in zip(MODES, primes):
            engine.clear_prefix_cache()
            if warmup:  # baseline: a prose prompt; two-stage: a label prompt (fan-out) or the facts prompt
                prog.stage(f"{mode}: priming the document prefix")
                engine.generate(prime, max_tokens=1)
                prog.done_one()
            prog.stage(f"{mode}: {c} questions at once")
            summary, answers = _batch(pipe, timed, doc, questions[:c], mode, prog)
            out[key] = summary
            out["answers"][key] = answers
    finally:
        engine.close()
    prog.close()
    b, t = out["baseline"], out["two_stage"]
    out["ratios"] = {
        "e2e_two_stage_over_baseline": ratio(t["avg_e2e_s"], b["avg_e2e_s"]),
        "ttft_two_stage_over_baseline": ratio(t["avg_ttft_s"], b["avg_ttft_s"]),
        "wall_two_stage_over_baseline": ratio(t["wall_s"], b["wall_s"]),
    }
    out["load_avg"] = {"before": load_before, "after": loadavg()}
    return out


def _batch(pipe, timed, doc, questions: list[str], mode: str, prog) -> tuple[dict, list[dict]]:
    from ..answer.verify import unsupported_numbers

    answers: list = [None] * len(questions)
    engine_s: list[float] = [0.0] * len(questions)
    requests: list[int] = [0] * len(questions)
    submit_s: list[float] = [0.0] * len(questions)

    def work(i: int) -> None:
        try:
            answers[i] = pipe.answer(doc, questions[i], mode=mode)
        finally:
            calls = timed.take()
            requests[i] = len(calls)
            submit_s[i] = sum(c[2] for c in calls)
            engine_s[i] = engine_seconds(calls)
            prog.done_one()

    wall = run_threads(work, len(questions))
    rows = []
    for a, eng_s, n_req, sub_s in zip(answers, engine_s, requests, submit_s):
        if a is None:
            continue
        e2e = a.timings.get("e2e_s") or 0.0
        unsupported = unsupported_numbers(a.answer, doc) if mode == "two-stage" else list(a.unsupported_numbers)
        rows.append({
            "question": a.question, "answer": a.answer, "state": a.state, "error": a.error,
            "ttft_s": a.timings.get("ttft_s"), "e2e_s": e2e, "queue_s": a.timings.get("queue_s"),
            "verify_ms": a.timings.get("verify_ms") or 0.0, "realize_ms": a.timings.get("realize_ms") or 0.0,
            "engine_s": round(eng_s, 4), "overhead_s": round(max(0.0, e2e - eng_s), 4),
            "submit_ms": round(sub_s * 1000, 3),
            "facts_verified": a.verified_count, "unsupported_numbers": unsupported,
            "generated_tokens": a.generated_tokens, "engine_requests": n_req, "attempts": a.attempts,
        })
    completed = sum(1 for r in rows if r["state"] in (Outcome.DONE, Outcome.FALLBACK) and not r["error"])
    summary = {
        "completed": completed, "total": len(questions),
        "avg_ttft_s": rnd(mean(r["ttft_s"] for r in rows)), "avg_e2e_s": rnd(mean(r["e2e_s"] for r in rows)),
        "wall_s": rnd(wall), "verify_ms": rnd(mean(r["verify_ms"] for r in rows), 3),
        "realize_ms": rnd(mean(r["realize_ms"] for r in rows), 3),
        "overhead_ms": rnd(1000 * (mean(r["overhead_s"] for r in rows) or 0.0), 2),
        "submit_ms": rnd(mean(r["submit_ms"] for r in rows), 2),
        "overhead_share": rnd(mean(r["overhead_s"] / r["e2e_s"] for r in rows if r["e2e_s"]), 4),
        "facts_verified": sum(r["facts_verified"] for r in rows),
        "unsupported_numbers": sum(len(r["unsupported_numbers"]) for r in rows),
        "generated_tokens": sum(r["generated_tokens"] for r in rows),
        "engine_requests": sum(r["engine_requests"] for r in rows),
        "answered": sum(1 for r in rows if r["state"] == Outcome.DONE),
    }
    return summary, rows


ROWS = [
    ("completed", "requests completed", None), ("avg_ttft_s", "avg TTFT (s)", 1), ("avg_e2e_s", "avg E2E (s)", 1),
    ("wall_s", "batch wall time (s)", 1), ("verify_ms", "verifier (ms per answer)", 1),
    ("realize_ms", "realizer (ms per answer)", 1), ("overhead_ms", "Python overhead (ms per answer)", 1),
    ("submit_ms", "submit calls: tokenise + grammar (ms per answer)", 1),
    ("overhead_share", "Python overhead (% of E2E)", 100), ("facts_verified", "facts verified", None),
    ("unsupported_numbers", "unsupported numbers in the answers", None),
    ("generated_tokens", "generated tokens", None), ("engine_requests", "engine requests", None),
]


def text_report(r: dict) -> list[Block]:
    b, t = r["baseline"], r["two_stage"]
    rows = []
    for key, label, scale in ROWS:
        bv, tv = b.get(key), t.get(key)
        if key == "completed":
            rows.append([label, f"{bv}/{b['total']}", f"{tv}/{t['total']}", "-"])
            continue
        if scale == 100:
            rows.append([label, None if bv is None else f"{bv * 100:.1f}%", None if tv is None else f"{tv * 100:.1f}%",
                         "-"])
            continue
        rows.append([label, bv, tv, ratio(tv, bv) if scale else "-"])
    d = r["document"]
    st = r["settings"]
    head = (f"A/B at C={r['concurrency']}: {os.path.basename(r['model'])}, {r['n_parallel']} slots, "
            f"{st['n_threads']} threads, {st['n_gpu_layers']} GPU layers; document {d['name']} ({d['chars']} chars); "
            f"two-stage strategy {r['strategy']}")
    text: list[Block] = [head, "", Table(["metric", "single-stage (baseline)", "two-stage", "two-stage ÷ baseline"], rows)]
    text += ["", "Ratios:"] + [f"  {k} = {fmt(v)}" for k, v in r["ratios"].items()]
    la = r.get("load_avg") or {}
    if la.get("before"):
        text.append(f"Load average before/after: {la['before']} / {la.get('after')}")
    return text
