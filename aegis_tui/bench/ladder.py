"""`aegis bench ladder`: throughput and TTFT at concurrency 1, 2, 4, 8 over the sample document, with peers."""

from __future__ import annotations

import os
import platform

from ..cli import add_model_arg
from .options import (
    MAX_CONCURRENCY,
    MAX_TOKENS_LIMIT,
    add_run_args,
    check_out_dir,
    check_range,
    parse_concurrency,
    resolve_checked_model,
)
from .peers import OpenAIPeer, llama_sequential
from .progress import Progress
from .report import Block, Table, finish, fmt
from .stats import loadavg, phases, ratio
from .workload import bench_questions, engine_batch, load_document, open_engine

FULL = {"concurrency": "1,2,4,8", "max_tokens": 250, "doc_chars": None}
QUICK = {"concurrency": "1,2,4", "max_tokens": 48, "doc_chars": 1200}


def register(bsub) -> None:
    p = bsub.add_parser("ladder", help="concurrency ladder: TTFT, TPOT, throughput per C; warm and cold prefix")
    add_model_arg(p)
    p.add_argument("--concurrency", metavar="LIST", help="comma-separated levels (default 1,2,4,8; quick 1,2,4)")
    p.add_argument("--parallel", type=int, default=4, help="engine slots (default 4)")
    p.add_argument("--max-tokens", type=int, help="tokens generated per request (default 250; quick 48)")
    p.add_argument("--cold", metavar="LIST",
                   help="levels also run with a cleared prefix cache (default: all; quick: the first; 'none')")
    p.add_argument("--repeat", type=int, default=1, help="runs per level; the median-throughput run is reported")
    p.add_argument("--peer-url", "--backend", dest="peer_url", metavar="URL", default=os.environ.get("AEGIS_BACKEND"),
                   help="an OpenAI-compatible server to run the same ladder against, side by side "
                        "(default: $AEGIS_BACKEND; API key from $AEGIS_API_KEY)")
    p.add_argument("--no-llama", action="store_true", help="skip the sequential llama-cpp-python Llama peer")
    p.add_argument("--quick", action="store_true", help="C in 1,2,4, 48 tokens, a 1200-char document")
    add_run_args(p, "ladder")
    p.set_defaults(func=run)


def _settings(args) -> dict:
    d = QUICK if args.quick else FULL
    levels = parse_concurrency(args.concurrency or d["concurrency"])
    if args.cold is None:
        cold = levels[:1] if args.quick else list(levels)
    elif args.cold.strip().lower() == "none":
        cold = []
    else:
        cold = parse_concurrency(args.cold, name="--cold")
    return {
        "levels": levels, "cold": cold,
        "parallel": check_range("--parallel", args.parallel, 1, MAX_CONCURRENCY),
        "max_tokens": check_range("--max-tokens", d["max_tokens"] if args.max_tokens is None else args.max_tokens, 1, MAX_TOKENS_LIMIT),
        "doc_chars": args.doc_chars if args.doc_chars is not None else d["doc_chars"],
        "repeat": check_range("--repeat", args.repeat, 1, 20),
    }


def run(args) -> int:
    s = _settings(args)
    check_out_dir(args.out)
    peer = None
    if args.peer_url:
        peer = OpenAIPeer(args.peer_url)
        peer.check()  # unreachable: InputError before anything loads
    doc = load_document(args.doc, s["doc_chars"])
    model = resolve_checked_model(args.model)
    result = measure(model, doc, args.doc, s, peer=peer, llama=not args.no_llama, threads=args.threads,
                     n_gpu_layers=args.n_gpu_layers, quick=args.quick, progress=not args.no_progress)
    return finish(args, result, "ladder", "plot_ladder", text_report)


