"""The verified fact table: its cache (journal, re-verification, faults) and building and answering from it.

Pure tests hand-write journals; model tests build the index with the real embedded GGUF, in this process and
in real `aegis index` processes that are killed, run side by side, or denied a cache directory.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from aegis_tui.answer.factindex import FactIndex, Indexer, IndexStore
from aegis_tui.answer.indexcache import IndexCache, model_fingerprint
from aegis_tui.answer.relevance import candidate_key, document_candidates
from aegis_tui.samples import load_gold, sample_path
from aegis_tui.text.document import Document

ROOT = Path(__file__).resolve().parents[1]
EN = Document.load(sample_path("policy_en"))
SMALL = str(ROOT / "tests" / "docs" / "r_mileage_en.md")  # 7 values, most in a table: a quick full index
MODEL_ID = "test-model"
NO_ENGINE = SimpleNamespace(config=SimpleNamespace(n_parallel=1))  # the structural labellers submit nothing


def gold_entries(doc: Document, sample: str) -> list[dict]:
    """Journal entries for the gold facts that label one of the document's candidates exactly."""
    cands = document_candidates(doc)
    out = []
    for g in load_gold(sample).atomic_facts:
        for c in cands:
            if c.value == g.object_value and c.quote == g.source_text:
                out.append({"key": candidate_key(c), "fact": g.model_dump(mode="json")})
    return out


def write_journal(cache: IndexCache, entries: list[dict]) -> None:
    for e in entries:
        cache.append(e)


# -- the journal --------------------------------------------------------------------------------------

def test_journal_round_trip_and_a_torn_last_line(tmp_path):
    cache = IndexCache(tmp_path, EN.sha256, MODEL_ID)
    entries = gold_entries(EN, "policy_en")
    assert len(entries) == 3
    write_journal(cache, entries)
    with open(cache.path, "ab") as f:  # a writer killed mid-line
        f.write(b'{"key":"1:$5","fact":{"subj')
    again = IndexCache(tmp_path, EN.sha256, MODEL_ID)
    assert again.entries() == entries and again.skipped_lines == 1
    again.append({"key": "x", "rejected": {"rule": "r", "detail": "d", "fact": None}})
    lines = cache.path.read_bytes().split(b"\n")
    assert json.loads(lines[-2]) == {"key": "x", "rejected": {"rule": "r", "detail": "d", "fact": None}}
    assert IndexCache(tmp_path, EN.sha256, MODEL_ID).entries()[-1]["key"] == "x"


def test_the_key_is_document_model_and_version(tmp_path):
    paths = {IndexCache(tmp_path, EN.sha256, MODEL_ID).path, IndexCache(tmp_path, "0" * 64, MODEL_ID).path,
             IndexCache(tmp_path, EN.sha256, "other-model").path,
             IndexCache(tmp_path, EN.sha256, MODEL_ID, version="9.9").path}
    assert len(paths) == 4


def test_a_journal_labelled_by_earlier_labelling_rules_is_not_read(tmp_path, monkeypatch):
    from aegis_tui.answer import indexcache

    cache = IndexCache(tmp_path, EN.sha256, MODEL_ID)
    write_journal(cache, gold_entries(EN, "policy_en"))
    assert IndexCache(tmp_path, EN.sha256, MODEL_ID).entries()
    monkeypatch.setattr(indexcache, "LABELS", indexcache.LABELS + 1)
    assert IndexCache(tmp_path, EN.sha256, MODEL_ID).entries() == []


def test_a_foreign_journal_is_set_aside_not_trusted(tmp_path):
    cache = IndexCache(tmp_path, EN.sha256, MODEL_ID)
    write_journal(cache, gold_entries(EN, "policy_en"))
    lines = cache.path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0]) | {"model": "someone-else"}
    cache.path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    again = IndexCache(tmp_path, EN.sha256, MODEL_ID)
    assert again.entries() == []
    assert not again.path.exists() and again.path.with_suffix(".stale").exists()


