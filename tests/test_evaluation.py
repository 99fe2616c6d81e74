"""Faithfulness evaluation: gold recall, unsupported numbers and rejections, scored on the samples' gold facts."""

import pytest

from aegis_tui.answer.evaluation import gold_in_prose, gold_recovered, score, summarize
from aegis_tui.answer.realize import EntityAwareRealizer
from aegis_tui.answer.states import Answer, Outcome
from aegis_tui.answer.verify import Tier1CodeVerifier
from aegis_tui.samples import load_gold, load_questions, sample_path
from aegis_tui.schema import AtomicFact, ExtractionPayload
from aegis_tui.text.document import Document

DOCS = {name: Document.load(sample_path(name)) for name in ("policy_zh", "policy_en")}
GOLD = {name: load_gold(name).atomic_facts for name in DOCS}
QUESTIONS = load_questions()


def _fact(subject, value, predicate="起付线"):
    return AtomicFact(subject=subject, predicate=predicate, object_value=value, source_text=value)


RECOVERED = [
    # (gold fact, verified fact, recovered, comment)
    (GOLD["policy_zh"][0], _fact("一级及以下医疗机构", "300元"), True, "same subject and value"),
    (GOLD["policy_zh"][0], _fact("一级及以下定点医疗机构", "三百元"), True, "value written in Chinese numerals, "
     "subject with the document's modifier"),
    (GOLD["policy_zh"][6], _fact("统筹基金", "200000元", "限额"), True, "20万元 = 200000元; the predicate is free"),
    (GOLD["policy_zh"][0], _fact("二级医疗机构", "300元"), False, "the right value bound to another subject"),
    (GOLD["policy_zh"][0], _fact("一级及以下医疗机构", "600元"), False, "the right subject with another value"),
    (GOLD["policy_zh"][3], _fact("一级及以下医疗机构", "85元"), False, "85元 is not 85%"),
    (GOLD["policy_en"][0], _fact("standard cities", "$250 per night", "cap"), True, "a rate equals itself"),
    (GOLD["policy_en"][0], _fact("standard cities", "$250", "cap"), False, "the amount alone is not the rate"),
    (GOLD["policy_en"][5], _fact("reports", "30 days", "deadline"), True, "a subject inside the gold subject"),
]


@pytest.mark.parametrize("gold,fact,recovered,comment", RECOVERED, ids=[r[3] for r in RECOVERED])
def test_gold_recovered(gold, fact, recovered, comment):
    assert gold_recovered(gold, [fact]) is recovered


PROSE = "一级医院起付线300元，报销比例85%，三级医院报销比例60%，年度封顶线为20万元，二级医院起付线为650元。"


@pytest.mark.parametrize("index,found", [
    (0, True),   # 300元
    (1, False),  # 600元: the prose says 650元
    (3, True),   # 85%
    (5, False),  # 55%: the prose says 60%
    (6, True),   # 20万元
])
def test_gold_in_prose_needs_only_the_value(index, found):
    assert gold_in_prose(GOLD["policy_zh"][index], PROSE) is found


def _two_stage(name, facts, rejected=(), ttft=0.5, e2e=2.0):
    doc = DOCS[name]
    report = Tier1CodeVerifier(doc).verify(ExtractionPayload(atomic_facts=facts))
    text = EntityAwareRealizer().realize(report, doc)
    state = Outcome.DONE if report.verified else Outcome.FALLBACK
    return Answer(question="", mode="two-stage", answer=text, state=state, strategy="fan-out", report=report,
                  rejected=list(rejected), timings={"ttft_s": ttft, "e2e_s": e2e})


def _baseline(text, e2e=1.0):
    return Answer(question="", mode="baseline", answer=text, state=Outcome.DONE, timings={"e2e_s": e2e})


def _question(name, i):
    q = QUESTIONS[name][i]
    return q["question"], [GOLD[name][g] for g in q["gold"]]