def measure(model: str, doc, doc_name: str, s: dict, *, peer=None, llama: bool = True, threads=None,
            n_gpu_layers=None, quick: bool = False, progress: bool = True) -> dict:
    """Cold levels, then warm levels (each followed by the OpenAI peer at the same C, so both see the same
    machine load), then the Llama peer after our engine is closed; every number measured here."""
    from ..answer.prompts import prose_prompt, render

    levels, cold, mt, par, rep = s["levels"], s["cold"], s["max_tokens"], s["parallel"], s["repeat"]
    n = max(levels + cold)
    questions = bench_questions(doc_name, n + 1)  # the last one only primes caches
    peer_c = par if par in levels else max(levels)
    total = rep * (sum(cold) + sum(levels) * (2 if peer else 1)) + 1 + (peer_c + 1 if llama else 0) + bool(peer)
    prog = Progress(total, enabled=progress)
    load_before = loadavg()
    engine, prompts = open_engine(
        model, lambda e: [render(prose_prompt(doc.text, q, doc.language), e.chat_template) for q in questions],
        mt, par, threads, n_gpu_layers)
    try:
        info = {
            "model": model, "quick": quick, "max_tokens": mt, "n_parallel": par, "concurrency": levels,
            "repeat": rep,
            "document": {"name": doc_name, "chars": len(doc.text), "language": doc.language,
                         "prompt_tokens": len(engine.tokenize(prompts[0]))},
            "settings": {**engine.settings, "n_ctx_per_slot": engine.n_ctx_per_slot,
                         "n_threads": engine.config.n_threads, "n_gpu_layers": engine.n_gpu_layers},
            "machine": _machine(), "questions": questions[:n],
        }

        def cold_batch(c):
            engine.clear_prefix_cache()
            return engine_batch(engine, prompts[:c], mt, prog)

        cold_rows = []
        for c in cold:
            prog.stage(f"cold C={c}")
            cold_rows.append(_median_row([cold_batch(c) for _ in range(rep)]))
        prog.stage("priming the document prefix")
        engine.clear_prefix_cache()
        engine_batch(engine, prompts[n:], 1, prog)
        if peer is not None:
            peer.one(prompts[n], 1)
            prog.done_one()
        rows, prow = [], []
        for c in levels:
            prog.stage(f"warm C={c}")
            rows.append(_median_row([engine_batch(engine, prompts[:c], mt, prog) for _ in range(rep)]))
            if peer is not None:
                prog.stage(f"peer C={c}")
                prow.append(_median_row([peer.batch(prompts[:c], mt, prog) for _ in range(rep)]))
        n_ctx = engine.n_ctx_per_slot
        n_threads = engine.config.n_threads
        gpu_layers = engine.n_gpu_layers
    finally:
        engine.close()  # free our context before a peer loads the model again
    for table_rows in (rows, cold_rows, prow):
        for r, ph in zip(table_rows, phases(table_rows, par)):
            r["phase"] = ph
    peers: dict = {}
    if peer is not None:
        peers["openai"] = {"url": peer.url, "model": peer.model, "rows": prow}
    if llama:
        prog.stage(f"llama-cpp-python Llama, {peer_c} requests one by one")
        peers["llama_sequential"] = _llama(model, prompts[:peer_c], prompts[n], mt, n_ctx, n_threads, gpu_layers,
                                           prog)
    prog.close()
    result = {**info, "rows": rows, "cold_rows": cold_rows, "peers": peers, "peer_concurrency": peer_c,
              "load_avg": {"before": load_before, "after": loadavg()}}
    result["ratios"] = ratios(result)
    return result


