"""`aegis bench longdoc`: one policy grown from 3,000 to 300,000 characters — index time, values/s and peak RSS
against length, and the goal case: a cold question about a fact two-thirds of the way into the longest one."""

from __future__ import annotations

import os
import tempfile
import threading
import time
from pathlib import Path

from ..cli import add_format_arg, add_model_arg
from .indexing import Sampler, build_index, fit_line
from .longtext import grow
from .options import check_out_dir, check_range, parse_concurrency, resolve_checked_model
from .report import Block, Table, emit, fmt, write_json
from .stats import loadavg, rnd

LENGTHS = "3000,10000,30000,100000,300000"
GOAL_S = 60.0
GOAL_RSS_MIB = 2048.0


def register(bsub) -> None:
    p = bsub.add_parser("longdoc", help="index time and peak memory against document length (3k to 300k chars), "
                                        "and a cold question two-thirds into a 300k-char policy")
    add_model_arg(p)
    p.add_argument("--lengths", default=LENGTHS, help=f"document lengths in characters (default {LENGTHS})")
    p.add_argument("--max-chars", type=int, default=12_000,
                   help="fully index only the lengths up to this (labelling every value; default 12000); longer "
                        "ones are parsed and their values enumerated, not labelled")
    p.add_argument("--goal-chars", type=int, default=300_000, help="length of the goal case (default 300000; 0: skip)")
    p.add_argument("--parallel", type=int, default=4, help="engine slots (default 4)")
    p.add_argument("--top-k", type=int, default=16, help="candidates a question shortlists (default 16)")
    p.add_argument("--threads", type=int, help="CPU threads for the engine")
    p.add_argument("--n-gpu-layers", type=int, help="layers to offload (default: all when a GPU is available)")
    p.add_argument("--out", metavar="DIR", help="write longdoc.json there")
    p.add_argument("--quick", action="store_true", help="lengths 3000,30000, index up to 3000, goal at 30000")
    add_format_arg(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ..errors import InputError

    lengths = parse_concurrency("3000,30000" if args.quick else args.lengths, limit=2_000_000, name="--lengths")
    if min(lengths) < 500:
        raise InputError("--lengths: every length must be at least 500 characters")
    max_chars = 3_000 if args.quick else check_range("--max-chars", args.max_chars, 0, 2_000_000)
    goal = 30_000 if args.quick else check_range("--goal-chars", args.goal_chars, 0, 2_000_000)
    par = check_range("--parallel", args.parallel, 1, 64)
    top_k = check_range("--top-k", args.top_k, 1, 64)
    check_out_dir(args.out)
    model = resolve_checked_model(args.model)
    result = measure(model, sorted(lengths), max_chars, goal, par, top_k, threads=args.threads,
                     n_gpu_layers=args.n_gpu_layers)
    if args.out:
        write_json(args.out, "longdoc.json", result)
    if args.format == "json":
        from ..cli import print_json

        print_json(result)
    else:
        emit(text_report(result))
    return 0


def _open(model: str, par: int, threads, n_gpu_layers):
    """The engine, slots sized for local-context prompts (labelling one value, choosing one fact)."""
    from ..answer.prompts import index_label_prompt, render
    from ..answer.relevance import document_candidates
    from ..text.document import Document
    from .workload import open_engine

    doc = Document.from_text(grow(3_000, seed=2)[0])

    def prompts(e) -> list[str]:
        return [render(index_label_prompt(c, doc.language, doc.structure.heading_path(c.offset)), e.chat_template,
                       bos_token=e.bos_text, eos_token=e.eos_text) for c in document_candidates(doc)]

    # 64 label tokens + 160 for a repair note; prompts are local, so one size fits every document length
    engine, _ = open_engine(model, prompts, 64 + 160, par, threads, n_gpu_layers, guess_ctx=1024)
    return engine


def measure(model: str, lengths: list[int], max_chars: int, goal_chars: int, par: int, top_k: int, *,
            threads=None, n_gpu_layers=None) -> dict:
    from ..cli.index import model_id

    load_before = loadavg()
    t = time.perf_counter()
    engine = _open(model, par, threads, n_gpu_layers)
    out: dict = {"model": model, "n_parallel": par, "top_k": top_k, "engine_open_s": rnd(time.perf_counter() - t, 3),
                 "settings": {"n_ctx_per_slot": engine.n_ctx_per_slot, "n_threads": engine.config.n_threads,
                              "n_gpu_layers": engine.n_gpu_layers},
                 "max_chars": max_chars, "lengths": [], "goal": None}
    try:
        mid = model_id(engine)
        if goal_chars:  # first, so nothing of the goal document is cached anywhere in this process
            out["goal"] = _goal(engine, mid, goal_chars, top_k)
        for n in lengths:
            out["lengths"].append(_length(engine, mid, n, n <= max_chars))
    finally:
        engine.close()
    rows = out["lengths"]
    built = [r for r in rows if r.get("build_s") is not None]
    out["fits"] = {
        "build_s_vs_chars": fit_line([r["chars"] for r in built], [r["build_s"] for r in built]),
        "build_s_vs_values": fit_line([r["values"] for r in built], [r["build_s"] for r in built]),
        "values_vs_chars": fit_line([r["chars"] for r in rows], [r["values"] for r in rows]),
        "prepare_s_vs_chars": fit_line([r["chars"] for r in rows], [r["prepare_s"] for r in rows]),
    }
    out["load_avg"] = {"before": load_before, "after": loadavg()}
    return out


def _length(engine, mid: str, n: int, full: bool) -> dict:
    """One length: parsing and enumerating values (always); labelling every value (when full)."""
    from ..answer.relevance import document_candidates
    from ..text.document import Document

    text, _ = grow(n, seed=1)  # not the goal's or the sizing document: their values are enumerated already
    with Sampler() as sampler:
        t = time.perf_counter()
        doc = Document.from_text(text, path=f"<generated {n}>")
        values = len(document_candidates(doc))
        prepare_s = time.perf_counter() - t
    row = {"chars": len(text), "values": values, "prepare_s": rnd(prepare_s, 3),
           "prepare_peak_rss_mib": sampler.summary()["peak_rss_mib"], "build_s": None}
    if full:
        _, figures = build_index(engine, doc, mid)
        row.update({k: figures[k] for k in ("build_s", "values_per_s", "verified", "rejected", "requests",
                                            "generated_tokens", "tokens_per_value", "prompt_tokens_per_request",
                                            "slot_utilisation", "peak_rss_mib")})
    return row


def _goal(engine, mid: str, chars: int, top_k: int) -> dict:
    """Open a `chars`-long policy from disk with an empty cache and ask about the planted fact: the time from
    opening to the right, verified answer, its breakdown, and the process's peak RSS; then ask again (warm)."""
    from ..answer.factindex import IndexStore
    from ..answer.pipeline import Pipeline, PipelineConfig
    from ..answer.relevance import document_candidates
    from ..text.document import Document
    from .indexing import Recorder

    text, planted = grow(chars)
    with tempfile.TemporaryDirectory(prefix="aegis-longdoc-") as tmp:
        path = Path(tmp) / "policy.txt"
        path.write_text(text, encoding="utf-8")
        cache = Path(tmp) / "cache"
        rec = Recorder(engine)
        pipe = Pipeline(rec, PipelineConfig(strategy="index", top_k=top_k,
                                              model_name=os.path.basename(str(engine.config.model_path))),
                        indexes=IndexStore(rec, mid, cache))
        with Sampler(engine) as sampler:
            t0 = time.perf_counter()
            doc = Document.load(path)
            load_s = time.perf_counter() - t0
            t = time.perf_counter()
            values = len(document_candidates(doc))
            candidates_s = time.perf_counter() - t
            ans = pipe.answer(doc, planted.question, cancel=threading.Event())
            total_s = time.perf_counter() - t0
        again = pipe.answer(doc, planted.question)
        index = pipe.indexes.indexer(doc).index
        labelled, cached = index.done, index.cache is not None and index.cache.enabled
        planted_label = _label_of(index, planted)
    verified = [fv.fact.object_value for fv in ans.report.verified] if ans.report is not None else []
    # right: the planted value, verified and said, and no value from any other section (another member's)
    elsewhere = [v for v in verified if v not in planted.section_values]
    right = any(planted.value in v for v in verified) and planted.value in ans.answer and not elsewhere
    done = [h.result() for h in rec.handles]
    return {
        "chars": len(text), "values": values, "question": planted.question, "planted_value": planted.value,
        "planted_at": rnd(planted.offset / len(text), 3), "answer": ans.answer, "state": str(ans.state),
        "verified_values": verified, "planted_offered": any(f"${planted.value}" in q for q in ans.offered),
        "planted_label": planted_label, "skipped": ans.skipped, "rejected": ans.rejected,
        "values_from_other_sections": elsewhere, "right": right,
        "open_to_answer_s": rnd(total_s, 3), "load_s": rnd(load_s, 3), "candidates_s": rnd(candidates_s, 3),
        "index_s": ans.timings.get("index_s"), "e2e_s": ans.timings.get("e2e_s"),
        "labelled": labelled, "cache_written": cached,
        "requests": len(done), "generated_tokens": sum(c.stats.generated_tokens for c in done),
        "prompt_tokens_per_request": rnd(sum(c.stats.prompt_tokens for c in done) / len(done), 1) if done else None,
        **sampler.summary(),
        "second_ask_s": again.timings.get("e2e_s"), "second_answer_right": planted.value in again.answer,
        "goal_time_met": right and total_s <= GOAL_S,
        "goal_rss_met": sampler.summary()["peak_rss_mib"] <= GOAL_RSS_MIB,
    }


def _label_of(index, planted) -> dict | None:
    """What became of the planted value in the index: its verified label, or the rule that rejected it."""
    for key, cand in index.candidates.items():
        if planted.value in cand.value and abs(cand.offset - planted.offset) <= 1:
            if key in index.facts:
                f = index.facts[key].fact
                return {"verified": True, "subject": f.subject, "predicate": f.predicate}
            if key in index.rejected:
                r = index.rejected[key]
                return {"verified": False, "rule": r.rule, "detail": r.detail, "label": r.fact and
                        {"subject": r.fact.get("subject"), "predicate": r.fact.get("predicate")}}
            return {"verified": None}
    return None


def _describe(label: dict | None) -> str:
    if not label or label.get("verified") is None:
        return "not labelled"
    if label["verified"]:
        return f"verified: {label['subject']} / {label['predicate']}"
    got = label.get("label") or {}
    return f"rejected ({label['rule']}): {got.get('subject')} / {got.get('predicate')}"


def text_report(r: dict) -> list[Block]:
    st = r["settings"]
    text: list[Block] = [f"Long documents: {os.path.basename(r['model'])}, {r['n_parallel']} slots, "
                         f"{st['n_threads']} threads, {st['n_ctx_per_slot']} tokens per slot; engine opened in "
                         f"{r['engine_open_s']:.1f} s (not counted below)"]
    g = r.get("goal")
    if g:
        text += ["", f"Goal case: {g['chars']:,} characters ({g['values']:,} values), cold (empty cache); "
                     f"asked: {g['question']} (planted ${g['planted_value']} at {g['planted_at']:.0%} of the text)",
                 Table(["measure", "value"], [
                     ["answer", g["answer"][:120]], ["right and verified", g["right"]],
                     ["values stated from other sections", len(g["values_from_other_sections"])],
                     ["planted value shortlisted", g["planted_offered"]],
                     ["planted value's label", _describe(g["planted_label"])],
                     ["opening to answer (s)", g["open_to_answer_s"]], ["  reading the file (s)", g["load_s"]],
                     ["  enumerating values (s)", g["candidates_s"]], ["  labelling what it needs (s)", g["index_s"]],
                     ["values labelled", g["labelled"]], ["engine requests", g["requests"]],
                     ["prompt tokens per request", g["prompt_tokens_per_request"]],
                     ["slot utilisation", g["slot_utilisation"]], ["peak RSS (MiB)", g["peak_rss_mib"]],
                     ["asked again (s)", g["second_ask_s"]]], align="lr"),
                 f"Goals: right within {GOAL_S:.0f} s {'met' if g['goal_time_met'] else 'NOT met'}; "
                 f"peak RSS ≤ {GOAL_RSS_MIB:.0f} MiB {'met' if g['goal_rss_met'] else 'NOT met'}"]
    rows = [[x["chars"], x["values"], x["prepare_s"], x["prepare_peak_rss_mib"], x["build_s"], x.get("values_per_s"),
             x.get("requests"), x.get("tokens_per_value"), x.get("slot_utilisation"), x.get("peak_rss_mib")]
            for x in r["lengths"]]
    text += ["", Table(["chars", "values", "parse + values (s)", "RSS then (MiB)", "index build (s)", "values/s",
                        "requests", "tokens/value", "slot use", "peak RSS (MiB)"], rows)]
    for name, f in r["fits"].items():
        if f["slope"] is not None:
            text.append(f"  fit {name}: slope {f['slope']:.4g}, r² {fmt(f['r2'])}")
    la = r.get("load_avg") or {}
    if la.get("before"):
        text.append(f"Load average before/after: {la['before']} / {la.get('after')}")
    return text
