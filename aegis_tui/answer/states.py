"""The answer state machine's states and outcomes, its transitions and progress events, and the Answer record."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class State(StrEnum):
    """A state of the machine, spelled as the audit log's transitions and the UI show it."""

    EXTRACT = "EXTRACT"
    VERIFY = "VERIFY"
    REPAIR = "REPAIR"
    REALIZE = "REALIZE"
    GENERATE = "GENERATE"      # baseline: free prose, no extraction
    DONE = "DONE"
    FALLBACK = "FALLBACK"
    CANCELLED = "CANCELLED"


class Outcome(StrEnum):
    """How an answer ended, spelled as the `aegis ask --format json` contract says ("state": "done"|"fallback")."""

    DONE = "done"              # at least one verified fact (baseline: the model answered)
    FALLBACK = "fallback"      # nothing verified: the fixed fallback text
    CANCELLED = "cancelled"

    @property
    def final_state(self) -> State:
        """The machine's last state for this outcome (DONE for done, …)."""
        return State[self.name]


@dataclass
class Transition:
    """One state change: which state, when (seconds since the question was asked), and why."""

    state: State
    t: float
    reason: str

    def to_json(self) -> dict:
        return {"state": self.state.value, "t": self.t, "reason": self.reason}


@dataclass(frozen=True)
class PipelineEvent:
    """Progress for a UI: the current state, a detail line, and tokens generated so far."""

    state: State
    detail: str
    tokens: int
    t: float


@dataclass
class Answer:
    """Everything about one answered question: text, state, verification, timings and the trail of states."""

    question: str
    mode: str
    answer: str = ""
    state: Outcome = Outcome.FALLBACK
    strategy: str = ""
    report: object | None = None            # VerificationReport of the facts kept
    rejected: list[dict] = field(default_factory=list)   # facts dropped after the last attempt, with rules
    attempts: int = 0
    timings: dict = field(default_factory=dict)
    transitions: list[Transition] = field(default_factory=list)
    offered: list[str] = field(default_factory=list)     # evidence the grammar offered (relevance result)
    skipped: list[dict] = field(default_factory=list)     # labelled values judged not to answer the question
    unsupported_numbers: list[str] = field(default_factory=list)
    generated_tokens: int = 0
    error: str | None = None
    # the question as the document writes its durations and firsts ("每半小时" as "每30分钟"), which choosing reads; the
    # question stays the user's words in the answer, its record and its JSON
    read_as: str = ""

    @property
    def asked(self) -> str:
        """The question as choosing reads it (read_as), else as the user asked it."""
        return self.read_as or self.question

    @property
    def verified_count(self) -> int:
        return len(self.report.verified) if self.report is not None else 0

    def skip(self, facts, reason: str) -> None:
        """Record facts (AtomicFact, or anything with a .fact) judged not to answer the question, with the reason."""
        for f in facts:
            f = getattr(f, "fact", f)
            self.skipped.append({"value": f.object_value, "subject": f.subject, "predicate": f.predicate,
                                 "reason": reason})

    def to_json(self) -> dict:
        facts = self.report.to_json()["facts"] if self.report is not None else []
        return {
            "question": self.question, "answer": self.answer, "state": self.state.value, "mode": self.mode,
            "strategy": self.strategy, "facts": facts, "rejected": self.rejected, "attempts": self.attempts,
            "timings": self.timings, "unsupported_numbers": self.unsupported_numbers,
            "offered": self.offered, "skipped": self.skipped, "generated_tokens": self.generated_tokens,
            "transitions": [t.to_json() for t in self.transitions], "error": self.error,
        }
