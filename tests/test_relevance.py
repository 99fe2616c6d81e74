"""Question relevance: candidate enumeration over the samples, predicate matching and question focus."""

import pytest

from aegis_tui.answer.relevance import (
    BM25,
    _picked,
    candidate_key,
    document_candidates,
    enumerate_candidates,
    focus,
    key_offset,
    predicate_asked,
)
from aegis_tui.answer.structural import identifies
from aegis_tui.samples import load_gold, load_questions, sample_path
from aegis_tui.text.document import Document


@pytest.mark.parametrize("sample", ["policy_zh", "policy_en"])
def test_candidates_cover_every_gold_value_of_every_question(sample):
    doc = Document.load(sample_path(sample))
    gold = load_gold(sample).atomic_facts
    for q in load_questions()[sample]:
        values = {c.value for c in enumerate_candidates(doc, q["question"])}
        for i in q["gold"]:
            assert gold[i].object_value in values, (q["question"], gold[i])


def test_candidates_carry_enumeration_heads_and_stay_verbatim():
    doc = Document.load(sample_path("policy_zh"))
    cands = enumerate_candidates(doc, "请问统筹基金的报销比例是多少？")
    item = next(c for c in cands if c.value == "70%")
    assert item.head.startswith("第九条") and item.head.endswith("：")  # head on its own line, carried down
    assert item.context.startswith(item.head) and "二级定点医疗机构" in item.context
    for c in cands:
        assert doc.find(c.quote) is not None and c.value in c.quote


def test_bm25_normalises_length():
    short = "起付线为300元。"
    long_ = "起付线为300元。" + "其他无关的规定内容很多很多。" * 20
    s = BM25([short, long_, "报销比例为85%。"]).scores("起付线")
    assert s[0] > s[1] > s[2] == 0


@pytest.mark.parametrize("predicate, question, expected", [
    ("起付线标准", "起付线是多少？", True),  # the asked word itself
    ("年度最高支付限额", "年度封顶线是多少？", True),  # via the synonym table 封顶线 ≈ 最高支付限额
    ("个人缴费标准", "报销比例是多少？", False),  # a different predicate
    ("reimbursed", "What is the mileage reimbursement rate?", True),  # English stem
    ("reimbursed up to", "What are the lodging caps?", True),  # cap ≈ up to
    ("anything", "Who wrote this?", None),  # the question names no predicate: the model decides
])
def test_predicate_asked(predicate, question, expected):
    assert predicate_asked(predicate, question) is expected


@pytest.mark.parametrize("subjects, question, expected", [
    (["一级及以下定点医疗机构", "二级定点医疗机构", "三级定点医疗机构住院的"], "在三级医院住院，起付线是多少？",
     {"三级定点医疗机构住院的"}),  # one level singled out
    (["一级及以下定点医疗机构", "二级定点医疗机构"], "不同级别医院的起付线分别是多少？", None),  # none singled out
    (["standard cities", "high-cost cities", "parking"], "What are the caps in standard and high-cost cities?",
     {"standard cities", "high-cost cities"}),
    (["统筹基金"], "年度封顶线是多少？", None),  # a single subject is never filtered
])
def test_focus(subjects, question, expected):
    assert focus(subjects, question) == expected


def _own(name):
    from pathlib import Path

    return Document.load(Path(__file__).parent / "docs" / name)


@pytest.mark.parametrize("name,question,value,frame", [
    # a table cell arrives with its row label and column header, and the row as its verbatim quote
    ("q_field_en.md", "What is the suite cap in an inland town?", "$205", ("Inland town", "Suite")),
    # a header unit comes with the bare cell (1800 under 省内（元/人）)
    ("q_welfare_zh.md", "一线职工省内疗休养补助是多少？", "1800元/人", ("一线职工", "省内")),
    # a list item arrives with its lead-in
    ("q_field_en.md", "What is the mileage rate for motorcycles?", "$0.31 per mile", ("Mileage is repaid",)),
    # a clause arrives with its section, which names whom it applies to
    ("q_welfare_zh.md", "退休人员体检费用限额是多少？", "800元", ("退休人员体检",)),
])
def test_candidates_come_with_their_structure(name, question, value, frame):
    doc = _own(name)
    cand = next(c for c in enumerate_candidates(doc, question) if c.value == value)
    assert all(f in cand.framed for f in frame), cand.framed
    assert doc.find(cand.quote) is not None


