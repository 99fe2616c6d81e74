"""`aegis eval`: both answering modes over the samples' questions, scored against the gold facts."""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import InputError
from . import add_engine_args, add_format_arg, open_engine, print_json, show, table

REFERENCE_QUESTION = "请问城乡居民医保住院在不同级别医院的起付线和报销比例分别是多少？年度封顶线是多少？"


def register(sub) -> None:
    p = sub.add_parser("eval", help="faithfulness evaluation of two-stage vs baseline over the sample questions")
    p.add_argument("--modes", default="index,fan-out,single-pass,baseline",
                   help="comma list of index, fan-out, single-pass, baseline (default: all four); index answers "
                        "from one fact index per document, built as the questions need it (in memory)")
    p.add_argument("--samples", default="policy_zh,policy_en", help="comma list of samples")
    p.add_argument("--quick", action="store_true", help="only the reference question")
    p.add_argument("--attempts", type=int, default=2)
    p.add_argument("--out", metavar="DIR", help="write eval.json there")
    add_engine_args(p)
    add_format_arg(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ..answer.evaluation import score, summarize
    from ..answer.factindex import IndexStore
    from ..answer.pipeline import Pipeline, PipelineConfig
    from ..samples import SAMPLES, load_gold, load_questions, sample_path
    from ..text.document import Document

    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    bad = [m for m in modes if m not in ("index", "fan-out", "single-pass", "baseline")]
    if bad or not modes:
        raise InputError(f"unknown mode(s) {bad or modes}: use index, fan-out, single-pass, baseline")
    samples = [s.strip() for s in args.samples.split(",") if s.strip()]
    if any(s not in SAMPLES for s in samples):
        raise InputError(f"unknown sample in {samples}: choose from {', '.join(SAMPLES)}")
    questions = load_questions()
    engine = open_engine(args)
    results = []
    store = IndexStore(engine, engine.model_info.name, max_attempts=args.attempts)  # in memory: a fair cold start
    try:
        for sample in samples:
            doc = Document.load(sample_path(sample))
            gold = load_gold(sample).atomic_facts
            qs = questions.get(sample, [])
            if args.quick:
                qs = [q for q in qs if q["question"] == REFERENCE_QUESTION]
            for q in qs:
                g = [gold[i] for i in q["gold"]]
                for m in modes:
                    strategy = m if m != "baseline" else "fan-out"
                    pipe = Pipeline(engine, PipelineConfig(strategy=strategy, max_attempts=args.attempts,
                                                           model_name=engine.model_info.name), indexes=store)
                    ans = pipe.answer(doc, q["question"], "baseline" if m == "baseline" else "two-stage")
                    results.append(score(sample, doc, q["question"], g, ans))
    finally:
        engine.close()
    summary = summarize(results)
    out = {"model": engine.model_info.name, "summary": summary, "questions": [r.to_json() for r in results]}
    if args.out:
        d = Path(args.out)
        d.mkdir(parents=True, exist_ok=True)
        (d / "eval.json").write_text(json.dumps(out, ensure_ascii=False, indent=2), encoding="utf-8")
    if args.format == "json":
        print_json(out)
        return 0
    show(summary_table(summary), "")
    for r in results:
        print(f"[{r.mode}] {r.sample}: {r.question}")
        print(f"  recovered {r.recovered}/{r.gold}; unsupported numbers: {', '.join(r.unsupported) or 'none'}")
        print("  " + r.answer.replace("\n", " ")[:300])
        if r.missing:
            print("  missing: " + "; ".join(r.missing))
    return 0


def summary_table(summary: dict):
    """One row per mode: gold facts recovered, verified facts, unsupported numbers, fallbacks, timings."""
    t = table("mode", "recall", "verified", "unsupported", "fallback", "avg TTFT", "avg E2E", "rejected by rule",
              right=("recall", "verified", "unsupported", "fallback", "avg TTFT", "avg E2E"))
    for mode, s in summary.items():
        ttft = f"{s['avg_ttft_s']:.2f}s" if s["avg_ttft_s"] is not None else "n/a"
        t.add_row(mode, f"{s['recovered']}/{s['gold']} {s['recall'] or 0:>4.0%}", str(s["verified_facts"]),
                  str(s["unsupported_numbers"]), str(s["fallbacks"]), ttft, f"{s['avg_e2e_s']:.2f}s",
                  ", ".join(f"{k}={v}" for k, v in s["rejected_by_rule"].items()) or "-")
    return t
