"""Repair bookkeeping: typed notes on what failed, one attempt's result, and what is left to re-ask."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from ..schema import AtomicFact


@dataclass(frozen=True)
class RepairNote:
    """Why an item failed, told to the model on its re-ask; the optional fields also narrow its grammar."""

    prev: str                          # the failed answer: a compact fact, or the tail of an unusable output
    rule: str                          # "output", "schema", "label", "predicate_relevance" or a verifier rule
    detail: str
    fact: AtomicFact | None = None     # fan-out: the label the model gave, when it was rejected before verifying
    quote: str | None = None           # single-pass: the rejected fact's source_text, offered again on repair
    require_pred: str | None = None    # fan-out: the predicate must contain this word of the clause
    avoid_subject: str | None = None   # fan-out: these words are taken out of the subject's span

    def to_json(self, fact: AtomicFact | None) -> dict:
        """The note as Answer.rejected shows it, with the fact that was finally dropped (None when none)."""
        out = {"prev": self.prev, "rule": self.rule, "detail": self.detail}
        for key in ("quote", "require_pred", "avoid_subject"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        out["fact"] = fact.model_dump(mode="json") if fact is not None else None
        return out


def failure_note(fv) -> RepairNote:
    """The repair note of a fact the verifier rejected: its first failing rule and why."""
    first = fv.check(fv.failed_rules[0])
    return RepairNote(compact_fact(fv.fact), first.rule, first.detail, quote=fv.fact.source_text)


def compact_fact(fact: AtomicFact) -> str:
    """subject, predicate and value as one JSON line: how a failed answer is quoted back to the model."""
    return json.dumps({"subject": fact.subject, "predicate": fact.predicate, "object_value": fact.object_value},
                      ensure_ascii=False)


def repeats_predicate(fact: AtomicFact) -> bool:
    """Whether a label's subject and predicate are one phrase, or one holds the other, in any case ("Waiting" /
    "waiting"): the subject then says nothing of who or what the value applies to."""
    subject, predicate = fact.subject.casefold(), fact.predicate.casefold()
    if subject in predicate or predicate in subject:
        return True
    # … or, in Chinese, nearly: most of the shorter is a run of the longer ("连续足额缴存住房公积金满" / "申请贷款前连续足额
    # 缴存住房公积金"), a bound word or a modifier apart (an English section title over its measure, "Waiting periods" /
    # "waiting period of", stays a label)
    shorter = min(len(subject), len(predicate))
    if shorter < 5 or subject.isascii() or predicate.isascii():
        return False
    return SequenceMatcher(None, subject, predicate, autojunk=False).find_longest_match().size >= 0.8 * shorter


@dataclass
class Extraction:
    """What one extraction attempt produced: facts and repair notes by item, and a note on an unusable output."""

    facts: dict[int, AtomicFact] = field(default_factory=dict)
    notes: dict[int, RepairNote] = field(default_factory=dict)
    whole_output: RepairNote | None = None   # single-pass: nothing usable at all, so the next try is a full one


@dataclass
class Worklist:
    """The attempts so far: facts by item, the note of every failed item, and which items to re-ask.

    Items are candidate indexes (fan-out) or slots of the single-pass payload. ``whole_output`` stands for
    the whole request rather than an item: set while the last full output was unusable and nothing better
    has arrived since.
    """

    pending: list[int]
    facts: dict[int, AtomicFact] = field(default_factory=dict)
    notes: dict[int, RepairNote] = field(default_factory=dict)
    whole_output: RepairNote | None = None

    @property
    def open_count(self) -> int:
        """How many things the next attempt re-asks (the whole output counts as one)."""
        return len(self.pending) + (self.whole_output is not None)

    def absorb(self, ex: Extraction) -> None:
        """Take one attempt's result: new facts replace their notes; new notes replace older ones."""
        self.facts.update(ex.facts)
        self.notes = {k: v for k, v in self.notes.items() if k not in ex.facts} | ex.notes
        self.whole_output = ex.whole_output or self.whole_output

    def judge(self, order: list[int], report) -> None:
        """Note every fact the verifier rejected (report lists facts in `order`) and decide what is pending."""
        pending = []
        for idx, fv in zip(order, report.facts if report is not None else []):
            if not fv.passed:
                self.notes[idx] = failure_note(fv)
                pending.append(idx)
        pending += [i for i in self.notes if i not in self.facts]
        if self.facts:
            self.whole_output = None  # a later full attempt produced facts: the earlier bad output is moot
        self.pending = sorted(set(pending))

    def kept(self) -> list[AtomicFact]:
        """The facts without a standing failure, in item order."""
        return [self.facts[i] for i in sorted(self.facts) if i not in self.notes]

    def rejected(self, candidate_of) -> list[dict]:
        """Answer.rejected entries for every standing failure; candidate_of(item) names its clause (or None)."""
        out = []
        if self.whole_output is not None:
            out.append({**self.whole_output.to_json(None), "candidate": None})
        for i in sorted(self.notes):
            note = self.notes[i]
            out.append({**note.to_json(self.facts.get(i) or note.fact), "candidate": candidate_of(i)})
        return out