@pytest.mark.parametrize("name,question,never", [
    ("q_field_en.md", "What does section 2.1 say about the field allowance, and which version is this?",
     {"2.1", "v3.2", "2025-03-01", "555"}),
    ("q_welfare_zh.md", "本办法第3条的补助总额和版本是什么？", {"3", "2025年", "2.0", "0571"}),
])
def test_only_values_become_candidates(name, question, never):
    values = {c.value for c in enumerate_candidates(_own(name), question, top_k=100, min_ratio=0)}
    assert values and not never & values


@pytest.mark.parametrize("name,question,value,subject,predicate", [
    # the model can label a cell with its row label and its column header (+ the caption's topic)
    ("q_field_en.md", "What is the standard room cap in a coastal hub?", "$210", "Coastal hub", "Standard room"),
    ("q_welfare_zh.md", "一线职工省外疗休养补助是多少？", "2600元/人", "一线职工", "省外疗休养补助"),
    # and a clause with whom its section names
    ("q_welfare_zh.md", "退休人员体检费用限额是多少？", "800元", "退休人员", "体检费用每人每年限额"),
])
def test_label_grammar_offers_the_structural_labels(name, question, value, subject, predicate):
    import json

    from aegis_tui.answer.prompts import label_grammar
    from aegis_tui.grammar.validate import lark_acceptor

    cand = next(c for c in enumerate_candidates(_own(name), question) if c.value == value)
    answer = {"subject": subject, "predicate": predicate, "relevant": True}
    lark_acceptor(label_grammar(cand)).parse(json.dumps(answer, ensure_ascii=False))


def test_label_prompt_names_the_section_above_the_clause():
    from aegis_tui.answer.prompts import label_prompt

    doc = _own("q_welfare_zh.md")
    cand = next(c for c in enumerate_candidates(doc, "退休人员体检费用限额是多少？") if c.value == "800元")
    suffix = label_prompt(doc.text, "退休人员体检费用限额是多少？", cand, "zh").suffix
    assert suffix.startswith("章节：第三章 退休人员体检\n条款：第六条")


@pytest.mark.parametrize("question,kept,dropped", [
    # the question names one of two sibling chapters: the other chapter's values are not its answer
    ("退休人员体检费用限额是多少？", {"800元"}, {"600元", "90%"}),
    ("在职职工体检报销比例是多少？", {"90%"}, {"800元", "95%"}),
    # naming neither keeps both
    ("体检费用限额是多少？", {"600元", "800元"}, set()),
])
def test_a_question_naming_a_section_leaves_its_siblings_out(question, kept, dropped):
    values = {c.value for c in enumerate_candidates(_own("q_welfare_zh.md"), question, top_k=100, min_ratio=0)}
    assert kept <= values and not dropped & values


RETENTION = Document.from_text(
    "# Policy\n\n## 2. Customer due diligence\n\nOwners of 25% or more are identified.\n\n## 3. Reports\n\n"
    "A report is filed within 30 days.\n\n## 6. Record retention\n\nCustomer due diligence records are kept for 5 "
    "years. Reports are kept for 6 years. The gift register is kept for 3 years.\n", "retention.md")


@pytest.mark.parametrize("question,kept,dropped", [
    # one item of a list names section 2: the section narrows that item, not the items naming other things
    ("How long must we keep customer due diligence files, reports and the gift register?",
     {"5 years", "6 years", "3 years"}, set()),
    # asked alone, the section's sibling stays out unless its clause names the section
    ("How long must we keep customer due diligence files?", {"5 years"}, {"6 years", "3 years"}),
])
def test_a_section_one_item_of_a_list_names_narrows_that_item_only(question, kept, dropped):
    values = {c.value for c in enumerate_candidates(RETENTION, question, top_k=100, min_ratio=0)}
    assert kept <= values and not dropped & values


OUTPATIENT = Document.from_text(
    "# 门诊待遇\n\n待遇标准见下表：\n\n| 人员类别 | 起付标准（元） | 支付比例 | 年度最高支付限额（元） |\n| --- | --- | --- | --- |\n"
    "| 在职职工 | 800 | 70% | 5000 |\n| 退休人员 | 600 | 80% | 6000 |\n", "outpatient.md")
