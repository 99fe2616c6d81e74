"""Tier-1 verifier: each rule of the RuleMatrix as a table, gold and tampered samples, report shape, caching."""

from pathlib import Path

import pytest

from aegis_tui.answer.report import CheckResult
from aegis_tui.answer.rules import expected_dimensions
from aegis_tui.answer.verify import (
    DEFAULT_RULES,
    RuleMatrix,
    Tier1CodeVerifier,
    non_value_numbers,
    unsupported_numbers,
)
from aegis_tui.samples import load_gold, load_tampered, sample_path
from aegis_tui.schema import AtomicFact, ExtractionPayload, FactType
from aegis_tui.text.docindex import document_index
from aegis_tui.text.document import Document
from aegis_tui.text.entities import mentions
from aegis_tui.text.lexicon import PREDICATE_DIMENSIONS
from aegis_tui.text.quantity import parse_quantity

DOCS = {name: Document.load(sample_path(name)) for name in ("policy_zh", "policy_en")}
DOCS.update({name: Document.load(Path(__file__).parent / "docs" / f"{name}.md") for name in ("q_field_en", "q_welfare_zh")})


RAISE = "连续参保满4年的，此后每增加1年连续参保，大病保险最高支付限额相应提高1000元。"


def _fact(subject, predicate, value, quote, fact_type="numeric"):
    return {"subject": subject, "predicate": predicate, "object_value": value, "source_text": quote,
            "fact_type": fact_type}


ZH1 = "一级及以下医疗机构"
ZH2 = "二级医疗机构"
ZH3 = "三级医疗机构"
Q300 = "一级及以下定点医疗机构300元"
Q85 = "在一级及以下定点医疗机构住院的，报销比例为85%"
Q70 = "在二级定点医疗机构住院的，报销比例为70%"
Q20W = "统筹基金年度最高支付限额为20万元"
RESPQ = "重度残疾人和计划生育特殊家庭成员在本市定点医疗机构住院的，起付线分别按150元、100元执行"
RESPEN = "Single taxi and rideshare rides are capped at $60 and $45, respectively."
ENQ = "Hotel costs are reimbursed up to $250 per night in standard cities and $400 per night in high-cost cities."
MEALQ = "The daily meal allowance is $75 for domestic travel and $110 for international travel."
CAPQ = "报销比例提高5个百分点，但最高不超过90%"

