"""The verified fact table of a document: every value labelled once from its local context, verified once, kept.

Questions are then answered by choosing among verified facts (see answer/pick.py) instead of re-reading the
document. The table is built by an ``Indexer`` over the engine's slots, in priority order (a question moves
its candidates to the front), and journalled to an ``IndexCache`` as it grows, so a killed build loses
nothing already verified and a reopened document answers at once.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Callable

from pydantic import ValidationError

from ..engine.config import Sampling
from ..engine.protocol import EngineProtocol
from ..errors import AegisError
from ..schema import AtomicFact, ExtractionPayload, FactType
from ..text.docindex import LIST_ITEM, document_index
from ..text.document import Document
from ..text.lexicon import (
    CHANGE_BEFORE,
    CHANGE_REACH,
    CHANGE_ZH,
    CJK,
    CJK_RANGE,
    CLAUSE_OPENERS_EN,
    CONDITION_ENDINGS_ZH,
    CONDITION_OPENERS_ZH,
    FUNCTION_ZH,
    MEASURE_SCOPE_ZH,
    PERIOD_WORDS,
    PREDICATE_DIMENSIONS,
    PREDICATE_FILLER_EN,
    PREDICATE_WORDS,
    REPLY_MARK,
    TABLE_POINTER,
    THRESHOLD_PREDICATE,
    is_change,
)
from ..text.quantity import dimension_of, find_quantities, parse_quantity
from ..text.ranges import condition_bounds, interval, partitioned
from ..text.structure import article_title, illustrative
from .prompts import index_label_prompt, label_grammar, last_pieces, render
from .relevance import Candidate, candidate_key, document_candidates
from .repair import RepairNote, compact_fact, failure_note, repeats_predicate
from .report import FactVerdict, locate
from .structural import PARENTHESIS, caption_name, classes, column_name, keyed_alike, short_title, title_of
from .verify import Tier1CodeVerifier

LABEL_MAX_TOKENS = 64
# a caption joined to a column header as its predicate (省外 + 疗休养补助标准) must stay a short phrase
SHORT_CAPTION = 16
TWIN_CAPTION_ZH = 24  # the longest a Chinese caption's title is, outside its parentheses, that names a table's cells
# the link between a measure and its value in a Chinese clause ("城市低保标准为每人每月")
_SIBLING_LINK = re.compile(r"为|是|按|不超过|不得超过|不高于|不低于")
# the link between a predicate and its value, at the end of the words before the value ("…限额为", "… is", "of")
_LINK = re.compile(r"(?:[为是达]|不超过|不高于|\s+(?:is|are|of|at|to|be))\s*$", re.IGNORECASE)


@dataclass
class IndexedFact:
    """One verified fact of the table: the candidate it labels, its verdict (every rule passed) and scope."""

    key: str
    verdict: FactVerdict
    scope: tuple[str, ...]           # heading path of the value

    @property
    def fact(self) -> AtomicFact:
        return self.verdict.fact

    @property
    def section(self) -> str:
        """The nearest titled heading over the value ("" at top level)."""
        titled = [h for h in self.scope if title_of(h)]
        return titled[-1] if titled else ""

    def to_json(self, document: Document) -> dict:
        f = self.fact.model_dump(mode="json")
        where = locate(document, self.verdict.anchor)
        return {"key": self.key, **f, "scope": list(self.scope), "section": self.section,
                "evidence": {**where, **{c.rule: c.evidence for c in self.verdict.checks
                                         if c.rule == "table_binding" and c.evidence}},
                "rules": [c.rule for c in self.verdict.checks if c.passed]}


@dataclass(frozen=True)
class Rejection:
    """A value whose label did not verify after every attempt: the failing rule, its detail, the label."""

    key: str
    rule: str
    detail: str
    fact: dict | None = None

    def to_json(self) -> dict:
        return {"key": self.key, "rule": self.rule, "detail": self.detail, "fact": self.fact}


@dataclass(frozen=True)
class Progress:
    """Indexing progress for a bar: values done of total, labelling rate and time left."""

    done: int
    total: int
    verified: int
    rejected: int
    rate: float          # values per second in this run
    eta_s: float | None

    @property
    def complete(self) -> bool:
        return self.done >= self.total


class FactIndex:
    """The fact table of one document for one model: verified facts and rejections by candidate key."""

    def __init__(self, document: Document, model_id: str, cache=None) -> None:
        self.document = document
        self.model_id = model_id
        self.cache = cache                      # IndexCache or None (in memory only)
        self.verifier = Tier1CodeVerifier(document)
        self.candidates: dict[str, Candidate] = {candidate_key(c): c for c in document_candidates(document)}
        self.by_head: dict[str, list[Candidate]] = {}  # the candidates under each heading, in document order
        for c in self.candidates.values():
            self.by_head.setdefault(c.head, []).append(c)
        self.facts: dict[str, IndexedFact] = {}
        self.rejected: dict[str, Rejection] = {}
        self.loaded = 0                          # facts that came from the cache and re-verified
        self.distrusted = 0                      # cache entries that did not re-verify (rebuilt)
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        if cache is not None:
            self._load()

    # ---- state -----------------------------------------------------------------------------------
    @property
    def total(self) -> int:
        return len(self.candidates)

    @property
    def done(self) -> int:
        return len(self.facts) + len(self.rejected)

    @property
    def complete(self) -> bool:
        return self.done >= self.total

    def is_done(self, key: str) -> bool:
        return key in self.facts or key in self.rejected

    def pending(self) -> list[str]:
        """Keys not labelled yet, in document order."""
        return [k for k, c in sorted(self.candidates.items(), key=lambda kv: kv[1].offset) if not self.is_done(k)]

    def ordered_facts(self) -> list[IndexedFact]:
        return sorted(self.facts.values(), key=lambda f: self.candidates[f.key].offset)

    # ---- writing -----------------------------------------------------------------------------------
    def verify_one(self, key: str, fact: AtomicFact) -> FactVerdict:
        """The verdict of one fact on its own (consistency compares facts of one answer, not of the table)."""
        with self.lock:
            return self.verifier.verify(ExtractionPayload(atomic_facts=[fact])).facts[0]

    def add(self, key: str, verdict: FactVerdict) -> None:
        with self.lock:
            self.rejected.pop(key, None)
            self.facts[key] = IndexedFact(key, verdict, self.document.structure.heading_path(
                self.candidates[key].offset))
            self._journal({"key": key, "fact": verdict.fact.model_dump(mode="json")})
            self.changed.notify_all()

    def reject(self, key: str, rule: str, detail: str, fact: AtomicFact | None) -> None:
        with self.lock:
            r = Rejection(key, rule, detail, fact.model_dump(mode="json") if fact is not None else None)
            self.rejected[key] = r
            self._journal({"key": key, "rejected": {"rule": rule, "detail": detail, "fact": r.fact}})
            self.changed.notify_all()

    def _journal(self, entry: dict) -> None:
        if self.cache is not None:
            self.cache.append(entry)

    def _load(self) -> None:
        """Facts from the cache, each re-verified against the document: an edited entry is dropped, not trusted."""
        for entry in self.cache.entries():
            key = entry.get("key")
            if key not in self.candidates:
                self.distrusted += 1
                continue
            if "fact" in entry:
                try:
                    fact = AtomicFact.model_validate(entry["fact"])
                except ValidationError:
                    self.distrusted += 1
                    continue
                verdict = self.verifier.verify(ExtractionPayload(atomic_facts=[fact])).facts[0]
                if verdict.passed and _labels(self.candidates[key], fact):
                    self.rejected.pop(key, None)
                    self.facts[key] = IndexedFact(key, verdict, self.document.structure.heading_path(
                        self.candidates[key].offset))
                    self.loaded += 1
                else:
                    self.distrusted += 1
            elif isinstance(entry.get("rejected"), dict) and key not in self.facts:
                r = entry["rejected"]
                self.rejected[key] = Rejection(key, str(r.get("rule", "")), str(r.get("detail", "")), r.get("fact"))

    # ---- reading ----------------------------------------------------------------------------------
    def to_json(self) -> dict:
        doc = self.document
        with self.lock:
            facts = [f.to_json(doc) for f in self.ordered_facts()]
            rejected = [r.to_json() for r in sorted(self.rejected.values(),
                                                    key=lambda r: self.candidates[r.key].offset)]
        return {"document": {"path": doc.path, "sha256": doc.sha256, "chars": len(doc.text),
                             "format": doc.format},
                "model": self.model_id,
                "summary": {"values": self.total, "verified": len(facts), "rejected": len(rejected),
                            "pending": self.total - len(facts) - len(rejected)},
                "facts": facts, "rejected": rejected}


def _labels(cand: Candidate, fact: AtomicFact) -> bool:
    """Whether a (cached) fact is a label of this candidate: its value and quote are the candidate's."""
    return fact.object_value == cand.value and fact.source_text == cand.quote and fact.fact_type == FactType.NUMERIC


@dataclass
class _Request:
    key: str
    attempt: int
    handle: object
    note: RepairNote | None = None


