"""Extraction strategies behind one protocol: fan-out (one label request per candidate) and single-pass."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Protocol

from pydantic import ValidationError

from ..engine.handle import Completion, FinishReason
from ..grammar.grounded import grounded_grammar
from ..schema import MAX_FACTS, AtomicFact, ExtractionPayload, FactType
from ..text.document import Document, Span
from .job import Job
from .prompts import facts_prompt, label_grammar, label_prompt
from .relevance import Candidate, asked_predicates, predicate_asked
from .repair import Extraction, RepairNote, Worklist, compact_fact, repeats_predicate
from .states import State


class Extractor(Protocol):
    """One way to turn a worklist's pending items into facts (or into repair notes for the next attempt)."""

    per_candidate: bool  # items are candidate indexes (fan-out), not slots of one payload (single-pass)

    def extract(self, job: Job, doc: Document, cands: list[Candidate], work: Worklist) -> Extraction: ...


def extractor_for(strategy: str, *, label_max_tokens: int, facts_max_tokens: int) -> Extractor:
    """The strategy named "fan-out" or "single-pass" (anything else is single-pass, as it always was)."""
    return FanOut(label_max_tokens) if strategy == "fan-out" else SinglePass(facts_max_tokens)


@dataclass(frozen=True)
class FanOut:
    """One short grammar-constrained request per candidate, all sharing the document prefix across slots."""

    max_tokens: int
    per_candidate: bool = True

    def extract(self, job: Job, doc: Document, cands: list[Candidate], work: Worklist) -> Extraction:
        question = job.answer.question
        handles = []
        for i in work.pending:
            note = work.notes.get(i)
            prompt = job.render(label_prompt(doc.text, question, cands[i], doc.language, repair=note))
            grammar = label_grammar(cands[i], note)  # a repair narrows the grammar to the failure
            handles.append(job.submit(prompt, grammar, self.max_tokens))
        job.emit(State.EXTRACT, f"{len(handles)} fan-out request(s) in flight")
        out = Extraction()
        for i, c in zip(work.pending, job.wait(handles)):
            result = self._label(job, cands[i], c)
            if isinstance(result, RepairNote):
                out.notes[i] = result
            elif result is not None:
                out.facts[i] = result
        return out

    def _label(self, job: Job, cand: Candidate, c: Completion) -> AtomicFact | RepairNote | None:
        """The labelled fact, a repair note, or None when the model judged the value irrelevant."""
        problem, obj = parse_output(c)
        if problem:
            return RepairNote(c.text[-80:], "output", problem)
        try:
            fact = AtomicFact(subject=obj["subject"].strip(), predicate=obj["predicate"].strip(),
                              object_value=cand.value, fact_type=FactType.NUMERIC, source_text=cand.quote)
        except (ValidationError, KeyError, AttributeError) as exc:
            return RepairNote(c.text[-80:], "schema", str(exc).splitlines()[0])
        # A predicate that names what the question asks for is relevant (code decides); a clause that names
        # it under another label is re-asked; anything else is the model's call (documents say "up to"
        # where questions say "cap"). Irrelevance is a decision, not a failure: no retry.
        question = job.answer.question
        asked = predicate_asked(fact.predicate, question)
        named = [w for w in asked_predicates(question) if w in cand.context.lower()]
        if asked is False and named:
            # The clause is about something the question asks for, but the label missed it: repair.
            return RepairNote(compact_fact(fact), "predicate_relevance",
                              f"the clause is about {named[0]}; the predicate should name it", fact=fact,
                              require_pred=next((w for w in named if w in cand.context), named[0]))
        if repeats_predicate(fact):
            return RepairNote(compact_fact(fact), "label",
                              "the subject repeats the predicate; the subject is who or what it applies to",
                              fact=fact, avoid_subject=max(fact.subject, fact.predicate, key=len))
        if not asked and not obj.get("relevant", True):
            job.answer.skipped.append({"value": cand.value, "subject": fact.subject,
                                       "predicate": fact.predicate, "model_relevant": obj.get("relevant")})
            return None
        return fact


@dataclass(frozen=True)
class SinglePass:
    """One request emits every fact under the grounded grammar over the question-relevant clauses.

    The first attempt offers every relevant clause; a repair offers only the failed facts' clauses and asks
    for as many facts as failed, which replace them slot for slot. An unusable output (cut off, invalid
    JSON) becomes the worklist's whole-output note, which makes the next attempt a full one again.
    """

    max_tokens: int
    per_candidate: bool = False

    def extract(self, job: Job, doc: Document, cands: list[Candidate], work: Worklist) -> Extraction:
        repairing = [i for i in work.pending if i in work.notes]
        if repairing:
            quotes = [work.notes[i].quote or cands[min(i, len(cands) - 1)].quote for i in repairing]
            budget = len(repairing)
            repair = work.notes[repairing[0]]
        else:
            quotes = [c.quote for c in cands]
            budget = MAX_FACTS
            repair = work.whole_output
        spans = [Span(0, len(q), q, "offered") for q in dict.fromkeys(quotes)]
        g = grounded_grammar(doc, spans, max_facts=budget, ground_labels=True)
        prompt = job.render(facts_prompt(doc.text, job.answer.question, doc.language, repair=repair))
        [c] = job.wait([job.submit(prompt, g.text, self.max_tokens)])
        problem, obj = parse_output(c)
        rule = "output"
        if not problem:
            try:
                payload = ExtractionPayload.model_validate(obj)
            except ValidationError as exc:
                problem, rule = str(exc).splitlines()[0], "schema"
        if problem:
            note = RepairNote(c.text[-80:], rule, problem)
            return Extraction(notes={i: note for i in repairing}) if repairing else Extraction(whole_output=note)
        if repairing:
            return Extraction(facts=dict(zip(repairing, payload.atomic_facts)))
        return Extraction(facts=dict(enumerate(payload.atomic_facts)))


def parse_output(c: Completion) -> tuple[str | None, dict | None]:
    """(None, obj) for a complete JSON object; (reason, None) for cut-off, errors or invalid JSON."""
    if c.finish_reason == FinishReason.LENGTH:
        return f"output cut off at max_tokens ({c.stats.generated_tokens} tokens)", None
    if c.finish_reason.aborted:
        return f"request ended: {c.finish_reason} {c.error or ''}".strip(), None
    try:
        obj = json.loads(c.text)
    except ValueError as exc:
        return f"invalid JSON: {exc}", None
    if not isinstance(obj, dict):
        return "invalid JSON: not an object", None
    return None, obj