RULES = [
    # (sample, fact, rule, passes, comment)
    ("policy_zh", _fact(ZH1, "起付线", "300元", Q300), "source_verbatim", True, "exact quote"),
    ("policy_zh", _fact(ZH1, "起付线", "300元", "一级及以下定点医疗机构 300元"), "source_verbatim", False,
     "an inserted space is not whitespace folding of the document"),
    ("policy_zh", _fact(ZH1, "起付线", "300元", "一级及以下定点医疗机构３００元"), "source_verbatim", True,
     "full-width digits fold under NFKC"),
    ("policy_zh", _fact(ZH1, "起付线", "300元", "一级及以下医疗机构300元"), "source_verbatim", False,
     "a dropped word (定点) is not verbatim"),
    ("policy_en", _fact("standard cities", "cap", "$250 per night", "up to  $250   per night"), "source_verbatim",
     True, "runs of spaces fold"),
    ("policy_en", _fact("standard cities", "cap", "$250 per night", "UP TO $250 PER NIGHT"), "source_verbatim",
     False, "case is not folded"),
    ("policy_zh", _fact("统筹基金", "限额", "20万元", Q20W), "value_in_source", True, "same text"),
    ("policy_zh", _fact("统筹基金", "限额", "200000元", Q20W), "value_in_source", True, "20万元 = 200000元"),
    ("policy_zh", _fact("统筹基金", "限额", "200,000元", Q20W), "value_in_source", True, "separator form"),
    ("policy_zh", _fact("统筹基金", "限额", "20元", Q20W), "value_in_source", False, "substring 20 is not 20万元"),
    ("policy_zh", _fact("统筹基金", "限额", "2万元", Q20W), "value_in_source", False, "different amount"),
    ("policy_zh", _fact(ZH1, "报销比例", "百分之八十五", Q85), "value_in_source", True, "Chinese percent = 85%"),
    ("policy_zh", _fact(ZH1, "报销比例", "85", Q85), "value_in_source", False, "a bare number has no unit"),
    ("policy_zh", _fact(ZH1, "起付线", "30元", Q300), "value_in_source", False, "digits inside 300元"),
    ("policy_zh", _fact(ZH1, "报销比例", "八十五", Q85), "value_in_source", False, "number without %"),
    ("policy_en", _fact("standard cities", "cap", "$250.00 per night", ENQ), "value_in_source", True,
     "$250.00 = $250"),
    ("policy_en", _fact("standard cities", "cap", "$250", ENQ), "value_in_source", True,
     "the amount of a per-night rate"),
    ("policy_en", _fact("standard cities", "cap", "250 USD per night", ENQ), "value_in_source", True,
     "code instead of sign"),
    ("policy_en", _fact("standard cities", "cap", "$25", ENQ), "value_in_source", False, "prefix of $250"),
    ("policy_en", _fact("travel", "meal", "75", MEALQ), "value_in_source", False, "no currency"),
    ("policy_en", _fact("tips", "alcohol rule", "not reimbursable", "Alcohol is not reimbursable", "text"),
     "value_in_source", True, "text fact: folded text inside the quote"),
    ("policy_en", _fact("alcohol", "rule", "always reimbursable", "Alcohol is not reimbursable", "boolean"),
     "value_in_source", False, "boolean fact whose value is not in the quote"),
    ("policy_zh", _fact(ZH1, "起付线", "300元", Q300), "unit_dimension", True, "起付线 -> money"),
    ("policy_zh", _fact(ZH1, "起付线", "300%", Q300), "unit_dimension", False, "起付线 is not a percent"),
    ("policy_zh", _fact(ZH1, "报销比例", "85元", Q85), "unit_dimension", False, "比例 is not money"),
    ("policy_zh", _fact(ZH1, "报销比例", "85%", Q85), "unit_dimension", True, "比例 -> percent"),
    ("policy_zh", _fact("统筹基金", "年度封顶线", "20万元", Q20W), "unit_dimension", True, "封顶 -> money"),
    ("policy_zh", _fact("特困人员", "报销比例提高", "5个百分点", CAPQ), "unit_dimension", True,
     "a change of a rate may be in percentage points"),
    ("policy_zh", _fact("特困人员", "报销比例不超过", "5个百分点", CAPQ), "unit_dimension", False,
     "不超过 is a cap, not a change: the rate itself is a percent"),
    ("policy_zh", _fact("统筹基金", "年度最高支付限额", "20天", Q20W), "unit_dimension", False, "限额 is not time"),
    ("policy_en", _fact("expense reports", "submission deadline", "30 days",
                        "Expense reports must be submitted within 30 days after the trip ends."), "unit_dimension",
     True, "deadline -> time"),
    ("policy_en", _fact("expense reports", "submission deadline", "$30",
                        "Expense reports must be submitted within 30 days after the trip ends."), "unit_dimension",
     False, "deadline is not money"),
    ("policy_en", _fact("personal vehicle", "mileage rate", "$0.67 per mile",
                        "Employees using a personal vehicle are reimbursed at $0.67 per mile."), "unit_dimension",
     True, "mileage -> rate"),
    ("policy_en", _fact("standard cities", "nightly lodging cap", "$250 per night", ENQ), "unit_dimension", True,
     "cap -> money or rate"),
    ("policy_en", _fact("x", "colour", "$5", MEALQ), "unit_dimension", True, "no rule for an unknown predicate"),
    ("policy_en", _fact("standard cities", "Current Rate (Revision 14, from July 1, 2025)", "$250", ENQ), "unit_dimension",
     True, "a rule's edition names the schedule, no rate"),
    ("policy_en", _fact("card", "interest rate", "$25", "A late fee of $25 applies to the card."), "unit_dimension",
     False, "an interest rate is no money"),
    ("policy_en", _fact("card", "Current Rate (from July 1, 2025)", "$25", "A late fee of $25 applies to the card."),
     "unit_dimension", True, "a rule's edition names the schedule, no rate"),
    ("policy_zh", _fact(ZH1, "起付线", "300元", "一级及以下定点医疗机构300元；二级定点医疗机构600元"),
     "entity_binding", True, "first item of an enumeration"),
    ("policy_zh", _fact(ZH2, "起付线", "600元", "一级及以下定点医疗机构300元；二级定点医疗机构600元"),
     "entity_binding", True, "second item, modifier 定点 in between"),
    ("policy_zh", _fact(ZH2, "起付线", "300元", "一级及以下定点医疗机构300元；二级定点医疗机构600元"),
     "entity_binding", False, "swapped: 300元 belongs to 一级及以下"),
    ("policy_zh", _fact(ZH3, "报销比例", "55%", "在三级定点医疗机构住院的，报销比例为55%"), "entity_binding", True,
     "subject earlier in the same list line"),
    ("policy_zh", _fact(ZH3, "报销比例", "70%", Q70), "entity_binding", False, "another list line"),
    ("policy_zh", _fact("统筹基金", "报销比例", "85%", Q85), "entity_binding", True,
     "named by the list head '统筹基金的报销比例为：'"),
    ("policy_zh", _fact("大病保险", "报销比例", "85%", Q85), "entity_binding", False, "not in the line or head"),
    ("policy_zh", _fact("统筹基金", "年度最高支付限额", "20万元", Q20W), "entity_binding", True, "same clause"),
    ("policy_zh", _fact("统筹基金", "年度最高支付限额", "40万元", "大病保险年度最高支付限额为40万元"),
     "entity_binding", False, "another fund's cap"),
    ("policy_zh", _fact("参保人员", "年度最高支付限额", "20万元",
                        "一个自然年度内，参保人员住院及门诊慢特病发生的政策范围内医疗费用，统筹基金年度最高支付限额为20万元"),
     "entity_binding", True, "subject opening the sentence binds a later value"),
    ("policy_zh", _fact(ZH3, "起付线", "1200元", "顺产每例补助1200元"), "entity_binding", False,
     "same number, other clause"),
    ("policy_en", _fact("standard cities", "nightly lodging cap", "$250 per night", ENQ), "entity_binding", True,
     "entity after the value"),
    ("policy_en", _fact("high-cost cities", "nightly lodging cap", "$400 per night", ENQ), "entity_binding", True,
     "second item, entity after the value"),
    ("policy_en", _fact("high-cost cities", "nightly lodging cap", "$250 per night", ENQ), "entity_binding", False,
     "swapped: $250 belongs to standard cities"),
    ("policy_en", _fact("standard cities", "nightly lodging cap", "$400 per night", ENQ), "entity_binding", False,
     "swapped: $400 belongs to high-cost cities"),
    ("policy_en", _fact("domestic travel", "daily meal allowance", "$75", MEALQ), "entity_binding", True,
     "entity after the value, before 'and'"),
    ("policy_en", _fact("international travel", "daily meal allowance", "$75", MEALQ), "entity_binding", False,
     "swapped meal allowance"),
    ("policy_en", _fact("Alcohol", "reimbursable", "not reimbursable", "Alcohol is not reimbursable", "boolean"),
     "entity_binding", True, "text fact: subject in the quoted sentence"),
    ("policy_zh", _fact("重度残疾人", "起付线", "150元", RESPQ), "entity_binding", True,
     "分别: first entity, first value"),
    ("policy_zh", _fact("计划生育特殊家庭成员", "起付线", "100元", RESPQ), "entity_binding", True,
     "分别: second entity, second value"),
    ("policy_zh", _fact("重度残疾人", "起付线", "100元", RESPQ), "entity_binding", False,
     "分别: swapped values"),
    ("policy_en", _fact("rideshare rides", "cap", "$45", RESPEN), "entity_binding", True,
     "respectively: second value"),
    ("policy_en", _fact("taxi rides", "cap", "$45", RESPEN), "entity_binding", False, "respectively: swapped"),
    ("policy_zh", _fact(ZH1, "报销比例", "85%", Q85), "plausibility", True, "ordinary rate"),
    ("policy_zh", _fact(ZH1, "报销比例", "850%", Q85), "plausibility", False, "rate above 100%"),
    ("policy_zh", _fact(ZH1, "起付线", "-300元", Q300), "plausibility", False, "negative amount"),
    ("policy_en", _fact("employees", "repayment share", "100%",
                        "Employees who submit false claims must repay 100% of the amount claimed"), "plausibility",
     True, "exactly 100% is allowed"),
    ("policy_zh", _fact("老年人", "年龄", "600周岁", "年满60周岁的参保老年人"), "plausibility", False, "age"),
    ("policy_zh", _fact("大病保险", "最高支付限额", "1000元", RAISE), "value_role", False,
     "提高1000元 is a change, not the limit"),
    ("policy_zh", _fact("大病保险", "最高支付限额提高", "1000元", RAISE), "value_role", True,
     "a change predicate may take the change"),
    ("policy_zh", _fact("统筹基金", "年度最高支付限额", "20万元", Q20W), "value_role", True, "a level stays a level"),
    ("policy_zh", _fact("转诊备案到市外", "报销比例", "10个百分点", "报销比例在上述标准基础上降低10个百分点"),
     "value_role", False, "降低10个百分点 is not the rate"),
    ("policy_zh", _fact("特困人员", "报销比例", "90%", CAPQ), "value_role", True,
     "不超过90% is a cap: a level, not a change"),
    ("policy_zh", _fact("特困人员", "报销比例", "5个百分点", CAPQ), "value_role", False,
     "提高5个百分点 is a change"),
    ("policy_zh", _fact("住院", "报销比例", "50%", "政策范围内普通门诊费用的报销比例为50%"), "scope", False,
     "住院 names the sibling chapter 住院待遇; the quote stands under 门诊待遇"),
    ("policy_zh", _fact("门诊", "报销比例", "50%", "政策范围内普通门诊费用的报销比例为50%"), "scope", True,
     "its own chapter"),
    ("policy_zh", _fact(ZH1, "报销比例", "85%", Q85), "scope", True, "a subject naming no chapter"),
    ("policy_en", _fact("standard cities", "nightly lodging cap", "$250 per night", ENQ), "table_binding", True,
     "a value outside any table"),
    ("policy_en", _fact("Lodging", "section", "4", "4. Lodging"), "number_role", False, "a section number"),
    ("policy_en", _fact("policy", "effective year", "2024", "effective January 1, 2024"), "number_role", False,
     "a year is a date, not an amount"),
    ("policy_zh", _fact("本办法", "有效期", "2024", "本办法自2024年1月1日起施行"), "number_role", False, "a date"),
    ("policy_zh", _fact(ZH1, "起付线", "300元", Q300), "number_role", True, "an amount is a value"),
]


