"""`aegis bench ab`: single-stage prose (baseline) vs two-stage — per-question fan-out and the fact index, cold
and warm — at one or more levels of C questions at once, side by side in one run."""

from __future__ import annotations

import os
import threading
import time

from ..answer.states import Outcome
from ..cli import add_model_arg
from ..errors import InputError, one_line
from .indexing import Sampler, build_index, request_stats
from .options import (
    MAX_CONCURRENCY,
    MAX_TOKENS_LIMIT,
    add_run_args,
    check_out_dir,
    check_range,
    parse_concurrency,
    resolve_checked_model,
)
from .progress import Progress
from .report import Block, Table, finish, fmt
from .stats import loadavg, mean, percentile, ratio, rnd
from .workload import bench_questions, load_document, open_engine, run_threads

# (key in the JSON, Pipeline mode, strategy, label in the tables)
MODES = {
    "baseline": ("baseline", None, "single-stage prose (baseline)"),
    "fan_out": ("two-stage", "fan-out", "two-stage fan-out (per question)"),
    "index_cold": ("two-stage", "index", "two-stage index, cold"),
    "index_warm": ("two-stage", "index", "two-stage index, warm"),
}
WARM_GOAL = 0.25   # issue 13: warm two-stage E2E at most a quarter of the baseline's


def register(bsub) -> None:
    p = bsub.add_parser("ab", help="A/B: prose vs two-stage (fan-out, fact index cold and warm) at C=1 and C=4")
    add_model_arg(p)
    p.add_argument("--concurrency", default=None,
                   help="questions answered at once, one level or several: 1,4 (default 1,4; quick 4)")
    p.add_argument("--questions", type=int, help="questions per level, in rounds of C (default: the largest C)")
    p.add_argument("--modes", default=",".join(MODES),
                   help=f"modes to compare, side by side in one run (default {','.join(MODES)})")
    p.add_argument("--parallel", type=int, default=4, help="engine slots (default 4)")
    p.add_argument("--max-tokens", type=int, help="prose answer budget of the baseline (default 200; quick 64)")
    p.add_argument("--strategy", choices=["fan-out", "single-pass"], default="fan-out",
                   help="the per-question two-stage extraction (mode fan_out)")
    p.add_argument("--top-k", type=int, help="two-stage candidates after relevance ranking (default 16; quick 6)")
    p.add_argument("--no-warmup", action="store_true", help="skip priming the shared prefix before each mode")
    p.add_argument("--quick", action="store_true", help="a 1200-char document, C=4, 64 prose tokens, 6 candidates")
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


def parse_modes(text: str) -> list[str]:
    """'baseline,index-warm' -> ['baseline', 'index_warm'] (in the table's order); InputError for unknown modes."""
    asked = [m.strip().replace("-", "_") for m in str(text).split(",") if m.strip()]
    bad = [m for m in asked if m not in MODES]
    if bad or not asked:
        raise InputError(f"--modes: {', '.join(bad) or 'nothing'}: choose from {', '.join(MODES)}")
    return [m for m in MODES if m in asked]


def run(args) -> int:
    levels = parse_concurrency(args.concurrency or ("4" if args.quick else "1,4"))
    modes = parse_modes(args.modes)
    par = check_range("--parallel", args.parallel, 1, MAX_CONCURRENCY)
    n_q = check_range("--questions", args.questions if args.questions is not None else max(levels), 1,
                      MAX_CONCURRENCY)
    mt = args.max_tokens if args.max_tokens is not None else (64 if args.quick else 200)
    mt = check_range("--max-tokens", mt, 1, MAX_TOKENS_LIMIT)
    check_out_dir(args.out)
    doc_chars = args.doc_chars if args.doc_chars is not None else (1200 if args.quick else None)
    doc = load_document(args.doc, doc_chars)
    model = resolve_checked_model(args.model)
    top_k = check_range("--top-k", (6 if args.quick else 16) if args.top_k is None else args.top_k, 1, 64)
    result = measure(model, doc, args.doc, levels, n_q, par, mt, modes=modes, strategy=args.strategy, top_k=top_k,
                     warmup=not args.no_warmup, threads=args.threads, n_gpu_layers=args.n_gpu_layers,
                     quick=args.quick, progress=not args.no_progress)
    return finish(args, result, "ab", "plot_ab", text_report)


