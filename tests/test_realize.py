"""EntityAwareRealizer: fluent zh/en answers with no unverified number and no subject-less sentence."""

import pytest

from aegis_tui.answer.realize import FALLBACK_TEXT, EntityAwareRealizer
from aegis_tui.answer.verify import Tier1CodeVerifier
from aegis_tui.samples import load_gold, load_tampered, sample_path
from aegis_tui.schema import ExtractionPayload
from aegis_tui.text.document import Document
from aegis_tui.text.lexicon import CJK
from aegis_tui.text.quantity import find_quantities, parse_quantity

DOCS = {name: Document.load(sample_path(name)) for name in ("policy_zh", "policy_en")}
REALIZER = EntityAwareRealizer()


def _answer(name, facts):
    doc = DOCS[name]
    report = Tier1CodeVerifier(doc).verify(ExtractionPayload.model_validate({"atomic_facts": facts}))
    return report, REALIZER.realize(report, doc)


def _allowed(report):
    allowed = set()
    for f in report.verified_facts:
        for text in (f.subject, f.predicate, f.object_value):
            allowed |= {m.quantity for m in find_quantities(text)}
    return allowed


def _sentences(text):
    return [s for s in text.replace("。", "。\n").replace(". ", ".\n").splitlines() if s.strip()]


def test_zh_reference_answer():
    report, text = _answer("policy_zh", load_gold("policy_zh").model_dump()["atomic_facts"])
    assert text.startswith("根据文件：")
    for value in ("300元", "600元", "1200元", "85%", "70%", "55%", "20万元"):
        assert value in text
    # modifiers recovered from the source clause, and each value stays with its own level
    assert "一级及以下定点医疗机构的起付线为300元，报销比例为85%。" in text
    assert "三级定点医疗机构的起付线为1200元，报销比例为55%。" in text
    assert "统筹基金的年度最高支付限额为20万元" in text


def test_en_answer_groups_by_subject_in_english():
    report, text = _answer("policy_en", load_gold("policy_en").model_dump()["atomic_facts"])
    assert "For high-cost cities, the nightly lodging cap is $400 per night." in text
    assert "For expense reports, the submission deadline is 30 days." in text
    assert not CJK.search(text)


MIXES = [
    ("policy_zh", "gold plus every tampered fact"),
    ("policy_en", "gold plus every tampered fact"),
]


@pytest.mark.parametrize("name,comment", MIXES)
def test_never_an_unverified_number_and_never_a_lost_subject(name, comment):
    facts = load_gold(name).model_dump()["atomic_facts"]
    tampered = [c["fact"] for c in load_tampered(name) if "fact" in c]
    for i in range(0, len(tampered), 8):
        chunk = (facts + tampered[i:i + 8])[:24]
        report, text = _answer(name, chunk)
        allowed = _allowed(report)
        for m in find_quantities(text):
            assert m.quantity in allowed, (m.text, text)
        for sentence in _sentences(text.split("：", 1)[-1].split(": ", 1)[-1]):
            numbers = find_quantities(sentence)
            if numbers:  # a sentence with a number starts with one of the verified subjects, as the document names it
                assert any(REALIZER.subject_of(fv, DOCS[name]) in sentence[:60] for fv in report.verified), sentence


def test_tampered_values_never_reach_the_answer():
    facts = [c["fact"] for c in load_tampered("policy_zh") if "fact" in c]
    report, text = _answer("policy_zh", facts)
    assert not report.verified_facts
    assert text == FALLBACK_TEXT["zh"]
    assert "350元" not in text and "850%" not in text


@pytest.mark.parametrize("name,language,expected", [
    ("policy_zh", None, FALLBACK_TEXT["zh"]),  # document language
    ("policy_en", None, FALLBACK_TEXT["en"]),  # document language
    ("policy_zh", "en", FALLBACK_TEXT["en"]),  # explicit language wins
])
def test_fallback_when_nothing_is_verified(name, language, expected):
    doc = DOCS[name]
    report = Tier1CodeVerifier(doc).verify(ExtractionPayload(atomic_facts=[]))
    assert REALIZER.realize(report, doc, language=language) == expected


def test_generic_subject_is_replaced_by_the_source_entity():
    # the seed article's failure: "相关规定标准为85%" — a number with no subject
    fact = {"subject": "统筹基金", "predicate": "报销比例", "object_value": "85%",
            "source_text": "在一级及以下定点医疗机构住院的，报销比例为85%"}
    report, text = _answer("policy_zh", [fact])
    assert report.all_passed
    assert "相关规定" not in text and text.count("85%") == 1
    assert text.index("统筹基金") < text.index("85%")


