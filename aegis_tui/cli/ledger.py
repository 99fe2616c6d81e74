"""`aegis ledger`: the memory ledger of a model and engine config, and the largest slots × context that fit."""

from __future__ import annotations

import dataclasses

from ..errors import BudgetError, InputError
from ..memory.ledger import DEFAULT_MARGIN, GiB, Ledger, MiB, max_fit, predict, usable
from . import add_engine_args, add_format_arg, print_json


def register(sub) -> None:
    p = sub.add_parser(
        "ledger", help="predict memory use (weights, KV cache, buffers) and whether it fits a budget",
        description="Predict memory use from the GGUF's own metadata, for the engine's config. --ctx is the "
                    "context of ONE slot (EngineConfig.n_ctx_per_slot); llama.cpp's n_ctx is slots × ctx "
                    "plus the prefix cache's cells, as the engine sets it.",
    )
    add_engine_args(p)  # the same options and defaults the engine uses
    p.add_argument("--vram-budget", type=float, default=None, metavar="GB",
                   help="memory budget in GiB (default: the GPU's total when NVML sees one, else system RAM)")
    p.add_argument("--margin", type=float, default=DEFAULT_MARGIN,
                   help="safety margin kept free (default: %(default).2f)")
    p.add_argument("--device", choices=["auto", "gpu", "cpu"], default="auto",
                   help="plan for a GPU or a CPU run (auto: GPU when NVML sees one or a budget is given)")
    add_format_arg(p)
    p.set_defaults(func=run)


def _settings(path: str, info, args) -> tuple[dict, int]:
    """The llama.cpp context settings the engine would use, and its spare (prefix) sequences."""
    from ..engine.config import EngineConfig

    ec = EngineConfig(model_path=path, n_parallel=args.parallel, n_ctx_per_slot=args.ctx, kv_type=args.kv_type,
                      n_gpu_layers=args.gpu_layers)
    return ec.llama_context_settings(info.sliding_window), ec.spare_prefix_seqs


def _budget(args, gpu_planned: bool, gpu_total: int | None, gpu_label: str) -> tuple[int, str]:
    if args.vram_budget is not None:
        return int(args.vram_budget * GiB), "--vram-budget"
    if gpu_planned and gpu_total:
        return gpu_total, gpu_label
    import psutil

    return int(psutil.virtual_memory().total), "system RAM (no GPU seen by NVML: a CPU run)"


def run(args) -> int:
    from ..memory.gauge import gpu_memory_total
    from ..memory.ledger import ledger_config_from_settings
    from ..models import inspect_model, resolve_model

    if args.ctx < 16 or args.parallel < 1:
        raise InputError("--ctx must be at least 16 and --parallel at least 1")
    if not 0 <= args.margin < 1:
        raise InputError("--margin must be between 0 and 1")
    path = str(resolve_model(args.model))
    info = inspect_model(path)
    settings, spare = _settings(path, info, args)
    gpu_total, gpu_label = gpu_memory_total()
    if args.device == "auto":
        gpu = gpu_total is not None or args.vram_budget is not None or bool(args.gpu_layers)
    else:
        gpu = args.device == "gpu"
    if args.gpu_layers == 0:
        gpu = False
    cfg = ledger_config_from_settings({**settings, "n_parallel": args.parallel, "gpu": gpu,
                                       "n_gpu_layers": args.gpu_layers})
    ledger = predict(info, cfg)
    budget, budget_src = _budget(args, ledger.device == "gpu", gpu_total, gpu_label)
    ok = ledger.total_bytes <= usable(budget, args.margin)
    options = max_fit(info, cfg, budget, args.margin, spare=spare)
    if args.format == "json":
        print_json({**ledger.to_dict(), "path": path, "ctx_per_slot": args.ctx, "spare_seqs": spare,
                    "budget_bytes": budget, "budget_source": budget_src, "margin": args.margin,
                    "usable_bytes": usable(budget, args.margin), "fits": ok,
                    "headroom_bytes": usable(budget, args.margin) - ledger.total_bytes,
                    "max_fit": [{"slots": s, "ctx_per_slot": c} for s, c in options]})
    else:
        print(whiteboard(info, ledger, args, spare, budget, budget_src, options, gpu_label))
    if not ok:
        fit = [f"{s} × {c}" for s, c in options if c]
        raise BudgetError(f"predicted {ledger.total_bytes / GiB:.2f} GiB does not fit "
                          f"{usable(budget, args.margin) / GiB:.2f} GiB usable; "
                          + (f"largest slots × context that fit: {', '.join(fit)}" if fit else "nothing fits"))
    return 0


