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
    p.add_argument("--set", metavar="DIR", dest="heldout",
                   help="a held-out set instead of the samples: DIR/questions*.json, each a list of {document, "
                        "question, gold: [{subject, value}]} with documents beside it (evalsets/heldout)")
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
    if args.heldout:
        return run_heldout(args, modes)
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


def load_set(folder: str) -> list[dict]:
    """The questions of a held-out set, each with its document's path; one line and exit 2 when malformed."""
    d = Path(folder)
    files = sorted(d.glob("questions*.json")) if d.is_dir() else []
    if not files:
        raise InputError(f"{folder}: no questions*.json there")
    out = []
    for f in files:
        try:
            items = json.loads(f.read_text(encoding="utf-8"))
            for q in items:
                doc = d / q["document"]
                if not doc.is_file():
                    raise InputError(f"{f.name}: document {q['document']} is not in {folder}")
                gold = [{"subject": str(g["subject"]), "value": str(g["value"])} for g in q["gold"]]
                out.append({"document": q["document"], "path": doc, "question": str(q["question"]), "gold": gold})
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(f"{f}: not a list of {{document, question, gold: [{{subject, value}}]}} ({exc})")
    return out


def run_heldout(args, modes: list[str]) -> int:
    """Every question of a held-out set in each mode, scored by value and entity (answer/evaluation.py)."""
    from ..answer.evaluation import score_heldout, summarize_heldout
    from ..answer.factindex import IndexStore
    from ..answer.pipeline import Pipeline, PipelineConfig
    from ..text.document import Document

    items = load_set(args.heldout)
    if args.quick:
        items = items[:: max(1, len(items) // 4)][:4]
    docs = {it["document"]: Document.load(it["path"]) for it in items}
    engine = open_engine(args)
    results: dict[str, list] = {m: [] for m in modes}
    store = IndexStore(engine, engine.model_info.name, max_attempts=args.attempts)  # in memory: a fair cold start
    try:
        for it in items:
            for m in modes:
                pipe = Pipeline(engine, PipelineConfig(strategy=m if m != "baseline" else "fan-out",
                                                       max_attempts=args.attempts,
                                                       model_name=engine.model_info.name), indexes=store)
                ans = pipe.answer(docs[it["document"]], it["question"],
                                  "baseline" if m == "baseline" else "two-stage")
                results[m].append(score_heldout(it["document"], docs[it["document"]], it["question"],
                                                it["gold"], ans))
    finally:
        engine.close()
    summary = {m: summarize_heldout(rs) for m, rs in results.items()}
    out = {"model": engine.model_info.name, "set": str(args.heldout), "summary": summary,
           "questions": {m: [r.to_json() for r in rs] for m, rs in results.items()}}
    if args.out:
        d = Path(args.out)
        d.mkdir(parents=True, exist_ok=True)
        (d / "heldout.json").write_text(json.dumps(out, ensure_ascii=False, indent=2, default=str),
                                        encoding="utf-8")
    if args.format == "json":
        print_json(out)
        return 0
    t = table("mode", "recall", "right answers", "misbound", "off-question", "unsupported", "declined", "avg E2E",
              right=("recall", "right answers", "misbound", "off-question", "unsupported", "declined", "avg E2E"))
    for m, s in summary.items():
        t.add_row(m, f"{s['recovered']}/{s['gold']} {s['recall'] or 0:>4.0%}",
                  f"{s['answers_fully_right']}/{s['answerable']}", str(s["answers_with_misbound"]),
                  str(s["answers_with_off_question"]), str(s["answers_with_unsupported"]),
                  f"{s['unanswerable_declined']}/{s['unanswerable']}", f"{s['avg_e2e_s']:.2f}s")
    show(t, "")
    for m, rs in results.items():
        for r in rs:
            print(f"[{m}] {r.document}: {r.question}")
            print(f"  recovered {r.recovered}/{r.gold}" + (f"; missing: {'; '.join(r.missing)}" if r.missing else ""))
            for label, xs in (("misbound", r.misbound), ("off the question", r.off_question),
                              ("unsupported", r.unsupported)):
                if xs:
                    print(f"  {label}: {'; '.join(xs)}")
            print("  " + r.answer.replace("\n", " ")[:300])
    return 0