@dataclass
class Indexer:
    """Labels the values of a FactIndex through the engine's slots, in priority order; cancellable.

    One run at a time labels; ``ensure(keys)`` called by a question while a background run is going moves
    those keys to the front and waits for them, and otherwise labels them itself.
    """

    engine: EngineProtocol
    index: FactIndex
    max_attempts: int = 2
    repair_temperature: float = 0.6
    window: int = 0                      # requests in flight (0: two per slot)
    on_progress: Callable[[Progress], None] | None = None
    on_piece: Callable | None = None
    tokens: int = 0
    requests: int = 0
    failures: list[str] = field(default_factory=list)   # engine errors of this run (values left pending)
    _queue: deque = field(default_factory=deque)
    _skipped: set = field(default_factory=set)            # keys whose request failed in this run
    _running: bool = False
    _t0: float = 0.0
    _done0: int = 0

    def __post_init__(self) -> None:
        self._queue = deque(self.index.pending())
        if self.window <= 0:
            self.window = 2 * max(1, self.engine.config.n_parallel)

    @property
    def busy(self) -> bool:
        """Whether a run (background, or a question's ensure()) is labelling right now."""
        with self.index.lock:
            return self._running

    # ---- scheduling --------------------------------------------------------------------------------
    def prioritize(self, keys: list[str]) -> None:
        """Move keys (not yet done) to the front of the queue, keeping their order."""
        with self.index.lock:
            front = [k for k in keys if k in self.index.candidates and not self.index.is_done(k)]
            rest = [k for k in self._queue if k not in set(front)]
            self._queue = deque(front + rest)

    def ensure(self, keys: list[str], cancel: threading.Event) -> None:
        """Return once every key is labelled (verified or rejected), labelling them first if no run is going.

        Questions asked at once, and the background run, share the indexer: whoever finds no run going claims
        it in the same locked step, so two never start one each."""
        self.prioritize(keys)
        while True:
            with self.index.lock:
                left = [k for k in keys if k in self.index.candidates and not self.index.is_done(k)
                        and k not in self._skipped]
                if not left:
                    return
                if self._running:
                    self.index.changed.wait(0.1)
                    if cancel.is_set():
                        return
                    continue
                self._claim()
            self._run(cancel, only=left)
            if cancel.is_set():
                return

    def progress(self) -> Progress:
        idx = self.index
        with idx.lock:
            done = idx.done
            elapsed = time.perf_counter() - self._t0 if self._t0 else 0.0
            rate = (done - self._done0) / elapsed if elapsed > 0 else 0.0
            left = idx.total - done
            return Progress(done, idx.total, len(idx.facts), len(idx.rejected), rate,
                            left / rate if rate > 0 else (0.0 if not left else None))

    # ---- the run -----------------------------------------------------------------------------------
    def run(self, cancel: threading.Event, only: list[str] | None = None) -> None:
        """Label queued values until the queue (or `only`) is done or cancel is set; ends cancelled requests."""
        with self.index.lock:
            if self._running:
                raise AegisError("the index is already being built")
            self._claim()
        self._run(cancel, only)

    def _claim(self) -> None:
        """Mark a run as going (the caller holds the index lock and has seen none going)."""
        self._running = True
        self._t0, self._done0 = time.perf_counter(), self.index.done
        self._skipped = set()

    def _run(self, cancel: threading.Event, only: list[str] | None) -> None:
        wanted = set(only) if only is not None else None
        inflight: list[_Request] = []
        try:
            while not cancel.is_set():
                while len(inflight) < self.window:
                    key = self._next(wanted, {r.key for r in inflight})
                    if key is None:
                        break
                    if not self._from_structure(key):
                        inflight.append(self._submit(key, 1, None))
                if not inflight:
                    break
                finished = [r for r in inflight if r.handle.done]
                if not finished:
                    try:
                        inflight[0].handle.result(timeout=0.05)
                    except TimeoutError:
                        pass
                    continue
                for r in finished:
                    inflight.remove(r)
                    again = self._absorb(r)
                    if again is not None and not cancel.is_set():
                        inflight.append(again)
                if self.on_progress is not None:
                    self.on_progress(self.progress())
        finally:
            for r in inflight:
                r.handle.cancel()
            with self.index.lock:
                self._queue.extendleft(reversed([r.key for r in inflight]))  # a later run labels them first
                self._running = False
                self.index.changed.notify_all()
            if self.on_progress is not None:
                self.on_progress(self.progress())

    def _next(self, wanted: set[str] | None, busy: set[str]) -> str | None:
        with self.index.lock:
            for _ in range(len(self._queue)):
                key = self._queue.popleft()
                if self.index.is_done(key) or key in busy:
                    continue
                if key in self._skipped:  # failed in this run: back of the queue, for the next run
                    self._queue.append(key)
                    continue
                if wanted is not None and key not in wanted:
                    self._queue.append(key)  # someone else's turn later
                    continue
                return key
            return None

    def label_from_structure(self, keys: list[str]) -> int:
        """Label from structure (no model request) every key not done yet that structure decides; how many."""
        done = 0
        for key in keys:
            if key in self.index.candidates and not self.index.is_done(key) and self._from_structure(key):
                done += 1
        return done

    def _from_structure(self, key: str) -> bool:
        """Label a table cell from the table itself (row label as subject, column header as predicate) when
        that label verifies; no model request. False when the structure does not decide it."""
        idx = self.index
        cand = idx.candidates[key]
        found = idx.document.structure.cell_at(cand.offset) if cand.cell else None
        if found is None:
            # a clause that states its own label plainly is labelled by it; else the model labels it. Not one whose
            # value words follow ("$250 per night in standard cities"): they may be what tells it apart
            plain = not _WORDS_AFTER.search(_CLAUSE_END.split(cand.after, maxsplit=1)[0])
            if self._bounds_a_tier(key, cand) or self._bounds_a_condition(key, cand):
                return True
            # (a lead-in sentence naming the measure before its colon is not an item's name: it goes first)
            return self._from_bracket(key, cand) or plain and self._from_lead_in(key, cand) \
                or self._from_item_head(key, cand) or self._from_siblings(key, cand) or self._from_item_noun(key, cand) \
                or self._from_assigned(key, cand) or self._from_gapped(key, cand) or self._from_deadline(key, cand) \
                or self._from_paid_as(key, cand) or self._from_article_noun(key, cand) \
                or self._from_share_named_after(key, cand) \
                or plain and (self._from_clause(key, cand) or self._from_condition(key, cand)
                              or self._from_title(key, cand)) \
                or self._from_series_zh(key, cand)
        table, cell = found
        subject = table.row_header(cell.row).strip()
        column = column_name(table, cell.col)
        # a cell of several values ("$2,500 (single item limit $400; valuables $600 in total)", "$30 for each full
        # 12 hours, up to $300 in total"): the words a value has of its own within the cell say what it is
        own = _in_cell(idx.document.text, cell, cand)
        if own is not None:
            if own[0] in ("period", "condition"):
                what = "the period of the rate" if own[0] == "period" else "the condition of the value"
                idx.reject(key, f"cell_{own[0]}", f"'{cand.value}' is {what} before it in its cell ('{own[1]}'), not "
                           "a value of its own", None)
                return True
            if own[1] and subject and own[1] != subject and self._keep_if_verified(key, cand, subject, own[1]):
                return True
        caption = title_of(table.caption).rstrip("：: ")
        # the column header names what the value is; a short caption completes a bare one (省外 + 疗休养补助标准),
        # a caption that is a whole sentence ("参保人员…按下表规定支付") does not make a predicate
        zh = idx.document.language == "zh"
        # (a caption saying where the figures are, "普通门诊统筹待遇标准见下表", is a sentence: its topic completes)
        short = short_title(caption, SHORT_CAPTION) if not (zh and _SEE_TABLE.search(caption)) else ""
        joined = f"{column}{short}" if short and zh else ""
        # a caption sentence's topic completes a column that is a scope ("社保外费用" under "赔付比例按医院等级…确定")
        topic = caption_topic(caption) if zh and not short else ""
        # a column that is one of a series of classes ("| 伤残等级 | 一类地区 | 二类地区 | 三类地区 |") is a scope: the measure
        # its article's title names goes with it ("三类地区一次性工伤医疗补助金"), or two tables keyed alike, one of
        # months of 医疗补助金 and one of 就业补助金, would label their cells alike
        titled = article_title(idx.document, table.start) if zh and classes(table, cell.col) else ""
        # two English tables keyed alike, told apart only by their captions ("Table 2 — Maximum Company matching
        # contribution from 1 April 2025", "Table 3 — … up to 31 March 2025"): the caption's name goes with the column,
        # or the cells of both would be labelled alike (and each would contradict the other)
        # (in Chinese too, where the caption is too long to join the column: "表1 失业保险金月标准（原标准，适用于…）"
        # beside "表2 失业保险金月标准（新标准，…）")
        twin = f"{column} — {name}" if (not zh or not joined) and keyed_alike(idx.document, table) \
            and (name := _twin_name(caption, zh)) else ""
        # (the row's label cells together, else its first alone: a word column may hold a figure of its own, "No heat
        # when it is below 55°F", that the row's first label does not)
        first = table.rows[cell.row][table.row_header_col].text.strip() if table.label_cols else ""
        for who in dict.fromkeys(w for w in (subject, first) if w):
            for predicate in dict.fromkeys(p for p in (twin, joined, f"{column}{titled}" if titled else "", column,
                                                       f"{column}{topic}" if topic else "") if p):
                if who == predicate:
                    return False
                if self._keep_if_verified(key, cand, who, predicate):
                    return True
        # a row naming a measure, its columns the rules or periods it is compared across ("| 长期处方最长用量 | 8周 |
        # 12周 |" under "| 事项 | 原标准 | 新标准 |"): the row says what the value is, the column whose it is
        return bool(subject) and self._keep_if_verified(key, cand, column, subject)

    def _from_item_head(self, key: str, cand: Candidate) -> bool:
        """Label a value of an item that names what it is about before a colon ("- 严重精神障碍：…年度支付限额为
        5800元", "- Retail: copay of $12", "- 剖宫产：每次给付5000元"): the words before the colon are the subject,
        the words before the value in its fragment the predicate, when both are short phrases without numbers and
        the label verifies."""
        head = LIST_ITEM.sub("", cand.head, count=1).strip().rstrip("：:").strip()
        before = cand.before
        own = _OWN_HEAD.match(LIST_ITEM.sub("", before, count=1)) if not head or head not in cand.fragment else None
        if own is not None:  # the item's own head: "- 剖宫产：" inside the fragment, the lead-in above it
            # (unless it is the carried head's tail, the fragment cut at a comma inside it: "X-rays): 100%")
            head, before = (head if head and head.endswith(own.group(1).strip()) else own.group(1).strip()), own.group(2)
        # (a head's figure may only bound the range it names: "未满18周岁的居民和在校学生"; its commas may only list
        # what it names, in parentheses: "Preventive services (cleanings, exams, X-rays)")
        # (nor the mark of an answer or question the document poses, "答：…", "A: …": it names no one)
        if not head or head not in cand.quote or REPLY_MARK.fullmatch(head) \
                or any(ch.isdigit() for ch in head) and interval(head) is None \
                or any(p in PARENTHESIS.sub("", head) for p in "，,；;。!?！？") \
                or len(head) > (30 if CJK.search(head) else 60) \
                or cand.value in head:
            return False
        pred = _LINK.sub("", before.strip().rstrip("：:，,").strip()).strip()
        if not pred and (after := _NOUN_AFTER.match(cand.after)):
            pred = after.group("p").strip()  # "- Specialist visit: $50 copay": the value's own noun says what it is
            if interval(cand.value + pred) is not None:
                return False  # "：100万元以下的部分，…": the value bounds a tier, the words after it are no noun
        if not pred and own is not None and not _WORDS_AFTER.search(_CLAUSE_END.split(cand.after, maxsplit=1)[0]) \
                and (lead := _FOLLOWING_EN.search(cand.head)):
            pred = lead.group("p").strip()  # "The following waiting periods apply …: - Redundancy: 60 days"
        if not pred and (case := _CASE_AFTER_EN.match(cand.after)) and interval(case.group("c")) is not None:
            # "- Tenant notice: 30 days if the tenancy has lasted less than 1 year; 45 days if it has lasted 1 year
            # or more": the case the value is for, with its bounds, says what it is
            pred = case.group("c").strip()
            if len(pred) <= 80 and _says_something(pred):
                return self._keep_if_verified(key, cand, head, pred)
            return False
        if (whom := _FOR_WHOM_EN.match(cand.after)) and (not pred or (
                (found := find_quantities(pred)) and _FOR_WHOM_EN.match(last := pred[found[-1].end:])
                and _SERIES_LINK_EN.search(last))):
            # "- Application fee: $60 for undergraduate applicants and $75 for graduate applicants": the head says
            # what each value is, the words after "for" whom it is for (the values before it each for its own)
            who = whom.group("w").strip()
            unit = parse_quantity(f"1 {who.split()[-1]}")  # not a period or a unit ("$40 for each night")
            return _says_something(who) and (unit is None or unit.dimension == "number") \
                and head.lower() != who.lower() \
                and self._keep_if_verified(key, cand, who, head)
        # a predicate is a phrase: not a condition ("顺产的") nor two clauses ("难产的，增加")
        if not pred or any(ch.isdigit() for ch in pred) or len(pred) > 40 or head == pred or pred.endswith("的") \
                or any(p in pred for p in "，,；;") or not _says_something(pred):
            return False
        return self._keep_if_verified(key, cand, head, pred)

    def _from_siblings(self, key: str, cand: Candidate) -> bool:
        """A Chinese list item saying what its siblings say of another thing ("- 中心城区（含清河区、湖滨区、高新区）城市低保
        标准为每人每月1,080元；" beside "- 远郊区县（含北山县、临江县、石门县）城市低保标准为每人每月960元。"): the words the
        items share before their values, up to the link, are the measure; the words where they differ, what each is
        about. Kept only if that label verifies."""
        own = _item_words(cand)
        if not own or not cand.head or not CJK.search(own):
            return False
        siblings: list[str] = []
        for c in self.index.by_head.get(cand.head, ()):
            if c.offset != cand.offset and (w := _item_words(c)):
                siblings.append(w)
                if len(siblings) > 12:  # (a long list is no set of siblings; stop reading it)
                    return False
        if not siblings:
            return False
        shared = own
        for w in siblings:
            shared = shared[len(shared) - len(os.path.commonprefix([shared[::-1], w[::-1]])):]
        shared = shared.lstrip("）)")  # (a parenthesis closing where they differ closes the subject's)
        subject = own[: len(own) - len(shared)].strip(" ，,：:")
        # the measure ends at its link ("…标准为每人每月"): what follows it is the rate's own words
        link = list(_SIBLING_LINK.finditer(shared))
        predicate = shared[: link[-1].start()] if link else shared
        predicate = predicate.strip(" ，,：:")
        if not _says_something(subject) or not _says_something(predicate) or subject.endswith("的") \
                or any(ch.isdigit() for ch in predicate) or len(predicate) > 16 or len(subject) > 40 \
                or any(p in PARENTHESIS.sub("", subject) for p in "，,；;。：:") \
                or interval(predicate + cand.value) is not None:  # "未满5年": a bound, no measure
            return False
        return self._keep_if_verified(key, cand, subject, predicate)

    def _submit(self, key: str, attempt: int, note: RepairNote | None) -> _Request:
        idx = self.index
        cand = idx.candidates[key]
        parts = index_label_prompt(cand, idx.document.language, idx.document.structure.heading_path(cand.offset),
                                   repair=note)
        e = self.engine
        prompt = render(parts, e.chat_template, bos_token=e.bos_text, eos_token=e.eos_text)
        sampling = Sampling() if attempt == 1 else Sampling(temperature=self.repair_temperature, top_p=0.95,
                                                             seed=attempt)
        h = e.submit(prompt, grammar=label_grammar(cand, note, relevance=False), max_tokens=LABEL_MAX_TOKENS,
                     sampling=sampling, on_piece=self.on_piece)
        self.requests += 1
        return _Request(key, attempt, h, note)

    def _absorb(self, r: _Request) -> _Request | None:
        """Verify one finished label; a failure is re-asked with its note until attempts run out."""
        from .extract import parse_output

        c = r.handle.result()
        self.tokens += c.stats.generated_tokens
        if c.finish_reason.aborted:
            # the engine failed or the request was cancelled: no verdict about the value, so nothing is journalled
            # and the value stays pending for the next run (a server restart must not reject half a document)
            self.failures.append(f"{c.finish_reason}: {c.error or ''}".strip(": "))
            with self.index.lock:
                self._skipped.add(r.key)
                self._queue.append(r.key)
            return None
        cand = self.index.candidates[r.key]
        problem, obj = parse_output(c)
        fact = None
        if problem:
            note = RepairNote(c.text[-80:], "output", problem)
        else:
            try:
                fact = AtomicFact(subject=_unnumbered(str(obj["subject"])), predicate=_unnumbered(str(obj["predicate"])),
                                  object_value=cand.value, fact_type=FactType.NUMERIC, source_text=cand.quote)
            except (ValidationError, KeyError) as exc:
                note = RepairNote(c.text[-80:], "schema", str(exc).splitlines()[0])
            else:
                if repeats_predicate(fact):
                    note = RepairNote(compact_fact(fact), "label", "the subject repeats the predicate; the subject "
                                      "is who or what it applies to", fact=fact,
                                      avoid_subject=max(fact.subject, fact.predicate, key=len))
                elif not _says_something(fact.predicate):
                    note = RepairNote(compact_fact(fact), "label", "the predicate names nothing (only function "
                                      "words); it says what the value is", fact=fact)
                elif _only_a_figure(fact.predicate):
                    # "Trip | 31 days" for 45 days: another figure of the clause says nothing of what this one is
                    note = RepairNote(compact_fact(fact), "label", "the predicate is another figure; it says what "
                                      "the value is", fact=fact)
                elif _holds_another_value(fact.subject):
                    # "5% of each progress payment | retained and released | 12 months": the subject is another
                    # figure's clause, not whom this value applies to
                    note = RepairNote(compact_fact(fact), "label", "the subject holds another figure; it is who or "
                                      "what the value applies to", fact=fact, avoid_subject=fact.subject)
                elif not _says_something(fact.subject):
                    # "行" of 实行, "重" of 重大疾病, "and": a piece of a word names no one
                    note = RepairNote(compact_fact(fact), "label", "the subject names nothing (a single character "
                                      "or only function words); it is who or what the value applies to", fact=fact,
                                      avoid_subject=fact.subject)
                else:
                    verdict = None
                    if (whole := whole_item_subject(cand, fact.subject)) is not None:
                        wider = fact.model_copy(update={"subject": whole})
                        # (not into a clause stating the predicate: "履约保证金为合同金额" for 合同金额 | 履约保证金)
                        if not repeats_predicate(wider) and (v := self.index.verify_one(r.key, wider)).passed:
                            fact, verdict = wider, v
                    verdict = verdict or self.index.verify_one(r.key, fact)
                    if verdict.passed:
                        self.index.add(r.key, verdict)
                        return None
                    if self._as_change(r.key, cand, fact, verdict):
                        return None
                    note = failure_note(verdict)
                    if note.rule == "entity_binding":  # the re-ask may not name the same subject again
                        note = replace(note, avoid_subject=fact.subject)
        if r.attempt < self.max_attempts:
            return self._submit(r.key, r.attempt + 1, note)
        # the model's last label failed: the clause's own grammar, else the phrase that introduces the value under
        # its section's title ("renews automatically for successive Renewal Terms of 12 months unless …": words
        # after the value kept structure from deciding it first)
        if self._from_clause(r.key, cand) or self._from_title(r.key, cand, last_resort=True) \
                or self._from_measure_phrase(r.key, cand) or self._from_own_clause_en(r.key, cand) \
                or self._from_measure_for_en(r.key, cand) or self._from_share_of_en(r.key, cand):
            return None
        self.index.reject(r.key, note.rule, note.detail, fact)
        return None

    def _as_change(self, key: str, cand: Candidate, fact: AtomicFact, verdict: FactVerdict) -> bool:
        """A label rejected only because the document states its value as a change ("各提高5个百分点", "增加100千瓦时",
        "increased by 4%") is kept as that change: its predicate gains the word, kept only if it then verifies."""
        if set(verdict.failed_rules) - {"value_role", "unit_dimension"} or is_change(fact.predicate):
            return False
        text = self.index.document.text
        m = CHANGE_BEFORE.search(text, max(0, cand.offset - CHANGE_REACH), cand.offset)
        if m is None:
            return False
        word = m.group(0).strip().removesuffix("了").strip()
        if CJK.search(word):
            predicate = f"{fact.predicate}{word}"
        else:
            verb = word.split()[0].lower()
            predicate = f"{fact.predicate} {_CHANGE_NOUN_EN.get(verb, verb)}"
        return self._keep_if_verified(key, cand, fact.subject, predicate)

    def _from_clause(self, key: str, cand: Candidate) -> bool:
        """After the model's last label failed: the clause's own grammar, when it is plain — "S的P为V" in Chinese,
        "S is/are/must … P V" in English — as subject and predicate, kept only if that label verifies."""
        before = LIST_ITEM.sub("", cand.before, count=1).strip()
        before = _REPLY_OPENING.sub("", _NUMBERING.sub("", before, count=1).strip(), count=1)
        m = _CLAUSE_ZH.match(before) if CJK.search(before) else _CLAUSE_EN.match(before)
        if m is None:
            return False
        subject, predicate = m.group("s").strip(" ，,"), m.group("p").strip(" ，,：:")
        # a subject that opens with a preposition or "if" is a condition ("在非医保定点的药店…", "If proof …"),
        # a predicate with a figure is a clause of its own: neither is a label
        if not subject or _opens_condition(subject) or _CONDITION_EN.match(subject) \
                or any(ch.isdigit() for ch in predicate) \
                or not _says_something(predicate) or subject in predicate or predicate in subject:
            return False
        return self._keep_if_verified(key, cand, subject, predicate)

    def _from_measure_phrase(self, key: str, cand: Candidate) -> bool:
        """After the model's last label failed, a Chinese value its own clause links to a named measure
        ("缓缴期限一般不超过3个月", "贷款期限最长为30年", "…费用的最高限额为32万元", "各分段支付比例提高5个百分点"): the
        phrase naming the measure, with the extreme or change the link states, is the predicate; the words before its
        的, else the section's title or the sentence's opening topic, the subject. Not a condition's threshold
        ("…超过10万元的，"), a worked example's figure, nor a phrase whose head is no measure word."""
        if cand.cell or not CJK.search(cand.fragment):
            return False
        doc = self.index.document
        if _THRESHOLD_AFTER_ZH.match(cand.fragment[cand.value_start + len(cand.value):]) \
                or illustrative(doc, cand.offset):
            return False
        start, _ = document_index(doc).sentence_bounds(cand.offset)
        clauses = re.split(r"[，,；;：:]", doc.text[start:cand.offset])
        own = _NUMBERING.sub("", LIST_ITEM.sub("", clauses[-1], count=1), count=1).strip()
        if (m := _MEASURE_LINK_ZH.search(own)) is None:
            return False
        phrase = _OPENING_LINK_ZH.sub("", own[:m.start()], count=1)
        if not 2 <= len(phrase) <= 30 or not all(CJK.match(ch) or ch in "（）()、" for ch in phrase) \
                or _opens_condition(phrase):
            return False
        subjects: list[str] = []
        predicate = phrase
        if "的" in phrase:
            subject, predicate = (x.strip() for x in phrase.rsplit("的", 1))
            subjects = [subject] if 2 <= len(subject) <= 24 and not _opens_condition(subject) else []
        if not (_ends_in_measure(predicate) and _says_something(predicate)):
            return False
        predicate += m.group("q") or m.group("c") or ""
        if not subjects:
            # the section's title, else the sentence's opening clause when it names who or what (no condition, time
            # or clause of its own: "退休人员个人账户由统筹基金按月定额划入" holds a verb, it names no one)
            subjects = [t for t in (self._section_title(cand.offset),) if t and len(t) <= 16]
            if len(clauses) > 1 and _TOPIC_ZH.fullmatch(topic := clauses[0].strip()) \
                    and not _opens_condition(topic) and not topic.endswith(CONDITION_ENDINGS_ZH):
                subjects.append(topic)
        return any(self._keep_if_verified(key, cand, s, predicate) for s in subjects
                   if s not in predicate and predicate not in s)

    def _from_own_clause_en(self, key: str, cand: Candidate) -> bool:
        """After the model's last label failed, an English value its own clause links to what it measures: an act's
        time limit ("File a Currency Transaction Report within 15 calendar days" → deadline to file …), a cap an
        item's head names ("- Fire Department Service Charge: up to $500"), the section's title the subject; a price,
        what costs it the subject ("A replacement card costs $10.00": replacement card | price). Not a condition's
        threshold ("more than 12 hours"), a range's bound, a clause opening with its condition, nor a worked
        example's figure."""
        if cand.cell or CJK.search(cand.fragment):
            return False
        doc = self.index.document
        title = self._section_title(cand.offset)
        if not title or len(title) > 60 or illustrative(doc, cand.offset):
            return False
        start, _ = document_index(doc).sentence_bounds(cand.offset)
        raw = _NUMBERING.sub("", LIST_ITEM.sub("", doc.text[start:cand.offset].lstrip(), count=1), count=1)
        # (an abbreviation or a case in parentheses breaks no clause: "File a Suspicious Activity Report (SAR) within")
        pieces = re.split(r"[,;:()]", re.sub(r"\s+", " ", PARENTHESIS.sub(" ", raw)))
        own = pieces[-1]
        if _IF_EN.match(raw) or _CONDITION_EN.match(own.strip()) or _THRESHOLD_BEFORE_EN.search(own) \
                or _BOUND_AFTER_EN.match(cand.after):
            return False
        if (m := _OWN_LINK_EN.search(raw)) is not None and m.group("cost"):
            # a price: what costs it is the subject, whole with the case its parentheses state ("Junior memberships
            # (ages 13 to 17) cost $24.99 per month", "A visitor pass costs $12 per day")
            subject = _ARTICLE.sub("", raw[:m.start()]).strip(" ,;:")
            if not 0 < len(subject.split()) <= 10 or _IF_EN.match(subject):
                return False
            bare = re.sub(r"\s+", " ", PARENTHESIS.sub(" ", subject)).strip()
            return self._keep_if_verified(key, cand, subject, "price") \
                or bare != subject and self._keep_if_verified(key, cand, bare, "price")
        if (m := _OWN_LINK_EN.search(own)) is None:
            return False
        predicate = _LEADING_JOIN_EN.sub("", _ARTICLE.sub("", own[:m.start()])).strip()
        if not predicate and len(pieces) == 2 and ":" in raw:
            predicate = _ARTICLE.sub("", pieces[0]).strip()  # the item's head names the value: "- Mold: up to …"
        elif m.group("up"):
            return False  # "Full-time care covers up to", "which may take up to": no noun names the cap
        elif m.group("by") and predicate:
            # an act's time limit: "you may cancel within 3 business days", or an imperative's, its verb before its
            # object ("file a police report within 72 hours"); not a passive's ("will be paid out within")
            if modal := _MAY_EN.search(predicate):
                act = predicate[modal.end():].strip()
            else:
                act = predicate if _IMPERATIVE_EN.match(predicate) else ""
            predicate = f"deadline to {act[:1].lower()}{act[1:]}" \
                if act and not act.lower().startswith("be ") and not _PREPOSITION_EN.match(act) else ""
        if not 2 <= len(predicate.split()) <= 10 or any(ch.isdigit() for ch in predicate) \
                or not _says_something(predicate) or predicate.lower() in title.lower() \
                or title.lower() in predicate.lower():
            return False
        return self._keep_if_verified(key, cand, title, predicate)

    def _from_measure_for_en(self, key: str, cand: Candidate) -> bool:
        """After the model's last label failed, an English sentence opening with a measure and whom it is for, then its
        copula ("(2) The fee for a second residential permit issued to the same household in the same permit year is
        150% of the Schedule C fee …"): that measure is the predicate, whom it is for the subject. Not a worked
        example's figure, nor a sentence opening with its condition."""
        if cand.cell or CJK.search(cand.fragment):
            return False
        doc = self.index.document
        start, _ = document_index(doc).sentence_bounds(cand.offset)
        raw = _NUMBERING.sub("", LIST_ITEM.sub("", doc.text[start:cand.offset].lstrip(), count=1), count=1)
        if (m := _MEASURE_FOR_EN.match(raw)) is None or illustrative(doc, cand.offset):
            return False
        predicate, subject = m.group("p").strip(), m.group("s").strip()
        if not _says_something(predicate) or _CONDITION_EN.match(subject) or find_quantities(subject):
            return False
        return self._keep_if_verified(key, cand, subject, predicate)

    def _from_share_of_en(self, key: str, cand: Candidate) -> bool:
        """After the model's last label failed, an English share of the base its next words name ("Resident permits may
        be bought for six (6) months at 55% of the annual price, rounded up …" under "4.7 Six-month permits"): the
        share of that base is the predicate, the section's title the subject. Not in a table, a worked example, nor a
        sentence opening with its condition."""
        m = _SHARE_OF_EN.match(cand.after)
        if m is None or cand.cell or CJK.search(cand.fragment) or dimension_of(cand.value) != "percent":
            return False
        doc = self.index.document
        title = self._section_title(cand.offset)
        start, _ = document_index(doc).sentence_bounds(cand.offset)
        if not title or len(title) > 60 or _CONDITION_EN.match(doc.text[start:cand.offset].lstrip()) \
                or illustrative(doc, cand.offset):
            return False
        return self._keep_if_verified(key, cand, title, f"share of {m.group('base').strip()}")

    def _from_assigned(self, key: str, cand: Candidate) -> bool:
        """An English value that a noun phrase introduces and "for …" assigns ("a maximum monthly benefit of $12,000
        for Class 1 and $8,500 for Classes 2 and 3"), or a share with its base ("an upfront fee equal to 1.25% of the
        Term Loan A and 0.75% of the revolving commitments"): what it is for, or of, is the subject, the phrase the
        predicate, for each value of the series. Kept only if that label verifies."""
        # (the series may run over the fragments of its clause: "… are $12.40 for employee only, $26.80 for …")
        lead = cand.lead or cand.before.lstrip()
        after, before = _ASSIGNED.match(cand.after), _ASSIGNED_BEFORE.sub("", lead)
        if after is None or CJK.search(before) or after.group("how") == "of" and dimension_of(cand.value) != "percent":
            return False
        # the phrase is a noun introducing the value ("a maximum monthly benefit of"), or the subject of a copula
        # whose series of values "for …" it is ("Monthly employee contributions are $12.40 for employee only, …")
        m = _NOUN_OF.search(before) or (_COPULA_EN.match(before) if after.group("how") == "for" else None)
        if m is not None:
            predicate = re.sub(r"^(?:the|an?)\s+", "", m.group("p").strip(), flags=re.IGNORECASE)
        else:
            # an item whose head names the measure and whose values, at most capped, are each "for" someone
            # ("- Single Trip policies: up to 365 days for persons aged 64 or under; up to 90 days for …")
            head, colon, rest = LIST_ITEM.sub("", lead, count=1).partition(":")
            rest = re.split(r"[;,]", rest)[-1]
            if after.group("how") != "for" or not colon or not _CAP_ONLY.match(rest) or len(head) > 60 \
                    or any(ch.isdigit() for ch in head) or any(c in head for c in ".;"):
                return False
            predicate = head.strip()
        subject = after.group("s").strip()
        if not _says_something(subject) or not _says_something(predicate) or _CONDITION_EN.match(subject) \
                or subject.lower() in predicate.lower() or predicate.lower() in subject.lower():
            return False
        return self._keep_if_verified(key, cand, subject, predicate)

    def _from_gapped(self, key: str, cand: Candidate) -> bool:
        """An English clause that leaves out the words it shares with the clause before it ("Bitewing X-rays are
        covered once every 12 months, and a full-mouth X-ray once every 60 months"): the words between the
        conjunction and the shared ones are the subject, the earlier clause's predicate the predicate, when that
        clause is plain ("S are P V"). Kept only if that label verifies."""
        lead = cand.lead
        if lead is None or CJK.search(lead) or not (found := find_quantities(lead)):
            return False
        prev = found[-1]
        gap = _GAPPED.match(lead[prev.end:])
        first = _CLAUSE_EN.match(re.split(r"[.;:]", lead[: prev.start])[-1].strip() + " ")
        if gap is None or first is None:
            return False
        words, theirs = gap.group("rest").split(), first.group("p").split()
        shared = next((k for k in range(min(len(words) - 1, len(theirs)), 0, -1)
                       if [w.lower() for w in words[-k:]] == [w.lower() for w in theirs[-k:]]), 0)
        subject, predicate = " ".join(words[: len(words) - shared]), first.group("p").strip()
        if not shared or len(words) - shared > 6 or not _says_something(subject) or _CONDITION_EN.match(subject) \
                or subject.lower() in predicate.lower():
            return False
        return self._keep_if_verified(key, cand, subject, predicate)

    def _from_lead_in(self, key: str, cand: Candidate) -> bool:
        """A Chinese enumeration whose lead-in names the measure and whose items name only who it is for
        ("起付线标准按医疗机构级别确定：一级及以下定点医疗机构300元；二级定点医疗机构600元；…"): the item's name is
        the subject, the lead-in's topic (before 按 / 为 / 如下 …) the predicate. Kept only if that label verifies."""
        head = cand.head if cand.head and cand.head not in cand.fragment else ""
        before = cand.before
        if not head and (m := _OWN_HEAD.match(before)) is not None:  # the first item: the lead-in opens its fragment
            head, before = m.group(1) + "：", m.group(2)
        head = _NUMBERING.sub("", head.strip(), count=1).strip()
        # (an item may name itself before a colon of its own: "2. 退休人员：4500元；" under "…最高支付限额：")
        name = _NUMBERING.sub("", LIST_ITEM.sub("", before, count=1), count=1).strip().rstrip("：:").strip()
        # (a name may say how its value is counted and bounded: "硕士研究生每人每月不超过" is 硕士研究生's, per person per
        # month, at most; the count goes with the measure)
        counted = _COUNTED_BOUND_ZH.search(name)
        per = counted.group("per") if counted else ""
        name = name[:counted.start()].strip() if per else name
        if not head.endswith(("：", ":")) or not CJK.search(head) or not name:
            return False
        # an item that opens with a condition of its own ("1. 妊娠不满12周的，定额支付500元") is about that case
        if _CONDITION_ZH.match(_NUMBERING.sub("", LIST_ITEM.sub("", cand.quote, count=1), count=1)):
            return False
        # (a lead-in that is the measure's name alone, "普通门诊统筹年度最高支付限额：", names it whole)
        bare = head.rstrip("：:").strip()
        topic = caption_topic(bare) or (bare if 2 <= len(bare) <= 16 and _BARE_MEASURE.fullmatch(bare) else "")
        topic = topic.rsplit("的", 1)[-1].strip()
        # an item that is a clause of its own ("在…住院的，报销比例为") labels itself: not a bare name
        if len(topic) < 2 or not _says_something(topic) or len(name) > 20 or any(ch.isdigit() for ch in name) \
                or name.endswith("的") or _TOPIC_END.search(name) or any(p in name for p in "，,；;。：:（(") \
                or _opens_condition(name) or topic in name or name in topic \
                or THRESHOLD_PREDICATE.search(name) or PERIOD_WORDS.search(name) or name[-1] in "在至达按每":
            return False
        return self._keep_if_verified(key, cand, name, topic + per)

    def _from_bracket(self, key: str, cand: Candidate) -> bool:
        """A tier of a rule that names its bracket before its value ("500万元至1000万元的部分，不超过25%", "1.8万元以上
        至8万元（含）的部分，支付比例为60%"): the bracket is the subject (a range, so a figure a question gives
        picks the tier that holds it), the words between it and the value the predicate when they name a measure,
        else the measure the lead-in names ("间接费用按…一定比例核定：" → 间接费用比例). Kept only if it verifies."""
        lead = cand.lead
        if lead is None or not CJK.search(cand.quote):
            return False
        item = re.split(r"[；;：:。]", lead)[-1]
        m = _BRACKET.search(_NUMBERING.sub("", LIST_ITEM.sub("", item, count=1), count=1).strip())
        if m is None:
            return False
        bracket = m.group("b").strip()
        if interval(bracket) is None:
            return False
        words = _LINK.sub("", _BOUND_OPENER.sub("", m.group("p").strip())).strip()
        # the lead-in: the sentence before the item, and the tiers before this one
        head = _NUMBERING.sub("", lead[: len(lead) - len(item)].split("。")[-1], count=1) + item[: m.start()]
        topic = caption_topic(head)
        dim = dimension_of(cand.value)
        measure = next((k for k in _MEASURE_WORDS if k in head and dim in PREDICATE_DIMENSIONS[k]), "")
        named = words if words and any(k in words for k in _MEASURE_WORDS) else ""
        options = [named, words + measure if words and measure and measure not in words else "",
                   topic + measure if topic and measure and measure not in topic else "", topic]
        for predicate in dict.fromkeys(o for o in options if o and _says_something(o)):
            if self._keep_if_verified(key, cand, bracket, predicate):
                return True
        return False

    def _bounds_a_tier(self, key: str, cand: Candidate) -> bool:
        """A value inside a tier's bracket ("10万元以上至30万元（含）的部分，支付比例为70%") is the tier's bound, not a
        measure of its own: it is recorded as such (the tier's value is the fact) and no label is asked for."""
        quote, lead = cand.quote, cand.lead
        if lead is None:
            return False
        at = len(lead)
        start = max((quote.rfind(c, 0, at) for c in "；;：:。"), default=-1) + 1
        ends = [i for c in "；;：:。" if (i := quote.find(c, at)) >= 0]
        item = quote[start:min(ends, default=len(quote))]
        pos = at - start
        for m in _TIER.finditer(item):
            if m.start() <= pos < m.end() and interval(m.group(0)) is not None \
                    and find_quantities(item[m.end():]):
                self.index.reject(key, "tier_bound", f"'{cand.value}' bounds the tier '{m.group(0).strip()}'; the "
                                  "tier's own value is the fact", None)
                return True
        return False

    def _bounds_a_condition(self, key: str, cand: Candidate) -> bool:
        """A value that bounds a condition on another value of its clause ("up to 90 days for persons aged 65 to
        79", "怀孕不满4个月流产的，产假15天") is that condition, not a measure of its own: it is recorded as such (the
        other value is the fact, its subject the condition) and no label is asked for. Not a cap or floor of its
        own ("up to $1,500"), nor a lone threshold ("gifts above $150 require approval")."""
        lead = cand.lead
        if lead is None or cand.cell:
            return False
        quote = cand.quote
        at, end = len(lead), len(lead) + len(cand.value)
        start = max((quote.rfind(c, 0, at) for c in "；;。"), default=-1) + 1
        stops = [i for c in "；;。" if (i := quote.find(c, end)) >= 0]
        piece = quote[start:min(stops, default=len(quote))]
        at, end = at - start, end - start
        bounds = condition_bounds(piece)
        mine = next((unit for a, b, _, unit in bounds if a < end and at < b), None)
        if mine is None:
            return False
        # the bounds around it, over the neighbouring clauses and items, must split its unit into cases ("64 or
        # under; 65 to 79; 80 to 84", "妊娠不满12周的 / 妊娠12周以上（含）不满28周的"): a lone threshold ("more than
        # $10,000 require a report", "超过150人的，须提前15个工作日备案") is a fact of its own
        text = self.index.document.text
        window = text[max(0, cand.offset - _CASE_WINDOW):cand.offset + _CASE_WINDOW]
        if not partitioned(condition_bounds(window), mine):
            return False
        if CJK.search(piece):
            # a Chinese condition is a clause of its own ending in 的 ("怀孕不满4个月流产的，")
            stop = min((i for c in "，," if (i := piece.find(c, end)) >= 0), default=-1)
            if stop < 0 or not piece[:stop].rstrip().endswith("的"):
                return False
        others = [q for q in find_quantities(piece)
                  if not (q.start < end and at < q.end) and not any(a < q.end and q.start < b for a, b, *_ in bounds)]
        if not others:
            return False
        self.index.reject(key, "condition_bound", f"'{cand.value}' bounds a condition on '{others[0].text}'; that "
                          "value is the fact, this one part of whom it applies to", None)
        return True

    def _from_deadline(self, key: str, cand: Candidate) -> bool:
        """A Chinese time limit ("…费用，应当在费用发生之日起6个月内申请零星报销", "出差返回后15日内办理报销"): what
        must be done within it, with 期限, is the predicate; the sentence's topic before it the subject."""
        if dimension_of(cand.value) == "time" and _WITHIN_EN.search(cand.before) and not CJK.search(cand.before):
            return self._from_deadline_en(key, cand)
        m = _DEADLINE.match(cand.after)
        if m is None or dimension_of(cand.value) != "time" or not CJK.search(cand.before):
            return False
        # (to whom or where it is done is not the act: "向参保地经办机构备案" is 备案)
        act = _RECIPIENT.sub("", _MANNER.sub("", m.group("act").strip()))
        lead = cand.lead
        if lead is None:
            return False
        *earlier, own = re.split(r"[，,；;：:]", _NUMBERING.sub("", LIST_ITEM.sub("", lead, count=1), count=1))
        # the first clause before the value's (its topic), else who its own clause says must act ("出差人员应当在
        # 出差返回后15日内办理报销手续": 出差人员); never a clause after it
        topic = next((c.strip() for c in earlier if c.strip()), "") or _MODAL.split(own, maxsplit=1)[0] \
            if _MODAL.search(own) or any(c.strip() for c in earlier) else ""
        if (actor := _ACTOR_FROM_ZH.match(own.strip())) and not _opens_condition(actor.group("s")):
            # who or what acts, before the day its limit counts from, is its own clause's topic ("街道办事处自受理申请
            # 之日起15个工作日内…", "…的，履约保证金在腾退验收合格之日起15个工作日内无息退还")
            topic = actor.group("s")
        topic = _MODAL_END.sub("", topic.strip()).strip()
        if not _says_something(act) or not topic or len(topic) > 40 or any(ch.isdigit() for ch in topic):
            return False
        return self._keep_if_verified(key, cand, topic, f"{act}期限")

    def _from_deadline_en(self, key: str, cand: Candidate) -> bool:
        """An English time limit ("Landlord will return the deposit, less lawful deductions, …, within 21 days after
        Tenant vacates"; "Tenant must keep renter's insurance … and provide proof within 10 days"): who must act,
        before the modal, is the subject; the deadline to do what the modal says (its first clause; of several
        acts, the one after the last figure), the predicate. Kept only if that label verifies."""
        lead = cand.lead
        if lead is None:
            return False
        own = re.split(r"[.;:](?:\s|$)", _NUMBERING.sub("", LIST_ITEM.sub("", lead, count=1), count=1))[-1]
        modals = list(_MODAL_EN.finditer(own))
        if modals:
            modal = modals[-1]
            act = _WITHIN_EN.sub("", own[modal.end():]).strip()
        elif _WITHIN_EN.fullmatch(own.strip()) and (at := cand.quote.find(cand.value, len(lead) - 1)) >= 0:
            # "Within 21 days after Resident surrenders the apartment …, Landlord will return the deposit, …": the
            # value opens its sentence; who must act, and the act, come after the clause it opens
            own = cand.quote[at + len(cand.value):]
            modal = _MODAL_EN.search(own, own.find(",") + 1) if "," in own else None
            if modal is None:
                return False
            act = own[modal.end():].strip()
        else:
            return False
        # who: the words before the modal in its clause ("If …, Tenant must"), without an article
        who = _ARTICLE.sub("", re.split(r"[,(]", own[: modal.start()])[-1]).strip()
        act = re.split(r"\s*,\s|\s*\(", act, maxsplit=1)[0]
        if found := find_quantities(act):  # "keep … $100,000 in … coverage and provide proof": the act after it
            later = re.match(r"^.*?\band\s+(?P<act>.+)$", act[found[-1].end:])
            act = later.group("act").strip() if later else ""
        # (an act opens with its verb: not "to Severity 2 incidents", "for payment")
        if not who or len(who.split()) > 5 or any(ch.isdigit() for ch in who) or not _says_something(who) \
                or not _says_something(act) or len(act.split()) > 8 or any(ch.isdigit() for ch in act) \
                or _PREPOSITION_EN.match(act):
            return False
        return self._keep_if_verified(key, cand, who, f"deadline to {act}")

    def _from_paid_as(self, key: str, cand: Candidate) -> bool:
        """A Chinese value followed by the act of paying what it pays ("自住院第4日起按每日150元给付住院津贴", "按每公里
        1.2元给予燃油及过路费补贴", "参保职工个人按每人每年156元缴纳大额医疗费用补助费"): what is paid is the predicate;
        who pays or is paid, before 按 in the value's clause, the subject, else the condition before that clause
        ("被保险人住院治疗的"). Kept only if that label verifies."""
        m = _PAID_AS.match(cand.after)
        lead = cand.lead
        if m is None or lead is None or not CJK.search(lead):
            return False
        *earlier, own = re.split(r"[，,；;。：:]", _NUMBERING.sub("", LIST_ITEM.sub("", lead, count=1), count=1))
        who = own.split("按", 1)[0].strip() if "按" in own else ""
        if not who or any(ch.isdigit() for ch in who) or _opens_condition(who):
            before = earlier[-1].strip() if earlier else ""
            # (a condition, "被保险人住院治疗的", or who during what, "重点群体人员在培训期间": who)
            during = _WHO_DURING.match(before)
            who = before if before.endswith("的") else during.group("who") if during else ""
        predicate = m.group("what").strip()
        if not _says_something(who) or not _says_something(predicate) or len(who) > 30 \
                or any(ch.isdigit() for ch in who) or who in predicate or predicate in who:
            return False
        return self._keep_if_verified(key, cand, who, predicate)

    def _from_item_noun(self, key: str, cand: Candidate) -> bool:
        """A Chinese list item that is its value's name and the value ("- 一次性丧葬补助金8,000元；") under a lead-in
        ("失业人员在领取失业保险金期间死亡的，由其遗属向经办机构申领下列待遇："): the name is the predicate; the lead-in's
        opening condition, else its topic, the subject. Kept only if that label verifies."""
        name = _item_words(cand)
        if not name or not cand.head or _CLAUSE_END.split(cand.after, maxsplit=1)[0].strip() or not CJK.search(name) \
                or len(name) > 16 or any(ch.isdigit() for ch in name) \
                or any(p in name for p in "，,；;：:、") or _TOPIC_END.search(name) or name.endswith("的") \
                or not _says_something(name):  # (not "预付合同金额的" 30%: a share of what it names)
            return False
        head = _NUMBERING.sub("", LIST_ITEM.sub("", cand.head, count=1).strip(), count=1).strip().rstrip("：:")
        opening = re.split(r"[，,；;]", head, maxsplit=1)[0].strip()
        who = opening if opening.endswith("的") and len(opening) <= 30 else caption_topic(head)
        if not _says_something(who) or any(ch.isdigit() for ch in who) or who == name:
            return False
        return self._keep_if_verified(key, cand, who, name)

    def _from_series_zh(self, key: str, cand: Candidate) -> bool:
        """A Chinese series of values, each after its name, in one clause after 为 or 即 ("一类病种起付线为职工医保300元、
        居民医保500元"; "…起付线按在职职工标准减半执行，即一类病种150元、二类病种250元"), or one value after a name and
        its measure ("职工医保支付比例为70%"): what the clause is about, before 为 (before 即, the sentence's topic up to
        its verb), is the subject, the value's name the predicate; the measure is the predicate of a named value.
        Kept only if that label verifies."""
        lead = cand.lead
        if lead is None or not CJK.search(lead) or _CELL_PERIOD.search(lead[-4:]):
            return False
        sentence = re.split(r"[；;。]", _NUMBERING.sub("", LIST_ITEM.sub("", lead, count=1), count=1))[-1]
        *prior, own = re.split(r"[，,]", sentence)
        parts = own.split("、")
        copula = list(re.finditer(r"为|即", parts[0]))
        if not copula:
            return False
        m = copula[-1]
        topic, first = parts[0][: m.start()].strip(), parts[0][m.end():].strip()
        # the named values before this one: each a name and its value, nothing else
        if any(not _NAMED_VALUE.match(p.strip()) for p in [first, *parts[1:-1]] if len(parts) > 1) \
                or len(parts) == 1 and not _ENUMERATION_NEXT.match(cand.after) and first:
            return False
        name = parts[-1].strip() if len(parts) > 1 else first
        opening = _TOPIC_END.split(prior[0].strip(), maxsplit=1)[0].strip() if prior else ""
        if m.group() == "即" and not topic and prior:
            topic = opening
        if not name and topic:  # "职工医保支付比例为70%": the measure at the topic's end is the predicate
            # what the sentence is about, in its first clause up to its verb ("三类病种不区分医疗机构级别，职工医保…";
            # not a clause of when, "一个自然年度内")
            about = opening.split("不", 1)[0].strip()
            if about.endswith(CONDITION_ENDINGS_ZH) or _opens_condition(about) \
                    or len(about) > 10:
                about = ""
            measure = next((k for k in _MEASURE_WORDS if CJK.match(k) and topic.endswith(k)), "")
            if not measure:  # "…集中办理，有效期为2年": the clause names only the measure, the sentence's topic whose
                topic, name = about, topic
            else:
                whole = max((w for w in PREDICATE_WORDS if CJK.match(w) and topic.endswith(w) and measure in w),
                            key=len, default=measure)
                topic, name = topic[: len(topic) - len(whole)].strip(), whole
                # the period a measure is taken over, and its end, belong to it ("年度最高支付限额", "日支付限额")
                scope = next((w for w in MEASURE_SCOPE_ZH if topic.endswith(w)), "")
                topic, name = topic[: len(topic) - len(scope)].strip(), scope + name
                # (the sentence's topic qualifies the measure: the subject stays the name its item binds, 居民医保)
                name = f"{about}{name}"
        if not _says_something(topic) or not _says_something(name) or len(topic) > 24 or len(name) > 12 \
                or any(ch.isdigit() for ch in topic + name) or _opens_condition(topic) \
                or topic.endswith("的") or name in topic or topic in name:
            return False
        return self._keep_if_verified(key, cand, topic, name)

    def _from_condition(self, key: str, cand: Candidate) -> bool:
        """A Chinese clause that opens with its condition ("入住定点护理机构的，基金支付比例为75%，日支付限额为90元")
        is about what the condition names: it is the subject, kept whole, and the words before the value are the
        predicate when they are only a predicate ("基金支付比例为") or what the case gets ("享受产假"). A condition
        holding a figure only as its bound ("怀孕不满4个月流产的", "确诊时已年满60周岁的") names its case too: the
        figure is recorded as the bound (_bounds_a_condition), not a value; one holding another figure does not."""
        before = _NUMBERING.sub("", LIST_ITEM.sub("", cand.before, count=1), count=1).strip()
        quote = _NUMBERING.sub("", LIST_ITEM.sub("", cand.quote, count=1), count=1)
        c = _CONDITION_ZH.match(quote)
        if c is None or any(ch.isdigit() for ch in c.group("c")) and not _only_bounds(c.group("c")):
            return False
        own = _CONDITION_ZH.match(before)
        if own is not None:  # the value's fragment opens with the condition: "在境外医院住院的，年度免赔额提高至…"
            if own.group("c") != c.group("c"):
                return False
            # (its value's own clause the last: "申请人逾期申请的，…可以补发，但补发期限最长不超过12个月")
            *between, before = re.split(r"[，,；;]", before[own.end():])
            if any(re.search(r"的$", b.strip()) for b in between):
                return False
            before = before.strip()
        else:
            # the value's fragment follows the condition in the clause, with no other condition between
            at = quote.find(cand.fragment.strip())
            if at < c.end() or "的，" in quote[c.end():at] or "的," in quote[c.end():at]:
                return False
        # (or what the condition gets: "妊娠不满12周的，定额支付500元", "怀孕不满4个月流产的，享受产假15天")
        m = _BARE_PREDICATE.match(before) or _GRANTED.match(before)
        if m is None:
            return False
        predicate = m.group("p").strip()
        return _says_something(predicate) and self._keep_if_verified(key, cand, c.group("c").strip(), predicate)

    def _from_share_named_after(self, key: str, cand: Candidate) -> bool:
        """A Chinese share of a base before it that the noun after it names ("逾期缴纳的，…按日加收欠缴租金万分之五的滞纳金"):
        the phrase from how it accrues or the verb charging it to that noun is the predicate ("按日加收欠缴租金的滞纳金"),
        the clause's opening condition the subject ("逾期缴纳"), else the base ("欠缴租金"). Kept only if that label
        verifies."""
        named = _NAMED_AFTER_ZH.match(cand.after)
        base = _SHARE_BASE_ZH.search(cand.before)
        if cand.cell or named is None or base is None or dimension_of(cand.value) != "percent":
            return False
        last = re.split(r"[，,；;：:]", cand.before)[-1]
        charged = _CHARGED_ZH.search(last)
        predicate = f"{last[charged.start():] if charged else base.group('b')}的{named.group('n')}"
        condition = _CONDITION_ZH.match(_NUMBERING.sub("", LIST_ITEM.sub("", cand.quote, count=1), count=1))
        subject = condition.group("c").strip() if condition is not None and not any(
            ch.isdigit() for ch in condition.group("c")) else base.group("b")
        return self._keep_if_verified(key, cand, subject, predicate)

    def _section_title(self, offset: int) -> str:
        """The title of the innermost titled heading over an offset, below the document's own title (an article
        without a title of its own, "第六条", stands under its chapter's, "第三章 大病保险")."""
        path = self.index.document.structure.heading_path(offset)
        return next((t for h in reversed(path[1:] if len(path) > 1 else path) if (t := title_of(h).strip())), "")

    def _from_article_noun(self, key: str, cand: Candidate) -> bool:
        """An English value an article introduces as the measure of the noun after it ("receive a 30% discount on
        the monthly base charges", "pay an $80 fee for …") is that noun, of what its section's title names; not in
        a sentence that opens with a condition, nor in a table."""
        noun = _NOUN_ON.match(cand.after)
        if cand.cell or noun is None or not _ARTICLE_BEFORE.search(cand.before) or CJK.search(cand.before):
            return False
        title = self._section_title(cand.offset)
        start, _ = document_index(self.index.document).sentence_bounds(cand.offset)
        opening = self.index.document.text[start:cand.offset].lstrip()
        predicate = noun.group("p").strip()
        return bool(title) and len(title) <= 60 and not _CONDITION_EN.match(opening) and _says_something(predicate) \
            and predicate.lower() not in title.lower() and title.lower() not in predicate.lower() \
            and self._keep_if_verified(key, cand, title, predicate)

    def _from_title(self, key: str, cand: Candidate, *, last_resort: bool = False) -> bool:
        """A Chinese clause that is only a predicate and its value ("年度免赔额为每人800元") under a titled heading or
        article ("第七条 门急诊医疗保险金。…") is about what the title names. Not when an earlier clause of its
        sentence is a condition ("在经备案的民营医院住院的，年度免赔额提高至…"): the title would drop it.
        In English, a value that a noun phrase introduces ("continues for an Initial Term of 36 months") is that
        phrase, of what its section's title names, unless its sentence opens with a condition ("If …")."""
        before = _NUMBERING.sub("", LIST_ITEM.sub("", cand.before, count=1), count=1).strip()
        title = self._section_title(cand.offset)
        if not title or cand.cell:
            return False
        doc = self.index.document
        start, end = document_index(doc).sentence_bounds(cand.offset)
        if not CJK.search(before):
            # (or the subject of a copula that names the measure: "The single transaction limit is $2,500 and …")
            own = before[found[-1].end:] if (found := find_quantities(before)) else before  # after a value before it
            m = _NOUN_OF.search(before) or _COPULA_EN.match(_ARTICLE.sub("", own))
            if m is None or len(title) > 60:
                return False
            raw = doc.text[start:cand.offset].lstrip()
            opening = _NUMBERING.sub("", LIST_ITEM.sub("", raw, count=1), count=1)
            if _IF_EN.match(opening):
                # a sentence opening with its condition ("If a scheduled payment is declined or returned for any
                # reason, a Returned Payment Fee of $20.00 will be charged"): after the model's last label failed,
                # the condition is whom the phrase's value is for, as a Chinese condition is (the title would drop
                # it); never a condition holding a figure of its own
                cond = _IF_EN.sub("", opening.split(",", 1)[0], count=1).strip()
                predicate = m.group("p").strip()
                return last_resort and "," in opening and 1 < len(cond.split()) <= 12 \
                    and not find_quantities(cond) and _says_something(predicate) \
                    and self._keep_if_verified(key, cand, cond, predicate)
            if _CONDITION_EN.match(raw):
                return False
            # a share of a named base ("1.25% of the Term Loan A and 0.75% of the revolving commitments"), or one
            # of several figures the phrase introduces, is told apart by more than the phrase: the model labels it
            # (unless its last label failed: then the phrase right before the value is the best label there is)
            dims = [q.quantity.dimension for q in document_index(doc).quantities_in(start, end)]
            if re.match(r"\s*of\b", cand.after) or dims.count(dimension_of(cand.value)) > 1 and not last_resort:
                return False
            predicate = m.group("p").strip()
            return _says_something(predicate) and predicate.lower() not in title.lower() \
                and title.lower() not in predicate.lower() and self._keep_if_verified(key, cand, title, predicate)
        m = _BARE_PREDICATE.match(before)
        if m is None or len(title) > 16:
            return False
        clauses = [c.strip() for c in re.split(r"[，,；;：:]", doc.text[start:cand.offset])[:-1]]
        predicate = m.group("p").strip()
        # the clause must follow the sentence's opening (its topic): a sentence that opens with the value's own
        # clause ("在职员工年度保险费为每人1860元") may hold its subject run into the predicate, unless that subject
        # is the title itself ("大病保险起付标准为1.6万元" under 大病保险)
        if not clauses and predicate.startswith(title) and _says_something(rest := predicate[len(title):]):
            return self._keep_if_verified(key, cand, title, rest)
        if not clauses or any(c.endswith("的") or _opens_condition(c) for c in clauses):
            return False
        if not _says_something(predicate):
            return False
        # the sentence's opening topic ("被保险人发生的门急诊费用，…") names it more closely than the title does
        topic = clauses[0].rsplit("的", 1)[-1].strip()
        topic = topic if 2 <= len(topic) <= 12 and not any(ch.isdigit() for ch in topic) else ""
        return any(self._keep_if_verified(key, cand, subject, predicate) for subject in (title, topic)
                   if subject and subject not in predicate and predicate not in subject)

    def _keep_if_verified(self, key: str, cand: Candidate, subject: str, predicate: str) -> bool:
        """Add the label (subject, predicate) of a candidate to the table when it verifies; whether it did."""
        try:
            fact = AtomicFact(subject=subject, predicate=predicate, object_value=cand.value,
                              fact_type=FactType.NUMERIC, source_text=cand.quote)
        except ValidationError:
            return False
        verdict = self.index.verify_one(key, fact)
        if verdict.passed:
            self.index.add(key, verdict)
        return verdict.passed


