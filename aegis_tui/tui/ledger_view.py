"""The memory ledger of the loaded engine: the predicted total for the gauge and the whiteboard for its screen."""

from __future__ import annotations

from types import SimpleNamespace


def engine_ledger(engine):
    """The ledger predicted for the engine's model and config, or None when the engine does not say."""
    from ..memory.ledger import ledger_config_from_settings, predict

    info = getattr(engine, "model_info", None)
    config = getattr(engine, "config", None)
    if info is None or config is None:
        return None
    settings = getattr(engine, "settings", None) or config.llama_context_settings(info.sliding_window)
    gpu = bool(getattr(engine, "n_gpu_layers", 0))
    cfg = ledger_config_from_settings({**settings, "n_parallel": config.n_parallel, "gpu": gpu,
                                       "n_gpu_layers": None if gpu else 0})
    return predict(info, cfg)


def ledger_text(engine, ledger, sample) -> str:
    """`aegis ledger`'s whiteboard for the running engine, budgeted against the gauge's total memory."""
    from ..cli.ledger import whiteboard
    from ..memory.ledger import DEFAULT_MARGIN, max_fit

    info, config = engine.model_info, engine.config
    if sample is not None and sample.total_bytes:
        budget, source, label = sample.total_bytes, sample.label, sample.label
    else:
        import psutil

        budget, source, label = int(psutil.virtual_memory().total), "system RAM", "no gauge reading"
    spare = max(0, ledger.config.n_seq_max - config.n_parallel)
    options = max_fit(info, ledger.config, budget, DEFAULT_MARGIN, spare=spare)
    args = SimpleNamespace(parallel=config.n_parallel, ctx=config.n_ctx_per_slot, margin=DEFAULT_MARGIN)
    return whiteboard(info, ledger, args, spare, budget, source, options, label)