def test_an_unwritable_cache_turns_off_with_one_warning(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    cache = IndexCache(blocker / "index", EN.sha256, MODEL_ID)
    write_journal(cache, gold_entries(EN, "policy_en"))
    assert not cache.enabled and len(cache.warnings) == 1
    assert "indexing in memory only" in cache.warnings[0]


def test_processes_appending_at_once_leave_whole_lines(tmp_path):
    code = ("import sys; from aegis_tui.answer.indexcache import IndexCache\n"
            "c = IndexCache(sys.argv[1], 'a' * 64, 'm')\n"
            "for i in range(300): c.append({'key': sys.argv[2] + str(i), 'pad': 'x' * 3000})\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path), f"p{n}-"], cwd=ROOT) for n in range(3)]
    assert [p.wait(120) for p in procs] == [0, 0, 0]
    entries = IndexCache(tmp_path, "a" * 64, "m").entries()
    assert sorted(e["key"] for e in entries) == sorted(f"p{n}-{i}" for n in range(3) for i in range(300))


def test_model_fingerprint_reads_head_and_tail(tmp_path):
    a, b = tmp_path / "a.gguf", tmp_path / "b.gguf"
    a.write_bytes(b"GGUF" + b"\0" * (3 << 20))
    b.write_bytes(b"GGUF" + b"\0" * (3 << 20 - 1) + b"\1")
    assert model_fingerprint(a) != model_fingerprint(b)
    assert model_fingerprint(a) == model_fingerprint(a)


# -- loading re-verifies ------------------------------------------------------------------------------

def test_cached_facts_are_re_verified_and_a_hand_edit_smuggles_nothing_in(tmp_path):
    cache = IndexCache(tmp_path, EN.sha256, MODEL_ID)
    entries = gold_entries(EN, "policy_en")
    first = entries[0]
    # three edits of a true entry: a value that is not the candidate's, a subject the value is not bound to,
    # and a key the document does not have
    wrong_value = {"key": first["key"], "fact": first["fact"] | {"object_value": "$0.76 per mile"}}
    misbound = {"key": entries[1]["key"], "fact": entries[1]["fact"] | {"subject": "cash advances"}}
    foreign = {"key": "999999:$1", "fact": first["fact"]}
    write_journal(cache, [entries[2], wrong_value, misbound, foreign])  # the first two true lines edited
    index = FactIndex(EN, MODEL_ID, IndexCache(tmp_path, EN.sha256, MODEL_ID))
    assert set(index.facts) == {entries[2]["key"]}            # the one untouched true fact
    assert index.distrusted == 3
    assert not index.is_done(first["key"]) and not index.is_done(entries[1]["key"])  # rebuilt, not trusted
    assert all(fv.passed for fv in (f.verdict for f in index.facts.values()))


def test_a_true_journal_loads_complete_facts_with_scope_and_evidence(tmp_path):
    write_journal(IndexCache(tmp_path, EN.sha256, MODEL_ID), gold_entries(EN, "policy_en"))
    index = FactIndex(EN, MODEL_ID, IndexCache(tmp_path, EN.sha256, MODEL_ID))
    body = index.to_json()
    assert body["summary"]["verified"] == 3 and body["summary"]["pending"] == index.total - 3
    mileage = next(f for f in body["facts"] if f["object_value"] == "$0.67 per mile")
    assert mileage["section"] == "6. Ground transportation"
    assert mileage["evidence"]["location"]["describe"].startswith("line ")
    assert {"source_verbatim", "value_in_source", "entity_binding"} <= set(mileage["rules"])
    for key in ("subject", "predicate", "object_value", "fact_type", "source_text", "scope", "evidence"):
        assert key in mileage


def _index_with_labels(doc: Document, tmp_path, label) -> tuple:
    """Index a document with a fake engine whose reply to each labelling prompt is label(prompt) (subject,
    predicate); the index and the prompts asked."""
    from fakes import FakeEngine, Reply

    asked: list[str] = []

    def script(req):
        prompt = req.prompt if isinstance(req.prompt, str) else json.dumps(req.prompt, ensure_ascii=False)
        asked.append(prompt)
        subject, predicate = label(prompt)
        return Reply(json.dumps({"subject": subject, "predicate": predicate}, ensure_ascii=False), "eog")

    engine = FakeEngine(n_parallel=1, script=script)
    try:
        indexer = IndexStore(engine, MODEL_ID, tmp_path).indexer(doc)
        indexer.run(threading.Event())
    finally:
        engine.close()
    return indexer.index, asked


def test_a_model_label_whose_subject_is_a_piece_of_a_word_is_asked_again_not_kept(tmp_path):
    # "行" of 实行: a single character names no one; the re-ask is told so, and its label is kept
    doc = Document.from_text("# 住宿费\n\n住宿费实行限额标准，其他人员每人每天不超过500元。\n", "stay.md")
    index, asked = _index_with_labels(
        doc, tmp_path, lambda prompt: ("其他人员" if "names nothing" in prompt else "行", "每人每天不超过"))
    [fact] = [f.fact for f in index.facts.values() if f.fact.object_value == "500元"]
    assert fact.subject == "其他人员" and len(asked) == 2


def test_a_model_subject_is_not_widened_into_a_clause_stating_its_predicate(tmp_path):
    # "合同金额 | 履约保证金" for 10%: the item's words before the value end with the subject, but they are a clause
    # ("履约保证金为合同金额的") that states the predicate: the widened label would repeat it
    doc = Document.from_text("# 采购程序\n\n中标人应在签订合同前提交履约保证金，履约保证金为合同金额的10%。\n", "bond.md")
    index, _ = _index_with_labels(doc, tmp_path, lambda prompt: ("合同金额", "履约保证金"))
    [fact] = [f.fact for f in index.facts.values() if f.fact.object_value == "10%"]
    assert (fact.subject, fact.predicate) == ("合同金额", "履约保证金")


def test_a_model_subject_holding_another_figure_is_asked_again(tmp_path):
    # "5% of each progress payment | retained and released" for 12 months: that subject is another value's clause
    doc = Document.from_text("# Retention\n\nFor construction contracts, 5% of each progress payment is retained and "
                             "released 12 months after practical completion.\n", "retention.md")
    index, asked = _index_with_labels(doc, tmp_path, lambda prompt: (
        "construction contracts" if "another figure" in prompt else "5% of each progress payment", "released"))
    labels = {f.fact.object_value: f.fact.subject for f in index.facts.values()}
    assert labels.get("12 months") == "construction contracts" and any("another figure" in p for p in asked)


def test_a_model_label_whose_predicate_is_another_figure_is_asked_again(tmp_path):
    # "Trip | 31 days" for 45 days: the predicate is the clause's other figure, not what 45 days is
    doc = Document.from_text("# Trips\n\nEach trip may last up to 31 days, or up to 45 days with the extension.\n",
                             "trip.md")
    index, asked = _index_with_labels(
        doc, tmp_path, lambda prompt: ("trip", "last up to" if "another figure" in prompt else "31 days"))
    labels = {f.fact.object_value: f.fact.predicate for f in index.facts.values()}
    assert labels.get("45 days") != "31 days" and "another figure" in "".join(asked)


@pytest.mark.parametrize("text, value, label, predicate", [
    # a ratio raised by points: percentage points are a change of a percent, and the document says so
    ("# 倾斜救助\n\n年满70周岁的老年人，在表1规定的住院救助比例基础上提高5个百分点。\n", "5个百分点",
     ("年满70周岁的老年人", "住院救助比例"), "住院救助比例提高"),
    ("# 多人口家庭\n\n户籍人口5人及以上的家庭，每月各档电量上限增加100千瓦时。\n", "100千瓦时",
     ("户籍人口5人及以上的家庭", "电量上限"), "电量上限增加"),
    ("# Price rises\n\nFrom April 2026 each plan's monthly price is increased by £2.50.\n", "£2.50",
     ("each plan", "monthly price"), "monthly price increase"),
])
def test_a_label_the_document_states_as_a_change_is_kept_as_that_change(tmp_path, text, value, label, predicate):
    doc = Document.from_text(text, "change.md")
    index, _ = _index_with_labels(doc, tmp_path, lambda prompt: label)
    [fact] = [f.fact for f in index.facts.values() if f.fact.object_value == value]
    assert (fact.subject, fact.predicate) == (label[0], predicate)


def test_a_level_is_not_relabelled_as_a_change(tmp_path):
    # "不超过500元" is a cap: the level itself, verified as the model labelled it
    doc = Document.from_text("# 住宿费\n\n其他人员每人每天住宿费不超过500元。\n", "stay.md")
    index, _ = _index_with_labels(doc, tmp_path, lambda prompt: ("其他人员", "每人每天住宿费"))
    [fact] = [f.fact for f in index.facts.values() if f.fact.object_value == "500元"]
    assert fact.predicate == "每人每天住宿费"


def test_a_model_predicate_loses_the_section_number_its_span_began_with(tmp_path):
    # "3.3 request a credit within": the clause's number would be an unverified number in every answer
    # ("may": no time limit's modal, which structure would label first)
    doc = Document.from_text("# Credits\n\n3.3 Customer may request a credit within 60 days.\n", "credits.md")
    index, _ = _index_with_labels(doc, tmp_path, lambda prompt: ("Customer", "3.3 request a credit within"))
    [fact] = [f.fact for f in index.facts.values()]
    assert fact.predicate == "request a credit within"


def test_a_value_the_model_cannot_label_is_labelled_by_its_introducing_phrase_under_the_title(tmp_path):
    # words after the value ("unless …") keep structure from deciding first; after the model's last label failed,
    # the phrase that introduces the value, under the section's title, is the label when it verifies
    doc = Document.from_text("# Term and renewal\n\n1.2 After the Initial Term, the Agreement renews automatically for "
                             "successive Renewal Terms of 12 months unless either party gives notice at least 90 days before "
                             "the end of the term.\n", "terms.md")
    index, asked = _index_with_labels(doc, tmp_path, lambda prompt: ("and", "the"))
    [fact] = [f.fact for f in index.facts.values() if f.fact.object_value == "12 months"]
    assert (fact.subject, fact.predicate) == ("Term and renewal", "successive Renewal Terms")
    assert "90 days" not in {f.fact.object_value for f in index.facts.values()}  # no phrase introduces it


_FUND_ZH = ("# 住房公积金管理办法\n\n## 个人住房贷款\n\n第十二条 贷款期限最长为30年。\n\n第十三条 单笔贷款金额超过50万元的，"
            "须经集体审议。\n\n## 医疗\n\n第十四条 一个自然年度内，职工医保统筹基金支付住院费用的最高限额为32万元。\n\n"
            "## 病假\n\n第十五条 病假工资每月不低于1,888元。\n\n"
            "## 示例\n\n示例一：某职工申请时，贷款期限为20年。\n")
_CLAIMS_EN = ("# Claims\n\n## What to do\n\nFor any theft, file a police report within 72 hours of discovering the loss. "
              "If a bag is delayed more than 12 hours, call us.\n\n## Extra cover\n\n- Fire Department Service Charge: "
              "up to $500.\n- Full-time care covers up to 10 hours.\n- Rentals of 1 to 4 days are charged daily.\n\n"
              "## Reporting\n\nSubmit the claim form (form CF) within 30 days of returning home.\n\n"
              "## Visitors\n\nA visitor pass costs $12 per day. Junior memberships (ages 13 to 17) cost $24.99 per "
              "month.\n")


@pytest.mark.parametrize("text, junk, labelled, unlabelled", [
    # a Chinese clause linking a named measure to its value ("贷款期限最长为", "…费用的最高限额为"): the measure phrase
    # with the extreme it states is the predicate, the words before its 的 (or the section's title) the subject; a
    # condition's threshold ("超过50万元的") is no measure
    (_FUND_ZH, ("不", "收"), {"30年": ("个人住房贷款", "贷款期限最长"),
                             "32万元": ("职工医保统筹基金支付住院费用", "最高限额"),
                             "1,888元": ("病假", "工资每月")}, {"50万元"}),
    # an English imperative's time limit is the deadline to do it, an item's head before "up to" names the cap, under
    # the section's title; what costs a price is its subject (without the case its parentheses state, when that does
    # not verify); not a cap no noun names, a condition's threshold, nor a range's bound
    (_CLAIMS_EN, ("the", "and"), {"72 hours": ("What to do", "deadline to file a police report"),
                                  "$500": ("Extra cover", "Fire Department Service Charge"),
                                  "30 days": ("Reporting", "deadline to submit the claim form"),  # (parentheses)
                                  "$12 per day": ("visitor pass", "price"),
                                  "$24.99 per month": ("Junior memberships", "price")}, {"12 hours", "10 hours", "1"}),
])
def test_a_value_the_model_cannot_label_is_labelled_by_its_own_clause(tmp_path, text, junk, labelled, unlabelled):
    # after the model's last label failed (a junk label, twice)
    index, _ = _index_with_labels(Document.from_text(text, "own.md"), tmp_path, lambda prompt: junk)
    labels = {f.fact.object_value: (f.fact.subject, f.fact.predicate) for f in index.facts.values()}
    assert {v: labels.get(v) for v in labelled} == labelled
    assert not unlabelled & set(labels)


def test_a_worked_example_s_figure_is_no_measure_its_clause_names():
    doc = Document.from_text(_FUND_ZH, "fund.md")
    index = FactIndex(doc, MODEL_ID)
    [(key, example)] = [(k, c) for k, c in index.candidates.items() if c.value == "20年"]
    assert not Indexer(NO_ENGINE, index)._from_measure_phrase(key, example)


def _labels_after_junk(tmp_path, junk, text):
    """The labels a document's values get when the model labels every one with junk, twice: structure's and the
    fallbacks' after the model's last label failed."""
    index, _ = _index_with_labels(Document.from_text(text, "doc.md"), tmp_path, lambda prompt: junk)
    return {f.fact.object_value: (f.fact.subject, f.fact.predicate) for f in index.facts.values()}


def test_a_value_after_an_english_condition_is_labelled_by_its_phrase_for_that_condition(tmp_path):
    # "If a scheduled payment is declined …, a Returned Payment Fee of $20.00 will be charged": after the model's last
    # label failed, the condition is whom the phrase's value is for (the title would drop it); not a condition
    # holding a figure of its own
    labels = _labels_after_junk(tmp_path, ("be", "a"),
                                "# Billing and Payment\n\n2.2 Declined Payments. If a scheduled payment is declined or "
                                "returned for any reason, a Returned Payment Fee of $20.00 will be charged.\n\n2.3 Late "
                                "Fee. If your account remains past due 10 days after the billing date, a Late Fee of "
                                "$15.00 will be added.\n")
    assert labels["$20.00"] == ("a scheduled payment is declined or returned for any reason", "Returned Payment Fee")
    assert "$15.00" not in labels


def test_a_value_a_sentence_s_measure_for_someone_introduces_is_labelled_by_both(tmp_path):
    # "(2) The fee for a second residential permit … is 150% of the Schedule C fee": after the model's last label failed
    # ("the | the"), the measure is the predicate and whom it is for the subject; not a figure a condition opens with
    labels = _labels_after_junk(tmp_path, ("the", "the"),
                                "# Residential permits\n\n(1) The fee for a household's first residential permit is set "
                                "out in Schedule C.\n\n(2) The fee for a second residential permit issued to the same "
                                "household in the same permit year is 150% of the Schedule C fee.\n\n(3) If the fee "
                                "for a permit is unpaid, a charge of $25 applies.\n")
    assert labels["150%"] == ("a second residential permit issued to the same household in the same permit year", "fee")
    assert "fee" not in labels.get("$25", ("", ""))[1]


def test_an_english_share_of_a_base_is_labelled_by_that_base_under_its_section(tmp_path):
    # "… for six (6) months at 55% of the annual price, rounded up …" under "4.7 Six-month permits": after the model's
    # last label failed, the share of the base its next words name, of what the section's title names; not a share a
    # condition opens with
    labels = _labels_after_junk(tmp_path, ("the", "the"),
                                "# Permits\n\n## 4.7 Six-month permits\n\nResident permits may be bought for six (6) "
                                "months at 55% of the annual price, rounded up to the nearest pound.\n\n## 4.8 Refunds"
                                "\n\nIf a permit is surrendered early, 40% of the unused months is refunded.\n")
    assert labels["55%"] == ("Six-month permits", "share of the annual price")
    assert "40%" not in labels


def test_a_value_a_copula_s_subject_names_is_labelled_by_it_under_the_title(tmp_path):
    # "The single transaction limit is $2,500 and the monthly limit per card is $10,000": after the model's last
    # label failed ("the | is"), each copula's subject names its value, under the section's title
    doc = Document.from_text("# Purchasing cards\n\n5.2 Purchasing cards may be used for low-value purchases. The single "
                             "transaction limit is $2,500 and the monthly limit per card is $10,000.\n", "cards.md")
    index, _ = _index_with_labels(doc, tmp_path, lambda prompt: ("the", "is"))
    labels = {f.fact.object_value: (f.fact.subject, f.fact.predicate) for f in index.facts.values()}
    assert labels == {"$2,500": ("Purchasing cards", "single transaction limit"),
                      "$10,000": ("Purchasing cards", "monthly limit per card")}


def test_questions_ensuring_values_at_once_share_one_run(tmp_path):
    # two answers (or an answer and the background run) that find no run going must not each start one: the
    # second used to raise "the index is already being built" and lose its answer. A barrier in run() holds
    # both callers at the moment they would start a run, where the race happened
    from fakes import FakeEngine, Reply

    from aegis_tui.answer.factindex import Indexer

    doc = Document.from_text("# Fees\n\nThe entry fee is 30 dollars. The annual fee is 120 dollars.\n", "fees.md")
    engine = FakeEngine(n_parallel=2, script=lambda req: Reply('{"subject": "member", "predicate": "fee"}', "eog"))
    gate = threading.Barrier(2, timeout=2)

    class Gated(Indexer):
        def run(self, cancel, only=None):
            gate.wait()
            super().run(cancel, only)

    errors: list[BaseException] = []
    try:
        store = IndexStore(engine, MODEL_ID, tmp_path)
        base = store.indexer(doc)
        indexer = Gated(engine=engine, index=base.index)
        keys = list(indexer.index.candidates)

        def ask() -> None:
            try:
                indexer.ensure(keys, threading.Event())
            except BaseException as exc:  # noqa: BLE001 - the test reports it
                errors.append(exc)

        threads = [threading.Thread(target=ask) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
    finally:
        engine.close()
    assert not [e for e in errors if not isinstance(e, threading.BrokenBarrierError)], errors
    assert len(keys) == 2 and all(indexer.index.is_done(k) for k in keys)


# -- with the model ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def engine(embedded_model):
    from aegis_tui.engine import Engine, EngineConfig

    e = Engine(EngineConfig(model_path=embedded_model, n_parallel=4, n_ctx_per_slot=2048))
    yield e
    e.close()


class Counting:
    """The engine, counting the requests submitted through it."""

    def __init__(self, engine) -> None:
        self._engine, self.submitted = engine, 0

    def __getattr__(self, name):
        return getattr(self._engine, name)

    def submit(self, *args, **kwargs):
        self.submitted += 1
        return self._engine.submit(*args, **kwargs)


@pytest.mark.model
def test_a_question_indexes_what_it_needs_and_a_reopened_document_answers_from_the_cache(engine, tmp_path):
    from aegis_tui.answer.pipeline import Pipeline, PipelineConfig

    question = "What is the nightly lodging cap?"
    store = IndexStore(engine, MODEL_ID, tmp_path)
    ans = Pipeline(engine, PipelineConfig(strategy="index"), indexes=store).answer(EN, question)
    index = store.indexer(EN).index
    assert 0 < index.done < index.total  # only what the question needed
    values = sorted(fv.fact.object_value for fv in ans.report.verified)
    assert values == ["$250 per night", "$400 per night"], ans.to_json()
    assert "Lodging" in ans.answer and "$250" in ans.answer and "$400" in ans.answer

    store.indexer(EN).run(threading.Event())  # the rest of the document
    assert index.complete and len(index.facts) >= index.total // 2

    counting = Counting(engine)
    reopened = IndexStore(counting, MODEL_ID, tmp_path)
    again = reopened.indexer(EN).index
    assert again.complete and again.loaded == len(index.facts) and again.distrusted == 0
    ans2 = Pipeline(counting, PipelineConfig(strategy="index"), indexes=reopened).answer(EN, question)
    assert sorted(fv.fact.object_value for fv in ans2.report.verified) == values
    assert ans2.timings["index_s"] < 0.05 and reopened.indexer(EN).requests == 0  # no labelling at all


@pytest.mark.model
def test_a_question_about_another_thing_gets_none_of_these_facts(engine, tmp_path):
    from aegis_tui.answer.pipeline import Pipeline, PipelineConfig

    store = IndexStore(engine, MODEL_ID, tmp_path)
    ans = Pipeline(engine, PipelineConfig(strategy="index"), indexes=store).answer(
        EN, "What is the mileage reimbursement rate for a personal vehicle?")
    values = [fv.fact.object_value for fv in ans.report.verified] if ans.report else []
    assert "$0.67 per mile" in values, ans.to_json()
    assert not {"$250 per night", "$400 per night", "$75", "$110"} & set(values)


def _aegis(*args, env=None, **kw):
    return subprocess.Popen([sys.executable, "-m", "aegis_tui", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})}, **kw)


def _journal_lines(directory: Path) -> list[bytes]:
    files = list(directory.glob("*.jsonl"))
    return files[0].read_bytes().split(b"\n")[1:] if files else []


@pytest.mark.model
def test_killing_the_indexer_loses_nothing_verified_and_the_next_run_resumes(embedded_model, tmp_path):
    env = {"AEGIS_CACHE_DIR": str(tmp_path)}
    args = ("index", "sample:en", "--model", embedded_model, "--no-audit", "--format", "json", "--parallel", "2")
    proc = _aegis(*args, env=env)
    deadline = time.monotonic() + 240
    while len([x for x in _journal_lines(tmp_path) if x.strip()]) < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    kept = [json.loads(x) for x in _journal_lines(tmp_path) if x.strip()][:4]
    assert len(kept) == 4
    verified_before = {e["key"]: e["fact"] for e in kept if "fact" in e}

    done = _aegis(*args, env=env)
    out, err = done.communicate(timeout=600)
    assert done.returncode == 0, err
    body = json.loads(out)
    assert body["index"]["from_cache"] >= 4 and body["index"]["distrusted_cache_entries"] == 0
    assert body["summary"]["pending"] == 0
    facts = {f["key"]: f for f in body["facts"]}
    for key, fact in verified_before.items():  # every fact verified before the kill is in the table, as it was
        assert facts[key]["subject"] == fact["subject"] and facts[key]["object_value"] == fact["object_value"]


@pytest.mark.model
def test_two_processes_on_one_document_share_the_cache_without_corrupting_it(embedded_model, tmp_path):
    env = {"AEGIS_CACHE_DIR": str(tmp_path)}
    args = ("index", SMALL, "--model", embedded_model, "--no-audit", "--format", "json", "--parallel", "1")
    procs = [_aegis(*args, env=env) for _ in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [e for _, e in outs]
    for out, _ in outs:
        assert json.loads(out)["summary"]["pending"] == 0
    lines = [x for x in _journal_lines(tmp_path) if x.strip()]
    assert all(isinstance(json.loads(x), dict) for x in lines)  # whole lines only
    small, model = Document.load(SMALL), json.loads(outs[0][0])["model"]
    reloaded = FactIndex(small, model, IndexCache(tmp_path, small.sha256, model))
    assert reloaded.complete and reloaded.distrusted == 0


@pytest.mark.model
def test_an_unwritable_cache_directory_warns_once_and_indexes_in_memory(embedded_model, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    proc = _aegis("index", SMALL, "--model", embedded_model, "--no-audit", "--format", "csv",
                  env={"AEGIS_CACHE_DIR": str(blocker / "cache")})
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0
    warnings = [line for line in err.splitlines() if line.startswith("aegis: warning:")]
    assert len(warnings) == 1 and "in memory only" in warnings[0] and "Traceback" not in err
    rows = out.splitlines()
    assert rows[0].startswith("key,section,subject,predicate,object_value") and len(rows) > 2


@pytest.mark.model
def test_a_full_disk_degrades_to_memory(embedded_model, tmp_path):
    code = ("import resource, signal, sys\n"
            "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
            "resource.setrlimit(resource.RLIMIT_FSIZE, (700, 700))\n"
            "from aegis_tui.__main__ import main\n"
            "sys.exit(main(sys.argv[1:]))\n")
    proc = subprocess.run([sys.executable, "-c", code, "index", SMALL, "--model", embedded_model,
                           "--no-audit", "--format", "json"], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "AEGIS_CACHE_DIR": str(tmp_path)}, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "File too large" in proc.stderr and "in memory only" in proc.stderr
    body = json.loads(proc.stdout)
    assert body["summary"]["pending"] == 0 and body["summary"]["verified"] > 0
    # what was written before the disk filled is whole lines, and loads
    small = Document.load(SMALL)
    assert IndexCache(tmp_path, small.sha256, body["model"]).entries() is not None


@pytest.mark.model
def test_a_question_naming_one_row_in_words_and_another_by_a_range_gets_both(engine, tmp_path):
    from aegis_tui.answer.pipeline import Pipeline, PipelineConfig

    doc = Document.from_text(
        "# 职工普通门诊待遇\n\n职工医保参保人员的普通门诊费用由统筹基金按下表规定支付：\n\n"
        "| 人员类别 | 年度起付标准 | 支付比例 | 年度最高支付限额 |\n| --- | --- | --- | --- |\n"
        "| 在职职工 | 650元 | 78% | 4500元 |\n| 退休人员（不满75周岁） | 480元 | 83% | 6000元 |\n"
        "| 退休人员（75周岁及以上） | 480元 | 88% | 7800元 |\n", "outpatient.md")
    store = IndexStore(engine, MODEL_ID, tmp_path)
    ans = Pipeline(engine, PipelineConfig(strategy="index"), indexes=store).answer(
        doc, "在职职工和不到75岁的退休人员，普通门诊一年最多分别能报多少？")
    values = sorted(fv.fact.object_value for fv in ans.report.verified)
    # 在职职工 is named in words, 不满75周岁 by the range "不到75岁" holds; 75周岁及以上 is another case
    assert values == ["4500元", "6000元"], ans.to_json()


@pytest.mark.model
def test_one_figure_asked_about_an_unmentioned_thing_falls_back_with_the_reason(engine, tmp_path):
    from aegis_tui.answer.pipeline import Pipeline, PipelineConfig
    from aegis_tui.answer.states import Outcome

    doc = Document.from_text(
        "# Excesses\n\nThe excess is the amount you pay towards each claim.\n\n| Section | Excess |\n| --- | --- |\n"
        "| Cancellation | £75 |\n| Personal belongings | £60 |\n| Personal money | £60 |\n| Personal liability | £180 |\n",
        "excess.md")
    pipe = Pipeline(engine, PipelineConfig(strategy="index"), indexes=IndexStore(engine, MODEL_ID, tmp_path))
    ans = pipe.answer(doc, "What is the limit for car hire excess?")
    assert ans.state == Outcome.FALLBACK and not (ans.report and ans.report.verified), ans.to_json()
    assert any("never mentions (limit, car, hire)" in s["reason"] for s in ans.skipped), ans.skipped
    assert ans.answer.endswith("It does not mention: limit, car, hire."), ans.answer
    named = pipe.answer(doc, "What is the excess for personal liability?")
    assert [fv.fact.object_value for fv in named.report.verified] == ["£180"], named.to_json()


def test_a_member_of_a_series_the_document_does_not_number_falls_back_and_says_so(tmp_path):
    # "Severity 3" where the table has Severity 1 and 2: another severity's figure would answer another question
    from fakes import FakeEngine

    from aegis_tui.answer.pipeline import Pipeline, PipelineConfig
    from aegis_tui.answer.states import Outcome

    doc = Document.from_text("# Service levels\n\n| Severity | Response time |\n| --- | --- |\n"
                             "| Severity 1 | 15 minutes |\n| Severity 2 | 2 hours |\n", "sla.md")
    engine = FakeEngine(n_parallel=1)  # table cells are labelled from the table: no request
    try:
        pipe = Pipeline(engine, PipelineConfig(strategy="index"), indexes=IndexStore(engine, MODEL_ID, tmp_path))
        absent = pipe.answer(doc, "What is the response time for Severity 3 incidents?")
        named = pipe.answer(doc, "What is the response time for Severity 2 incidents?")
    finally:
        engine.close()
    assert absent.state == Outcome.FALLBACK and absent.answer.endswith("It does not mention: Severity 3."), absent.answer
    assert [fv.fact.object_value for fv in named.report.verified] == ["2 hours"], named.to_json()


def test_when_every_fact_chosen_is_found_not_to_answer_the_next_best_answers(tmp_path):
    # the 30 days' sentence carries "4 or more citations", which no fact states, so it cannot be written: the
    # question's other part (the removal fee) still answers, chosen again without it (it had declined)
    import re

    from fakes import Reply

    doc = Document.from_text("# Booting\n\nA vehicle with 4 or more citations unpaid for more than 30 days may be "
                             "immobilized with a boot. The boot removal fee is $75.\n", "boot.md")
    labels = {"30 days": ("vehicle", "4 or more citations unpaid for more than")}

    def script(req):
        value = re.findall(r"Value: (.+)", req.prompt)[-1].strip()
        subject, predicate = labels.get(value, ("the", "a"))  # "4": no label passes
        return Reply(json.dumps({"subject": subject, "predicate": predicate}), "eog")

    ans = _answer_with_fake(doc, "My car got a boot on it. What does it cost to have it taken off, and how many "
                                 "unpaid tickets does it take before they boot you?", tmp_path, script)
    assert [fv.fact.object_value for fv in ans.report.verified] == ["$75"], ans.to_json()
    assert any(t.reason.startswith("choosing again without") for t in ans.transitions)
    assert not any(s["value"] == "$75" for s in ans.skipped)  # what answers is not also listed as skipped


def test_a_period_the_question_gives_picks_the_fine_for_its_case(tmp_path):
    # "forgot about it for six weeks": a figure the question gives (not a thing it asks the fine of), held by "after
    # 30 days" and not by "within 30 days"; "within 15 feet" bounds another thing than the days
    from aegis_tui.text.ranges import condition_bounds, intervals

    assert [(r.hi, r.unit) for r in intervals("Fine paid within 30 days")] == [(30, "days")]
    # ("within 15 feet" is a range of its own, of feet, which a question's days are never held by)
    assert sorted((r.lo, r.lo_in, r.hi, r.unit) for r in intervals("P-04 Within 15 feet of a fire hydrant Fine after "
                                                                 "30 days")) \
        == [(-math.inf, False, 15, "ft"), (30, False, math.inf, "days")]
    assert intervals("Off-Peak: weekends after 2pm") == ()  # a time of day bounds no case
    assert condition_bounds("Landlord will return the deposit within 21 days.") == []  # the value's own limit
    doc = Document.from_text(
        "# Fine schedule\n\nParking Services mails unpaid citations every week.\n\n"
        "| Code | Violation | Fine paid within 30 days | Fine after 30 days |\n| --- | --- | --- | --- |\n"
        "| P-02 | Parked in a lot not authorized by the permit | $35 | $55 |\n"
        "| P-04 | Fire lane or within 15 feet of a fire hydrant | $100 | $150 |\n", "fines.md")
    # (table cells are labelled from the table: no request)
    ans = _answer_with_fake(doc, "I got a ticket for parking next to a fire hydrant and forgot about it for six "
                                 "weeks. How much do I have to pay now?", tmp_path)
    assert [fv.fact.object_value for fv in ans.report.verified] == ["$150"], ans.to_json()


def _answer_with_fake(doc: Document, question: str, tmp_path, script=None):
    """The index answer to question with a fake engine replying script(request) to each labelling prompt."""
    from fakes import FakeEngine

    from aegis_tui.answer.pipeline import Pipeline, PipelineConfig

    engine = FakeEngine(n_parallel=1, script=script)
    try:
        pipe = Pipeline(engine, PipelineConfig(strategy="index"), indexes=IndexStore(engine, MODEL_ID, tmp_path))
        return pipe.answer(doc, question)
    finally:
        engine.close()


@pytest.mark.model
def test_a_question_speaking_its_durations_otherwise_is_read_as_the_document_writes_them(engine, tmp_path):
    from aegis_tui.answer.pipeline import Pipeline, PipelineConfig

    doc = Document.from_text(
        "# 路内停车收费标准\n\n路内泊位小型车白天停放收费标准如下：\n\n| 区域 | 首小时 | 之后每30分钟 | 单日封顶 |\n"
        "| --- | --- | --- | --- |\n| 一类区域 | 10元 | 4元 | 80元 |\n| 二类区域 | 6元 | 3元 | 50元 |\n\n"
        "不足30分钟的，按30分钟计收。\n", "parking.md")
    question = "我把车停在一类区域路边，第一个小时收多少？后面每半小时又收多少？"
    store = IndexStore(engine, MODEL_ID, tmp_path)
    ans = Pipeline(engine, PipelineConfig(strategy="index"), indexes=store).answer(doc, question)
    values = sorted(fv.fact.object_value for fv in ans.report.verified)
    # "第一个小时" is the document's 首小时, "每半小时" its 每30分钟; the answer keeps the asker's words
    assert values == ["10元", "4元"], ans.to_json()
    assert ans.question == question and ans.to_json()["question"] == question