# the noun of a change verb: "raised by 4%" is a rate's increase
_CHANGE_NOUN_EN = {"increased": "increase", "raised": "increase", "reduced": "reduction", "lowered": "reduction",
                   "decreased": "decrease", "cut": "cut"}
_REPLY_OPENING = re.compile(rf"^{REPLY_MARK.pattern}\s*[：:]\s*", re.IGNORECASE)
# (not a decimal that opens a clause: "1.8万元以上至8万元…" is a figure, not item 1)
_NUMBERING = re.compile(r"^\s*(?:第[一二三四五六七八九十百零〇\d]+[条章节款项]|\d+(?:\.\d+)+\.?(?![\d万千百亿元%％])"
                        r"|\d{1,2}[.、)）](?!\d)|[（(]?[一二三四五六七八九十]+[）)、.])\s*")


def _unnumbered(label: str) -> str:
    """A labelled subject or predicate without the section or clause number its span began with ("3.3 Customer"
    → Customer): a number in the answer must be a verified value, never a heading's numbering."""
    plain = _NUMBERING.sub("", label, count=1).strip()
    return plain or label.strip()


# a plain clause before its value: "出差人员的伙食补助标准为", "Customer due diligence records are kept for"
_CLAUSE_ZH = re.compile(r"^(?P<s>[^，,；;。：:的]{2,20})的(?P<p>[^，,；;。：:的]{2,16}?)(?:为|是|达到?|不超过|不得超过|不高于|按)?"
                        r"(?:每[^，,；;。]{1,6})?$")  # "…标准为每人每天": the rate's own words follow the link