def _median_row(batches: list) -> dict:
    """The row of the run with the median throughput; every run's throughput kept beside it."""
    rows = sorted((b.row() for b in batches), key=lambda r: r["throughput_tok_s"] or 0)
    row = rows[(len(rows) - 1) // 2]
    if len(rows) > 1:
        row["throughput_runs"] = [r["throughput_tok_s"] for r in rows]
    return row


def _llama(model, prompts, prime, mt, n_ctx, n_threads, gpu_layers, prog) -> dict:
    """Llama: one untimed request primes its prefix (as for our warm rows), then the batch one by one."""
    res, load_s = llama_sequential(model, prompts, mt, n_ctx, n_threads, gpu_layers or 0, prog, prime)
    return {**res.row(), "load_and_prime_s": round(load_s, 4)}


def ratios(r: dict) -> dict:
    """The shapes the reference study reports, plus side-by-side ratios to the peers."""
    by_c = {row["concurrency"]: row for row in r["rows"]}
    cold_c = {row["concurrency"]: row for row in r["cold_rows"]}
    par, pc = r["n_parallel"], r["peer_concurrency"]
    out: dict = {}
    if 1 in by_c and par in by_c and par != 1:
        out[f"throughput_c{par}_over_c1"] = ratio(by_c[par]["throughput_tok_s"], by_c[1]["throughput_tok_s"])
    if par in by_c and 2 * par in by_c:
        out[f"avg_ttft_c{2 * par}_over_c{par}"] = ratio(by_c[2 * par]["avg_ttft_s"], by_c[par]["avg_ttft_s"])
        out[f"p99_ttft_c{2 * par}_over_c{par}"] = ratio(by_c[2 * par]["p99_ttft_s"], by_c[par]["p99_ttft_s"])
    if 1 in by_c and 1 in cold_c:
        out["warm_ttft_over_cold_c1"] = ratio(by_c[1]["avg_ttft_s"], cold_c[1]["avg_ttft_s"])
    lq = r["peers"].get("llama_sequential")
    if lq and pc in by_c:
        out[f"wall_c{pc}_over_llama_sequential"] = ratio(by_c[pc]["wall_s"], lq["wall_s"])
        out[f"throughput_c{pc}_over_llama_sequential"] = ratio(by_c[pc]["throughput_tok_s"], lq["throughput_tok_s"])
    op = r["peers"].get("openai")
    if op:
        for row in op["rows"]:
            c = row["concurrency"]
            if c in by_c:
                out[f"throughput_c{c}_over_peer"] = ratio(by_c[c]["throughput_tok_s"], row["throughput_tok_s"])
                out[f"avg_ttft_c{c}_over_peer"] = ratio(by_c[c]["avg_ttft_s"], row["avg_ttft_s"])
    return out


def _machine() -> dict:
    return {"cpu": platform.processor() or platform.machine(), "cpus": os.cpu_count(), "python": platform.python_version()}


HEAD = ["C", "done", "avg TTFT s", "max TTFT s", "p50 TTFT s", "p99 TTFT s", "TPOT ms", "tok/s", "wall s",
        "queue s", "gen tok", "phase"]


def ladder_rows(rows: list[dict]) -> list[list]:
    return [[r["concurrency"], f"{r['completed']}/{r['total']}", r["avg_ttft_s"], r["max_ttft_s"], r["p50_ttft_s"],
             r["p99_ttft_s"], None if r["tpot_s"] is None else r["tpot_s"] * 1000, r["throughput_tok_s"],
             r["wall_s"], r["avg_queue_s"], r["generated_tokens"], r.get("phase", "")] for r in rows]


def text_report(r: dict) -> list[Block]:
    d = r["document"]
    st = r["settings"]
    lines: list[Block] = [
        f"Concurrency ladder: {os.path.basename(r['model'])}, {r['n_parallel']} slots, {st['n_threads']} threads, "
        f"{st['n_gpu_layers']} GPU layers; document {d['name']} ({d['chars']} chars, {d['prompt_tokens']} prompt "
        f"tokens); up to {r['max_tokens']} tokens per request",
        "", "Warm prefix (the document's KV is cached; each request prefills only its question):",
        Table(HEAD, ladder_rows(r["rows"]), "r" * 11 + "l"),
    ]
    if r["cold_rows"]:
        lines += ["", "Cold prefix (prefix cache cleared before each batch; the first request prefills the document):",
                  Table(HEAD, ladder_rows(r["cold_rows"]), "r" * 11 + "l")]
    lq = r["peers"].get("llama_sequential")
    if lq:
        lines += ["", f"Peer: llama-cpp-python Llama, the C={r['peer_concurrency']} requests one by one "
                      "(prefix primed like the warm rows):",
                  Table(HEAD[:-1], [row[:-1] for row in ladder_rows([lq])], "r" * 11)]
    op = r["peers"].get("openai")
    if op:
        lines += ["", f"Peer: {op['url']} ({op['model']}), same requests, sent concurrently:",
                  Table(HEAD, ladder_rows(op["rows"]), "r" * 11 + "l")]
    lines += ["", "Ratios:"] + [f"  {k} = {fmt(v)}" for k, v in r["ratios"].items()]
    la = r.get("load_avg") or {}
    if la.get("before"):
        lines.append(f"Load average before/after: {la['before']} / {la.get('after')} on {r['machine']['cpus']} CPUs")
    return lines
