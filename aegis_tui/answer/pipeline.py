"""The two-stage answering pipeline (EXTRACT → VERIFY → REPAIR → REALIZE) and the single-stage baseline."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Callable

from ..audit import build_record
from ..engine.handle import FinishReason
from ..engine.protocol import EngineProtocol
from ..errors import AegisError, InputError
from ..schema import ExtractionPayload
from ..text.document import Document
from ..text.durations import as_document_writes
from ..text.quantity import find_quantities, parse_quantity
from ..text.ranges import holding, meets
from .extract import Extractor, extractor_for
from .factindex import IndexStore
from .job import Cancelled, Job
from .pick import (
    asking_sentences,
    catch_all,
    choose,
    compound_terms,
    held_terms,
    implied_by,
    implied_cells,
    implied_names,
    listing,
    listing_reason,
    named_ends,
    names_name,
    placement,
    shares_terms,
    unnumbered,
)
from .prompts import prose_prompt
from .realize import FALLBACK_TEXT, NOT_MENTIONED, EntityAwareRealizer
from .relevance import (
    Candidate,
    asked_predicates,
    candidate_key,
    enumerate_candidates,
    focus,
    key_offset,
    question_parts,
)
from .repair import Worklist, failure_note
from .report import CheckResult, VerificationReport
from .states import Answer, Outcome, PipelineEvent, State
from .verify import Tier1CodeVerifier, unsupported_numbers

MODES = ("two-stage", "baseline")
STRATEGIES = ("index", "fan-out", "single-pass")
INDEX_MIN_RATIO = 0.15  # shortlist floor of the index answer, as a share of the best candidate's score
PROSE_STOP = ("\n\n", "问题：", "Question:", "【", "[DOCUMENT")  # where a base model starts a new turn


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


class Pipeline:
    """Answers questions about documents with an engine; every number in a two-stage answer is verified."""

    def __init__(self, engine: EngineProtocol, config: PipelineConfig | None = None, audit=None,
                 indexes: IndexStore | None = None) -> None:
        self.engine = engine
        self.config = config or PipelineConfig()
        self.audit = audit
        self._verifiers: dict[str, Tier1CodeVerifier] = {}
        self._indexes = indexes

    @property
    def indexes(self) -> IndexStore:
        """The fact indexes this pipeline answers from (in memory unless the caller gave a cached store)."""
        if self._indexes is None:
            self._indexes = IndexStore(self.engine, self.config.model_name, max_attempts=self.config.max_attempts)
        return self._indexes

    def answer(self, doc: Document, question: str, mode: str = "two-stage", *,
               on_event: Callable[[PipelineEvent], None] | None = None,
               cancel: threading.Event | None = None) -> Answer:
        """Answer one question; never raises for model misbehaviour (cut-off, bad JSON): that is REPAIR."""
        if mode not in MODES:
            raise AegisError(f"unknown mode {mode!r} (choose from {', '.join(MODES)})")
        question = question.strip()
        if not question:
            raise InputError("the question is empty")
        ans = Answer(question=question, mode=mode, strategy=self.config.strategy if mode == "two-stage" else "prose")
        if mode != "baseline":
            ans.read_as = as_document_writes(question, doc.text)
        job = Job(self.engine, self.config.repair_temperature, time.perf_counter, on_event,
                  cancel or threading.Event(), ans)
        try:
            if mode == "baseline":
                self._baseline(doc, job)
            elif self.config.strategy == "index":
                self._from_index(doc, job)
            else:
                self._two_stage(doc, job)
        except Cancelled:
            for h in job.handles:
                h.cancel()
            ans.state = Outcome.CANCELLED
            job.enter(State.CANCELLED, "cancelled by the user")
        finally:
            ans.generated_tokens = job.tokens
            ans.timings.setdefault("e2e_s", round(job.now(), 4))
            ans.timings["ttft_s"] = round(job.first_piece - job.t0, 4) if job.first_piece else None
            ans.timings["queue_s"] = round(max(job.queue_s), 4) if job.queue_s else 0.0
        return ans

    # ---- two-stage --------------------------------------------------------------------------------
    def _verifier(self, doc: Document) -> Tier1CodeVerifier:
        v = self._verifiers.get(doc.sha256)
        if v is None:
            v = self._verifiers[doc.sha256] = Tier1CodeVerifier(doc)
        return v

    def _two_stage(self, doc: Document, job: Job) -> None:
        ans = job.answer
        cfg = self.config
        job.enter(State.EXTRACT, f"ranking clauses ({cfg.strategy})")
        cands = enumerate_candidates(doc, ans.asked, top_k=cfg.top_k)
        ans.offered = list(dict.fromkeys(c.quote for c in cands))
        verifier = self._verifier(doc)
        verify_ms = 0.0

        def verify(kept):
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
            extractor = extractor_for(cfg.strategy, label_max_tokens=cfg.label_max_tokens,
                                      facts_max_tokens=cfg.facts_max_tokens)
            work = self._attempts(doc, job, extractor, cands, verify)
            ans.rejected = work.rejected(lambda i: cands[i].quote if extractor.per_candidate else None)
            report = verify(work.kept())
            if report is not None and report.rejected:
                # Dropping facts can change a neighbour's verdict (consistency); keep only what passes now.
                ans.rejected += [failure_note(fv).to_json(fv.fact) for fv in report.rejected]
                report = verify([fv.fact for fv in report.verified])
        if report is not None:
            report = self._focus(verifier, report, ans)
        self._realize(doc, job, report, verify_ms)

    def _from_index(self, doc: Document, job: Job) -> None:
        """Answer by choosing among the document's verified facts, labelling first what the question needs."""
        ans = job.answer
        cfg = self.config
        indexer = self.indexes.indexer(doc)
        index = indexer.index
        ans.attempts = 1
        job.enter(State.EXTRACT, f"choosing among verified facts ({index.done}/{index.total} values indexed)")
        # a wider shortlist than fan-out's: the choice among verified facts (pick.cover) is what narrows it, and a
        # question asking two things must not lose the one its rarer words name
        cands = enumerate_candidates(doc, ans.asked, top_k=cfg.top_k, min_ratio=INDEX_MIN_RATIO, per_part=True)
        # (and the table cells of the categories its members imply, which share no word with it)
        shortlisted = {candidate_key(c) for c in cands}
        cands += [c for c in implied_cells(ans.asked, doc) if candidate_key(c) not in shortlisted]
        ans.offered = list(dict.fromkeys(c.quote for c in cands))
        keys = [candidate_key(c) for c in cands]
        # a series member the document does not number ("Severity 3") is decided by the question and the document
        # alone: nothing needs labelling for it
        absent = unnumbered(ans.asked, doc) if cands else []
        # what the table and item structure label costs nothing; the model labels only the values that rank as
        # fan-out's would (the wider shortlist's tail is chosen from once the background index holds it)
        ranked = {candidate_key(c) for c in enumerate_candidates(doc, ans.asked, top_k=cfg.top_k, per_part=True)}
        needed = [k for k in keys if k in ranked] if not absent else []
        t = time.perf_counter()
        labelled = indexer.label_from_structure(keys) if not absent and not all(index.is_done(k) for k in keys) else 0
        missing = [k for k in needed if not index.is_done(k)]
        if missing:
            job.emit(State.EXTRACT, f"indexing the {len(missing)} value(s) the question needs")
            indexer.ensure(needed, job.cancel)
            job.check()
        # the time spent labelling before answering: none when the table already held every value it needs
        ans.timings["index_s"] = round(time.perf_counter() - t, 4) if labelled or missing else 0.0
        ans.rejected = [index.rejected[k].to_json() for k in keys if k in index.rejected]
        shortlist = [index.facts[k] for k in keys if k in index.facts]
        report = None
        verify_ms = 0.0
        if not cands:
            job.enter(State.FALLBACK, "no clause of the document matches the question")
        elif absent:
            job.enter(State.FALLBACK, f"the question names {', '.join(absent)}, which the document does not number")
        elif not shortlist:
            job.enter(State.FALLBACK, f"none of the {len(keys)} value(s) the question matches has a verified fact")
        else:
            contexts = {k: f"{c.framed} {c.quote}" for k, c in zip(keys, cands)}
            report, absent, tried, verify_ms = self._select(doc, job, shortlist, contexts, index)
            rest = [f for f in shortlist if f.key not in tried]
            if tried and rest and not absent and not self._sayable(doc, job, report):
                # every fact chosen was found not to answer after all (a case the question's figure is not in, a
                # sentence carrying a number no fact states): the next best facts answer, chosen as the first were
                job.enter(State.EXTRACT, f"choosing again without the {len(tried)} fact(s) found not to answer")
                second, second_absent, _, second_ms = self._select(doc, job, rest, contexts, index)
                if self._sayable(doc, job, second):
                    report, absent, verify_ms = second, second_absent, verify_ms + second_ms
                    said = {(fv.fact.object_value, fv.fact.subject, fv.fact.predicate) for fv in report.verified}
                    ans.skipped = [x for x in ans.skipped if (x["value"], x["subject"], x["predicate"]) not in said]
        self._realize(doc, job, report, verify_ms, scope=_scope_of(report, doc) if report is not None else "",
                      unmentioned=absent)

    def _select(self, doc: Document, job: Job, shortlist: list, contexts: dict[str, str], index):
        """Choose among shortlisted verified facts and verify the chosen together: (report or None, what the
        question names that the document never mentions, the keys chosen, verify ms)."""
        ans = job.answer
        report = None
        verify_ms = 0.0
        absent: list[str] = []
        chosen = choose(job, doc, shortlist, contexts)
        tried = {f.key for f in chosen}
        # the section the question names narrows what answers it, not what is considered: "employee-only
        # coverage" names section "Employees" but asks for the deductible table
        kept = _singled_out(_about_what_is_asked(_in_named_scope(chosen, ans), contexts, doc, ans), contexts, ans)
        job.check()
        if kept:
            job.enter(State.VERIFY, f"re-verifying {len(kept)} chosen fact(s) together")
            verifier = self._verifier(doc)
            t = time.perf_counter()
            report = verifier.verify(ExtractionPayload(atomic_facts=[f.fact for f in kept]))
            if report.rejected:
                ans.rejected += [failure_note(fv).to_json(fv.fact) for fv in report.rejected]
                kept_facts = [fv.fact for fv in report.verified]
                report = verifier.verify(ExtractionPayload(atomic_facts=kept_facts + _rebound(report, kept_facts)))
                if report.rejected:  # (a fact bound anew that does not hold with the others either)
                    report = verifier.verify(ExtractionPayload(atomic_facts=[fv.fact for fv in report.verified]))
            report = self._focus(verifier, report, ans, by_predicate=True) if report.verified else None
            if report is not None and (stated := _carried(report, doc, index)):
                # a chosen fact's sentence states another verified figure of the table ("按日加收…万分之三的违约金，
                # 违约金累计不得超过欠缴本金的30%"): it comes along, or the sentence could not be written
                report = verifier.verify(ExtractionPayload(atomic_facts=[fv.fact for fv in report.verified]
                                                           + [f.fact for f in stated]))
            verify_ms = (time.perf_counter() - t) * 1000
            absent = listing(ans.asked, doc, [fv.fact for fv in report.verified]) if report is not None else []
            if absent and (others := catch_all([fv.fact for fv in report.verified], absent)):
                # what the question names is none of the cases the list names: the list's case of all others
                ans.skip([fv for fv in report.verified if fv.fact not in others],
                         f"it is a case the list names, and the question names {', '.join(absent)}, which "
                         "falls under the case of all others")
                report = verifier.verify(ExtractionPayload(atomic_facts=others))
                absent = []
            if absent:
                why = listing_reason(len(report.verified), absent)
                ans.skip(report.verified, why)
                job.enter(State.FALLBACK, why)
                report = None
        else:
            job.enter(State.FALLBACK, f"none of the {len(shortlist)} verified fact(s) answers the question")
        return report, absent, tried, verify_ms

    def _sayable(self, doc: Document, job: Job, report) -> bool:
        """Whether the answer would state a verified fact: some fact's sentence can be written."""
        if report is None or not report.verified:
            return False
        realizer = EntityAwareRealizer()
        realizer.realize(report, doc, language=doc.language, question=job.answer.question,
                         scope=_scope_of(report, doc))
        return len(realizer.unsaid) < len(report.verified)

    def _realize(self, doc: Document, job: Job, report, verify_ms: float, scope: str = "",
                 unmentioned: list[str] = ()) -> None:
        """unmentioned: what the question names that the document never mentions, said after the fallback text."""
        ans = job.answer
        ans.report = report
        job.check()
        job.enter(State.REALIZE, f"{ans.verified_count} verified fact(s)")
        t = time.perf_counter()
        if report is None:
            lang = doc.language if doc.language in FALLBACK_TEXT else "en"
            ans.answer = FALLBACK_TEXT[lang]
            if unmentioned:
                sep = "、" if lang == "zh" else ", "
                ans.answer += ("" if lang == "zh" else " ") + NOT_MENTIONED[lang].format(terms=sep.join(unmentioned))
        else:
            _placed(report, doc, ans.asked)
            realizer = EntityAwareRealizer()
            ans.answer = realizer.realize(report, doc, language=doc.language, question=ans.question, scope=scope)
            if realizer.unsaid:
                # the answer and its report agree: a fact whose sentence was not written is not part of the answer
                unsaid = {id(fv) for fv in realizer.unsaid}
                ans.report = VerificationReport(report.document, [fv for fv in report.facts if id(fv) not in unsaid])
                ans.skip(realizer.unsaid, "its sentence would carry a number that no verified fact states")
        realize_ms = (time.perf_counter() - t) * 1000
        ans.state = Outcome.DONE if ans.verified_count else Outcome.FALLBACK
        job.enter(ans.state.final_state, f"{ans.verified_count} verified, {len(ans.rejected)} dropped")
        ans.timings.update(verify_ms=round(verify_ms, 3), realize_ms=round(realize_ms, 3),
                           e2e_s=round(job.now(), 4))
        self._audit(doc, ans)

    def _attempts(self, doc: Document, job: Job, extractor: Extractor, cands: list[Candidate], verify) -> Worklist:
        """EXTRACT → VERIFY, then REPAIR only what failed, up to max_attempts extractions in all."""
        work = Worklist(pending=list(range(len(cands))))
        for attempt in range(1, self.config.max_attempts + 1):
            job.check()
            job.answer.attempts = attempt
            if attempt > 1:
                job.enter(State.REPAIR, f"attempt {attempt}: re-asking {work.open_count} failed item(s)")
            work.absorb(extractor.extract(job, doc, cands, work))
            job.check()
            job.enter(State.VERIFY, f"verifying {len(work.facts)} fact(s)")
            order = sorted(work.facts)
            work.judge(order, verify([work.facts[i] for i in order]))
            if not work.open_count:
                break
        return work

    def _focus(self, verifier: Tier1CodeVerifier, report, ans: Answer, by_predicate: bool = False):
        """Keep only the entities a question singles out ("在三级医院…"); the others are skipped, not failed.

        by_predicate: the entities are told apart among facts that state the same thing (the same asked
        predicate word, else the same predicate), so one part of "what is the rate, and how soon must reports
        be submitted?" does not single out the other part's facts.
        """
        groups: dict[tuple, list] = {}
        asked = asked_predicates(ans.asked) if by_predicate else []
        for fv in report.verified:
            p = fv.fact.predicate.lower()
            key = _same_thing(p, asked) if by_predicate else ()
            groups.setdefault(key, []).append(fv)
        dropped = []
        for group in groups.values():
            subjects = [fv.fact.subject for fv in group]
            keep = focus(subjects, ans.asked, graded=by_predicate)
            # rows labelled by ranges: the one holding what the question gives ("at 3.0x" → "Greater than 2.75x
            # but not above 3.50x"), beside any the question names in words ("在职职工和不到75岁的退休人员")
            if keep is not None:
                keep |= {s for s in subjects if meets(s, ans.asked)}
            elif by_predicate:
                keep = holding(subjects, ans.asked)
            if keep is not None:
                dropped += [fv for fv in group if fv.fact.subject not in keep]
        if not dropped:
            return report
        kept = [fv.fact for fv in report.verified if fv not in dropped]
        ans.skip(dropped, "not the entity the question asks about")
        return verifier.verify(ExtractionPayload(atomic_facts=kept))

    # ---- baseline ---------------------------------------------------------------------------------
    def _baseline(self, doc: Document, job: Job) -> None:
        ans = job.answer
        job.enter(State.GENERATE, "free prose answer (no grammar, no verification)")
        prompt = job.render(prose_prompt(doc.text, ans.question, doc.language))
        [c] = job.wait([job.submit(prompt, None, self.config.prose_max_tokens, stop=list(PROSE_STOP))])
        ans.attempts = 1
        ans.answer = c.text.strip()
        t = time.perf_counter()
        ans.unsupported_numbers = unsupported_numbers(ans.answer, doc)
        ans.timings["verify_ms"] = round((time.perf_counter() - t) * 1000, 3)
        ans.timings["realize_ms"] = 0.0
        ans.state = Outcome.DONE
        if c.finish_reason == FinishReason.ERROR:
            ans.error = c.error
        job.enter(State.DONE, f"{len(ans.unsupported_numbers)} number(s) not in the document")
        ans.timings["e2e_s"] = round(job.now(), 4)

    # ---- audit ------------------------------------------------------------------------------------
    def _audit(self, doc: Document, ans: Answer) -> None:
        if self.audit is None:
            return
        extra = {"kind": "answer", "mode": ans.mode, "strategy": ans.strategy, "state": ans.state.value,
                 "answer": ans.answer, "attempts": ans.attempts, "rejected": ans.rejected}
        transitions = [t.to_json() for t in ans.transitions]
        if ans.report is not None:
            record = build_record(ans.report, ans.question, self.config.model_name, transitions, **extra)
        else:
            record = {"document": {"path": doc.path, "sha256": doc.sha256, "chars": len(doc.text)},
                      "question": ans.question, "model": self.config.model_name, "facts": [],
                      "summary": {"total": 0, "passed": 0, "failed": 0}, "transitions": transitions, **extra}
        self.audit.append(record)