# a share's name after it ("…万分之五的滞纳金。"), its base before it after the verb charging it ("按日加收欠缴租金"), and
# where the phrase charging it begins (how often it accrues, else the verb)
_NAMED_AFTER_ZH = re.compile(rf"^的(?P<n>[{CJK_RANGE}]{{2,6}})(?=[，,。；;、]|$)")
_SHARE_BASE_ZH = re.compile(rf"(?:加收|收取|计收|支付|缴纳|扣除|按)(?P<b>(?:(?!加收|收取|计收|支付|缴纳|扣除|按)[{CJK_RANGE}]){{2,8}})$")
_CHARGED_ZH = re.compile(r"按日|每日|按月|每月|按年|每年|加收|收取|计收|支付|缴纳|扣除")
# a clause that opens with its condition: "入住定点护理机构的，", "在经备案的民营医院住院的，"
_CONDITION_ZH = re.compile(r"^\s*(?P<c>[^，,；;。：:\s]{2,24}?)的[，,]")
# a clause that is only its predicate: "年度免赔额为每人", "年度限额仍为"
_BARE_PREDICATE = re.compile(r"^(?:但|并|且|而|其中)?(?P<p>[^，,；;。：:的\d\sA-Za-z]{2,12}?)(?:仍|均|亦|也)?"
                             r"(?:最长|最短|最高|最低|最多|最少)?(?:为|是|达到?|不超过|不得超过|不高于|不低于|提高至|"
                             r"调整为|降低至)(?:每[^，,；;。\d]{1,6})?$")
