"""Choosing among verified facts: which shortlisted facts of the index answer the question.

Code decides where it can: a fact whose predicate names what the question asks for is chosen; when every
part of the question names what it asks for, the other facts are not; a fact whose evidence (its clause,
section and headers) never mentions anything the question asks for is not either. Every other shortlisted
fact gets the model's grammar-constrained yes/no, all of them in flight at once across the slots,
the question in the shared prefix. Irrelevance is a decision, not a failure: a "no" is recorded as skipped.
"""

from __future__ import annotations

import re

from ..text.document import Document
from ..text.lexicon import QUESTION_WORDS
from .factindex import IndexedFact
from .job import Job
from .prompts import fact_line, is_yes, pick_grammar, pick_prompt
from .relevance import asked_predicates, predicate_asked
from .states import State

PICK_MAX_TOKENS = 2
_PARTS = re.compile(r"[？?；;。!！]|[，,]\s*(?:and|or|以及|并且|还有|另外)?|\s+and\s+(?=how|what|when|which|who|where|is|are|do|does)", re.I)


def question_parts(question: str) -> list[str]:
    """The parts of a question that each ask for something (split at question marks, commas, 'and how …');
    a part with no question word names a scope ("在三级医院住院，…") and is left out, unless no part has one."""
    parts = [p for p in (x.strip() for x in _PARTS.split(question)) if len(p) > 1]
    asking = [p for p in parts if QUESTION_WORDS.search(p)]
    return asking or parts


def choose(job: Job, doc: Document, shortlist: list[IndexedFact], contexts: dict[str, str]) -> list[IndexedFact]:
    """The shortlisted facts that answer job's question, in shortlist order; contexts holds each fact's evidence
    as the model saw it (section, headers, clause) by key."""
    question = job.answer.question
    lang = doc.language
    asked = asked_predicates(question)
    # a question that names what it asks for in every part ("起付线和报销比例…？年度封顶线…？") is answered by the
    # facts whose predicate names it; one with a part the lexicon does not know ("… and how soon must reports be
    # submitted?") leaves the facts it cannot place to the model, unless their evidence mentions nothing asked
    explicit = bool(asked) and all(asked_predicates(part) for part in question_parts(question))
    decided: dict[str, bool] = {}
    reasons: dict[str, str] = {}
    ask = []
    for f in shortlist:
        if predicate_asked(f.fact.predicate, question):
            decided[f.key] = True
        elif explicit:
            decided[f.key] = False
            reasons[f.key] = f"its predicate names none of what the question asks for ({', '.join(asked)})"
        elif asked and not any(w in contexts.get(f.key, f.fact.source_text).lower() for w in asked):
            decided[f.key] = False
            reasons[f.key] = f"its evidence does not mention what the question asks for ({', '.join(asked)})"
        else:
            ask.append(f)
    if ask:
        grammar = pick_grammar(lang)
        handles = [job.submit(job.render(pick_prompt(question, fact_line(f.fact.subject, f.fact.predicate,
                                                                          f.fact.object_value, f.section), lang)),
                              grammar, PICK_MAX_TOKENS) for f in ask]
        job.emit(State.EXTRACT, f"{len(decided)} fact(s) chosen by predicate, {len(ask)} relevance decision(s) "
                                f"in flight")
        for f, c in zip(ask, job.wait(handles)):
            decided[f.key] = is_yes(c.text, lang)
    out = []
    for f in shortlist:
        if decided.get(f.key):
            out.append(f)
        else:
            job.answer.skipped.append({"value": f.fact.object_value, "subject": f.fact.subject,
                                       "predicate": f.fact.predicate,
                                       "reason": reasons.get(f.key, "the model judged it does not answer the question")})
    return out