def test_score_two_stage_with_every_gold_fact():
    question, gold = _question("policy_zh", 0)
    r = score("policy_zh", DOCS["policy_zh"], question, gold, _two_stage("policy_zh", GOLD["policy_zh"]))
    assert (r.mode, r.state, r.gold, r.recovered, r.verified) == ("two-stage/fan-out", "done", 7, 7, 7)
    assert r.unsupported == [] and r.missing == []
    assert r.ttft_s == 0.5 and r.e2e_s == 2.0


def test_score_two_stage_counts_only_verified_facts():
    question, gold = _question("policy_zh", 1)  # 三级: 起付线 1200元, 报销比例 55%
    swapped = GOLD["policy_zh"][5].model_copy(update={"object_value": "70%"})  # 70% belongs to 二级
    rejected = [{"rule": "value_in_source"}, {"rule": "entity_binding"}, {"rule": "entity_binding"}]
    ans = _two_stage("policy_zh", [GOLD["policy_zh"][2], swapped], rejected)
    r = score("policy_zh", DOCS["policy_zh"], question, gold, ans)
    assert (r.gold, r.recovered, r.verified) == (2, 1, 1)
    assert r.missing == ["三级医疗机构 报销比例 55%"]
    assert r.rejected_rules == {"value_in_source": 1, "entity_binding": 2}
    assert r.unsupported == []  # the realizer only states verified values


def test_score_baseline_by_value_and_flags_unsupported_numbers():
    question, gold = _question("policy_zh", 0)
    r = score("policy_zh", DOCS["policy_zh"], question, gold, _baseline(PROSE))
    assert (r.mode, r.recovered, r.verified) == ("baseline", 3, 0)  # 300元, 85%, 20万元
    assert r.unsupported == ["650元"]  # 60% stands in the document (大病保险)
    assert r.ttft_s is None


def test_score_english_fallback():
    question, gold = _question("policy_en", 0)
    wrong = GOLD["policy_en"][0].model_copy(update={"subject": "high-cost cities"})  # $250 is standard cities'
    r = score("policy_en", DOCS["policy_en"], question, gold, _two_stage("policy_en", [wrong]))
    assert (r.state, r.recovered, r.verified) == (Outcome.FALLBACK, 0, 0)
    assert r.answer == "The document does not state this with verifiable evidence."
    assert len(r.missing) == 2


def test_summarize_per_mode():
    q0, gold0 = _question("policy_zh", 0)
    q1, gold1 = _question("policy_zh", 1)
    doc = DOCS["policy_zh"]
    results = [
        score("policy_zh", doc, q0, gold0, _two_stage("policy_zh", GOLD["policy_zh"], ttft=0.25, e2e=1.0)),
        score("policy_zh", doc, q1, gold1, _two_stage("policy_zh", [GOLD["policy_zh"][2]],
                                                      [{"rule": "entity_binding"}], ttft=0.75, e2e=3.0)),
        score("policy_zh", doc, q0, gold0, _baseline(PROSE, e2e=0.5)),
    ]
    summary = summarize(results)
    assert list(summary) == ["two-stage/fan-out", "baseline"]
    two = summary["two-stage/fan-out"]
    assert (two["questions"], two["gold"], two["recovered"], two["recall"]) == (2, 9, 8, 0.889)
    assert two["verified_facts"] == 8 and two["unsupported_numbers"] == 0 and two["fallbacks"] == 0
    assert two["rejected_by_rule"] == {"entity_binding": 1}
    assert (two["avg_ttft_s"], two["avg_e2e_s"]) == (0.5, 2.0)
    base = summary["baseline"]
    assert (base["recovered"], base["recall"], base["unsupported_numbers"]) == (3, 0.429, 1)
    assert base["avg_ttft_s"] is None and base["avg_e2e_s"] == 0.5


def test_result_json_is_plain():
    question, gold = _question("policy_en", 1)
    r = score("policy_en", DOCS["policy_en"], question, gold,
              _two_stage("policy_en", [GOLD["policy_en"][4], GOLD["policy_en"][5]]))
    out = r.to_json()
    assert out["recovered"] == 2 and out["gold"] == 2 and out["sample"] == "policy_en"
    assert "$0.67 per mile" in out["answer"] and "30 days" in out["answer"]


