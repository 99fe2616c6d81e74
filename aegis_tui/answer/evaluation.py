"""Faithfulness evaluation: gold-fact recall, unsupported numbers, rejections and latency per answering mode."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..schema import AtomicFact
from ..text.document import Document
from ..text.entities import same_entity
from ..text.quantity import find_quantities, parse_quantity
from .states import Outcome
from .verify import non_value_numbers, unsupported_numbers


@dataclass
class QuestionResult:
    """One (document, question, mode) run scored against the gold facts."""

    sample: str
    question: str
    mode: str
    state: Outcome
    gold: int
    recovered: int
    verified: int
    unsupported: list[str]
    rejected_rules: dict[str, int]
    ttft_s: float | None
    e2e_s: float
    answer: str
    missing: list[str] = field(default_factory=list)
    non_values: list[str] = field(default_factory=list)  # section numbers, dates, versions stated as amounts

    def to_json(self) -> dict:
        return dict(self.__dict__)


def gold_recovered(gold: AtomicFact, verified: list[AtomicFact]) -> bool:
    """A gold fact counts as recovered when a verified fact has an equal quantity and names the same entity."""
    gq = parse_quantity(gold.object_value)
    for f in verified:
        if parse_quantity(f.object_value) == gq and gq is not None and (
                same_entity(f.subject, gold.subject) or gold.subject in f.subject or f.subject in gold.subject):
            return True
    return False


def gold_in_prose(gold: AtomicFact, text: str) -> bool:
    """For the prose baseline: the gold value appears in the answer (a weaker test: no entity binding)."""
    gq = parse_quantity(gold.object_value)
    return gq is not None and any(m.quantity == gq for m in find_quantities(text))


def score(sample: str, doc: Document, question: str, gold: list[AtomicFact], ans) -> QuestionResult:
    label = ans.mode if ans.mode == "baseline" else f"two-stage/{ans.strategy}"
    if ans.mode == "baseline":
        hits = [g for g in gold if gold_in_prose(g, ans.answer)]
        verified = 0
    else:
        facts = [fv.fact for fv in ans.report.verified] if ans.report is not None else []
        hits = [g for g in gold if gold_recovered(g, facts)]
        verified = len(facts)
    rules = Counter(r.get("rule", "?") for r in ans.rejected)
    return QuestionResult(
        sample=sample, question=question, mode=label, state=ans.state, gold=len(gold), recovered=len(hits),
        verified=verified, unsupported=unsupported_numbers(ans.answer, doc), rejected_rules=dict(rules),
        ttft_s=ans.timings.get("ttft_s"), e2e_s=ans.timings.get("e2e_s", 0.0), answer=ans.answer,
        missing=[f"{g.subject} {g.predicate} {g.object_value}" for g in gold if g not in hits],
        non_values=non_value_numbers(ans.answer, doc),
    )


def summarize(results: list[QuestionResult]) -> dict[str, dict]:
    """Per mode: recall over all gold facts, unsupported numbers, rejections by rule, mean TTFT/E2E."""
    out: dict[str, dict] = {}
    for mode in dict.fromkeys(r.mode for r in results):
        rs = [r for r in results if r.mode == mode]
        gold = sum(r.gold for r in rs)
        rules: Counter = Counter()
        for r in rs:
            rules.update(r.rejected_rules)
        ttfts = [r.ttft_s for r in rs if r.ttft_s is not None]
        out[mode] = {
            "questions": len(rs), "gold": gold, "recovered": sum(r.recovered for r in rs),
            "recall": round(sum(r.recovered for r in rs) / gold, 3) if gold else None,
            "verified_facts": sum(r.verified for r in rs),
            "unsupported_numbers": sum(len(r.unsupported) for r in rs),
            "non_value_numbers": sum(len(r.non_values) for r in rs),
            "rejected_by_rule": dict(rules), "fallbacks": sum(r.state == Outcome.FALLBACK for r in rs),
            "avg_ttft_s": round(sum(ttfts) / len(ttfts), 3) if ttfts else None,
            "avg_e2e_s": round(sum(r.e2e_s for r in rs) / len(rs), 3),
        }
    return out