LIMITS = Document.from_text(
    "# Approval limits\n\n| Role | Gift value limit | Entertainment limit |\n| --- | --- | --- |\n"
    "| Director | $500 | $750 |\n| Managing Director | $1,000 | $1,500 |\n", "limits.md")


@pytest.mark.parametrize("doc,question,kept,dropped", [
    # one item names the 起付标准 column; the other names its own column by its header's words, not the row's figures
    (OUTPATIENT, "在职职工的起付标准和一年最高能报多少？", {"800元", "5000元"}, {"600元"}),
    (OUTPATIENT, "在职职工的起付标准是多少？", {"800元"}, {"70%", "5000元"}),
    # a row one item names narrows the other item too, whose words name only a column
    (LIMITS, "How much can a Director spend on a gift and on entertaining a client?", {"$500", "$750"},
     {"$1,000", "$1,500"}),
])
def test_a_column_one_item_names_leaves_the_other_items_own_column_in(doc, question, kept, dropped):
    values = {c.value for c in enumerate_candidates(doc, question, top_k=100, min_ratio=0)}
    assert kept <= values and not dropped & values, values


@pytest.mark.parametrize("value,head,fragment", [
    ("$12", "The field allowance is $68/day ", "breakfast $12"),  # an item of the parenthesised list
    ("$38", "The field allowance is $68/day ", "dinner $38"),
    ("$68/day", "", "The field allowance is $68/day"),  # the lead value without the items
])
def test_parenthesised_items_are_their_own_candidates(value, head, fragment):
    cands = enumerate_candidates(_own("q_field_en.md"), "What is the field allowance for breakfast?", top_k=100,
                                 min_ratio=0)
    cand = next(c for c in cands if c.value == value)
    assert (cand.head, cand.fragment) == (head, fragment)


@pytest.mark.parametrize("name,question,values", [
    # a question naming a row, a column and a table's topic keeps that cell alone among the tables' values
    ("q_welfare_zh.md", "一线职工省外疗休养补助是多少？", {"2600元/人"}),
    ("q_welfare_zh.md", "管理人员疗休养天数是多少？", {"4天", "6天"}),
    ("q_field_en.md", "What is the maximum nightly rate in the North?", {"$180"}),
])
def test_a_question_naming_row_column_or_table_keeps_those_cells(name, question, values):
    assert {c.value for c in enumerate_candidates(_own(name), question)} == values


def test_a_question_naming_a_section_by_synonym_keeps_to_it():
    # "hotel" is the lodging section's word (lexicon synonyms): meal tips and parking are not the hotel cap
    doc = Document.load(sample_path("policy_en"))
    values = {c.value for c in enumerate_candidates(doc, "What is the hotel cap in high-cost cities?")}
    assert values == {"$250 per night", "$400 per night"}


def test_a_thousand_row_table_picks_its_row_and_column():
    rows = "\n".join(f"| Item {i} | ${i} | ${i * 2} |" for i in range(1, 1001))
    doc = Document.from_text("# Price list\n\n| Item | Standard | Premium |\n| --- | --- | --- |\n" + rows + "\n")
    cands = enumerate_candidates(doc, "What is the premium price for item 500?")  # row pairs not compared
    assert [c.value for c in cands] == ["$1000"]


def test_a_candidate_key_gives_back_its_value_offset():
    doc = Document.load(sample_path("policy_zh"))
    cands = document_candidates(doc)
    assert cands and all(key_offset(candidate_key(c)) == c.offset for c in cands)
    assert doc.text[cands[0].offset:].startswith(cands[0].value)
    assert key_offset("no offset:12") is None and key_offset("") is None


def test_a_question_picks_a_column_by_a_derived_form_of_its_header(tmp_path):
    # "entertaining" names the Entertainment column as "gift" names the Gift column: both stay candidates
    path = tmp_path / "limits.md"
    path.write_text("# Limits\n\n| Role | Gift value limit | Entertainment limit |\n|---|---|---|\n"
                    "| Director | $500 | $750 |\n| Managing Director | $1,000 | $1,500 |\n", encoding="utf-8")
    doc = Document.load(path)
    q = "How much can a Director spend on a gift and on entertaining a client?"
    assert {c.value for c in enumerate_candidates(doc, q)} >= {"$500", "$750"}
    headers = ["Gift value limit", "Entertainment limit"]
    assert identifies("entertaining a client", "Entertainment limit", headers, derived=True)
    # a fact's label is compared as written: the verifier does not stretch the document's words
    assert not identifies("entertaining a client", "Entertainment limit", headers)
    assert not identifies("a gift", "Entertainment limit", headers, derived=True)