ADVQ = "Travel advances may cover at most 70% of the approved budget"
DIMENSIONS = [
    # (document, fact, passes, comment): what the predicate and the quote together allow
    ("q_field_en", _fact("travel advances", "limit", "70%", ADVQ), True, "a limit stated as a share of the budget"),
    ("policy_en", _fact("cash advances", "limit", "80%", "Cash advances are limited to 80% of estimated trip costs"),
     True, "the sample's advance limit"),
    ("q_welfare_zh", _fact("交通补贴", "补贴限额", "60%", "补贴比例不超过实际票价的60%"), True,
     "票价的60%: a share of the fare"),
    ("q_field_en", _fact("Coastal hub", "maximum nightly rate", "$210", "| Coastal hub | $210 | $340 |"), True,
     "a nightly rate is money per night"),
    ("q_field_en", _fact("Cars", "mileage rate", "$0.58 per mile", "Cars: $0.58 per mile"), True, "a rate"),
    ("policy_zh", _fact("特困人员", "起付线", "50%", "起付线降低50%"), False, "a change of nothing named"),
    ("policy_zh", _fact(ZH1, "起付线", "85%", Q85), False, "a percent of nothing is no deductible"),
    ("q_welfare_zh", _fact("在职职工", "体检限额", "90%", "报销比例为90%"), False, "a bare rate is no cap"),
    ("q_field_en", _fact("travel advances", "settlement deadline", "70%", ADVQ), False,
     "a share is never a deadline"),
    ("q_field_en", _fact("travel advances", "daily rate", "12 days", "settled within 12 days of return"), False,
     "a period word does not make days a rate"),
]