def test_subject_modifiers_come_from_the_document():
    fact = {"subject": "cities", "predicate": "nightly lodging cap", "object_value": "$400 per night",
            "source_text": "$400 per night in high-cost cities"}
    report, text = _answer("policy_en", [fact])
    assert report.all_passed
    assert "For high-cost cities," in text


def test_partial_verification_only_speaks_of_verified_facts():
    gold = load_gold("policy_zh").model_dump()["atomic_facts"]
    bad = dict(gold[1], object_value="650元")
    report, text = _answer("policy_zh", [gold[0], bad])
    assert "300元" in text and "650元" not in text and "600元" not in text
    assert {m.quantity for m in find_quantities(text)} == {parse_quantity("300元")}


def _own(name, facts):
    from pathlib import Path

    doc = Document.load(Path(__file__).parent / "docs" / name)
    report = Tier1CodeVerifier(doc).verify(ExtractionPayload.model_validate({"atomic_facts": facts}))
    return report, REALIZER.realize(report, doc)


def _cellfact(subject, predicate, value, quote):
    return {"subject": subject, "predicate": predicate, "object_value": value, "source_text": quote}


@pytest.mark.parametrize("name,fact,sentence", [
    ("q_field_en.md", _cellfact("Coastal hub", "standard room nightly cap", "$210", "| Coastal hub | $210 | $340 |"),
     "Coastal hub — standard room: $210 a night."),
    ("q_field_en.md", _cellfact("Inland town", "suite", "$205", "| Inland town | $130 | $205 |"),
     "Inland town — suite: $205."),  # no period named anywhere: none invented
    ("q_field_en.md", _cellfact("Dinner", "limit per guest", "$95", "| Dinner | $95 |"), "Dinner — limit per guest: $95."),
    ("q_welfare_zh.md", _cellfact("一线职工", "省外疗休养补助", "2600元", "| 一线职工 | 1800 | 2600 |"),
     "一线职工省外疗休养补助为2600元。"),
    ("q_welfare_zh.md", _cellfact("管理人员", "省内疗休养补助", "1500元/人", "| 管理人员 | 1500 | 2200 |"),
     "管理人员省内疗休养补助为1500元/人。"),  # the header's unit, as the fact states it
    ("q_courier_zh.md", _cellfact("厢式货车（出城）", "油料补贴", "610元/月", "| 厢式货车 | 340 | 610 |"),
     "厢式货车出城油料补贴为610元/月。"),  # a two-row header: the level the predicate leaves out, once
    # a length is no period: a 2-year plan's price is for the two years, not "$59 a year"
    ("q_protection_en.md", _cellfact("$200 to $499.99", "2-year plan", "$59", "| $200 to $499.99 | $59 | $79 |"),
     "$200 to $499.99 — 2-year plan: $59."),
    # a rate per another unit is not per the month its caption names
    ("q_protection_en.md", _cellfact("Tier 2", "Rate per CCF", "$4.25", "| Tier 2 | $4.25 |"),
     "Tier 2 — rate per CCF: $4.25."),
    ("q_protection_en.md", _cellfact("Standard", "Annual fee", "$45", "| Standard | $45 |"),
     "Standard — annual fee: $45 a year."),
    # a row named by its first label, not by a word column carrying a figure no fact states (55°F)
    ("q_protection_en.md", _cellfact("Emergency", "Response time", "4 hours",
                                     "| Emergency | Gas leak, no heat when outside temperature is below 55°F | 4 hours |"),
     "Emergency — response time: 4 hours."),
])
def test_table_facts_read_like_the_table(name, fact, sentence):
    report, text = _own(name, [fact])
    assert report.all_passed, report.facts[0].failed_rules
    assert sentence in text


def test_a_list_item_subject_is_lowercased_like_a_sentence_start():
    _, text = _own("q_field_en.md", [_cellfact("Motorcycles", "mileage rate", "$0.31 per mile",
                                               "Motorcycles: $0.31 per mile")])
    assert "For motorcycles, the mileage rate is $0.31 per mile." in text


def test_table_fact_sentences_keep_the_guard():
    # a tampered cell fact never reaches the answer; the true one does, in the order of the facts
    report, text = _own("q_welfare_zh.md", [
        _cellfact("管理人员", "省内疗休养补助", "1800元", "| 一线职工 | 1800 | 2600 |"),
        _cellfact("一线职工", "省外疗休养补助", "2600元", "| 一线职工 | 1800 | 2600 |")])
    assert [fv.verdict for fv in report.facts] == ["fail", "pass"]
    assert "1800" not in text and "2600元" in text