def test_one_chinese_character_of_a_question_picks_no_header_by_itself(tmp_path):
    # the 一 of 一个月 is not the 一 of 一类城市 (the other cities' columns stay candidates), nor the 多 / 买 of 最多 /
    # 买房 the 多子女家庭购买 of a row
    path = tmp_path / "subsidy.md"
    path.write_text("# 补贴标准\n\n| 职级 | 交通补贴·一类城市 | 交通补贴·二类城市 | 交通补贴·三类城市 |\n|---|---|---|---|\n"
                    "| P1—P3 | 300元/月 | 240元/月 | 200元/月 |\n\n## 贷款额度\n\n| 情形 | 单缴存职工 | 双缴存职工 |\n"
                    "|---|---|---|\n| 首套住房 | 60万元 | 90万元 |\n| 第二套住房 | 40万元 | 60万元 |\n"
                    "| 多子女家庭购买首套住房 | 70万元 | 100万元 |\n", encoding="utf-8")
    doc = Document.load(path)
    values = {c.value for c in enumerate_candidates(doc, "工作地在绵阳，交通补贴一个月能拿多少？", top_k=50, min_ratio=0)}
    assert {"300元/月", "240元/月", "200元/月"} <= values
    rows = ["首套住房", "第二套住房", "多子女家庭购买首套住房"]
    assert not identifies("首次买房，最多能贷多少", "多子女家庭购买首套住房", rows, derived=True)
    cities = ["交通补贴·一类城市", "交通补贴·二类城市", "交通补贴·三类城市"]
    assert not identifies("交通补贴一个月能拿多少", "交通补贴·一类城市", cities, derived=True)
    assert not identifies("出差三天", "交通补贴·三类城市", cities, derived=True)
    # … but a numeral with what it counts does, and one character that alone sets a header apart does too
    assert identifies("住在一类城市", "交通补贴·一类城市", cities, derived=True)
    assert identifies("在三级医院看病", "三级医院", ["一级医院", "二级医院", "三级医院"], derived=True)
    assert identifies("每个月最多能取多少", "月提取限额", ["月提取限额", "年提取限额"], derived=True)
    assert identifies("What is the Tier 2 rate?", "Tier 2 rate", ["Tier 1 rate", "Tier 2 rate"], derived=True)
    # a question asking for the most names a header in the words a document gives it (一年最多 ~ 年度最高)
    assert _picked("普通门诊一年最多能报多少？", ["年度起付标准", "支付比例", "年度最高支付限额"]) == {"年度最高支付限额"}


def test_a_clitic_or_a_negated_word_of_a_question_picks_no_header():
    # the 's of "What's" is not the 's of "Master's"; "non-reserved" is the permit that is not reserved
    rows = ["Undergraduate", "Graduate (Master's)", "Doctoral"]
    assert not identifies("I'm an undergrad. What's my tuition?", "Graduate (Master's)", rows, derived=True)
    assert identifies("What's the fee for a Master's student?", "Graduate (Master's)", rows, derived=True)
    permits = ["General permit, per year", "Reserved permit, per year"]
    assert not _picked("How much is a regular, non-reserved parking permit for the year?", permits)
    assert _picked("How much is a reserved parking permit for the year?", permits) == {"Reserved permit, per year"}


def test_a_fragment_opening_with_function_words_is_ranked_and_labelled_with_the_one_it_continues(tmp_path):
    path = tmp_path / "travel.md"
    path.write_text("# Cover\n\n## Emergency medical expenses\n\nIf you are admitted to hospital abroad for more than 48 "
                    "hours, we will also pay a hospital benefit of £40 for each complete 24 hours, up to £1,500 in "
                    "total. Dental treatment is limited to £450 per person.\n", encoding="utf-8")
    doc = Document.load(path)
    by_value = {c.value: c for c in document_candidates(doc)}
    # "up to £1,500 in total" says what its value is only with the words before it
    assert by_value["£1,500"].context == ("we will also pay a hospital benefit of £40 for each complete 24 hours, "
                                          "up to £1,500 in total.")
    assert "£1,500" in {c.value for c in enumerate_candidates(doc, "What is the most hospital benefit I can get?")}
    # a fragment that opens with words of its own stands alone
    assert by_value["£40"].context.startswith("we will also pay")
    assert by_value["£450 per person"].context.startswith("Dental treatment")