# an item's own head before its colon, inside the fragment: "剖宫产：每次给付"
_OWN_HEAD = re.compile(r"^\s*([^：:，,；;。\d]{1,30})[：:](.*)$", re.S)
_WORDS_AFTER = re.compile(rf"[A-Za-z{CJK_RANGE}]")
# where a value's clause ends: the words after that belong to the next clause ("3年，期满后需重新认定")
_CLAUSE_END = re.compile(r"[，,；;。：:]|\.(?:\s|$)")
# the noun right after a value, up to the clause's end: "$50 copay", "$350 copay, waived if admitted"
_NOUN_AFTER = re.compile(rf"^\s*(?P<p>[A-Za-z][A-Za-z-]*(?:\s+[A-Za-z][A-Za-z-]*){{0,2}}|[{CJK_RANGE}]{{2,8}})\s*(?:[,，;；.。]|$)")
# a noun phrase that introduces the value: "an Initial Term of", "a maximum monthly benefit of", "a minimum of",
# "(renews) for successive Renewal Terms of"
_NOUN_OF = re.compile(r"\b(?:an?|the|for(?:\s+(?:an?|the))?)\s+(?P<p>(?:[A-Za-z][\w'-]*\s+){0,4}?[A-Za-z][\w'-]*)\s+(?:of|equal\s+to)\s*$",
                      re.IGNORECASE)
