"""`aegis bench ledger`: the ledger's predictions against the buffer sizes real llama.cpp contexts report."""

from __future__ import annotations

from ..cli import add_format_arg, print_json
from .report import write_json

GOAL = 0.01  # weights and KV within 1 %


def register(bsub) -> None:
    p = bsub.add_parser("ledger", help="ledger vs llama.cpp: build real contexts, compare buffer sizes")
    p.add_argument("--model", metavar="PATH", action="append",
                   help="GGUF to check (repeatable; default: the embedded Gemma 3 and SmolLM2)")
    p.add_argument("--threads", type=int, default=1, help="llama.cpp threads (contexts are only built)")
    p.add_argument("--out", metavar="DIR", help="also write ledger.json there")
    add_format_arg(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ..memory.proof import LOG_RESOLUTION, format_table, run_proof

    rows = run_proof(args.model, n_threads=args.threads)
    checked = [r for r in rows if r.quantity in ("weights (host)", "KV cache")]
    within = [r for r in checked if abs(r.predicted - r.reported) <= max(GOAL * r.reported, LOG_RESOLUTION)]
    worst = max((abs(r.error) for r in checked), default=0.0)
    summary = {"goal": GOAL, "checked": len(checked), "within_goal": len(within), "worst_error": worst}
    result = {"rows": [r.as_dict() for r in rows], "summary": summary}
    if args.out:
        write_json(args.out, "ledger.json", result)
    if args.format == "json":
        print_json(result)
    else:
        print(format_table(rows))
        print(f"\nweights and KV: {len(within)}/{len(checked)} within {GOAL:.0%} (or the log's 0.005 MiB "
              f"resolution); worst {worst:.2%}. Compute buffers are estimates, shown for scale.")
    return 0 if len(within) == len(checked) else 1