@pytest.mark.parametrize("sample,fact,passes,comment", DIMENSIONS, ids=[r[3] for r in DIMENSIONS])
def test_unit_dimension_reads_predicate_and_quote(sample, fact, passes, comment):
    report = Tier1CodeVerifier(DOCS[sample], DEFAULT_RULES.only("unit_dimension")).verify(
        ExtractionPayload.model_validate({"atomic_facts": [fact]}))
    (check,) = report.facts[0].checks
    assert check.passed is passes, check.detail


@pytest.mark.parametrize("sample,fact,rule,passes,comment", RULES, ids=[r[4] for r in RULES])
def test_rule_table(sample, fact, rule, passes, comment):
    verifier = Tier1CodeVerifier(DOCS[sample], DEFAULT_RULES.only(rule))
    report = verifier.verify(ExtractionPayload.model_validate({"atomic_facts": [fact]}))
    (check,) = report.facts[0].checks
    assert check.rule == rule
    assert check.passed is passes, check.detail


def test_rule_table_is_large_and_bilingual():
    assert len(RULES) >= 40
    assert {r[0] for r in RULES} == {"policy_zh", "policy_en"}
    assert {r[2] for r in RULES} >= set(DEFAULT_RULES.names) - {"consistency"}


@pytest.mark.parametrize("name", ["policy_zh", "policy_en"])
def test_every_gold_fact_passes(name):
    report = Tier1CodeVerifier(DOCS[name]).verify(load_gold(name))
    assert [fv.failed_rules for fv in report.facts] == [[] for _ in report.facts]
    assert report.all_passed and len(report.verified_facts) == len(report.facts)