# "for Class 1" after a value (or, after a share, "of the Term Loan A": its base), up to the next value of the
# series ("… and $8,500 for …"), an adverbial ("at closing") or the clause's end
_ASSIGNED = re.compile(r"^\s+(?:per\s+[a-z]+\s+)?(?P<how>for|of)\s+(?:the\s+)?(?P<s>[A-Za-z][^,;.:()]*?)(?=\s*,?\s*(?:and\s+|or\s+)?(?:to\s+)?"
                       r"(?:[$€£¥]\s?)?\d[\d,.]*\s*(?:%|[A-Za-z]+)?\s+(?:for|of)\b|\s+(?:at|on|upon|by|within|before|after|"
                       r"when|if|unless|payable|due)\b|\s*[,;.:]|\s*$)")
# the values before it in that series, with what each is for: "$12,000 for Class 1 and "
# the words between an item's separator and its value when they only cap it ("; up to", ", and up to")
_CAP_ONLY = re.compile(r"^\s*(?:and\s+|or\s+)?(?:up\s+to|at\s+most|a\s+maximum\s+of|no\s+more\s+than)?\s*$", re.IGNORECASE)
_ASSIGNED_BEFORE = re.compile(r"(?:(?:[$€£¥]\s?)?\d[\d,.]*\s*(?:%|[A-Za-z]+)?\s+(?:for|of)\s+[^,;.:()]+?(?:,\s*and|,\s*or|,|"
                              r"\s+and|\s+or)\s+(?:to\s+)?)+$")