def _placed(report, doc: Document, question: str) -> None:
    """Add to each verified fact of a name the question implies through a member ("Tolworth Bridge" → Band 1) a
    passed "membership" check: the member, the name, where the document places it (its cell or sentence, verbatim
    at its offset) and that place's table or section, for the answer to state the binding it rests on."""
    from ..text.dates import find_dates, period
    from .structural import title_of

    implied, _ = implied_names(question, doc)
    for name in sorted(implied):
        if (found := placement(question, doc, name)) is None:
            continue
        member, offset, length = found
        quote = doc.text[offset:offset + length]
        cell = doc.structure.cell_at(offset)
        if not (names_name(quote, name) or cell is not None):
            continue
        where = ""
        if cell is not None:
            # (its table, and the column's period where one column of classes is dated apart from another: "Table A1 —
            # Medlow City, Band to 30 September 2025")
            header = cell[0].column_header(cell[1].col)
            where = ", ".join(x for x in (cell[0].caption, header if period(header) is not None else "") if x) \
                or header
        path = doc.structure.heading_path(offset)
        where = " ".join((where or (title_of(path[-1]) if path else "")).split())
        if cell is not None and find_dates(quote) and quote.strip().casefold() not in name.casefold() and where:
            # (a remark placing it, not a cell naming the class: its words say from when, "Moves to Gold from 1 October
            # 2025")
            where += f"；“{quote.strip()}”" if doc.language == "zh" else f"; \"{quote.strip()}\""
        at = doc.position(offset)
        check = CheckResult("membership", True, f"{member} is in {name}", {
            "member": member, "name": name, "where": where, "offset": offset, "length": length, "line": at.line,
            "column": at.column, "quote": quote})
        for fv in report.verified:
            said = f"{fv.fact.subject} {fv.fact.predicate}"
            if names_name(said, name) and not fv.check("membership"):
                fv.checks.append(check)