def test_a_figure_the_question_gives_brings_the_row_whose_range_holds_it(tmp_path):
    path = tmp_path / "sla.md"
    path.write_text("# Hosting\n\n## 3. Service credits\n\nIf monthly availability of the Production Environment falls "
                    "below the commitment, Customer is entitled to the following credits against that month's fee:\n\n"
                    "| Monthly availability | Service credit |\n|---|---|\n| 99.0% to below 99.9% | 5% |\n"
                    "| 98.0% to below 99.0% | 10% |\n| 95.0% to below 98.0% | 20% |\n| Below 95.0% | 35% |\n\n"
                    "Customer must request a credit within 60 days. If availability of the Production Environment "
                    "is below 95.0% in three consecutive months, Customer may terminate this Agreement.\n",
                    encoding="utf-8")
    doc = Document.load(path)
    question = "Production uptime was 97.5% last month. What service credit are we owed?"
    # the row holding 97.5% is what the question names: it is a candidate though the prose shares more of the
    # question's words (above the floor), and the other rows are another scope however many they share (no floor)
    for min_ratio in (0.5, 0.0):
        values = {c.value for c in enumerate_candidates(doc, question, min_ratio=min_ratio)}
        assert "20%" in values and not values & {"5%", "10%", "35%"}, min_ratio


def test_a_subject_most_others_hold_whole_singles_nothing_out():
    from aegis_tui.answer.relevance import focus

    question = "请问城乡居民医保住院在不同级别医院的起付线和报销比例分别是多少？"
    subjects = ["一级定点医疗机构", "二级定点医疗机构", "一级定点医疗机构住院的", "二级定点医疗机构住院的", "次住院", "住院"]
    assert focus(subjects, question) is None  # 住院 is what most of them are about, not one of them
    # one other subject holding it does not make it generic: the question still names 退休人员
    assert focus(["退休人员", "退休人员（70周岁及以上）", "在职职工"], "退休人员的起付线是多少？") == {"退休人员"}



def test_a_bare_cell_carries_the_unit_its_table_s_unit_line_states():
    # "（单位：元/平方米·采暖期）" above a table: 24.50 is a rate per square metre and season, as a header's unit would
    # make it, so a question asking per 平方米 and 采暖期 finds the cell
    doc = Document.from_text("# 热费\n\n表1 按面积计收热费标准\n\n（单位：元/平方米·采暖期）\n\n| 区域类别 | 居民用户 | 非居民用户 |\n"
                             "|---|---|---|\n| 一类区域 | 24.50 | 30.20 |\n| 二类区域 | 23.20 | 28.60 |\n", "heat.md")
    values = {c.value for c in document_candidates(doc)}
    assert {"24.50元/平方米·采暖期", "30.20元/平方米·采暖期", "23.20元/平方米·采暖期"} <= values


def test_a_worked_example_s_figures_take_no_place_on_the_shortlist():
    # the example names the asker's very words (一级肢体残疾, 南港区), the rule's table only some: the example's figures
    # answer nothing about the rule (cover leaves them out), so they crowd none of the table's cells out
    doc = Document.from_text("# 补贴办法\n\n## 补贴标准\n\n| 补贴对象 | 一类地区 | 二类地区 |\n|---|---|---|\n"
                             "| 低保家庭中的一级、二级残疾人 | 160元 | 145元 |\n\n## 计算示例\n\n"
                             "示例一：张某，男，45岁，户籍南港区，持有一级肢体残疾人证，其家庭为低保家庭，每月领取生活补贴160元。\n",
                             "subsidy.md")
    values = [c.value for c in enumerate_candidates(doc, "我爸一级肢体残疾，家里吃低保，户口在南港区，生活补贴每个月能拿多少钱？")]
    assert "160元" in values and "45岁" not in values
    assert all("示例" not in c.quote for c in enumerate_candidates(doc, "张某45岁，南港区，每月领取多少？"))


EXPROPRIATION = Document.from_text(
    "# 某市房屋征收与补偿办法\n\n## 第一章 总则\n\n本办法适用于征收决定公告后的补偿。征收决定公告前已签订协议的，按原协议执行。\n\n"
    "## 第二章 征收决定\n\n作出征收决定前，应当进行社会稳定风险评估，评估期限不超过30日。\n\n"
    "## 第三章 补偿标准\n\n住宅区位基准价为每平方米13900元。住宅搬迁费每户2000元。\n\n"
    "## 第四章 附则\n\n征收决定公告后新建的房屋不予补偿。征收决定的公告期限为10日。\n", "expropriation.md")