def test_an_irregular_past_form_is_its_verb():
    from aegis_tui.text.entities import stem

    assert stem("held") == stem("hold") == stem("holding")
    assert stem("paid") == stem("pay")
    assert stem("kept") == stem("keep")


def test_an_adjective_in_al_is_its_noun_or_verb():
    # "the accidental death payout" asks of "the personal accident benefit"; short words keep their ending
    from aegis_tui.text.entities import stem

    assert stem("accidental") == stem("accident") and stem("renewal") == stem("renew")
    assert stem("legal") == "legal" and stem("total") == "total"


def test_the_forms_of_a_verb_and_its_latin_noun_stem_alike():
    # "is wiring me money" asks of wires; "how long until the landlord has to respond" of a response time
    from aegis_tui.text.entities import stem

    assert stem("wiring") == stem("wire") == stem("wired") == stem("wires")
    assert stem("stopped") == stem("stop") and stem("transferred") == stem("transfer")
    assert stem("response") == stem("respond") and stem("expense") == stem("expenses") == stem("expend")
    assert stem("reimburse") == stem("reimbursed") == stem("reimbursement")
    # a short word keeps its "e" and a doubled "l" or "s" stays: care is not car, bill is not bil
    assert stem("care") != stem("car") and stem("billed") == stem("bill") and stem("speed") == "speed"
    assert stem("employee") != stem("employer")


def test_held_out_binding_reads_words_of_one_family_as_the_same_word():
    from aegis_tui.answer.evaluation import _names
    from aegis_tui.text.entities import units

    evidence = set(units("securities must be held for a minimum of 40 calendar days personal trading"))
    # holding ~ held, securities: 4 of the gold subject's 5 words
    assert _names("Minimum holding period for personal securities", evidence)
    assert not _names("Minimum notice period for personal loans", evidence)


@pytest.mark.parametrize("gold, stated, same", [
    ("$13,575", "1", False),          # "1" of "1 May" is not the head of $13,575
    ("25%", "5%", False),
    ("30 days", "30 days.", True),    # a full stop after it is no digit
    ("200万元以上", "200万元", True),
    ("£450", "£450 per person", True),
    ("1.5", "1", False),
])
def test_a_stated_value_is_the_gold_figure_only_at_number_edges(gold, stated, same):
    from aegis_tui.answer.evaluation import _same_figure

    assert _same_figure(gold, stated) is same


def test_held_out_binding_reads_a_list_items_lead_in():
    """The lead-in is the item's context as its heading is: "Northbridge funds an HRA …:" over "- Any tier
    covering dependents: $1,000" binds the gold "Annual HRA funding, any tier covering dependents"; an item of
    another list does not."""
    from types import SimpleNamespace

    from aegis_tui.answer.evaluation import score_heldout
    from aegis_tui.answer.states import Outcome
    from aegis_tui.schema import AtomicFact, ExtractionPayload, FactType

    doc = Document.from_text(
        "# Plan\n\nNorthbridge funds a Health Reimbursement Arrangement (HRA) each plan year:\n\n"
        "- Employee only: $500\n- Any tier covering dependents: $1,000\n\n"
        "The wellness program pays a reward:\n\n- Any tier covering dependents: $1,000 after screenings\n")

    def answer(source):
        report = Tier1CodeVerifier(doc).verify(ExtractionPayload(atomic_facts=[AtomicFact(
            subject="Any tier covering dependents", predicate="per plan year", object_value="$1,000",
            fact_type=FactType.NUMERIC, source_text=source)]))
        assert all(fv.passed for fv in report.facts)
        return SimpleNamespace(mode="two-stage", report=report, answer="$1,000", state=Outcome.DONE,
                               timings={"e2e_s": 1.0})

    gold = [{"subject": "Annual HRA funding, any tier covering dependents", "value": "$1,000"}]
    under_hra = score_heldout("d", doc, "q", gold, answer("Any tier covering dependents: $1,000"))
    other = score_heldout("d", doc, "q", gold, answer("Any tier covering dependents: $1,000 after screenings"))
    assert (under_hra.recovered, under_hra.misbound) == (1, [])
    assert other.recovered == 0 and other.misbound