def _carried(report, doc: Document, index) -> list:
    """The table's verified facts whose figures the sentences of report's facts carry: a figure that would keep a
    sentence from being written (no fact of the report states it), stated by a fact whose value stands inside the
    quote of the report's fact that carries it."""
    realizer = EntityAwareRealizer()
    realizer.realize(report, doc, language=doc.language)
    if not realizer.carried:
        return []
    spans = [(span.start, span.end) for fv in realizer.unsaid if (span := doc.find(fv.fact.source_text)) is not None]
    chosen = [fv.fact for fv in report.verified]
    return [f for f in index.facts.values() if (at := key_offset(f.key)) is not None
            and any(a <= at < b for a, b in spans) and parse_quantity(f.fact.object_value) in realizer.carried
            and f.fact not in chosen]


def _rebound(report, kept: list) -> list:
    """The rejected facts whose value the verifier binds, beside the other chosen facts, to another chosen fact's
    subject that their quote names, where their own subject is a heading's their quote never names ("年度次数和金额上限"
    over "…每人每个自然年度最多享受2次技能提升补贴，年度累计领取金额不超过8,000元": the 8,000元 is 技能提升补贴's): that
    fact with the subject it is bound to, which the next verification proves or rejects. A value bound to another
    entity its own named subject is not (在职职工's 800元 labelled 退休人员) is not bound anew: it is another's."""
    out = []
    for fv in report.rejected:
        fact = fv.fact
        failed = [c for c in fv.checks if not c.passed]
        if len(failed) != 1 or failed[0].rule != "entity_binding" or not (failed[0].evidence or {}).get("bound_to"):
            continue
        other = failed[0].evidence["bound_to"]
        if fact.subject in fact.source_text or other not in fact.source_text:
            continue
        moved = fact.model_copy(update={"subject": other})
        # (not a figure a kept fact of that subject already states from the same quote)
        if not any((f.subject, f.object_value, f.source_text) == (moved.subject, moved.object_value, moved.source_text)
                   for f in kept + out):
            out.append(moved)
    return out


