"""Messages that workers post to the app: the only way background work changes the UI."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from ..engine.protocol import EngineProtocol


@dataclass
class ModelProgress(Message):
    """The model loader reached a new step (shown beside the progress bar)."""

    step: str


@dataclass
class ModelReady(Message):
    """The engine is loaded and can take requests."""

    engine: EngineProtocol
    load_s: float
    ledger: object | None  # the memory ledger predicted for this model and config
    indexes: object | None = None  # the IndexStore answers and the background index share (strategy "index")


@dataclass
class ModelFailed(Message):
    """The engine could not be created; the UI stays usable without answers."""

    error: str


@dataclass
class DocumentOpened(Message):
    """A document was loaded from disk."""

    document: object


@dataclass
class DocumentFailed(Message):
    """A document could not be loaded (missing, binary, undecodable ...)."""

    path: str
    error: str


@dataclass
class QuestionProgress(Message):
    """A pipeline run moved on: its state, a detail line and tokens streamed so far."""

    qid: int
    mode: str
    state: str
    detail: str
    tokens: int


@dataclass
class QuestionAnswered(Message):
    """A pipeline run finished (done, fallback or cancelled) with its Answer."""

    qid: int
    mode: str
    answer: object


@dataclass
class QuestionFailed(Message):
    """A pipeline run raised: the error is shown, the app keeps going."""

    qid: int
    mode: str
    error: str


@dataclass
class Polled(Message):
    """One poll of the engine and the gauge: slot states and the latest memory samples."""

    stats: object | None
    sample: object | None
    history: list


@dataclass
class Exported(Message):
    """A report was written to disk."""

    paths: list[str]


@dataclass
class ExportFailed(Message):
    """Writing a report failed."""

    error: str


@dataclass
class IndexProgress(Message):
    """The document's fact index grew (throttled): its indexer, the progress and whether a run is going."""

    document: object
    indexer: object
    progress: object      # factindex.Progress
    running: bool = True


@dataclass
class IndexFailed(Message):
    """Building the fact index raised: shown once, answers still work (they label what they need)."""

    document: object
    error: str


@dataclass
class IndexWarning(Message):
    """The index cache was turned off (read-only or full directory): indexing goes on in memory."""

    warning: str


@dataclass
class FactsExported(Message):
    """The fact table was written as CSV."""

    path: str