def _mib(n: int) -> str:
    return f"{n / MiB:,.2f} MiB"


def whiteboard(info, led: Ledger, args, spare: int, budget: int, budget_src: str, options, gpu_label: str) -> str:
    """The ledger as one would write it on a whiteboard: formula, exact KV, then the totals."""
    st, cfg = led.settings, led.config
    out = [f"Memory ledger: {info.name} ({info.architecture}, {info.quantization}, {_mib(info.file_size)} file)"]
    placement = "CPU only" if led.device == "cpu" else (
        f"{led.gpu_layers}/{info.n_layers} layers on the GPU" + ("" if cfg.n_gpu_layers is None else
                                                                 f" (--gpu-layers {cfg.n_gpu_layers})"))
    out.append(f"config: {args.parallel} slots × {args.ctx} tokens per slot"
               + (f" + {spare} spare prefix sequences" if spare else "") + f", KV {st.type_k}, {placement}")
    out.append(f"llama.cpp context: n_ctx {st.n_ctx}, n_seq_max {st.n_seq_max}, kv_unified "
               f"{str(st.kv_unified).lower()}, swa_full {str(st.swa_full).lower()}, type_k {st.type_k}, "
               f"type_v {st.type_v}, n_batch {st.n_batch}, n_ubatch {st.n_ubatch}")
    out += ["", "KV cache per token (every layer full size, the whiteboard formula):", f"  {led.formula}"]
    for g in led.kv_groups:
        what = "sliding-window" if g.swa else "full-attention"
        cells = f"{g.cells:,} cells" + (f" × {g.streams} streams" if g.streams > 1 else "")
        why = ""
        if g.swa:
            why = (" (swa_full: as many as the full layers)" if st.swa_full else
                   f" (window {info.sliding_window} × {st.n_seq_max if st.kv_unified else 1} seqs + n_ubatch "
                   f"{st.n_ubatch}, padded to 256)")
        out.append(f"  {g.layers} {what} layers: {g.bytes_per_token:,} B/token × {cells}{why} = {_mib(g.bytes)}")
    if led.n_swa_layers:
        alt = predict(info, dataclasses.replace(cfg, swa_full=not st.swa_full))
        diff = abs(alt.total(kind="kv") - led.total(kind="kv"))
        out.append(f"  swa_full is {'on' if st.swa_full else 'off'}"
                   + (f": off would save {_mib(diff)}; on keeps every SWA cell so a cached prefix can be "
                      "reused from any point" if st.swa_full else
                      f" (llama.cpp's own default is on): on would cost {_mib(diff)} more"))
    out += ["", f"{'':<34}{'GPU':>14}{'CPU (host)':>16}"]
    for ln in led.lines:
        gpu = _mib(ln.bytes) if ln.where == "gpu" else ""
        cpu = _mib(ln.bytes) if ln.where == "cpu" else ""
        out.append(f"  {ln.name:<32}{gpu:>14}{cpu:>16}")
    out.append(f"  {'total':<32}{_mib(led.total('gpu')) if led.device == 'gpu' else '':>14}"
               f"{_mib(led.total('cpu')):>16}")
    out.append("")
    use = usable(budget, args.margin)
    where = "GPU" if led.device == "gpu" else "host memory"
    out.append(f"budget ({where}): {budget / GiB:.2f} GiB from {budget_src}; keeping {args.margin:.0%} free leaves "
               f"{use / GiB:.2f} GiB")
    verdict = "fits" if led.total_bytes <= use else "DOES NOT FIT"
    out.append(f"predicted {led.total_bytes / GiB:.3f} GiB on the {where}: {verdict}, headroom "
               f"{(use - led.total_bytes) / GiB:+.3f} GiB")
    if led.device == "cpu" and "GPU" not in gpu_label:
        out.append(f"no GPU: {gpu_label}")
    fit = ", ".join(f"{s} × {c:,}" for s, c in options if c) or "nothing fits"
    out.append(f"largest slots × context per slot that fit: {fit} (per-slot context capped at the model's "
               f"trained {info.context_length:,})")
    out += [f"note: {n}" for n in led.notes]
    return "\n".join(out)