def _scope_of(report, doc: Document) -> str:
    """The one section every verified fact stands under, when the document has several: what the answer is
    about, titled without its numbering (and left unsaid when the title holds a number the facts do not)."""
    sections = set()
    for fv in report.verified:
        at = fv.anchor
        names = [t for h in (doc.structure.heading_path(at) if at is not None else ()) if (t := _titled(h))]
        sections.add(names[-1] if names else "")
    if len(sections) != 1 or not (only := next(iter(sections))) or any(ch.isdigit() for ch in only):
        return ""
    return only if len({t for h in doc.structure.headings if (t := _titled(h.text))}) > 1 else ""


def _in_named_scope(facts: list, ans: Answer) -> list:
    """The facts under a section the question names, when it names one that only some facts stand under
    ("What is the Silver Ceramics staff's daily meal allowance?"); the others are skipped with the reason. A fact
    whose predicate names that section's title is about it wherever it stands: "guest passes on the Elite plan"
    names section "Guests" and the price table's column "Guest passes per month" alike. A question asking two things,
    one by a section's title ("What's the waiting period for cruciate conditions, and what's the most Essential Cover
    pays for cruciate in a year?"), confines neither part's facts: the other's stand where they stand."""
    from .structural import names

    titles = {t for f in facts for h in f.scope if (t := _titled(h)) and names(ans.asked, t)}
    named_in = [any(names(part, t) for t in titles) for part in question_parts(ans.asked)]
    if titles and len(named_in) > 1 and any(named_in) and not all(named_in):
        return facts

    def named(f) -> bool:
        return any(_titled(h) in titles for h in f.scope) or any(names(f.fact.predicate, t) for t in titles)

    inside = [f for f in facts if named(f)]
    if not inside or len(inside) == len(facts):
        return facts
    ans.skip([f for f in facts if f not in inside], "it stands under another section than the one the question names")
    return inside