def test_a_subject_is_written_with_the_brackets_it_opens():
    doc = Document.from_text("# 住宿费\n\n住宿费超过标准（含上浮后标准）的部分，个人承担10%。\n", "s.md")
    fact = {"subject": "住宿费超过标准（含上浮后标准", "predicate": "个人承担", "object_value": "10%",
            "source_text": "住宿费超过标准（含上浮后标准）的部分，个人承担10%。"}
    report = Tier1CodeVerifier(doc).verify(ExtractionPayload.model_validate({"atomic_facts": [fact]}))
    assert report.all_passed
    text = REALIZER.realize(report, doc)
    # the name as the document writes it, both brackets, though the label (and its mention) stopped inside
    assert "住宿费超过标准（含上浮后标准）" in text and text.count("（") == text.count("）")


def test_a_predicate_with_its_own_article_takes_no_second_one():
    doc = Document.from_text("# Visits\n\nFor in-network care, the specialist copay is $50.\n", "v.md")
    facts = [{"subject": "in-network care", "predicate": "the specialist copay", "object_value": "$50",
              "fact_type": "numeric", "source_text": "For in-network care, the specialist copay is $50."}]
    report = Tier1CodeVerifier(doc).verify(ExtractionPayload.model_validate({"atomic_facts": facts}))
    assert report.verified_facts, report
    text = REALIZER.realize(report, doc)
    assert "the specialist copay is $50" in text and "the the" not in text.lower(), text


def test_a_fact_whose_sentence_the_guard_drops_is_named_unsaid():
    # a predicate holding its clause's number ("3.3 …") would put an unverified number in the answer: the
    # sentence is dropped, and the realizer says which facts it did not state, so the caller's report agrees
    doc = Document.from_text("# Service credits\n\n3.3 Customer must request a credit within 60 days. Credits are "
                             "paid within 30 days.\n", "credits.md")
    facts = [{"subject": "Customer", "predicate": "3.3 request a credit within", "object_value": "60 days",
              "fact_type": "numeric", "source_text": "3.3 Customer must request a credit within 60 days."},
             {"subject": "Credits", "predicate": "paid within", "object_value": "30 days", "fact_type": "numeric",
              "source_text": "Credits are paid within 30 days."}]
    report = Tier1CodeVerifier(doc).verify(ExtractionPayload.model_validate({"atomic_facts": facts}))
    assert len(report.verified) == 2, report
    realizer = EntityAwareRealizer()
    text = realizer.realize(report, doc)
    assert "30 days" in text and "3.3" not in text and "60 days" not in text, text
    assert [fv.fact.object_value for fv in realizer.unsaid] == ["60 days"]


def test_whom_a_chinese_clause_opens_with_is_written_before_its_subject():
    # the model's subject is the thing paid for; the clause says for whom before its comma
    doc = Document.from_text("# 生育待遇\n\n女职工的产前检查费用按每孕次限额1500元支付；男职工的未就业配偶，产前检查费用按每孕次"
                             "限额800元支付。\n", "m.md")
    facts = [{"subject": "产前检查费用", "predicate": "每孕次限额", "object_value": "800元", "fact_type": "numeric",
              "source_text": "男职工的未就业配偶，产前检查费用按每孕次限额800元支付。"}]
    report = Tier1CodeVerifier(doc).verify(ExtractionPayload.model_validate({"atomic_facts": facts}))
    assert report.all_passed, report
    text = REALIZER.realize(report, doc)
    assert "男职工的未就业配偶，产前检查费用" in text and "800元" in text, text


RANGES = ("# 采购方式\n\n| 采购类别 | 公开招标 | 竞争性谈判 |\n|---|---|---|\n| 工程 | 300万元以上 | 60万元至300万元 |\n\n"
          "# Fees\n\nThe setup fee is $10 to $20 per seat.\n")


@pytest.mark.parametrize("subject, predicate, low, high, quote, written", [
    ("工程", "竞争性谈判", "60万元", "300万元", "| 工程 | 300万元以上 | 60万元至300万元 |", "60万元至300万元"),
    ("setup fee", "per seat", "$10", "$20", "The setup fee is $10 to $20 per seat.", "$10 to $20"),
])
def test_the_two_ends_of_one_range_verify_and_are_written_as_the_range(subject, predicate, low, high, quote, written):
    # one statement, not two values that contradict each other
    doc = Document.from_text(RANGES, "ranges.md")
    facts = [{"subject": subject, "predicate": predicate, "object_value": v, "fact_type": "numeric",
              "source_text": quote} for v in (low, high)]
    report = Tier1CodeVerifier(doc).verify(ExtractionPayload.model_validate({"atomic_facts": facts}))
    assert report.all_passed, [(fv.fact.object_value, fv.failed_rules) for fv in report.facts]
    realizer = EntityAwareRealizer()
    text = realizer.realize(report, doc)
    assert written in text and text.count(low) == 1 and text.count(high) == 1, text
    assert not realizer.unsaid


