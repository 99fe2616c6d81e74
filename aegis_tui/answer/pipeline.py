"""The two-stage answering pipeline (EXTRACT → VERIFY → REPAIR → REALIZE) and the single-stage baseline."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from enum import Enum
from typing import Callable

from pydantic import ValidationError

from ..errors import AegisError
from ..schema import MAX_FACTS, AtomicFact, ExtractionPayload, FactType
from ..text.document import Document, Span
from .prompts import facts_prompt, label_grammar, label_prompt, prose_prompt, render
from .relevance import Candidate, asked_predicates, enumerate_candidates, focus, predicate_asked

MODES = ("two-stage", "baseline")
STRATEGIES = ("fan-out", "single-pass")


class State(str, Enum):
    EXTRACT = "EXTRACT"
    VERIFY = "VERIFY"
    REPAIR = "REPAIR"
    REALIZE = "REALIZE"
    GENERATE = "GENERATE"
    DONE = "DONE"
    FALLBACK = "FALLBACK"
    CANCELLED = "CANCELLED"


@dataclass
class Transition:
    """One state change: which state, when (seconds since the question was asked), and why."""

    state: str
    t: float
    reason: str


@dataclass(frozen=True)
class PipelineEvent:
    """Progress for a UI: the current state, a detail line, and tokens generated so far."""

    state: str
    detail: str
    tokens: int
    t: float


@dataclass
class PipelineConfig:
    """How the pipeline asks: strategy, repair attempts, relevance width and token budgets."""

    strategy: str = "fan-out"
    max_attempts: int = 2          # extraction attempts in total (1 = no repair)
    top_k: int = 16                # candidates / clauses offered after relevance ranking
    label_max_tokens: int = 64     # fan-out answer: {"subject": …, "predicate": …}
    facts_max_tokens: int = 768    # single-pass payload
    prose_max_tokens: int = 200    # baseline answer
    repair_temperature: float = 0.6  # repairs sample (seeded) so a changed answer is possible at all
    model_name: str = ""


@dataclass
class Answer:
    """Everything about one answered question: text, state, verification, timings and the trail of states."""

    question: str
    mode: str
    answer: str = ""
    state: str = "fallback"
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

    @property
    def verified_count(self) -> int:
        return len(self.report.verified) if self.report is not None else 0

    def to_json(self) -> dict:
        facts = self.report.to_json()["facts"] if self.report is not None else []
        return {
            "question": self.question, "answer": self.answer, "state": self.state, "mode": self.mode,
            "strategy": self.strategy, "facts": facts, "rejected": self.rejected, "attempts": self.attempts,
            "timings": self.timings, "unsupported_numbers": self.unsupported_numbers,
            "offered": self.offered, "skipped": self.skipped, "generated_tokens": self.generated_tokens,
            "transitions": [t.__dict__ for t in self.transitions], "error": self.error,
        }


class Cancelled(AegisError):
    """The question was cancelled."""


@dataclass
class _Job:
    """Bookkeeping of one answer() call: clock, token count, live handles, events."""

    t0: float
    on_event: Callable[[PipelineEvent], None] | None
    cancel: threading.Event
    answer: Answer
    tokens: int = 0
    first_piece: float | None = None
    handles: list = field(default_factory=list)
    queue_s: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def now(self) -> float:
        return time.perf_counter() - self.t0

    def enter(self, state: State, reason: str) -> None:
        self.answer.transitions.append(Transition(state.value, round(self.now(), 4), reason))
        self.emit(state.value, reason)

    def emit(self, state: str, detail: str) -> None:
        if self.on_event is not None:
            self.on_event(PipelineEvent(state, detail, self.tokens, self.now()))

    def on_piece(self, piece) -> None:
        with self.lock:
            self.tokens += piece.n_tokens
            if self.first_piece is None:
                self.first_piece = piece.t
        state = self.answer.transitions[-1].state if self.answer.transitions else ""
        self.emit(state, f"{self.tokens} tokens")

    def check(self) -> None:
        if self.cancel.is_set():
            raise Cancelled("cancelled")


class Pipeline:
    """Answers questions about documents with an engine; every number in a two-stage answer is verified."""

    def __init__(self, engine, config: PipelineConfig | None = None, audit=None) -> None:
        self.engine = engine
        self.config = config or PipelineConfig()
        self.audit = audit
        self._verifiers: dict[str, object] = {}

    # ---- public ----------------------------------------------------------------------------------
    def answer(self, doc: Document, question: str, mode: str = "two-stage", *,
               on_event: Callable[[PipelineEvent], None] | None = None,
               cancel: threading.Event | None = None) -> Answer:
        """Answer one question; never raises for model misbehaviour (cut-off, bad JSON): that is REPAIR."""
        if mode not in MODES:
            raise AegisError(f"unknown mode {mode!r} (choose from {', '.join(MODES)})")
        question = question.strip()
        if not question:
            from ..errors import InputError

            raise InputError("the question is empty")
        ans = Answer(question=question, mode=mode, strategy=self.config.strategy if mode == "two-stage" else "prose")
        job = _Job(time.perf_counter(), on_event, cancel or threading.Event(), ans)
        try:
            if mode == "baseline":
                self._baseline(doc, job)
            else:
                self._two_stage(doc, job)
        except Cancelled:
            for h in job.handles:
                h.cancel()
            ans.state = "cancelled"
            job.enter(State.CANCELLED, "cancelled by the user")
        finally:
            ans.generated_tokens = job.tokens
            ans.timings.setdefault("e2e_s", round(job.now(), 4))
            ans.timings["ttft_s"] = round(job.first_piece - job.t0, 4) if job.first_piece else None
            ans.timings["queue_s"] = round(max(job.queue_s), 4) if job.queue_s else 0.0
        return ans

    # ---- two-stage --------------------------------------------------------------------------------
    def _verifier(self, doc: Document):
        from .verify import Tier1CodeVerifier

        v = self._verifiers.get(doc.sha256)
        if v is None:
            v = self._verifiers[doc.sha256] = Tier1CodeVerifier(doc)
        return v

    def _two_stage(self, doc: Document, job: _Job) -> None:
        from .realize import EntityAwareRealizer

        ans = job.answer
        cfg = self.config
        job.enter(State.EXTRACT, f"ranking clauses ({cfg.strategy})")
        cands = enumerate_candidates(doc, ans.question, top_k=cfg.top_k)
        ans.offered = list(dict.fromkeys(c.quote for c in cands))
        facts: dict[int, AtomicFact] = {}     # candidate/slot index -> fact
        failures: dict[int, dict] = {}        # index -> repair note {prev, rule, detail}
        verifier = self._verifier(doc)
        verify_ms = 0.0

        def verify(kept: list[AtomicFact]):
            """Verify a payload (None when empty), adding the time to verify_ms."""
            nonlocal verify_ms
            t = time.perf_counter()
            out = verifier.verify(ExtractionPayload(atomic_facts=kept)) if kept else None
            verify_ms += (time.perf_counter() - t) * 1000
            return out

        report = None
        if not cands:
            job.enter(State.FALLBACK, "no clause of the document matches the question")
        else:
            pending = list(range(len(cands)))
            for attempt in range(1, cfg.max_attempts + 1):
                job.check()
                ans.attempts = attempt
                if attempt > 1:
                    job.enter(State.REPAIR, f"attempt {attempt}: re-asking {len(pending)} failed item(s)")
                new, bad = (self._fan_out if cfg.strategy == "fan-out" else self._single_pass)(
                    doc, cands, pending, failures, job)
                facts.update(new)
                failures = {**{k: v for k, v in failures.items() if k not in new}, **bad}
                job.check()
                job.enter(State.VERIFY, f"verifying {len(facts)} fact(s)")
                order = sorted(facts)
                report = verify([facts[i] for i in order])
                pending = []
                for idx, fv in zip(order, report.facts if report is not None else []):
                    if not fv.passed:
                        failures[idx] = _failure(fv)
                        pending.append(idx)
                pending += [i for i in failures if i not in facts]
                if -1 in failures and facts:
                    failures.pop(-1)  # a later full attempt produced facts: the earlier bad output is moot
                    pending = [i for i in pending if i != -1]
                pending = sorted(set(pending))
                if not pending:
                    break
            kept = [facts[i] for i in sorted(facts) if i not in failures]
            ans.rejected = [
                {**failures[i], "fact": _dump(facts.get(i) or failures[i].get("fact")),
                 "candidate": cands[i].quote if cfg.strategy == "fan-out" else None}
                for i in sorted(failures)
            ]
            report = verify(kept)
            if report is not None and report.rejected:
                # Dropping facts can change a neighbour's verdict (consistency); keep only what passes now.
                ans.rejected += [{**_failure(fv), "fact": _dump(fv.fact)} for fv in report.rejected]
                report = verify([fv.fact for fv in report.verified])
        if report is not None:
            report = self._focus(verifier, report, ans)
        ans.report = report
        job.check()
        job.enter(State.REALIZE, f"{ans.verified_count} verified fact(s)")
        t = time.perf_counter()
        realizer = EntityAwareRealizer()
        if report is None:
            from .realize import FALLBACK_TEXT

            ans.answer = FALLBACK_TEXT.get(doc.language, FALLBACK_TEXT["en"])
        else:
            ans.answer = realizer.realize(report, doc, language=doc.language, question=ans.question)
        realize_ms = (time.perf_counter() - t) * 1000
        ans.state = "done" if ans.verified_count else "fallback"
        job.enter(State.DONE if ans.state == "done" else State.FALLBACK,
                  f"{ans.verified_count} verified, {len(ans.rejected)} dropped")
        ans.timings.update(verify_ms=round(verify_ms, 3), realize_ms=round(realize_ms, 3),
                           e2e_s=round(job.now(), 4))
        self._audit(doc, ans)

    def _focus(self, verifier, report, ans: Answer):
        """Keep only the entities a question singles out ("在三级医院…"); the others are skipped, not failed."""
        keep = focus([fv.fact.subject for fv in report.verified], ans.question)
        if keep is None:
            return report
        kept = [fv.fact for fv in report.verified if fv.fact.subject in keep]
        ans.skipped += [{"value": fv.fact.object_value, "subject": fv.fact.subject, "predicate": fv.fact.predicate,
                         "reason": "not the entity the question asks about"}
                        for fv in report.verified if fv.fact.subject not in keep]
        return verifier.verify(ExtractionPayload(atomic_facts=kept))

    def _submit(self, job: _Job, prompt: str, grammar: str | None, max_tokens: int, stop=None):
        from ..engine.config import Sampling

        attempt = max(job.answer.attempts, 1)
        sampling = Sampling() if attempt == 1 else Sampling(temperature=self.config.repair_temperature,
                                                             top_p=0.95, seed=attempt)
        h = self.engine.submit(prompt, grammar=grammar, max_tokens=max_tokens, stop=stop, sampling=sampling,
                               on_piece=job.on_piece)
        job.handles.append(h)
        return h

    def _wait(self, job: _Job, handles: list) -> list:
        out = []
        for h in handles:
            while True:
                job.check()
                try:
                    c = h.result(timeout=0.1)
                except TimeoutError:
                    continue
                break
            job.queue_s.append(c.stats.queue_s)
            out.append(c)
        return out

    def _render(self, parts) -> str:
        return render(parts, getattr(self.engine, "chat_template", None),
                      bos_token=getattr(self.engine, "bos_text", ""), eos_token=getattr(self.engine, "eos_text", ""))

    def _fan_out(self, doc, cands: list[Candidate], pending: list[int], failures: dict, job: _Job):
        """One short grammar-constrained request per candidate, all sharing the document prefix across slots."""
        lang = doc.language
        handles = []
        for i in pending:
            prompt = self._render(label_prompt(doc.text, job.answer.question, cands[i], lang, repair=failures.get(i)))
            grammar = label_grammar(cands[i], failures.get(i))  # a repair narrows the grammar to the failure
            handles.append(self._submit(job, prompt, grammar, self.config.label_max_tokens))
        job.emit(State.EXTRACT.value, f"{len(handles)} fan-out request(s) in flight")
        new: dict[int, AtomicFact] = {}
        bad: dict[int, dict] = {}
        for i, c in zip(pending, self._wait(job, handles)):
            problem, obj = _parse_output(c)
            if problem:
                bad[i] = {"prev": c.text[-80:], "rule": "output", "detail": problem}
                continue
            try:
                fact = AtomicFact(subject=obj["subject"].strip(), predicate=obj["predicate"].strip(),
                                  object_value=cands[i].value, fact_type=FactType.NUMERIC,
                                  source_text=cands[i].quote)
            except (ValidationError, KeyError, AttributeError) as exc:
                bad[i] = {"prev": c.text[-80:], "rule": "schema", "detail": str(exc).splitlines()[0]}
                continue
            # A predicate that names what the question asks for is relevant (code decides); a clause that names
            # it under another label is re-asked; anything else is the model's call (documents say "up to"
            # where questions say "cap"). Irrelevance is a decision, not a failure: no retry.
            asked = predicate_asked(fact.predicate, job.answer.question)
            named = [w for w in asked_predicates(job.answer.question) if w in cands[i].context.lower()]
            relevant = True if asked else bool(obj.get("relevant", True))
            if asked is False and named:
                # The clause is about something the question asks for, but the label missed it: repair.
                bad[i] = {"prev": _compact_fact(fact), "rule": "predicate_relevance", "fact": fact,
                          "detail": f"the clause is about {named[0]}; the predicate should name it",
                          "require_pred": next((w for w in named if w in cands[i].context), named[0])}
                continue
            if fact.subject in fact.predicate or fact.predicate in fact.subject:
                bad[i] = {"prev": _compact_fact(fact), "rule": "label", "fact": fact,
                          "avoid_subject": max(fact.subject, fact.predicate, key=len),
                          "detail": "the subject repeats the predicate; the subject is who or what it applies to"}
                continue
            if not relevant:
                job.answer.skipped.append({"value": cands[i].value, "subject": fact.subject,
                                           "predicate": fact.predicate, "model_relevant": obj.get("relevant")})
                continue
            new[i] = fact
        return new, bad

    def _single_pass(self, doc, cands: list[Candidate], pending: list[int], failures: dict, job: _Job):
        """One request emits every fact under the grounded grammar over the question-relevant clauses.

        The first attempt offers every relevant clause; a repair offers only the failed facts' clauses and
        asks for as many facts as failed, which replace them slot for slot. An unusable output (cut off,
        invalid JSON) fails slot -1, which makes the next attempt a full one again.
        """
        from ..grammar.grounded import grounded_grammar

        repairing = [i for i in pending if i >= 0 and i in failures]
        if repairing:
            quotes = [failures[i].get("quote") or cands[min(i, len(cands) - 1)].quote for i in repairing]
            budget = len(repairing)
            first = failures[repairing[0]]
            repair = {"prev": first["prev"], "rule": first["rule"], "detail": first["detail"]}
        else:
            quotes = [c.quote for c in cands]
            budget = MAX_FACTS
            repair = failures.get(-1)
        spans = [Span(0, len(q), q, "offered") for q in dict.fromkeys(quotes)]
        g = grounded_grammar(doc, spans, max_facts=budget, ground_labels=True)
        prompt = self._render(facts_prompt(doc.text, job.answer.question, doc.language, repair=repair))
        [c] = self._wait(job, [self._submit(job, prompt, g.text, self.config.facts_max_tokens)])
        problem, obj = _parse_output(c)
        rule = "output"
        if not problem:
            try:
                payload = ExtractionPayload.model_validate(obj)
            except ValidationError as exc:
                problem, rule = str(exc).splitlines()[0], "schema"
        if problem:
            note = {"prev": c.text[-80:], "rule": rule, "detail": problem}
            return {}, ({i: note for i in repairing} if repairing else {-1: note})
        if repairing:
            return dict(zip(repairing, payload.atomic_facts)), {}
        return dict(enumerate(payload.atomic_facts)), {}

    # ---- baseline ---------------------------------------------------------------------------------
    def _baseline(self, doc: Document, job: _Job) -> None:
        from .verify import unsupported_numbers

        ans = job.answer
        job.enter(State.GENERATE, "free prose answer (no grammar, no verification)")
        prompt = self._render(prose_prompt(doc.text, ans.question, doc.language))
        stop = ["\n\n", "问题：", "Question:", "【", "[DOCUMENT"]
        [c] = self._wait(job, [self._submit(job, prompt, None, self.config.prose_max_tokens, stop=stop)])
        ans.attempts = 1
        ans.answer = c.text.strip()
        t = time.perf_counter()
        ans.unsupported_numbers = unsupported_numbers(ans.answer, doc)
        ans.timings["verify_ms"] = round((time.perf_counter() - t) * 1000, 3)
        ans.timings["realize_ms"] = 0.0
        ans.state = "done"
        if c.finish_reason == "error":
            ans.error = c.error
        job.enter(State.DONE, f"{len(ans.unsupported_numbers)} number(s) not in the document")
        ans.timings["e2e_s"] = round(job.now(), 4)

    # ---- audit ------------------------------------------------------------------------------------
    def _audit(self, doc: Document, ans: Answer) -> None:
        if self.audit is None:
            return
        from ..audit import build_record

        extra = {"kind": "answer", "mode": ans.mode, "strategy": ans.strategy, "state": ans.state,
                 "answer": ans.answer, "attempts": ans.attempts, "rejected": ans.rejected}
        transitions = [t.__dict__ for t in ans.transitions]
        if ans.report is not None:
            record = build_record(ans.report, ans.question, self.config.model_name, transitions, **extra)
        else:
            record = {"document": {"path": doc.path, "sha256": doc.sha256, "chars": len(doc.text)},
                      "question": ans.question, "model": self.config.model_name, "facts": [],
                      "summary": {"total": 0, "passed": 0, "failed": 0}, "transitions": transitions, **extra}
        self.audit.append(record)


def _failure(fv) -> dict:
    """The repair note of a fact the verifier rejected: its first failing rule and why."""
    first = fv.check(fv.failed_rules[0])
    return {"prev": _compact_fact(fv.fact), "rule": first.rule, "detail": first.detail,
            "quote": fv.fact.source_text}


def _dump(fact: AtomicFact | None) -> dict | None:
    return fact.model_dump(mode="json") if fact is not None else None


def _compact_fact(fact: AtomicFact) -> str:
    return json.dumps({"subject": fact.subject, "predicate": fact.predicate, "object_value": fact.object_value},
                      ensure_ascii=False)


def _parse_output(c) -> tuple[str | None, dict | None]:
    """('', obj) for a complete JSON object; (reason, None) for cut-off, errors or invalid JSON."""
    if c.finish_reason == "length":
        return f"output cut off at max_tokens ({c.stats.generated_tokens} tokens)", None
    if c.finish_reason in ("error", "closed", "cancelled"):
        return f"request ended: {c.finish_reason} {c.error or ''}".strip(), None
    try:
        obj = json.loads(c.text)
    except ValueError as exc:
        return f"invalid JSON: {exc}", None
    if not isinstance(obj, dict):
        return "invalid JSON: not an object", None
    return None, obj