def _cases():
    return [(name, case) for name in ("policy_zh", "policy_en") for case in load_tampered(name)]


@pytest.mark.parametrize("name,case", _cases(), ids=[c["comment"] for _, c in _cases()])
def test_every_tampered_fact_fails_with_the_right_rule(name, case):
    payload = ExtractionPayload.model_validate(case.get("payload") or {"atomic_facts": [case["fact"]]})
    report = Tier1CodeVerifier(DOCS[name]).verify(payload)
    assert case["verdict"] == "fail"
    for fv in report.facts:
        assert fv.verdict == "fail"
        assert case["rule"] in fv.failed_rules, (fv.failed_rules, [c.detail for c in fv.checks])


def test_consistency_flags_both_facts():
    # both bind on their own (住院 85%, 门诊 50%): the payload gives one subject and predicate two values
    gold = load_gold("policy_zh").atomic_facts
    clash = gold[3].model_copy(update={"object_value": "50%", "source_text": "普通门诊统筹在一级及以下定点医疗机构实行，"
                                       "政策范围内普通门诊费用的报销比例为50%"})
    report = Tier1CodeVerifier(DOCS["policy_zh"]).verify(ExtractionPayload(atomic_facts=[gold[3], clash]))
    assert [fv.check("consistency").passed for fv in report.facts] == [False, False]
    assert report.facts[0].check("consistency").evidence == {"conflicts_with": [1]}