def _about_what_is_asked(facts: list, texts: dict[str, str], doc: Document, ans: Answer) -> list:
    """The facts about the thing the question asks a measure of ("the waiting period for cleanings", "特困人员的年度最高
    支付限额"), when the document names that thing: a fact whose evidence (label, clause, section, headers) never
    names it is the measure of something else (basic services' waiting period; the general 40万元 cap where the
    document gives 特困人员 a rule of their own). The others are skipped with the reason."""
    from ..text.lexicon import ASKED_OF_EN, ASKED_OF_ZH, PERIOD_WORDS, QUESTION_WORDS

    if not facts:
        return facts
    things, narrated = [], []
    for sentence, asking in asking_sentences(ans.asked):
        for m in ASKED_OF_EN.finditer(sentence):
            # ("forgot about it for six weeks": a figure the question gives, not a thing it asks a measure of)
            if not find_quantities(m.group("x")) and (words := held_terms(m.group("x"), doc)):
                (things if asking else narrated).append((m.group("x"), words))
        for m in ASKED_OF_ZH.finditer(sentence):
            x = m.group("x")
            if x in doc.text and not PERIOD_WORDS.search(x) and not QUESTION_WORDS.search(x) and not find_quantities(x):
                (things if asking else narrated).append((x, None))
    if not things and not narrated:
        return facts
    # (a thing named through a member of a name the document defines is named by that name: "my Great Dane" by the
    # "Giant breed dogs" row, Appendix A listing Great Danes as giant breeds)
    by_name = {x: implied_by(ans.asked, doc, x) for x, _ in things + narrated}

    def names(f, thing) -> bool:
        x, words = thing
        text = f"{' '.join(f.scope)} {f.fact.subject} {f.fact.predicate} {texts.get(f.key, f.fact.source_text)}"
        return (x in text if words is None else shares_terms(text, words)) \
            or any(names_name(text, n) for n in by_name[x])

    # (what the case narrated before the question is "for" is its circumstance — "asked to spend a week in Vienna for a
    # project. What's my full-day subsistence allowance?" — unless a fact is stated of it, "My water was shut off for
    # non-payment. What's the reconnection fee?" asking the fee for non-payment where the document gives one, or it is
    # a member of a name the document defines: "a Premier policy for my Golden Retriever" asks of its breed group)
    things += [t for t in narrated if by_name[t[0]] or any(names(f, t) for f in facts)]
    if not things:
        return facts
    # (a thing no chosen fact names by its own word is named by a compound it heads: "the maximum grant for our house"
    # by "Table 4.2 — Household grant rates" beside the business grant's table)
    things = [t if t[1] is None or any(names(f, t) for f in facts) else (t[0], t[1] | compound_terms(t[1], doc))
              for t in things]
    # (… or whose label's range holds the figure the question gives of its case: "about 16 ft long" is the car the
    # "14 ft to under 22 ft (standard vehicle)" row is for, whatever word the row names it by)
    inside = [f for f in facts if any(names(f, t) for t in things) or meets(f"{f.fact.subject} {f.fact.predicate}",
                                                                            ans.asked)]
    if len(inside) == len(facts):
        return facts
    asked = ", ".join(x for x, _ in things)
    ans.skip([f for f in facts if f not in inside],
             f"it is not about what the question asks it of ({asked}), which the document names")
    return inside