# a lead-in naming what its items' values are: "The following waiting periods apply from …:"
_FOLLOWING_EN = re.compile(r"\bfollowing\s+(?P<p>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,3}?)\s+(?:apply|applies|are|is)\b",
                           re.IGNORECASE)
# an article right before a value, and the noun after it up to a preposition: "a 30% discount on", "an $80 fee for"
# the base a share is of, as the words after it name it ("55% of the annual price, rounded up …", "80% of your
# trip budget"): a determiner and a noun phrase of five words at most, up to a clause's end or the next phrase
_SHARE_OF_EN = re.compile(r"\s*of\s+(?P<base>(?:the|their|your|its|his|her|our|each|that|this)\s+[A-Za-z][\w'’-]*"
                          r"(?:\s+[A-Za-z][\w'’-]*){0,4}?)(?=\s*(?:[,.;:()]|$|\b(?:for|if|when|where|which|that|who|"
                          r"rounded|up|payable|and|or|in|on|at|per|with|from|to|by|as|after|before|unless|subject)\b))")
_ARTICLE_BEFORE = re.compile(r"\b(?:a|an)\s*$", re.IGNORECASE)
_NOUN_ON = re.compile(r"^\s+(?P<p>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)\s+(?:on|off|of|for|to|toward|towards|against)\b")
# a sentence opening with a measure and whom it is for, up to its copula: "The fee for a second residential permit
# issued to the same household … is", "(2) The deductible for named storm losses will be"
_MEASURE_FOR_EN = re.compile(r"^\s*(?:\(\w{1,3}\)\s*)?(?:the|an?)\s+(?P<p>(?:[A-Za-z][\w'-]*\s+){0,3}?[A-Za-z][\w'-]*)\s+for\s+"
                             r"(?P<s>[A-Za-z][^,;:()]{2,160}?)\s+(?:is|are|will be|shall be)"
                             r"(?:\s+(?:reduced|increased|limited|capped|raised|lowered|set)\s+to)?\s*$", re.IGNORECASE)
# (or a copula with a change to the value: "The personal accident benefit is reduced to $10,000 for …")
_COPULA_EN = re.compile(r"^\s*(?P<p>(?:[A-Za-z][\w'-]*\s+){0,8}?[A-Za-z][\w'-]*)\s+(?:is|are|will be|shall be)"
                        r"(?:\s+(?:reduced|increased|limited|capped|raised|lowered|restricted)\s+to)?\s*$")
# what follows the value before a gapped clause's own: a conjunction and the words up to its value ("…12 months,
# and a full-mouth X-ray once every")
_GAPPED = re.compile(r"^\s*,?\s*(?:and|or|while|whereas)\s+(?P<rest>[^,;.:()\d$€£¥]+?)\s*$", re.IGNORECASE)
_ARTICLE = re.compile(r"^\s*(?:(?:and|or|but|while)\s+)?(?:the|an?)\s+", re.IGNORECASE)
_CONDITION_EN = re.compile(rf"(?:{'|'.join(CLAUSE_OPENERS_EN)})\b", re.IGNORECASE)
_IF_EN = re.compile(r"(?:if|when|whenever|where)\b", re.IGNORECASE)  # a case's condition, not a time ("After …")
# the link between an English clause and the value it states ("within", "no later than", "up to", "costs"), and a
# comparison making the value a condition's threshold instead ("more than 12 hours", "aged")
_OWN_LINK_EN = re.compile(r"(?:^|\s)(?:(?P<up>up\s+to)(?:\s+an?\s+(?:maximum|total)\s+of)?|(?P<by>within|no\s+later\s+than)|"
                          r"(?P<cost>costs?))\s*$",
                          re.IGNORECASE)
_THRESHOLD_BEFORE_EN = re.compile(r"\b(?:more|less|fewer|greater|lower|higher|over|under|above|below|exceeds?|"
                                  r"exceeding|aged?)\s*(?:than\s*)?$", re.IGNORECASE)
# (any modal, "may" and "can" too: "you may cancel within 3 business days" is the time limit to cancel)
_MAY_EN = re.compile(r"\b(?:will|must|shall|should|may|can|(?:is|are)\s+required\s+to)\s+", re.IGNORECASE)
_IMPERATIVE_EN = re.compile(r"[A-Za-z]+\s+(?:a|an|the|your|any|all|each|every|this|that)\s", re.IGNORECASE)
_BOUND_AFTER_EN = re.compile(r"^\s*(?:(?:to|through|and|-|–)\s*\d|or\s+(?:over|more|older|under|less|younger|fewer))",
                             re.IGNORECASE)  # "1 to 4 Rental Days", "80 or over": a range's bound
_LEADING_JOIN_EN = re.compile(r"^\s*(?:and|or|but|then)\s+", re.IGNORECASE)
_CLAUSE_EN = re.compile(r"^(?P<s>(?:[A-Za-z][\w'-]*\s+){0,7}?[A-Za-z][\w'-]*)\s+(?:is|are|must be|will be|shall be|"
                        r"may be|can be|must|will|shall|may|has|have)\s+(?P<p>[A-Za-z][\w\s'-]{1,60}?)\s*$")


# a Chinese measure phrase's link to its value at the clause's end ("一般不超过", "最长为", "为每人每月"), with the
# extreme it states (kept in the predicate: 预收期限最长), and the conjunction that opens the clause
_MEASURE_LINK_ZH = re.compile(r"(?:仍|均|亦|也|一般|原则上|统一|累计)?(?:(?P<q>最长|最短|最高|最低|最多|最少)?"
                              r"(?:为|是|达到?|不超过|不得超过|不高于|不低于|不少于|不得少于|不得低于|提高至|调整为|降低至)"
                              rf"|(?P<c>{'|'.join(CHANGE_ZH)}))(?:每[^，,；;。\d]{{1,6}})?$")
_OPENING_LINK_ZH = re.compile(r"^(?:但|并|且|而|其中|另外)")
# a value that bounds a condition rather than stating a measure: "超过10万元的，", "3个月以上的"
_THRESHOLD_AFTER_ZH = re.compile(r"^(?:以上|以下|以内|及以上|及以下)?(?:[（(]含[）)])?的")
# a sentence's opening topic naming who or what: a short run of characters, no figure
_TOPIC_ZH = re.compile(rf"[{CJK_RANGE}]{{2,10}}")


def _ends_in_measure(phrase: str) -> bool:
    """Whether a Chinese phrase's head (its last few characters) is a measure word ("缓缴期限", "划入标准")."""
    return any(key in phrase[-4:] for key in PREDICATE_DIMENSIONS if not key.isascii())


# a status word opening with 在 is a name, no condition: 在职职工, 在校学生, 在岗人员
_STATUS_ZH = re.compile(r"在[职校岗编册读]")


def _opens_condition(text: str) -> bool:
    """Whether a Chinese phrase opens as a condition or circumstance ("在非医保定点的药店…", "按…", "对…"), not a name."""
    return text[:1] in CONDITION_OPENERS_ZH and not _STATUS_ZH.match(text)


def _says_something(predicate: str) -> bool:
    """Whether a predicate (or a subject) has a content word: not only "the", "for", "more than" (English), and at
    least two Chinese characters other than 的/为."""
    text = predicate.strip()
    if CJK.search(text):
        return len([ch for ch in text if CJK.match(ch) and ch not in "的为是"]) >= 2
    return any(w.lower() not in PREDICATE_FILLER_EN for w in re.findall(r"[A-Za-z][\w'-]*", text))


def _holds_another_value(subject: str) -> bool:
    """Whether a subject holds a figure other than a bound of the case it names ("5% of each progress payment";
    not "persons aged 65 to 79", "怀孕不满4个月流产", "2.5万元以上至6万元（含）的部分")."""
    # (a plain number is a name's, "Class 1"; a period after each / per is a rate's, "each complete 24 hours")
    found = [q for q in find_quantities(subject) if q.quantity.dimension not in ("date", "number")
             and not _CELL_PERIOD.search(subject[:q.start])]
    return bool(found) and interval(subject) is None and not _only_bounds(subject)


def _only_a_figure(predicate: str) -> bool:
    """Whether a predicate is mostly a quantity ("31 days", "14 days"): a figure, not what a value is."""
    text = re.sub(r"\s", "", predicate)
    found = find_quantities(predicate)
    return bool(text) and bool(found) and sum(len(re.sub(r"\s", "", m.text)) for m in found) >= 0.6 * len(text)


# a tier's bracket anywhere in its item ("10万元以上至30万元（含）的部分")
_TIER = re.compile(r"(?:^|(?<=[，,]))[^，,；;]*?\d[^，,；;]*?部分")
# what must be done within a time limit, right after it: "内申请零星报销；", "内办理报销手续"
# what a condition's case gets, led by the act of granting it ("享受产假", "定额支付"; not the bare act, "增加")
_GRANTED = re.compile(r"^(?=.{3})(?P<p>(?:享受|给予|(?:定额|一次性)?(?:支付|给付|发放|补助)|增加|减少|另加)[^，,；;。：:的\d\sA-Za-z]{0,8})$")
# who, during a time ("重点群体人员在培训期间", "失业人员在领取失业保险金期间")
_WHO_DURING = re.compile(r"^(?P<who>[^在，,；;\d]{2,12})在[^，,；;\d]{1,16}(?:期间|时)$")
# the act of paying right after a value, and what it pays ("150元给付住院津贴", "1.2元给予燃油及过路费补贴")
_PAID_AS = re.compile(r"^\s*(?:给付|支付|发放|给予|缴纳|计发|补贴|补助)(?P<what>[^，,；;。：:\d]{2,16})(?:[，,；;。]|$)")
# how far around a value (characters, each way) the bounds of sibling cases are looked for
_CASE_WINDOW = 240
# who must act, before the modal of a time limit's clause ("出差人员应当在…"), and the modal ending a topic clause
_MODAL_WORDS = r"应当|必须|应|须|需"
_MODAL = re.compile(_MODAL_WORDS)
# who acts, opening a clause that counts a time limit from a day ("街道办事处自受理申请之日起")
_ACTOR_FROM_ZH = re.compile(rf"^(?!{_MODAL_WORDS})(?P<s>[{CJK_RANGE}（）()]{{2,16}}?)(?:{_MODAL_WORDS})?(?:自|从|在|于)"
                            r"[^，,；;。\d]{2,20}?之?日起$")
