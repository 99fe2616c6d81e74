"""Faithfulness evaluation: gold-fact recall, unsupported numbers, rejections and latency per answering mode."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from ..schema import AtomicFact
from ..text.document import Document
from ..text.entities import same_entity, stem, units
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


# ---- held-out sets: documents with questions whose gold is {subject, value} as the document writes them ----------

@dataclass
class HeldOutResult:
    """One question of a held-out set: gold values stated and bound to their entity, and what else was stated.

    recovered: gold values the answer states through a verified fact whose evidence (subject, predicate,
    clause, heading path, table headers) names the gold entity; misbound: verified facts with a gold value
    whose evidence does not name that value's entity; off_question: verified facts whose value answers
    nothing the question asked (for a question the document cannot answer, every stated figure).
    """

    document: str
    question: str
    state: Outcome
    gold: int
    recovered: int
    misbound: list[str]
    off_question: list[str]
    unsupported: list[str]
    e2e_s: float
    answer: str
    missing: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return dict(self.__dict__)


def _evidence_text(fv, doc: Document) -> str:
    """Everything a verified fact's binding rests on, as one lowercased text: its label and clause, the headings
    it stands under, a list item's lead-in ("Northbridge funds an HRA …:" over "- Any tier covering dependents:
    $1,000") and the table headers that bound it."""
    at = fv.anchor
    heads = " ".join(doc.structure.heading_path(at)) if at is not None else ""
    block = doc.structure.block_at(at) if at is not None else None
    lead = block.lead_in if block is not None and block.kind == "list_item" else ""
    table = " ".join(str(c.evidence) for c in fv.checks if c.rule == "table_binding" and c.evidence)
    # (the member the question named, where the document places it in the name the fact is of: "Tolworth Bridge" in
    # Band 1's row of Appendix A, and that place as the answer states it, a remark dating the placement with it: "Moves to
    # Silver from 1 October 2025")
    placed = " ".join(f"{c.evidence['member']} {c.evidence.get('where', '')}" for c in fv.checks
                      if c.rule == "membership" and c.passed and c.evidence)
    f = fv.fact
    return f"{f.subject} {f.predicate} {f.source_text} {heads} {lead} {table} {placed}".lower().replace("-", " ")


def _same_figure(gold: str, stated: str) -> bool:
    """Whether one value's text holds the other's whole, at number edges: "£450" and "£450 per person",
    "200万元以上" and "200万元", "net 30 days" and "30 days" (not "5%" inside "25%", nor "1" at the head of "$13,575",
    nor "十年" inside "三十年")."""
    a, b = (gold.strip(), stated.strip()) if len(gold.strip()) <= len(stated.strip()) else (stated.strip(),
                                                                                          gold.strip())
    return bool(a) and re.search(rf"(?<![\d.,{_NUMERALS_ZH}]){re.escape(a)}(?!\d)(?![.,]\d)", b) is not None


_NUMERALS_ZH = "零〇一二两三四五六七八九十百千万亿"


def _names(subject: str, evidence: set[str]) -> bool:
    """Whether evidence (units of a fact's subject, predicate, clause, headings, headers) names a gold subject:
    at least two thirds of the subject's words or characters ("Family, In-network, Out-of-pocket maximum")."""
    want = {stem(u) for u in units(subject.replace("-", " "))}
    evidence = {stem(u) for u in evidence}
    return bool(want) and len(want & evidence) * 3 >= len(want) * 2


def score_heldout(document: str, doc: Document, question: str, gold: list[dict], ans) -> HeldOutResult:
    """Score one answer; a prose (baseline) answer has no facts, so its gold counts when the value is stated
    and any other amount it states is off the question (binding cannot be checked there)."""
    verified = list(ans.report.verified) if ans.report is not None else []
    wanted = [(g, parse_quantity(g["value"])) for g in gold]
    hits, misbound, off = set(), [], []
    if ans.mode == "baseline":
        for m in find_quantities(ans.answer):
            same = [i for i, (_, gq) in enumerate(wanted) if gq is not None and gq == m.quantity]
            hits.update(same)
            if not same:
                off.append(m.text)
    for fv in verified:
        q = parse_quantity(fv.fact.object_value)
        same_value = [i for i, (g, gq) in enumerate(wanted)
                      if (gq is not None and gq == q) or _same_figure(g["value"], fv.fact.object_value)]
        line = f"{fv.fact.subject} / {fv.fact.predicate} / {fv.fact.object_value}"
        if not same_value:
            off.append(line)
            continue
        text = set(units(_evidence_text(fv, doc)))
        bound = [i for i in same_value if _names(wanted[i][0]["subject"], text)]
        if bound:
            hits.update(bound)
        else:
            misbound.append(line)
    return HeldOutResult(
        document=document, question=question, state=ans.state, gold=len(gold), recovered=len(hits),
        misbound=misbound, off_question=off, unsupported=unsupported_numbers(ans.answer, doc),
        e2e_s=ans.timings.get("e2e_s", 0.0), answer=ans.answer,
        missing=[f"{g['subject']} {g['value']}" for i, g in enumerate(gold) if i not in hits])


def summarize_heldout(results: list[HeldOutResult]) -> dict:
    """Recall over gold values, answers with a misbound / off-question / unsupported figure, declines."""
    gold = sum(r.gold for r in results)
    answerable = [r for r in results if r.gold]
    unanswerable = [r for r in results if not r.gold]
    return {
        "questions": len(results), "gold": gold, "recovered": sum(r.recovered for r in results),
        "recall": round(sum(r.recovered for r in results) / gold, 3) if gold else None,
        "answers_fully_right": sum(r.recovered == r.gold and not r.misbound and not r.off_question
                                   and not r.unsupported for r in answerable),
        "answerable": len(answerable),
        "answers_with_misbound": sum(bool(r.misbound) for r in results),
        "answers_with_off_question": sum(bool(r.off_question) for r in answerable),
        "answers_with_unsupported": sum(bool(r.unsupported) for r in results),
        "unanswerable_declined": sum(not r.off_question and not r.misbound for r in unanswerable),
        "unanswerable": len(unanswerable),
        "avg_e2e_s": round(sum(r.e2e_s for r in results) / len(results), 3) if results else None,
    }