def test_a_rate_and_an_amount_for_one_subject_and_predicate_are_consistent():
    # "$50 per day, up to $1,500 in total": a cell of two values under one column header states two things
    doc = Document.from_text("# Schedule\n\n| Benefit | Limit per person |\n| --- | --- |\n"
                             "| Hospital confinement allowance | $50 per day, up to $1,500 in total |\n", "s.md")
    quote = "| Hospital confinement allowance | $50 per day, up to $1,500 in total |"
    facts = [AtomicFact(subject="Hospital confinement allowance", predicate="Limit per person", object_value=v,
                        fact_type=FactType.NUMERIC, source_text=quote) for v in ("$50 per day", "$1,500")]
    report = Tier1CodeVerifier(doc).verify(ExtractionPayload(atomic_facts=facts))
    assert [fv.check("consistency").passed for fv in report.facts] == [True, True]


@pytest.mark.parametrize("sample,true,misbound", [
    # the question "hotel cap in high-cost cities": the model also labels the standard-city $250 with it
    ("policy_en", _fact("high-cost cities", "hotel cap", "$400 per night", "$400 per night in high-cost cities"),
     _fact("high-cost cities", "hotel cap", "$250 per night", ENQ)),
    # 二级's 600元 claimed for 一级及以下 beside the true 300元
    ("policy_zh", _fact(ZH1, "起付线", "300元", Q300),
     _fact(ZH1, "起付线", "600元", "一级及以下定点医疗机构300元；二级定点医疗机构600元")),
])
def test_consistency_ignores_facts_that_fail_their_own_rules(sample, true, misbound):
    for facts in ([true, misbound], [misbound, true]):
        report = Tier1CodeVerifier(DOCS[sample]).verify(ExtractionPayload.model_validate({"atomic_facts": facts}))
        good, bad = (report.facts[0], report.facts[1]) if facts[0] is true else (report.facts[1], report.facts[0])
        assert good.passed, good.failed_rules
        assert "entity_binding" in bad.failed_rules
        # the misbound fact still clashes with the verified one
        assert not bad.check("consistency").passed


def test_consistency_accepts_equal_quantities_written_differently():
    gold = load_gold("policy_zh").atomic_facts[6]
    same = gold.model_copy(update={"object_value": "200000元"})
    report = Tier1CodeVerifier(DOCS["policy_zh"]).verify(ExtractionPayload(atomic_facts=[gold, same]))
    assert report.all_passed


def test_payload_subjects_compete_for_a_value():
    # with both subjects in the payload, 二级 cannot take the value bound to 一级及以下
    facts = [{"subject": ZH1, "predicate": "起付线", "object_value": "300元", "source_text": Q300},
             {"subject": ZH2, "predicate": "起付线", "object_value": "300元",
              "source_text": "起付线标准按医疗机构级别确定：一级及以下定点医疗机构300元"}]
    report = Tier1CodeVerifier(DOCS["policy_zh"]).verify(ExtractionPayload.model_validate({"atomic_facts": facts}))
    assert [fv.verdict for fv in report.facts] == ["pass", "fail"]
    assert "一级及以下" in report.facts[1].check("entity_binding").detail


def test_report_json_matches_the_design_contract():
    report = Tier1CodeVerifier(DOCS["policy_zh"]).verify(load_gold("policy_zh"))
    body = report.to_json()
    assert set(body) == {"document", "facts", "summary"}
    assert set(body["document"]) == {"path", "sha256", "chars"}
    assert body["document"]["chars"] == len(DOCS["policy_zh"].text)
    assert body["summary"] == {"total": 7, "passed": 7, "failed": 0}
    fact = body["facts"][0]
    # the design's keys, plus (issue 12, additive) where the fact stands and the headings above it
    assert set(fact) == {"index", "verdict", "fact", "checks", "location", "heading_path"}
    assert set(fact["fact"]) == {"subject", "predicate", "object_value", "fact_type", "source_text"}
    assert [c["rule"] for c in fact["checks"]] == DEFAULT_RULES.names
    assert all(set(c) == {"rule", "passed", "detail", "evidence"} for c in fact["checks"])
    ev = fact["checks"][0]["evidence"]
    assert set(ev) == {"line", "column", "offset", "length"}
    doc = DOCS["policy_zh"]
    assert doc.text[ev["offset"]:ev["offset"] + ev["length"]] == "一级及以下定点医疗机构300元"
    assert doc.position(ev["offset"]).line == ev["line"]