def test_two_values_of_one_label_that_are_no_range_still_clash():
    doc = Document.from_text("# Fees\n\nThe setup fee is $10 per seat, or $20 per seat.\n", "fees.md")
    facts = [{"subject": "setup fee", "predicate": "per seat", "object_value": v, "fact_type": "numeric",
              "source_text": "The setup fee is $10 per seat, or $20 per seat."} for v in ("$10", "$20")]
    report = Tier1CodeVerifier(doc).verify(ExtractionPayload.model_validate({"atomic_facts": facts}))
    assert [fv.check("consistency").passed for fv in report.facts] == [False, False], report


def test_a_chinese_table_s_caption_leads_its_sentences_once_when_the_label_leaves_it_out():
    # which table a figure is read from (and often whose: 二类区域) is its caption; the answer says it once before
    # the table's sentences, without its numbering or parenthesis, and never a caption that only points to the table
    doc = Document.from_text("# 收费\n\n表7 二类区域前期物业服务费基准价（按表1下浮10%）\n\n| 服务等级 | 多层住宅 | 高层住宅 |\n"
                             "|---|---|---|\n| 一级 | 1.44元 | 2.62元 |\n| 三级 | 0.90元 | 1.81元 |\n\n缴存比例按下表执行：\n\n"
                             "| 缴存主体 | 最低比例 |\n|---|---|\n| 单位 | 5% |\n", "fee.md")
    facts = [_cellfact("一级", "高层住宅", "2.62元", "| 一级 | 1.44元 | 2.62元 |"),
             _cellfact("三级", "高层住宅", "1.81元", "| 三级 | 0.90元 | 1.81元 |"),
             _cellfact("单位", "最低比例", "5%", "| 单位 | 5% |")]
    report = Tier1CodeVerifier(doc).verify(ExtractionPayload.model_validate({"atomic_facts": facts}))
    assert report.all_passed, [f.failed_rules for f in report.facts]
    text = REALIZER.realize(report, doc)
    assert "二类区域前期物业服务费基准价：一级高层住宅为2.62元。三级高层住宅为1.81元。单位最低比例为5%。" in text


def test_a_number_naming_a_thing_in_a_caption_is_no_stray_quantity():
    # the cell's sentence names its column, "2025 Scheme", an edition by its year (as "Euro 6" names a standard by
    # its number): no quantity a fact need state, so the sentence stands
    doc = Document.from_text("# Awards\n\n**Table 3 — Ashcombe Compact Award (one-off, Year 1)**\n\n"
                             "| Partnership level | 2025 Scheme |\n|---|---|\n| Core Partner | £1,000 |\n"
                             "| Associate Partner | £500 |\n", "awards.md")
    facts = [{"subject": "Core Partner", "predicate": "2025 Scheme", "object_value": "£1,000", "fact_type": "numeric",
              "source_text": "| Core Partner | £1,000 |"}]
    report = Tier1CodeVerifier(doc).verify(ExtractionPayload.model_validate({"atomic_facts": facts}))
    assert report.all_passed, [(fv.fact.object_value, fv.failed_rules) for fv in report.facts]
    realizer = EntityAwareRealizer()
    text = realizer.realize(report, doc)
    assert "£1,000" in text and not realizer.unsaid, text


def test_columns_named_alike_but_for_their_parenthesis_keep_it():
    # "Annual booster (current)" beside "Annual booster (previous)": without the parenthesis the two figures would
    # read as one measure's
    doc = Document.from_text("# Fees\n\n| Species | Annual booster (current) | Annual booster (previous) |\n|---|---|---|\n"
                             "| Cat | £55.00 | £51.00 |\n| Dog | £58.00 | £54.00 |\n", "fees.md")
    facts = [_cellfact("Cat", "Annual booster (current)", "£55.00", "| Cat | £55.00 | £51.00 |"),
             _cellfact("Cat", "Annual booster (previous)", "£51.00", "| Cat | £55.00 | £51.00 |")]
    report = Tier1CodeVerifier(doc).verify(ExtractionPayload.model_validate({"atomic_facts": facts}))
    assert report.all_passed, [f.failed_rules for f in report.facts]
    text = REALIZER.realize(report, doc)
    assert "Cat — annual booster (current): £55.00" in text and "Cat — annual booster (previous): £51.00" in text