def measure(model: str, doc, doc_name: str, levels: list[int], n_questions: int, par: int, prose_tokens: int, *,
            modes=tuple(MODES), strategy: str = "fan-out", top_k: int = 16, warmup: bool = True, threads=None,
            n_gpu_layers=None, quick: bool = False, progress: bool = True) -> dict:
    """The same questions in every mode and at every level C (in rounds of C at once; each round goes through
    every mode in turn), side by side in one run on one engine. Before each mode's round a 1-token request
    primes its shared prefix (the document for prose and
    fan-out, the labelling instruction for a cold index, the relevance instruction for a warm one). Cold: a
    fresh in-memory index per round, so each round's answers label what they need; warm: the whole document
    indexed once beforehand (that build is timed and reported)."""
    from ..answer.factindex import IndexStore
    from ..answer.pipeline import Pipeline, PipelineConfig
    from ..answer.prompts import (
        fact_line,
        facts_prompt,
        index_label_prompt,
        label_prompt,
        pick_prompt,
        prose_prompt,
        render,
    )
    from ..answer.relevance import document_candidates, enumerate_candidates
    from ..cli.index import model_id

    questions = bench_questions(doc_name, n_questions + 1)  # the last one only primes the prefix cache
    warm_q, qs = questions[-1], questions[:n_questions]
    lang = doc.language
    name = os.path.basename(model)
    cfgs = {key: PipelineConfig(strategy=(strategy if key == "fan_out" else MODES[key][1] or "fan-out"),
                                prose_max_tokens=prose_tokens, top_k=top_k, model_name=name) for key in MODES}
    longest = max(prose_tokens, cfgs["fan_out"].label_max_tokens if strategy == "fan-out"
                  else cfgs["fan_out"].facts_max_tokens)
    primes: dict[str, str | None] = {}

    def prompts(e) -> list[str]:
        """Every prompt the modes can send (slot sizing); the priming prompts are kept in `primes`."""
        def r(parts) -> str:
            return render(parts, e.chat_template, bos_token=e.bos_text, eos_token=e.eos_text)

        cands = enumerate_candidates(doc, warm_q, top_k=top_k)
        every = document_candidates(doc)
        head = [r(index_label_prompt(c, lang, doc.structure.heading_path(c.offset))) for c in every]
        primes.update(
            baseline=r(prose_prompt(doc.text, warm_q, lang)),
            fan_out=r(label_prompt(doc.text, warm_q, cands[0], lang) if strategy == "fan-out" and cands
                      else facts_prompt(doc.text, warm_q, lang)),
            index_cold=head[0] if head else None,
            index_warm=r(pick_prompt(warm_q, fact_line("subject", "predicate", "1"), lang)))
        out = [p for p in primes.values() if p] + head
        for q in qs:
            out.append(r(prose_prompt(doc.text, q, lang)))
            if strategy != "fan-out":
                out.append(r(facts_prompt(doc.text, q, lang)))
                continue
            out += [r(label_prompt(doc.text, q, cand, lang)) for cand in enumerate_candidates(doc, q, top_k=top_k)]
        return out

    # + 160 tokens: a repair attempt appends the failed answer and the rule that rejected it
    engine, _ = open_engine(model, prompts, longest + 160, par, threads, n_gpu_layers)
    n_rounds = sum(-(-n_questions // c) for c in levels)
    prog = Progress(len(modes) * (len(levels) * n_questions + int(warmup) * n_rounds) + int("index_warm" in modes),
                    enabled=progress)
    load_before = loadavg()
    out: dict = {
        "model": model, "quick": quick, "levels": [], "modes": list(modes), "n_parallel": par,
        "strategy": strategy, "prose_max_tokens": prose_tokens, "top_k": top_k, "warm": warmup,
        "questions_per_level": n_questions, "rounds": n_rounds,
        "document": {"name": doc_name, "chars": len(doc.text), "language": lang},
        "questions": qs,
    }
    try:
        out["settings"] = {**engine.settings, "n_ctx_per_slot": engine.n_ctx_per_slot,
                           "n_threads": engine.config.n_threads, "n_gpu_layers": engine.n_gpu_layers}
        timed = TimedEngine(engine)
        mid = model_id(engine)
        warm_store = None
        if "index_warm" in modes:
            prog.stage("index: labelling every value of the document (warm index)")
            engine.clear_prefix_cache()
            warm_store, out["index_build"] = build_index(engine, doc, mid)
            prog.done_one()
        for c in levels:
            # rounds of C questions; within a round every mode answers the same questions one after the other, so
            # the same question is compared within seconds on a machine whose load drifts
            rows: dict[str, list[dict]] = {key: [] for key in modes}
            walls = dict.fromkeys(modes, 0.0)
            failed: dict[str, list[str]] = {key: [] for key in modes}
            samplers = {key: Sampler(engine) for key in modes}
            for at in range(0, n_questions, c):
                batch = qs[at:at + c]
                for key in modes:
                    engine.clear_prefix_cache()
                    if warmup and primes.get(key):
                        prog.stage(f"C={c} {key}: priming the shared prefix")
                        engine.generate(primes[key], max_tokens=1)
                        prog.done_one()
                    prog.stage(f"C={c} {key}: questions {at + 1}-{at + len(batch)}, {c} at once")
                    store = (warm_store if key == "index_warm" else
                             IndexStore(timed, mid, max_attempts=cfgs[key].max_attempts) if key == "index_cold"
                             else None)
                    with samplers[key]:
                        got, w = _batch(Pipeline(timed, cfgs[key], indexes=store), timed, doc, batch,
                                        MODES[key][0], prog, failed[key])
                    rows[key] += got
                    walls[key] += w
            level: dict = {"concurrency": c, "modes": {}, "answers": rows}
            for key in modes:
                level["modes"][key] = {**_summary(rows[key], n_questions, walls[key], samplers[key].summary()),
                                       "failures": failed[key]}
            level["ratios"] = _ratios(level)
            out["levels"].append(level)
    finally:
        engine.close()
    prog.close()
    out["goals"] = _goals(out["levels"])
    out["load_avg"] = {"before": load_before, "after": loadavg()}
    return out


def _batch(pipe, timed, doc, questions: list[str], mode: str, prog, failed: list[str]) -> tuple[list[dict], float]:
    """Answer questions at once, one thread each: a row per answer, and the batch's wall time. An answer that
    raised has no row; "question: error" goes to failed (it counts as not completed)."""
    from ..answer.verify import unsupported_numbers

    answers: list = [None] * len(questions)
    calls: list[list] = [[] for _ in questions]

    def work(i: int) -> None:
        try:
            answers[i] = pipe.answer(doc, questions[i], mode=mode)
        except Exception as exc:  # reported in the results, not as a thread's traceback on stderr
            failed.append(f"{questions[i]}: {one_line(exc)}")
        finally:
            calls[i] = timed.take()
            prog.done_one()

    wall = run_threads(work, len(questions))
    rows = []
    for a, cl in zip(answers, calls):
        if a is None:
            continue
        e2e = a.timings.get("e2e_s") or 0.0
        eng_s = engine_seconds(cl)
        req = request_stats([h for _, h, _ in cl])
        unsupported = unsupported_numbers(a.answer, doc) if mode == "two-stage" else list(a.unsupported_numbers)
        rows.append({
            "question": a.question, "answer": a.answer, "state": a.state, "error": a.error,
            # nothing streamed (a warm answer whose facts code chose): the answer itself is the first token
            "ttft_s": a.timings.get("ttft_s") or e2e, "e2e_s": e2e, "queue_s": a.timings.get("queue_s"),
            "index_s": a.timings.get("index_s"),
            "verify_ms": a.timings.get("verify_ms") or 0.0, "realize_ms": a.timings.get("realize_ms") or 0.0,
            "engine_s": round(eng_s, 4), "overhead_s": round(max(0.0, e2e - eng_s), 4),
            "submit_ms": round(sum(x[2] for x in cl) * 1000, 3),
            "facts_verified": a.verified_count, "unsupported_numbers": unsupported,
            "generated_tokens": req["generated_tokens"], "prompt_tokens": req["prompt_tokens"],
            "cached_tokens": req["cached_tokens"], "engine_requests": req["requests"], "attempts": a.attempts,
        })
    return rows, wall


def _summary(rows: list[dict], total: int, wall: float, sampled: dict) -> dict:
    completed = sum(1 for r in rows if r["state"] in (Outcome.DONE, Outcome.FALLBACK) and not r["error"])
    n_req = sum(r["engine_requests"] for r in rows)
    prompt = sum(r["prompt_tokens"] for r in rows)
    return {
        "completed": completed, "total": total,
        "avg_ttft_s": rnd(mean(r["ttft_s"] for r in rows)), "p50_ttft_s": rnd(percentile([r["ttft_s"] for r in rows], 50)),
        "avg_e2e_s": rnd(mean(r["e2e_s"] for r in rows)), "p50_e2e_s": rnd(percentile([r["e2e_s"] for r in rows], 50)),
        "wall_s": rnd(wall), "avg_index_s": rnd(mean(r["index_s"] for r in rows)),
        "verify_ms": rnd(mean(r["verify_ms"] for r in rows), 3),
        "realize_ms": rnd(mean(r["realize_ms"] for r in rows), 3),
        "overhead_ms": rnd(1000 * (mean(r["overhead_s"] for r in rows) or 0.0), 2),
        "submit_ms": rnd(mean(r["submit_ms"] for r in rows), 2),
        "overhead_share": rnd(mean(r["overhead_s"] / r["e2e_s"] for r in rows if r["e2e_s"]), 4),
        "facts_verified": sum(r["facts_verified"] for r in rows),
        "unsupported_numbers": sum(len(r["unsupported_numbers"]) for r in rows),
        "generated_tokens": sum(r["generated_tokens"] for r in rows),
        "engine_requests": n_req,
        "prompt_tokens_per_request": rnd(prompt / n_req, 1) if n_req else None,
        "cached_share": rnd(sum(r["cached_tokens"] for r in rows) / prompt, 3) if prompt else None,
        "answered": sum(1 for r in rows if r["state"] == Outcome.DONE),
        **sampled,
    }


def _ratios(level: dict) -> dict:
    """Each two-stage mode ÷ the baseline (mean and p50 E2E, mean TTFT), and cold ÷ fan-out per question."""
    m = level["modes"]
    out: dict = {}
    b = m.get("baseline")
    for key in ("fan_out", "index_cold", "index_warm"):
        if key in m and b:
            t = m[key]
            out[f"e2e_{key}_over_baseline"] = ratio(t["avg_e2e_s"], b["avg_e2e_s"])
            out[f"p50_e2e_{key}_over_baseline"] = ratio(t["p50_e2e_s"], b["p50_e2e_s"])
            out[f"ttft_{key}_over_baseline"] = ratio(t["avg_ttft_s"], b["avg_ttft_s"])
    if "index_cold" in m and "fan_out" in m:
        fan = {r["question"]: r["e2e_s"] for r in level["answers"]["fan_out"]}
        per = [{"question": r["question"], "cold_e2e_s": r["e2e_s"], "fan_out_e2e_s": fan.get(r["question"]),
                "ratio": ratio(r["e2e_s"], fan.get(r["question"]))} for r in level["answers"]["index_cold"]]
        out["cold_over_fan_out"] = per
        vals = [p["ratio"] for p in per if p["ratio"] is not None]
        out["cold_over_fan_out_max"] = max(vals) if vals else None
        out["cold_over_fan_out_mean"] = rnd(mean(vals), 3)
    return out


def _goals(levels: list[dict]) -> dict:
    """Issue 13's goals as measured: warm E2E ≤ 0.25× baseline at every C; cold ≤ fan-out on each question."""
    out = {}
    for lv in levels:
        r, c = lv["ratios"], lv["concurrency"]
        if r.get("e2e_index_warm_over_baseline") is not None:
            out[f"warm_c{c}"] = r["e2e_index_warm_over_baseline"] <= WARM_GOAL
        if r.get("cold_over_fan_out_max") is not None:
            out[f"cold_c{c}"] = r["cold_over_fan_out_max"] <= 1.0
    return out


ROWS = [
    ("completed", "requests completed"), ("avg_ttft_s", "avg TTFT (s)"), ("p50_ttft_s", "p50 TTFT (s)"),
    ("avg_e2e_s", "avg E2E (s)"), ("p50_e2e_s", "p50 E2E (s)"), ("wall_s", "wall time, all rounds (s)"),
    ("avg_index_s", "labelling before answering (s per answer)"),
    ("verify_ms", "verifier (ms per answer)"), ("realize_ms", "realizer (ms per answer)"),
    ("overhead_ms", "Python overhead (ms per answer)"), ("submit_ms", "submit calls: tokenise + grammar (ms/answer)"),
    ("facts_verified", "facts verified"), ("unsupported_numbers", "unsupported numbers in the answers"),
    ("engine_requests", "engine requests"), ("generated_tokens", "generated tokens"),
    ("prompt_tokens_per_request", "prompt tokens per request"), ("cached_share", "prompt tokens from prefix cache"),
    ("slot_utilisation", "slot utilisation (busy share)"), ("peak_rss_mib", "peak RSS (MiB)"),
]


def text_report(r: dict) -> list[Block]:
    d, st = r["document"], r["settings"]
    text: list[Block] = [
        f"A/B: {os.path.basename(r['model'])}, {r['n_parallel']} slots, {st['n_threads']} threads, "
        f"{st['n_gpu_layers']} GPU layers; document {d['name']} ({d['chars']} chars); {r['questions_per_level']} "
        f"questions per level, in rounds of C"]
    b = r.get("index_build")
    if b:
        text += ["", f"Index build (whole document, {b['values']} values): {b['build_s']:.1f} s, "
                     f"{fmt(b['values_per_s'])} values/s, {b['verified']} verified, {b['rejected']} rejected; "
                     f"{b['requests']} requests ({fmt(b['requests_per_value'])}/value), {b['generated_tokens']} "
                     f"generated tokens ({fmt(b['tokens_per_value'], 1)}/value), "
                     f"{fmt(b['prompt_tokens_per_request'], 1)} prompt tokens/request, slot utilisation "
                     f"{fmt(b['slot_utilisation'])}"]
    for lv in r["levels"]:
        m = lv["modes"]
        keys = [k for k in MODES if k in m]
        rows = []
        for key, label in ROWS:
            if key == "completed":
                rows.append([label] + [f"{m[k]['completed']}/{m[k]['total']}" for k in keys])
            elif key in ("cached_share", "slot_utilisation"):
                rows.append([label] + [None if m[k].get(key) is None else f"{m[k][key] * 100:.0f}%" for k in keys])
            else:
                rows.append([label] + [m[k].get(key) for k in keys])
        text += ["", f"C={lv['concurrency']}:", Table(["metric"] + [MODES[k][2] for k in keys], rows)]
        text += [f"  {k} = {fmt(v)}" for k, v in lv["ratios"].items() if not isinstance(v, list)]
        text += [f"  {MODES[k][2]} failed: {f}" for k in keys for f in m[k].get("failures", [])]
    if r.get("goals"):
        text += ["", "Goals (issue 13): " + ", ".join(f"{k} {'met' if v else 'NOT met'}" for k, v in r["goals"].items())]
    la = r.get("load_avg") or {}
    if la.get("before"):
        text.append(f"Load average before/after: {la['before']} / {la.get('after')}")
    return text