def test_rejected_and_verified_partition_the_facts():
    gold = load_gold("policy_zh").atomic_facts
    bad = gold[1].model_copy(update={"object_value": "650元"})
    report = Tier1CodeVerifier(DOCS["policy_zh"]).verify(ExtractionPayload(atomic_facts=[gold[0], bad]))
    assert report.verified_facts == [gold[0]]
    assert [fv.index for fv in report.rejected] == [1]
    assert report.to_json()["summary"] == {"total": 2, "passed": 1, "failed": 1}


def test_a_repeated_quote_may_stand_anywhere_in_the_document():
    # "报销比例降低10个百分点" stands in two articles; the second one names 临时外出就医人员
    fact = {"subject": "临时外出就医人员", "predicate": "报销比例降低", "object_value": "10个百分点",
            "source_text": "报销比例降低10个百分点"}
    report = Tier1CodeVerifier(DOCS["policy_zh"]).verify(ExtractionPayload.model_validate({"atomic_facts": [fact]}))
    assert report.all_passed, report.facts[0].failed_rules


def test_rule_matrix_is_extensible():
    matrix = RuleMatrix(dict(DEFAULT_RULES.rules))

    @matrix.register("short_quote")
    def short_quote(ctx):
        return CheckResult("short_quote", len(ctx.fact.source_text) <= 20, "quote length")

    report = Tier1CodeVerifier(DOCS["policy_zh"], matrix).verify(load_gold("policy_zh"))
    assert [fv.verdict for fv in report.facts] == ["pass"] * 3 + ["fail"] * 3 + ["pass"]
    assert "short_quote" not in DEFAULT_RULES.names


def test_predicate_dimension_table_is_data(monkeypatch):
    assert expected_dimensions("年度封顶线") == ("封顶", ("money",))
    assert expected_dimensions("mileage reimbursement rate")[1] == ("rate",)
    assert expected_dimensions("颜色") is None
    assert PREDICATE_DIMENSIONS["比例"] == ("percent",)


def test_unsupported_numbers_scores_prose():
    doc = DOCS["policy_zh"]
    answer = "一级医院起付线300元，报销比例85%，三级医院报销比例60%，年度封顶线为20万元，二级医院起付线为650元。"
    assert unsupported_numbers(answer, doc) == ["650元"]  # 60% stands in the document (大病保险)
    assert unsupported_numbers("相关规定标准为95%", doc) == ["95%"]
    assert unsupported_numbers("The cap is $250 per night, or $999.", DOCS["policy_en"]) == ["$999"]


@pytest.mark.parametrize("name,answer,flagged", [
    ("q_field_en", "For Field allowance, the section is 2.1.", ["2.1"]),  # a section number as an amount
    ("q_field_en", "The standard is number 3.2; call 555 for help.", ["3.2", "555"]),  # a version, a phone
    ("q_field_en", "Coastal hub — standard room: $210. Advances cover 70%.", []),  # values
    ("q_welfare_zh", "补助总额为2025元，条款为第3条。", ["2025元"]),  # a year as an amount
    ("q_welfare_zh", "本办法自2025年4月1日起施行，补助总额不超过120万元。", []),  # a date said as a date
])
def test_non_value_numbers_in_an_answer(name, answer, flagged):
    assert non_value_numbers(answer, DOCS[name]) == flagged


def test_document_index_is_cached_by_sha():
    doc = DOCS["policy_zh"]
    copy = Document.from_text(doc.text, path="copy")
    assert document_index(doc) is document_index(copy)
    assert Tier1CodeVerifier(copy).index is document_index(doc)


