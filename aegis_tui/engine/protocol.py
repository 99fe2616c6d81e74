"""The engine interface the pipeline, the TUI and the CLI rely on; the in-process Engine and test fakes speak it."""

from __future__ import annotations

from typing import Callable, Protocol, runtime_checkable

from ..models import ModelInfo
from .config import EngineConfig, Sampling
from .handle import EngineStats, Piece, RequestHandle


@runtime_checkable
class EngineProtocol(Protocol):
    """What callers may use from an engine: model facts, submit(), tokenize(), stats(), close().

    Anything else on `Engine` (logit probes, prefix-cache control, grammar switches) is for benchmarks and
    engine tests, which construct the real engine themselves.
    """

    config: EngineConfig          # slots (n_parallel), context per slot, model path
    model_info: ModelInfo         # GGUF facts: name, quantization, architecture, sizes
    chat_template: str | None     # the GGUF's Jinja chat template; None renders completion-style prompts
    bos_text: str                 # bos_token for the chat template ("": tokenize() adds BOS itself)
    eos_text: str                 # eos_token for the chat template
    n_gpu_layers: int             # layers offloaded to a GPU (0 on CPU)

    def submit(self, prompt: str | list[int], *, grammar: str | None = None, max_tokens: int = 256,
               sampling: Sampling = Sampling(), stop: list[str] | None = None,
               on_piece: Callable[[Piece], None] | None = None) -> RequestHandle:
        """Queue one request; the handle streams Pieces and ends in a Completion."""
        ...

    def tokenize(self, text: str, add_special: bool = True) -> list[int]:
        """The model's tokens for text."""
        ...

    def stats(self) -> EngineStats:
        """Slots, queue, KV cells and recent speed, for monitors."""
        ...

    def close(self) -> None:
        """End every request and free the model; safe to call twice."""
        ...