def test_a_section_named_by_what_the_whole_document_speaks_of_does_not_narrow_what_another_holds():
    # the question dates its case by the 征收决定 (a chapter's name every chapter speaks of) and asks what the 补偿标准
    # chapter states: the 征收决定 chapter, holding none of it, does not narrow the question to itself
    values = {c.value for c in enumerate_candidates(EXPROPRIATION, "我们这片的征收决定是2025年8月公告的，住宅区位基准价是多少？",
                                                    top_k=100, min_ratio=0)}
    assert "13900元" in values
    # asked what that chapter holds, it narrows to it
    values = {c.value for c in enumerate_candidates(EXPROPRIATION, "征收决定前的风险评估期限是多少天？", top_k=100, min_ratio=0)}
    assert "30日" in values and "13900元" not in values


def test_items_listed_before_the_one_stating_their_value_are_its_words():
    # "尿毒症透析治疗、器官移植术后抗排异治疗的年度最高支付限额…为90,000元": both items have that cap, so a question about the
    # first finds the value by its words
    doc = Document.from_text("# 待遇\n\n第二十四条　三类病种中，尿毒症透析治疗、器官移植术后抗排异治疗的年度最高支付限额提高至"
                             "90,000元（原标准为75,000元）。恶性肿瘤门诊放化疗的年度最高支付限额为60,000元。\n", "listed.md")
    by_value = {c.value: c for c in document_candidates(doc)}
    assert "尿毒症透析治疗、器官移植术后抗排异治疗" in by_value["90,000元"].framed
    assert "尿毒症" not in by_value["60,000元"].framed
    assert [c.value for c in enumerate_candidates(doc, "尿毒症透析一年最多报多少？", top_k=1)] == ["90,000元"]


def test_a_synonym_naming_a_measure_of_another_kind_than_asked_is_not_added():
    from aegis_tui.answer.relevance import expand_question

    # "能报多少" may ask a share (报销比例); "能报多少钱" asks an amount, which no 报销比例 is
    assert "报销比例" in expand_question("住院能报多少？")
    assert "报销比例" not in expand_question("门诊一年最多能给报多少钱？")


def test_a_title_and_its_short_form_in_the_question_tell_no_value_apart():
    from aegis_tui.text.entities import abbreviated

    title = "澜州市城乡居民基本医疗保险门诊慢性病和特殊疾病待遇管理实施细则"
    # a Chinese short form keeps a name's characters in its order (居民医保 of 居民基本医疗保险)
    assert abbreviated("做透析的尿毒症病人，居民医保门诊慢特病最多能报多少钱？", [title]) == ["居民医保门诊慢特病"]
    assert abbreviated("尿毒症病人能报多少钱？", [title]) == []
    # the clauses naming the document's topic at length ("本市居民医保门诊慢特病病种目录共57个病种") rank below the one
    # naming what the question asks (尿毒症透析), though they share more of its characters
    filler = "".join(f"本市居民医保门诊慢特病第{i}批定点机构共{i + 10}家。" for i in range(1, 15))
    doc = Document.from_text(f"# {title}\n\n## 第一章 总则\n\n{filler}\n\n## 第四章 待遇标准\n\n"
                             "尿毒症透析治疗的年度最高支付限额为90,000元。\n", "topic.md")
    got = [c.value for c in enumerate_candidates(doc, "做透析的尿毒症病人，居民医保门诊慢特病一年最多能报多少钱？", top_k=1)]
    assert got == ["90,000元"]


def test_the_day_of_the_question_s_case_matches_no_figure_by_its_digits():
    # "2025年8月" is when the case happens: its 8 is no word matching the former 8周 over the 12周 in force
    doc = Document.from_text("# 处方\n\n## 长期处方\n\n单次处方用量最长不超过12周。\n\n## 附件 修订说明\n\n"
                             "原办法单次处方用量最长不超过8周。\n", "days.md")
    got = [c.value for c in enumerate_candidates(doc, "2025年8月开药，一张处方用量最长多少？", top_k=1)]
    assert got == ["12周"]