@pytest.mark.parametrize("subject,text,found", [
    ("三级医疗机构", "在三级定点医疗机构住院的", True),  # modifier in between
    ("一级及以下医疗机构", "在二级定点医疗机构住院的", False),  # another level
    ("high-cost cities", "$400 per night in high-cost cities", True),  # hyphenated words
    ("standard cities", "$400 per night in high-cost cities", False),  # other entity
    ("Standard City", "in standard cities", True),  # case and plural
    ("三级医疗机构", "三级" + "的" * 30 + "医疗机构", False),  # units too far apart
    ("三级医院", "在三级定点医疗机构住院的", True),  # everyday alias 医院 -> 医疗机构
    ("三级医院", "在二级定点医疗机构住院的", False),  # the alias does not blur the level
    ("工程类项目", "工程项目的中标人", True),  # the classifier 类 may be left out
    ("退休人员的门诊", "退休人员门诊统筹", True),  # and so may the possessive 的
    ("一类疫苗", "二类疫苗", False),  # not the number it classifies
    ("工程类项目", "货物类项目", False),
])
def test_mentions(subject, text, found):
    assert bool(mentions(subject, text)) is found


def test_parse_of_fact_value_matches_document_quantity():
    assert parse_quantity("20万元") in document_index(DOCS["policy_zh"]).all_quantities()


def test_an_english_predicate_keyword_is_a_word_not_a_piece_of_one():
    # "capacity" names no cap and "damage" no age: the keyword is a word, with at most a short ending
    from aegis_tui.answer.rules import expected_dimensions

    assert expected_dimensions("Battery covered if capacity falls below") is None
    assert expected_dimensions("Accidental damage service fee") is None
    assert expected_dimensions("capped at")[0] == "cap" and expected_dimensions("minimum age")[0] == "age"
    assert expected_dimensions("benefit limits")[0] == "limit"


def _only_check(rule: str, quote: str, subject: str, predicate: str, value: str):
    """The one check of a rule on a fact quoting a one-sentence document."""
    doc = Document.from_text(f"# Rule\n\n{quote}\n", "rule.md")
    report = Tier1CodeVerifier(doc, DEFAULT_RULES.only(rule)).verify(
        ExtractionPayload.model_validate({"atomic_facts": [_fact(subject, predicate, value, quote)]}))
    (check,) = report.facts[0].checks
    return check


@pytest.mark.parametrize("quote, predicate, value, passes", [
    ("住宿费按单人标准的1.5倍报销。", "住宿费报销标准", "1.5倍", True),  # a multiple of the standard it names
    ("住宿费报销标准为1.5倍。", "住宿费报销标准", "1.5倍", False),  # a ratio of nothing is no standard
])
def test_a_ratio_stated_as_a_multiple_of_an_amount_fits_a_money_measure(quote, predicate, value, passes):
    # "按单人标准的1.5倍": a money measure given as a multiple of an amount the quote names, as "标准的50%" is a share
    check = _only_check("unit_dimension", quote, "员工", predicate, value)
    assert check.passed is passes, check.detail


@pytest.mark.parametrize("quote, value, passes", [
    ("Members aged 65 or over receive a discount.", "65", True),
    ("Each driver under age 25 pays a surcharge.", "25", True),
    ("Club members aged 21 to 24 pay less.", "24", True),
    ("The club has 65 lockers for members.", "65", False),  # a bare count is no age
])
def test_a_bare_number_after_the_word_making_it_an_age_is_an_age(quote, value, passes):
    check = _only_check("unit_dimension", quote, "members", "minimum age", value)
    assert check.passed is passes, check.detail


@pytest.mark.parametrize("quote, predicate, value, passes", [
    ("法定节假日加班的，支付不低于日工资的300%的加班工资。", "加班工资支付标准", "300%", True),  # a share of a base
    ("Holiday work is paid at 150% of the employee's hourly rate.", "holiday pay rate", "150%", True),
    ("加班工资的支付标准为300%。", "加班工资支付标准", "300%", False),  # a share of nothing above 100% is no rate
])
def test_a_share_above_100_percent_of_a_base_the_quote_names_is_plausible(quote, predicate, value, passes):
    check = _only_check("plausibility", quote, "职工", predicate, value)
    assert check.passed is passes, check.detail


def test_a_mileage_allowance_may_be_a_distance():
    check = _only_check("unit_dimension", "Premium SUV rentals include a mileage allowance of 200 miles per Rental Day.",
                        "Premium SUV", "Mileage allowance", "200 miles")
    assert check.passed, check.detail
