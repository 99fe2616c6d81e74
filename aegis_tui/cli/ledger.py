"""`aegis ledger`: the memory ledger of a model and engine config, and the largest slots × context that fit."""

from __future__ import annotations

from ..errors import BudgetError, InputError
from ..memory.fit import DEFAULT_MARGIN, max_fit, usable
from ..memory.ledger import GiB, predict
from . import add_engine_args, add_format_arg, engine_config, print_json, show


def register(sub) -> None:
    p = sub.add_parser(
        "ledger", help="predict memory use (weights, KV cache, buffers) and whether it fits a budget",
        description="Predict memory use from the GGUF's own metadata, for the engine's config. --ctx is the "
                    "context of ONE slot (EngineConfig.n_ctx_per_slot); llama.cpp's n_ctx is slots × ctx "
                    "plus the prefix cache's cells, as the engine sets it.",
    )
    add_engine_args(p, backend=False)  # the engine's options and defaults; no --backend: a ledger is local
    p.add_argument("--vram-budget", type=float, default=None, metavar="GB",
                   help="memory budget in GiB (default: the GPU's total when NVML sees one, else system RAM)")
    p.add_argument("--margin", type=float, default=DEFAULT_MARGIN,
                   help="safety margin kept free (default: %(default).2f)")
    p.add_argument("--device", choices=["auto", "gpu", "cpu"], default="auto",
                   help="plan for a GPU or a CPU run (auto: GPU when NVML sees one or a budget is given)")
    add_format_arg(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ..memory.gauge import memory_budget, read_once
    from ..memory.ledger import ledger_config_from_settings
    from ..models import inspect_model, resolve_model

    path = str(resolve_model(args.model))
    ec = engine_config(args, path)  # the engine's own checks of --parallel and --ctx
    if not 0 <= args.margin < 1:
        raise InputError("--margin must be between 0 and 1")
    info = inspect_model(path)
    settings, spare = ec.llama_context_settings(info.sliding_window), ec.spare_prefix_seqs
    probe = read_once()  # NVML's view of the GPU (or host RAM when it sees none)
    if args.device == "auto":
        gpu = probe.kind == "gpu" or args.vram_budget is not None or bool(args.gpu_layers)
    else:
        gpu = args.device == "gpu"
    if args.gpu_layers == 0:
        gpu = False
    cfg = ledger_config_from_settings({**settings, "n_parallel": args.parallel, "gpu": gpu,
                                       "n_gpu_layers": args.gpu_layers})
    ledger = predict(info, cfg)
    explicit = None if args.vram_budget is None else int(args.vram_budget * GiB)
    budget = memory_budget(ledger.device == "gpu", explicit, "--vram-budget", sample=probe)
    use = usable(budget.bytes, args.margin)
    ok = ledger.total_bytes <= use
    options = max_fit(info, cfg, budget.bytes, args.margin, spare=spare)
    if args.format == "json":
        print_json({**ledger.to_dict(), "path": path, "ctx_per_slot": args.ctx, "spare_seqs": spare,
                    "budget_bytes": budget.bytes, "budget_source": budget.source, "margin": args.margin,
                    "usable_bytes": use, "fits": ok, "headroom_bytes": use - ledger.total_bytes,
                    "max_fit": [{"slots": s, "ctx_per_slot": c} for s, c in options]})
    else:
        from ..memory.whiteboard import whiteboard

        show(whiteboard(info, ledger, args.ctx, budget, args.margin, options).renderable())
    if not ok:
        fit = [f"{s} × {c}" for s, c in options if c]
        raise BudgetError(f"predicted {ledger.total_bytes / GiB:.2f} GiB does not fit "
                          f"{use / GiB:.2f} GiB usable; "
                          + (f"largest slots × context that fit: {', '.join(fit)}" if fit else "nothing fits"))
    return 0
