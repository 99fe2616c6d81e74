"""The memory ledger of the loaded engine: the predicted total for the gauge and the whiteboard for its screen."""

from __future__ import annotations

from ..memory.gauge import memory_budget
from ..memory.ledger import ledger_config_from_settings, predict
from ..memory.whiteboard import whiteboard


def engine_ledger(engine):
    """The ledger predicted for the engine's model and config, or None when the engine does not say."""
    info = getattr(engine, "model_info", None)
    config = getattr(engine, "config", None)
    if info is None or config is None or info.extra.get("backend"):  # a served model's memory is the server's
        return None
    settings = getattr(engine, "settings", None) or config.llama_context_settings(info.sliding_window)
    gpu = bool(getattr(engine, "n_gpu_layers", 0))
    cfg = ledger_config_from_settings({**settings, "n_parallel": config.n_parallel, "gpu": gpu,
                                       "n_gpu_layers": None if gpu else 0})
    return predict(info, cfg)


def ledger_text(engine, ledger, sample) -> str:
    """`aegis ledger`'s whiteboard for the running engine, budgeted like the engine's own preflight check.

    sample: the gauge's latest reading (None before the first), so the screen does not query NVML again.
    """
    budget = memory_budget(ledger.device == "gpu", sample=sample)
    return whiteboard(engine.model_info, ledger, engine.config.n_ctx_per_slot, budget).text()