_MODAL_END = re.compile(rf"(?:{_MODAL_WORDS})$")
# a leading phrase saying to whom or where a time-limited act is done ("向参保地经办机构备案", "到单位财务部门办理")
_RECIPIENT = re.compile(r"^(?:向|到|在|于|经)[^，,；;。\d]{1,16}?(?:机构|部门|单位|中心|窗口|机关|公司|银行)(?=..)")
# whom a value is for, right after it, up to the next value or the clause's end ("$75 for graduate applicants (…)"),
# and the link to the next value of a series ("$60 for undergraduate applicants and ")
_FOR_WHOM_EN = re.compile(r"^\s*(?:each\s+|per\s+\w+\s+)?for\s+(?:each\s+|every\s+|all\s+)?(?P<w>[A-Za-z][A-Za-z' -]{2,60}?)"
                          r"\s*(?:[;.,:()]|\band\b|\bor\b|$)", re.IGNORECASE)
_SERIES_LINK_EN = re.compile(r"(?:,|\band|\bor)\s*$", re.IGNORECASE)
# the case an item's value is for, right after it: "30 days if the tenancy has lasted less than 1 year;"
_CASE_AFTER_EN = re.compile(r"^\s*,?\s*(?P<c>(?:if|when|where|for|once)\s+[^;.:()]+?)\s*(?:[;.]|$)", re.IGNORECASE)
# an English time limit: "within" (or "no later than") right before the value, and the modal saying who must act
_WITHIN_EN = re.compile(r"\b(?:within|no\s+later\s+than|not\s+later\s+than)\s*$", re.IGNORECASE)
_PREPOSITION_EN = re.compile(r"(?:to|for|of|in|on|at|with|by|from|within|after|before|under|over)\b", re.IGNORECASE)
_MODAL_EN = re.compile(r"\b(?:will|must|shall|should|(?:is|are)\s+required\s+to|agrees?\s+to)\s+", re.IGNORECASE)
# (the act may follow a comma, and lead in a list: "…之日起30日内，向乡镇（街道）报告：")
_DEADLINE = re.compile(r"^\s*(?:以内|之内|内)[，,]?(?P<act>[^，,；;。：:\d]{2,20})(?:[，,；;。：:]|$)")
# how a time-limited act is done, before it ("通过监测系统报送", "通过网上平台申请")
_MANNER = re.compile(r"^通过[^，,；;。\d]{1,10}?(?:系统|平台|渠道|方式|网站|邮件|窗口)")
# a tier's bracket and what follows it up to its value ("500万元至1000万元的部分，不超过", "10万元以上的部分支付")
_BRACKET = re.compile(r"(?:^|(?<=[，,]))(?P<b>[^，,；;]*?\d[^，,；;]*?部分)[，,]?\s*(?P<p>[^，,；;\d]*)$")
_BOUND_OPENER = re.compile(r"^(?:不超过|不得超过|不高于|不低于|最高|最低|最多|按)")
_MEASURE_WORDS = sorted(PREDICATE_DIMENSIONS, key=len, reverse=True)
_SEE_TABLE = re.compile(r"见下表|详见|按下表|如下表")
# a name and its value, one item of a Chinese series ("职工医保300元"), and the series going on after a value
_NAMED_VALUE = re.compile(r"^[^，,；;。\d]{1,12}?(?:\d[\d,.]*|[一二三四五六七八九十百千万]+)[^，,；;。、\d]{0,4}$")
_ENUMERATION_NEXT = re.compile(r"^\s*[、和及]")
# how an item's value is counted and bounded, after its name ("每人每月不超过", "每次最高")
_COUNTED_BOUND_ZH = re.compile(r"(?P<per>(?:每(?:人次|人|户|月|天|日|年|次|学期))*)(?:不超过|不得超过|不高于|最高|最多)?$")
_TOPIC_END = re.compile(r"按|根据|依据|如下|见下表|详见|为|由|是|应|须|实行|执行")
# a measure's name alone: Chinese words without a verb a topic ends at, nor one that lists or scopes
_BARE_MEASURE = re.compile(rf"(?:(?!{_TOPIC_END.pattern}|见|包括|下列|以下|如|对|在)[{CJK_RANGE}])+")
# … an English one's verb, which only a whole clause is read to (labels keep to Chinese topics)
_TOPIC_END_EN = re.compile(r"\b(?:is|are|will|shall|must|depends?|var(?:y|ies)|appl(?:y|ies))\b", re.IGNORECASE)
TOPIC_WORDS_EN = 6
_BOUND_VERB = re.compile(r"不得?(?:超过|低于|高于|少于|多于)")


def _item_words(c: Candidate) -> str | None:
    """The text of a list item before its value, when the item holds one value; None for no item ("**第十一条**" is
    bold, no item)."""
    if c.cell or not LIST_ITEM.match(c.quote) or c.quote.lstrip().startswith("**") or c.lead is None \
            or c.quote.count(c.value) != 1:
        return None
    return LIST_ITEM.sub("", c.lead, count=1).strip()


def _twin_name(caption: str, zh: bool) -> str:
    """What a caption names its table by, to tell it from a table keyed alike: its title ("失业保险金月标准（原标准，适用于
    2025年6月及以前的发放月份）", "Maximum matching contribution from 1 April 2025"); not a sentence about the table ("在前款
    规定的范围内，本市…具体如下", "【住宿费标准】 员工出差住宿费在下列标准内凭发票据实报销"): ''."""
    name = caption_name(caption)
    if zh:
        name = name.removesuffix("如下").strip()
    bare = PARENTHESIS.sub("", name)
    if zh and (any(p in bare for p in "，,；;。【") or TABLE_POINTER.search(bare) or len(bare) > TWIN_CAPTION_ZH):
        return ""
    return name


def caption_topic(caption: str, *, whole_clause: bool = False) -> str:
    """What a caption sentence is about: its first clause up to its verb ("赔付比例按医院等级…确定" → 赔付比例),
    when that is a short phrase without numbers; else "". With whole_clause, a first clause with no verb, followed by
    more of the sentence, is the topic whole ("失业保险金的领取期限，根据…确定，具体如下表"), and a clause setting a bound
    is about what it bounds ("公积金贷款额度不得超过下表所列最高限额")."""
    first, *rest = re.split(r"[，,；;：:。]", caption, maxsplit=1)
    first = first.strip()
    english = whole_clause and first.isascii()
    m = (_TOPIC_END_EN if english else _TOPIC_END).search(first)
    if whole_clause:
        # (… or up to the bound it sets: "公积金贷款额度不得超过下表所列最高限额")
        m = min((x for x in (m, _BOUND_VERB.search(first)) if x), key=lambda x: x.start(), default=None)
        topic = first[: m.start()] if m else first if rest and rest[0].strip() else ""
    else:
        topic = first[: m.start()] if m else ""
    topic = topic.strip()
    # (an English topic is as short in words as a Chinese one in characters: "The maximum nightly room rate, including
    # breakfast…, is set by destination tier and Band:")
    short = len(topic.split()) <= TOPIC_WORDS_EN if english else len(topic) <= 12
    return topic if 2 <= len(topic) and short and not any(ch.isdigit() for ch in topic) else ""


class IndexStore:
    """The FactIndex and Indexer of each document opened with one engine, cached on disk when a directory is
    given; warnings (a cache turned off) are collected for the caller to show once."""

    def __init__(self, engine: EngineProtocol, model_id: str, cache_dir=None, *, max_attempts: int = 2,
                 on_progress: Callable[[Progress], None] | None = None) -> None:
        self.engine = engine
        self.model_id = model_id
        self.cache_dir = cache_dir
        self.max_attempts = max_attempts
        self.on_progress = on_progress
        self._open: dict[str, Indexer] = {}
        self._lock = threading.Lock()

    def indexer(self, document: Document) -> Indexer:
        with self._lock:
            found = self._open.get(document.sha256)
            if found is None:
                cache = None
                if self.cache_dir is not None:
                    from .indexcache import IndexCache

                    cache = IndexCache(self.cache_dir, document.sha256, self.model_id)
                index = FactIndex(document, self.model_id, cache)
                found = self._open[document.sha256] = Indexer(self.engine, index, max_attempts=self.max_attempts,
                                                              on_progress=self.on_progress)
            return found

    def warnings(self) -> list[str]:
        return [w for i in self._open.values() if i.index.cache is not None for w in i.index.cache.warnings]


_ITEM_EDGE = " \t，、,；;。.：:（）()的为"


# the words before a subject inside its enumeration item that name the item (博士 of 博士研究生, 一级 of 一级医院):
# a short modifier; a longer run is a clause the subject stands in ("借款金额不得超过出差…")
ITEM_PREFIX = 4


_CELL_PERIOD = re.compile(r"(?:\b(?:for\s+)?each(?:\s+full|\s+complete)?|\bper|\bevery|每)\s*$", re.IGNORECASE)
_CELL_CONDITION = re.compile(r"(?:\bafter|\bonce|\bbeyond|满|以后)\s*$", re.IGNORECASE)
_CELL_OWN = re.compile(r"(?:^|[(（;；,，])\s*(?P<w>[^()（）;；,，$€£¥\d]*?)\s*$")
_CELL_FILLER = re.compile(r"^(?:and|or|up\s+to|at\s+most|max(?:imum)?|plus|with|of|to|最高|最多|不超过)?\s*$", re.IGNORECASE)


def _in_cell(text: str, cell, cand: Candidate) -> tuple[str, str] | None:
    """In a table cell holding several values, what the words of the cell right before a value make of it:
    ("period", words) for the period of the value before it ("for each full 12 hours"), ("condition", words)
    for when it applies ("after 12 hours"), ("own", words) for the name it has of its own ("single item limit",
    "valuables"); ("own", "") when it has none. None for a cell of one value."""
    inside = find_quantities(text[cell.start:cell.end])
    if len(inside) < 2:
        return None
    at = cand.offset - cell.start
    before = text[cell.start:cand.offset]
    prev = [q for q in inside if q.end <= at]
    lead = before[prev[-1].end:] if prev else before
    if prev and _CELL_PERIOD.search(lead):
        return "period", lead.strip()
    if prev and _CELL_CONDITION.search(lead):
        return "condition", lead.strip()
    m = _CELL_OWN.search(lead)
    words = m.group("w").strip() if m else ""
    return "own", "" if _CELL_FILLER.match(words) or not _says_something(words) else words


def _only_bounds(text: str) -> bool:
    """Whether every figure of a condition bounds it ("妊娠不满12周", "怀孕4个月以上（含）流产"): the condition may then be a
    subject, its figures recorded as its bounds, not values."""
    bounds = condition_bounds(text)
    return all(any(a < q.end and q.start < b for a, b, *_ in bounds) for q in find_quantities(text))


def whole_item_subject(cand: Candidate, subject: str) -> str | None:
    """The whole head of a Chinese enumeration item when the label took only its tail: in
    "一级及以下定点医疗机构300元" the subject 医疗机构 names every level's item alike; the item's words before
    the value (up to the previous separator, without digits) name this one. None when that does not apply."""
    own = last_pieces(cand.before, 1)
    own = LIST_ITEM.sub("", own, count=1).strip(_ITEM_EDGE)
    if not subject or own == subject or not CJK.search(own) or len(own) > 24 or any(ch.isdigit() for ch in own):
        return None
    if own.endswith(subject):
        return own
    # the subject inside the item, its rate and predicate after it ("博士研究生每人每月不超过3500元" labelled 研究生,
    # which 硕士研究生 is too): the item's words up to the subject's end, when they are a name (no 的, 按, 为 …)
    own = _NUMBERING.sub("", own, count=1).strip()
    at = own.find(subject)
    if 0 < at <= ITEM_PREFIX and own.count(subject) == 1 and not any(ch in FUNCTION_ZH or ch in "不未" for ch in own[:at]):
        return own[:at + len(subject)]
    return None


CSV_FIELDS = ["key", "section", "subject", "predicate", "object_value", "fact_type", "source_text", "location",
              "heading_path", "rules"]


def write_csv(body: dict, out) -> None:
    """A fact table (FactIndex.to_json()) as CSV: one row per verified fact, its evidence location and heading path."""
    import csv

    w = csv.writer(out)
    w.writerow(CSV_FIELDS)
    for f in body["facts"]:
        loc = (f["evidence"].get("location") or {}).get("describe", "")
        w.writerow([f["key"], f["section"], f["subject"], f["predicate"], f["object_value"], f["fact_type"],
                    f["source_text"], loc, " > ".join(f["evidence"].get("heading_path") or []), " ".join(f["rules"])])