def _singled_out(facts: list, texts: dict[str, str], ans: Answer) -> list:
    """Among chosen facts that state the same thing (the same asked predicate word, else the same predicate) in
    different clauses, the clauses the question's other words single out: a question term that some of those
    clauses hold and others do not ("silver" in "the daily meal allowance … at Silver Ceramics", against every
    other member's identical clause) drops the clauses whose such terms another clause holds too, with more. A
    clause holding terms no other holds is kept, however few: the question may name two of them, one in fewer
    words ("在职职工和不到75岁的退休人员", "住护理机构和在家上门护理"). texts: each fact's clause with its section and
    headers, by key."""
    from .relevance import terms

    asked = asked_predicates(ans.asked)
    wanted = set(terms(ans.asked))
    # the end a question asks ("what's the most it can add up to?") is said by a label naming it however worded
    # ("Maximum fine per item"): a word the question and that label share
    ends = named_ends(ans.asked)
    end = f"<{next(iter(ends))}>" if len(ends) == 1 else ""
    wanted |= {end} if end else set()

    def said(f) -> set[str]:
        text = set(terms(texts.get(f.key, f.fact.source_text)))
        return text | {end} if end and named_ends(f"{f.fact.subject} {f.fact.predicate}") == ends else text

    groups: dict[tuple, list] = {}
    for f in facts:
        p = f.fact.predicate.lower()
        groups.setdefault(_same_thing(p, asked), []).append(f)
    dropped = set()
    for group in groups.values():
        held = {f.key: wanted & said(f) for f in group}
        if len({frozenset(h) for h in held.values()}) < 2:
            continue
        common = set.intersection(*held.values())
        telling = {f.key: held[f.key] - common for f in group}
        # a clause whose telling words another clause holds all of, and more, is not the one the question means
        # (Silver Brewing's, Ashford Ceramics' beside Silver Ceramics'); clauses that each hold words of their own
        # are each named (在职职工 and 退休人员, 住护理机构 and 上门护理)
        dropped |= {k for k, mine in telling.items() if any(mine < theirs for theirs in telling.values())}
    ans.skip([f for f in facts if f.key in dropped],
             "the question's other words single out another clause stating the same thing")
    return [f for f in facts if f.key not in dropped]


def _same_thing(predicate: str, asked: list[str]) -> tuple:
    """What a fact states, for telling facts that state the same thing apart: the asked predicate words its
    (lowercased) predicate holds, else the predicate itself."""
    return tuple(w for w in asked if w in predicate) or (predicate,)


def _titled(heading: str) -> str:
    """A heading of a heading path as a title: without Markdown #s and its numbering."""
    from .structural import title_of

    return title_of(heading.lstrip("#").strip())
