"""The in-process inference engine: one llama.cpp context, n_parallel slots, continuous batching."""

from .config import EngineConfig, Sampling
from .handle import Completion, EngineStats, Piece, RequestHandle, RequestStats, SlotState


def __getattr__(name: str):
    # Engine pulls in numpy and (when constructed) llama_cpp; importing the package stays cheap.
    if name == "Engine":
        from .engine import Engine

        return Engine
    raise AttributeError(name)


__all__ = [
    "Completion", "Engine", "EngineConfig", "EngineStats", "Piece", "RequestHandle", "RequestStats",
    "Sampling", "SlotState",
]
