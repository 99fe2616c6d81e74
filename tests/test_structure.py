"""Structure: heading paths, list items with lead-ins, tables (header rows, row labels, ragged and empty cells)."""

from datetime import date
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aegis_tui.samples import sample_path
from aegis_tui.text.document import Document
from aegis_tui.text.structure import build_structure, structure

DOCS = Path(__file__).with_name("docs")


def doc(name: str) -> Document:
    return Document.load(DOCS / name)


def path_at(d: Document, needle: str) -> tuple[str, ...]:
    return d.structure.heading_path(d.text.index(needle))


@pytest.mark.parametrize("sample, needle, expected", [
    # the English sample: "4. Lodging" is a numbered title, the paragraph under it is its body
    ("en", "Hotel costs are reimbursed", ("Northwind Holdings Travel and Expense Reimbursement Policy", "4. Lodging")),
    ("en", "Cash advances are limited", ("Northwind Holdings Travel and Expense Reimbursement Policy",
                                         "10. Cash advances")),
    # the Chinese sample: 第X章 titles nest, a long 第X条 paragraph is scoped by its article label
    ("zh", "特困人员、低保对象、返贫致贫人口住院的", ("某市城乡居民基本医疗保险住院费用报销实施办法", "第四章　特殊人群待遇",
                                      "第十二条")),
    ("zh", "一个自然年度内多次住院的", ("某市城乡居民基本医疗保险住院费用报销实施办法", "第三章　住院待遇", "第八条")),
    ("zh", "（二）在二级定点医疗机构住院的", ("某市城乡居民基本医疗保险住院费用报销实施办法", "第三章　住院待遇", "第九条")),
])
def test_sample_heading_paths(sample, needle, expected):
    d = Document.load(sample_path(f"policy_{sample}"))
    assert path_at(d, needle) == expected


def test_sample_list_items_hang_from_their_lead_in():
    d = Document.load(sample_path("policy_zh"))
    block = d.structure.block_at(d.text.index("（三）在三级"))
    assert block.kind == "list_item" and block.lead_in.endswith("统筹基金的报销比例为：")


def test_english_document_tables_share_row_labels_but_not_captions():
    d = doc("expense_en.md")
    s = structure(d)
    assert s is d.structure  # built once, cached on the document
    per_diem, business = s.tables
    assert [per_diem.row_header(r) for r in range(1, 4)] == ["Breakfast", "Lunch", "Dinner"]
    assert [business.row_header(r) for r in range(1, 4)] == ["Breakfast", "Lunch", "Dinner"]
    assert per_diem.column_header(1) == "Domestic ($)" and business.column_header(1) == "Limit per person"
    assert per_diem.caption == "The per diem rates per person are:"
    assert business.caption == "The per-person limits for business meals are:"
    assert per_diem.heading_path[-1] == "6.1 Per diem" and business.heading_path[-1] == "6.2 Business meals"
    # the same "Breakfast" label resolves to a different table and cell depending on where it stands
    first = d.text.index("| Breakfast | 18")
    second = d.text.index("| Breakfast | $30")
    t1, c1 = s.cell_at(first + 2)
    t2, c2 = s.cell_at(second + 2)
    assert (t1.index, c1.row, c1.col, c1.text) == (0, 1, 0, "Breakfast")
    assert (t2.index, c2.row, c2.col, c2.text) == (1, 1, 0, "Breakfast")
    t, cell = s.cell_at(d.text.index("$95"))
    assert (cell.text, business.row_header(cell.row), business.column_header(cell.col)) == (
        "$95", "Dinner", "Limit per person")


def test_english_list_items_and_headings():
    d = doc("expense_en.md")
    s = d.structure
    item = s.block_at(d.text.index("Tier B cities"))
    assert item.kind == "list_item" and item.lead_in == "Room rates are capped as follows:"
    assert s.block_at(d.text.index("(a) extended")).kind == "list_item"
    assert path_at(d, "Mileage for private cars") == ("Harbor Line Logistics Expense Handbook", "7. Lodging")
    assert [h.level for h in s.headings[:4]] == [1, 2, 3, 3]


def test_chinese_document_scopes_and_header_units():
    d = doc("medical_zh.md")
    s = d.structure
    assert path_at(d, "城乡居民在二级医疗机构住院")[-2:] == ("第三章　城乡居民待遇", "第六条")
    assert path_at(d, "二级医疗机构住院报销比例为94%")[-2:] == ("第二章　职工住院待遇", "第五条")
    item = s.block_at(d.text.index("（二）退休人员"))
    assert item.kind == "list_item" and item.lead_in.endswith("按年龄段确定：")
    table = s.tables[0]
    assert table.caption == "第七条　职工疗休养补助标准如下："
    assert table.heading_path[-1] == "第七条"
    _, cell = s.cell_at(d.text.index("2600"))
    assert (table.row_header(cell.row), table.column_header(cell.col)) == ("一线职工", "省外（元/人）")


_TRAVEL = """# Corporate Travel Policy

Section 2 Lodging

2.2 High-cost cities

The following limits apply:
(a) New York: $320 per night;
(iii) other cities on the list: $260 per night.

Section 3 Meals

- Breakfast
  - Domestic: $15
- Dinner
  - Domestic: $45
"""


@pytest.mark.parametrize("needle, kind, lead_in, path", [
    # lettered and roman items hang from the lead-in sentence
    ("(a) New York", "list_item", "The following limits apply:", ("Section 2 Lodging", "2.2 High-cost cities")),
    ("(iii) other cities", "list_item", "The following limits apply:", ("Section 2 Lodging", "2.2 High-cost cities")),
    # a nested item hangs from its parent item
    ("- Domestic: $15", "list_item", "Breakfast", ("Section 3 Meals",)),
    ("- Domestic: $45", "list_item", "Dinner", ("Section 3 Meals",)),
])
def test_list_items_lead_ins(needle, kind, lead_in, path):
    d = Document.from_text(_TRAVEL)
    block = d.structure.block_at(d.text.index(needle))
    assert (block.kind, block.lead_in, block.heading_path) == (kind, lead_in, ("Corporate Travel Policy",) + path)


def test_chinese_notice_numbered_titles_lists_and_a_numbered_closing_paragraph():
    d = doc("notice_zh.md")
    title = "关于调整城乡居民基本医疗保险待遇的通知"
    assert path_at(d, "参保居民在基层") == (title, "一、门诊待遇", "（一）普通门诊")
    item = d.structure.block_at(d.text.index("2. 报销比例为65%"))
    assert item.kind == "list_item" and item.heading_path == (title, "一、门诊待遇", "（二）门诊慢特病")
    table = d.structure.tables[0]
    assert table.heading_path == (title, "二、住院待遇") and table.row_header_col == 1
    assert table.row_header(2) == "二级" and table.column_header(3) == "报销比例（%）"
    # "三、…" with its text on the line is section three: section two's scope ends there
    assert path_at(d, "本通知自2025年") == (title,)


@pytest.mark.parametrize("text, needle, expected", [
    # 一、 and （一） titles nest by first appearance; a sibling replaces its predecessor
    ("一、总体要求\n\n（一）基本原则\n\n坚持保基本。\n\n二、待遇标准\n\n门诊起付线为300元。", "门诊起付线", ("二、待遇标准",)),
    ("一、总体要求\n\n（一）基本原则\n\n坚持保基本。", "坚持保基本", ("一、总体要求", "（一）基本原则")),
    # 1. and 1.1 numbered sections
    ("1. Scope\nApplies to staff.\n\n1.1 Contractors\nThey follow annex B.\n\n2. Rates\nThe rate is 5%.",
     "They follow", ("1. Scope", "1.1 Contractors")),
    ("1. Scope\nApplies to staff.\n\n1.1 Contractors\nThey follow annex B.\n\n2. Rates\nThe rate is 5%.",
     "The rate is", ("2. Rates",)),
    # short numbered lines one after another are a list, not titles
    ("Covered items:\n1. Airfare\n2. Lodging\n3. Meals", "Lodging", ()),
    # a numbered line that is a sentence is no title
    ("1. Employees must file claims within 30 days.\n2. Late claims are refused.", "Late claims", ()),
    # a 第X条 article scopes its own 款 paragraphs until the next article or heading
    ("第一章　待遇\n\n第五条　职工住院起付标准为700元。\n\n退休人员减半执行，即350元。\n\n第六条　居民为800元。",
     "退休人员减半", ("第一章　待遇", "第五条")),
    ("第一章　待遇\n\n第五条　职工住院起付标准为700元。\n\n第二章　居民\n\n居民起付标准为800元。",
     "居民起付标准", ("第二章　居民",)),
    # bold lines of converted documents, and a separator after the number
    ("**Section 4: Lodging**\n\nRooms are capped at $200.", "Rooms are", ("Section 4: Lodging",)),
    ("**Meals**\n\nLunch is capped at $20.\n\n**Lodging**\n\nRooms cost $150.", "Rooms cost", ("Lodging",)),
    ("**Note:** keep receipts.\n\nLunch is capped at $20.", "Lunch is", ()),
    # Markdown headings pop numbered titles beneath them
    ("# Policy\n\n第一章　总则\n\n第一条　本办法适用于全体员工。\n\n## Annex\n\nText here.", "Text here", ("Policy", "Annex")),
    ("# Policy\n\n第一章　总则\n\n第一条　本办法适用于全体员工。", "本办法适用", ("Policy", "第一章　总则", "第一条")),
    # an English clause's run-in title scopes it, up to the next clause of its numbering; a first sentence that
    # says something ("The fee is waived.") is no title
    ("## 7. Assistance\n\n7.1 Low-income assistance. Customers receive a 30% discount.\n\n7.2 Senior credit. "
     "Seniors receive a $5 credit.", "Seniors receive", ("7. Assistance", "7.2 Senior credit")),
    ("## 7. Assistance\n\n7.1 Low-income assistance. Customers receive a 30% discount.\n\n7.2 The fee is waived. "
     "Seniors receive a $5 credit.", "Seniors receive", ("7. Assistance",)),
    ("## 4. Rent\n\n4.2 Late Payment. If rent is late, a $50 charge applies.\n\nA second paragraph of 4.2.",
     "A second", ("4. Rent", "4.2 Late Payment")),
])
def test_numbered_heading_paths(text, needle, expected):
    d = Document.from_text(text)
    assert path_at(d, needle) == expected


@pytest.mark.parametrize("text, rows, header_rows", [
    # ragged rows: fewer and more cells than the header
    ("| a | b | c |\n| --- | --- | --- |\n| 1 | 2 |\n| 3 | 4 | 5 | 6 |", [["a", "b", "c"], ["1", "2"], ["3", "4", "5", "6"]], 1),
    # empty cells keep their place
    ("| a | b | c |\n|---|---|---|\n| x |  | 3 |", [["a", "b", "c"], ["x", "", "3"]], 1),
    # a header-only table
    ("| only | header |\n| --- | --- |", [["only", "header"]], 1),
    # no outer pipes, an escaped pipe inside a cell
    ("a | b\n--- | ---\nx \\| y | 2", [["a", "b"], ["x \\| y", "2"]], 1),
    # a .txt table without a separator row: the first row is the header when only later rows hold numbers
    ("Rates:\n| Meal | Cap |\n| Lunch | 20 |", [["Meal", "Cap"], ["Lunch", "20"]], 1),
    # two header rows above the separator
    ("| Meal | Cap | Cap |\n| | Domestic | Overseas |\n| --- | --- | --- |\n| Lunch | 20 | 30 |",
     [["Meal", "Cap", "Cap"], ["", "Domestic", "Overseas"], ["Lunch", "20", "30"]], 2),
])
def test_table_shapes(text, rows, header_rows):
    s = build_structure(text)
    assert len(s.tables) == 1
    table = s.tables[0]
    assert [[c.text for c in r] for r in table.rows] == rows
    assert table.header_rows == header_rows
    for r, row in enumerate(table.rows):
        for c, cell in enumerate(row):
            assert (cell.row, cell.col) == (r, c) and text[cell.start:cell.end] == cell.text
            if cell.text:
                assert table.cell_at(cell.start) is cell


def test_two_header_rows_join_in_the_column_header():
    s = build_structure("| Meal | Cap | Cap |\n| | Domestic | Overseas |\n| --- | --- | --- |\n| Lunch | 20 | 30 |")
    assert s.tables[0].column_header(2) == "Cap / Overseas"


def test_row_header_column_skips_a_numbering_column():
    s = build_structure("| 序号 | 类别 | 标准 |\n| --- | --- | --- |\n| 1 | 一线职工 | 1800 |\n| 2 | 其他职工 | 1500 |")
    assert s.tables[0].row_header_col == 1 and s.tables[0].row_header(2) == "其他职工"


def test_thousand_row_table_is_read_whole():
    rows = "\n".join(f"| item {i} | {i * 3} | {i * 7}元 |" for i in range(1000))
    text = "Prices:\n\n| Item | A | B |\n| --- | --- | --- |\n" + rows + "\n\nAfter the table."
    s = build_structure(text)
    assert len(s.tables[0].rows) == 1001
    assert s.cell_at(text.index("| 2997 |") + 2)[1].text == "2997"
    assert s.block_at(text.index("After the table")).kind == "paragraph"


_MD_PIECES = st.sampled_from([
    "# Title", "## 6.2 Meals", "第一章　总则", "第三条　起付标准为600元。", "一、总体要求", "（一）基本原则",
    "1. Purpose", "- item $20", "  - nested", "| a | b |", "| --- | --- |", "| 1 | |", "|", "||", "a | b",
    "---", "===", "> quote: ", "    code", "```", "Text ends with:", "", "第十条之一", "①", "\\|", "*", "1)",
])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(_MD_PIECES, st.text(max_size=12)), max_size=25))
def test_structure_never_crashes_and_spans_lie_inside(pieces):
    text = "\n".join(pieces)
    s = build_structure(text)
    for block in s.blocks:
        assert 0 <= block.start <= block.end <= len(text)
    for heading in s.headings:
        assert text[heading.start:heading.end] == heading.text
    for table in s.tables:
        assert 0 <= table.start <= table.end <= len(text)
        for row in table.rows:
            for cell in row:
                assert table.start <= cell.start <= cell.end <= table.end and text[cell.start:cell.end] == cell.text
    starts = [b.start for b in s.blocks]
    assert starts == sorted(starts)


def test_text_source_map_is_the_identity():
    d = Document.from_text("line one\nline two")
    loc = d.source.locate(d.text.index("two"))
    assert (loc.format, loc.line, loc.column, loc.describe()) == ("text", 2, 6, "line 2, col 6")
    assert doc("expense_en.md").format == "markdown"


def test_a_column_of_ranges_labels_rows_only_beside_figures_of_another_kind():
    usage = Document.from_text("| Tier | Usage | Rate |\n|---|---|---|\n| Tier 1 | 0 to 6 CCF | $3.12 |\n"
                               "| Tier 2 | 7 to 15 CCF | $4.05 |\n")
    assert usage.structure.tables[0].label_cols == (1,)
    # thresholds beside thresholds of the same kind are the figures asked for
    thresholds = Document.from_text("| 交易类型 | 人民币标准 | 外币标准 |\n|---|---|---|\n| 现金 | 5万元以上（含） | 1万美元以上（含） |\n"
                                    "| 转账 | 200万元以上（含） | 20万美元以上（含） |\n")
    assert thresholds.structure.tables[0].label_cols == ()


ILLUSTRATED = Document.from_text(
    "# 租房提取\n\n中心城区单身职工月提取限额为1,500元。\n\n"
    "示例一：某职工月租金2,200元，未办理网签备案。\n\n"
    "- 可提取金额：1,500元 × 12个月 = 18,000元\n\n"
    "问：月租金只有900元，能按限额提取吗？\n答：按实际房租提取，每月不超过1,500元。\n\n"
    "## 附件 计算示例\n\n某职工家庭年租金36,000元。\n\n"
    "# Credits\n\nQ: Our uptime was 98.6% last month. What do we get?\nA: A credit of 10% of the monthly fee.\n\n"
    "Example 2: a customer with 97.5% uptime receives 25%.\n", "illustrated.md")


@pytest.mark.parametrize("figure, expected", [
    ("月提取限额为1,500元", False),       # the rule
    ("2,200元", True),                    # a worked example's figure
    ("× 12个月", True),                   # the list of sums under it
    ("900元", True),                      # a question the document poses
    ("每月不超过1,500元", False),         # its answer states the rule
    ("36,000元", True),                   # a section of examples
    ("98.6%", True),
    ("10% of", False),
    ("97.5%", True),
])
def test_a_worked_example_or_posed_question_states_a_case_not_the_rule(figure, expected):
    from aegis_tui.text.structure import illustrative

    at = ILLUSTRATED.text.index(figure)
    at += next(i for i, c in enumerate(figure) if c.isdigit())
    assert illustrative(ILLUSTRATED, at) is expected


def test_a_caption_is_read_across_the_unit_line_under_it():
    doc = Document.from_text("# 收费办法\n\n第二十条 车位服务费按下表上限执行。\n\n表2 车位服务费上限\n\n单位：元/个·月\n\n"
                             "| 区域类别 | 地下车位 |\n|---|---|\n| 一类区域 | 80元 |\n\n"
                             "Table 3. Fees\n\n(Amounts in USD)\n\n| Size | Fee |\n|---|---|\n| 1\" | $5 |\n", "units.md")
    assert [t.caption for t in doc.structure.tables] == ["表2 车位服务费上限", "Table 3. Fees"]
    # a numbered caption of a long title is one still ("Table 2 — Maximum … from 1 April 2025 (% of Pensionable Salary)")
    long = "Table 2 — Maximum Company matching contribution from 1 April 2025 (% of Pensionable Salary)"
    doc = Document.from_text(f"# Rules\n\n## Part 4\n\n{long}\n\n| Age Band | Grade 1 |\n|---|---|\n| Under 30 | 4% |\n", "c.md")
    assert doc.structure.tables[0].caption == long


def test_a_lettered_or_appendix_table_number_opens_a_caption_and_a_note_under_it_hides_none():
    text = ("# Policy\n\n## Appendix D — Rates under Version 5.2\n\nTable D1 — Relocation Expenses Cap (Version 5.2)\n\n"
            "| Tier | Cap |\n|---|---|\n| Tier 1 | £8,250 |\n\nTable C.1 – Grade to Band mapping (Version 3.1)\n\n"
            "| Grade | Band |\n|---|---|\n| G5 | Band C |\n\nTable of contents\n\n| Part | Page |\n|---|---|\n| 1 | 3 |\n")
    doc = Document.from_text(text, "lettered.md")
    assert [t.caption for t in doc.structure.tables] == [
        "Table D1 — Relocation Expenses Cap (Version 5.2)", "Table C.1 – Grade to Band mapping (Version 3.1)",
        "Appendix D — Rates under Version 5.2"]  # ("Table of contents" is a title, not a table's number)
    # a note between a caption and its table ("对应最低工资标准：…") leaves the caption the table's
    zh = ("# 细则\n\n### 附件1　失业保险金月标准表\n\n**表1　失业保险金月标准（原标准）**\n\n对应最低工资标准：一类区域2,200元/月。\n\n"
          "| 累计缴费年限 | 一类区域 |\n|---|---|\n| 满1年 | 1,760元 |\n\n附表2　补贴标准\n\n| 类别 | 金额 |\n|---|---|\n| 甲类 | 1,000元 |\n")
    doc = Document.from_text(zh, "zh.md")
    assert [t.caption for t in doc.structure.tables] == ["表1　失业保险金月标准（原标准）", "附表2　补贴标准"]


def test_a_caption_s_lettered_number_is_no_part_of_its_title():
    from aegis_tui.answer.structural import title_of

    assert title_of("Table D1 — Relocation Expenses Cap") == "Relocation Expenses Cap"
    assert title_of("Table C.1 – Grade to Band mapping") == "Grade to Band mapping"
    assert title_of("Table A3.2 – Multipliers") == "Multipliers" and title_of("Table B-1. Hours") == "Hours"
    assert title_of("附表2 补贴标准") == "补贴标准" and title_of("Part A — Eligibility") == "Eligibility"
    # (a word is no letter: "Table of contents", "Section Ax")
    assert title_of("Table of contents") == "Table of contents" and title_of("Section Ax") == "Section Ax"


def test_a_caption_s_compound_number_is_no_part_of_its_title():
    from aegis_tui.answer.structural import title_of

    assert title_of("Table 3-1. Monthly Water Base Charge by Meter Size") == "Monthly Water Base Charge by Meter Size"
    assert title_of("Table 4. Fees") == "Fees" and title_of("表2 车位服务费上限") == "车位服务费上限"
    # (a part's number is two characters: "第二部分 二类城市" is titled 二类城市, not "分 二类城市")
    assert title_of("第二部分 二类城市") == "二类城市" and title_of("第三章 待遇") == "待遇"
    # (nor the dash after an English number: "Part 4 — Company contributions"; a hyphenated title keeps its hyphen)
    assert title_of("Part 4 — Company contributions") == "Company contributions"
    assert title_of("Table 2 – Top-up rates") == "Top-up rates"


def test_a_numbered_section_of_examples_is_one():
    from aegis_tui.text.structure import illustrative

    doc = Document.from_text("# Relocation Policy\n\n## 11. Travel\n\nMileage is paid at $0.67 per mile.\n\n"
                             "## 20. Worked Examples\n\nA Tier 1 employee drives one car 1,050 miles.\n", "policy.md")
    assert illustrative(doc, doc.text.index("1,050"))
    assert not illustrative(doc, doc.text.index("0.67"))


def test_a_title_that_starts_with_example_is_no_section_of_examples():
    from aegis_tui.text.structure import illustrative

    doc = Document.from_text("# Example Co. Medical Plan\n\n## Cost sharing\n\nThe annual deductible is $1,100.\n", "plan.md")
    assert doc.structure.title == "Example Co. Medical Plan"
    assert not illustrative(doc, doc.text.index("$1,100"))


@pytest.mark.parametrize("text, title", [
    ("# 办法\n\n第二十三条【一次性医疗补助金】 一次性医疗补助金按月数计发：\n\n| 等级 | 一类地区 | 二类地区 |\n|---|---|---|\n"
     "| 九级 | 5个月 | 4个月 |\n", "一次性医疗补助金"),
    ("# 办法\n\n第十五条　年度资助上限 每名职工每个学年获得的资助，不得超过下表所列上限：\n\n| 学历 | 第一档 | 第二档 |\n"
     "|---|---|---|\n| 本科 | 10000元 | 9000元 |\n", "年度资助上限"),
    ("# 办法\n\n第十条（护理费） 护理费按下表支付：\n\n| 等级 | 一类地区 | 二类地区 |\n|---|---|---|\n| 完全 | 50% | 40% |\n",
     "护理费"),
    # a note on the article, or an article with no title, titles nothing
    ("# 办法\n\n第十条（2025年修订） 护理费按下表支付：\n\n| 等级 | 一类地区 | 二类地区 |\n|---|---|---|\n"
     "| 完全 | 50% | 40% |\n", ""),
    ("# 办法\n\n第十条 护理费按下表支付：\n\n| 等级 | 一类地区 | 二类地区 |\n|---|---|---|\n| 完全 | 50% | 40% |\n", ""),
])
def test_an_article_s_title_is_what_its_table_is_about(text, title):
    from aegis_tui.text.structure import article_title

    doc = Document.from_text(text, "article.md")
    assert article_title(doc, doc.structure.tables[0].rows[-1][1].start) == title


@pytest.mark.parametrize("header, expected", [
    ("| 伤残等级 | 一类地区 | 二类地区 | 三类地区 |", [True, True, True]),
    ("| 职级 | 一类城市（每人每天） | 二类城市（每人每天） | 其他城市（每人每天） |", [True, True, True]),  # the series' others
    ("| Vehicle class | Band A | Band B | Band C |", [True, True, True]),
    ("| 学历层次 | 第一档 | 第二档 | 第三档 |", [True, True, True]),
    # headers that name their measure beside the class, or measures alike: no classes alone
    ("| 职级 | 交通补贴·一类城市 | 交通补贴·二类城市 | 通讯补贴 |", [False, False, False]),
    ("| 国家和地区类别 | A类住宿费上限 | B类住宿费上限 | 伙食费及公杂费 |", [False, False, False]),
    ("| 人员 | 门诊限额 | 住院限额 | 大病限额 |", [False, False, False]),
])
def test_a_table_s_columns_are_classes_of_a_series_when_their_headers_differ_by_an_ordinal_alone(header, expected):
    from aegis_tui.answer.structural import classes

    width = header.count("|") - 1
    text = f"# 标准\n\n{header}\n|{'---|' * width}\n| 甲 |{' 100元 |' * (width - 1)}\n| 乙 |{' 200元 |' * (width - 1)}\n"
    table = Document.from_text(text, "classes.md").structure.tables[0]
    assert [classes(table, c) for c in range(1, width)] == expected


_EDITIONS_ZH = ("# 差旅管理制度（2025年修订）\n\n第一条 本制度是对《集团差旅费管理办法（2022版）》（集团制〔2022〕8号，以下简称“2022版办法”）"
                "的修订。\n\n第十五条【住宿费标准】 住宿费标准如下（单位：元/人·晚）：\n\n| 员工类别 | 一类城市 | 二类城市 |\n|---|---|---|\n"
                "| D类 | 600 | 480 |\n\n2022版办法住宿费标准（单位：元/人·晚）：\n\n| 员工类别 | 一类城市 | 二类城市 |\n|---|---|---|\n"
                "| D类 | 520 | 420 |\n\n| 城市类别 | 本制度 | 2022版办法 |\n|---|---|---|\n| 一类 | 300 | 260 |\n\n"
                "第三十四条 自返回之日起超过3个月未提交的，不予报销（2022版办法为6个月）。\n")


@pytest.mark.parametrize("value, former", [
    ("480", False), ("420", True),   # a table its caption heads by the replaced rule's short name
    ("300", False), ("260", True),   # a column so headed
    ("3个月", False), ("6个月", True),  # a clause's parenthesis giving the replaced rule's figure
])
def test_a_figure_of_the_rule_a_document_replaces_is_superseded(value, former):
    from aegis_tui.text.structure import former_names, superseded

    doc = Document.from_text(_EDITIONS_ZH, "editions.md")
    assert former_names(doc) == {"2022版办法"}
    at = doc.text.index(f" {value} |") + 1 if value.isdigit() else doc.text.index(value)
    assert superseded(doc, at, len(value)) is former
    # (a short name given to what the document merely refers to is no former rule)
    other = Document.from_text("# 办法\n\n第二条 本办法适用于《社会保险法》（以下简称“社保法”）规定的参保人员。\n", "x.md")
    assert former_names(other) == set()


def test_a_former_edition_is_named_by_its_stem_only_where_a_word_is_dropped_not_a_digit():
    # "2022版" is the former edition; the current table's caption "城市类别划分表（2025版）" names the year 2025, not the 202
    # of 2022: its cells are the current classification
    from aegis_tui.text.structure import names_in, superseded

    assert names_in("《费用报销管理办法（2021年版）》·一类城市", frozenset({"2021年版办法"}))
    assert not names_in("附件1　城市类别划分表（2025版）", frozenset({"2022版"}))
    doc = Document.from_text("# 费用报销管理办法\n\n本办法自2025年4月1日起施行，原《费用报销管理办法（2022版）》（以下简称“2022版”）"
                             "同时废止。\n\n## 附件1　城市类别划分表（2025版）\n\n| 序号 | 城市 | 城市类别 |\n|---|---|---|\n"
                             "| 1 | 金沙市 | 二类城市 |\n", "cities.md")
    assert not superseded(doc, doc.text.index("二类城市"), 4)


_EDITION_REPEALED_ZH = ("# 员工住房补贴管理办法（2025年修订）\n\n> 施行日期：2025年7月1日\n\n第十四条 月度住房补贴按下列规定发放：\n\n"
                        "（一）试用期员工，按对应标准的70%发放。\n\n第十五条 与2021年版办法相比，本次修订上调了补贴标准。其中，B档员工的月度"
                        "住房补贴原为每月3000元，现为每月3500元。\n\n第六十五条 本办法自2025年7月1日起施行。《集团员工住房补贴管理办法（2021年"
                        "版）》（集团人发〔2021〕15号）同时废止。\n\n## 附件3 新旧标准对照\n\n| 项目 | 2021年版 | 本办法 |\n|---|---|---|\n"
                        "| 试用期员工发放比例 | 60% | 70% |\n")


@pytest.mark.parametrize("value, former", [
    ("60%", True), ("70% |", False),  # a column headed by the edition the repealed rule's title names
    ("3000元", True), ("3500元", False),  # a figure the clause says it formerly was
])
def test_a_repealed_rule_is_named_by_its_edition_and_a_figure_it_formerly_was_is_superseded(value, former):
    # no 以下简称: the document speaks of the repealed 《…（2021年版）》 by its edition ("2021年版办法", "| 2021年版 |")
    from aegis_tui.text.structure import current, former_names, superseded

    doc = Document.from_text(_EDITION_REPEALED_ZH, "edition.md")
    assert "2021年版" in former_names(doc)
    at = doc.text.index(value)
    assert superseded(doc, at, len(value.split()[0])) is former
    if value == "70% |":
        assert current(doc, at)
    # (the document's own edition, "（2025年修订）", and a law it cites are no former rule)
    cited = Document.from_text("# 办法（2025年版）\n\n第一条 根据《社会保险法（2018年版）》制定本办法。\n", "cited.md")
    assert former_names(cited) == set()


_EDITIONS_EN = ('# Staff Relocation Policy 2025\n\n## 1. Scope\n\nThis Policy (the "Policy") replaces the Staff Relocation '
                'Policy 2021 (the "2021 Policy") for moves after 1 April 2025. The Income Tax Act (the "Act") applies. The '
                'Parking Order 2019 (the "2019 Order") is hereby revoked. The permit scheme is replaced by the Zonal Permit '
                'Scheme (the "Zonal Scheme").\n\n## 2. Allowances\n\nThe settling-in allowance is £3,500 (2021 Policy: £3,000). '
                'Storage is paid for up to 90 days (previously 60 days).\n\n| Band | Allowance | 2021 Policy |\n|---|---|---|\n'
                '| A | £1,200 | £1,000 |\n')


@pytest.mark.parametrize("value, former", [
    ("£3,500", False), ("£3,000", True),  # an aside giving the replaced rule's figure by its defined name …
    ("90 days", False), ("60 days", True),  # … or as what it was before
    ("£1,200", False), ("£1,000", True),  # a column headed by the replaced rule's defined name
])
def test_a_figure_of_the_rule_an_english_document_replaces_is_superseded(value, former):
    from aegis_tui.text.structure import former_names, superseded

    doc = Document.from_text(_EDITIONS_EN, "editions.md")
    # (not the document's own name, what it merely refers to, nor what replaces)
    assert former_names(doc) == {"2021 Policy", "2019 Order"}
    assert superseded(doc, doc.text.index(value), len(value)) is former


_PERIODS_EN = ("# Parking Permits and Tariff 2025\n\n## 1. Scope\n\nThis tariff applies to all permits with a start date on or "
               "after 1 April 2025. The Parking Order 2019 (the \"2019 Order\") was in force from 1 May 2019.\n\n"
               "## 2. Prices\n\n**Table 1 — Resident permit prices from 1 April 2025**\n\n| Band | Zone K1 | Zone K2 |\n"
               "|---|---|---|\n| Band 2 | £120 | £100 |\n\n## 3. Six-month permits\n\nSix-month permits cost 55% of the annual price. Under the 2023 Tariff "
               "six-month permits cost 60% of the annual price.\n\n**Table 2 — Summary of changes**\n\n"
               "| Item | 2023 Tariff (1 April 2023 – 31 March 2025) | 2025 Tariff (from 1 April 2025) |\n|---|---|---|\n"
               "| Diesel surcharge | £40 | £60 |\n\n## Appendix B — Resident permit prices (permits starting before 1 April 2025)"
               "\n\n| Band | Zone K1 | Zone K2 |\n|---|---|---|\n| Band 2 | £110 | £90 |\n")


def test_a_document_takes_effect_on_the_day_its_own_rule_says():
    from aegis_tui.text.structure import in_force

    assert in_force(Document.from_text(_PERIODS_EN, "tariff.md")) == date(2025, 4, 1)
    # (the day a rule it replaces took effect, or a later step it schedules, is not the document's)
    zh = ("# 办法\n\n> 印发日期：2024年11月18日　施行日期：2025年1月1日\n\n第二条 原办法自2019年施行以来运行良好。\n\n"
          "第三十条 本办法自2025年1月1日起施行。《某办法》（以下简称“原办法”）同时废止。首次调整于2028年1月1日起执行。\n")
    assert in_force(Document.from_text(zh, "zh.md")) == date(2025, 1, 1)
    assert in_force(Document.from_text("# Notes\n\nFees are listed below.\n", "none.md")) is None


def test_a_schedule_for_a_closed_year_takes_effect_on_its_first_day_and_its_year_column_is_current():
    # "This Schedule applies from 1 April 2025 to 31 March 2026": the 2025/26 column is the rule, the one beside it
    # told apart only by its period ("2024/25 (until 31 March 2025)") the former
    from aegis_tui.text.structure import current, in_force, superseded

    text = ("# Harbour Charges 2025/26\n\n**This Schedule applies from 1 April 2025 to 31 March 2026.**\n\n"
            "| Band | Zone 1 — 2024/25 (until 31 March 2025) | Zone 1 — 2025/26 |\n|---|---|---|\n| Band D | £742 | £784 |\n")
    doc = Document.from_text(text, "harbour.md")
    assert in_force(doc) == date(2025, 4, 1)
    assert superseded(doc, doc.text.index("£742"), 4) and not current(doc, doc.text.index("£742"))
    assert current(doc, doc.text.index("£784")) and not superseded(doc, doc.text.index("£784"), 4)
    # (two columns of different measures are no such pair, whatever their years)
    other = Document.from_text(text.replace("| Zone 1 — 2025/26 |", "| Zone 2 — 2025/26 |"), "other.md")
    assert not current(other, other.text.index("£784"))


@pytest.mark.parametrize("value, former, now", [
    ("£120", False, True),   # a table whose caption dates it from the day the document takes effect
    ("£110", True, False),   # an appendix whose heading dates it before that day
    ("£40", True, False),    # a column whose period ended before it …
    ("£60", False, True),    # … beside the column from it
    ("55%", False, False),   # a sentence of the rule
    ("60%", True, False),    # a sentence naming the former rule (a column's name) alone
])
def test_the_period_a_figure_is_dated_to_says_whether_it_is_still_the_rule(value, former, now):
    from aegis_tui.text.structure import current, former_names, superseded

    doc = Document.from_text(_PERIODS_EN, "tariff.md")
    assert former_names(doc) == {"2023 Tariff"}  # (not the 2019 Order: nothing says the document replaces it)
    at = doc.text.index(value)
    assert superseded(doc, at, len(value)) is former
    assert current(doc, at) is now


_FEES_BY_YEAR = ("# Borough Council\n\n## Schedule of Fees and Charges 2025/26\n\n1.1 This schedule sets out the fees and "
                 "charges for the financial year 2025/26, which runs from 1 April 2025 to 31 March 2026. For comparison, "
                 "each table also shows the charge that applied in 2024/25, which ran from 1 April 2024 to 31 March 2025 "
                 "and has now ended.\n\n| Length of stay | Band B 2024/25 | Band B 2025/26 |\n|---|---|---|\n"
                 "| Up to 3 hours | £2.80 | £3.00 |\n")


def test_a_year_written_as_a_span_is_the_period_the_document_dates_it():
    # "2024/25" is a financial year only as the document dates it (1 April 2024 to 31 March 2025): its column is a
    # former period's, the schedule for 2025/26 is in force from its first day, and its column is the current rule
    from aegis_tui.text.structure import current, dated, in_force, superseded, year_spans

    doc = Document.from_text(_FEES_BY_YEAR, "fees.md")
    assert year_spans(doc) == {"2025/26": (date(2025, 4, 1), date(2026, 3, 31)),
                               "2024/25": (date(2024, 4, 1), date(2025, 3, 31))}
    assert in_force(doc) == date(2025, 4, 1)
    old, new = doc.text.index("£2.80"), doc.text.index("£3.00")
    assert dated(doc, old) == (date(2024, 4, 1), date(2025, 3, 31))
    assert superseded(doc, old, 5) and not current(doc, old)
    assert current(doc, new) and not superseded(doc, new, 5)
    # (a span no sentence dates is no period: where a financial year starts is not known)
    undated = Document.from_text(_FEES_BY_YEAR.replace(", which runs from 1 April 2025 to 31 March 2026", "")
                                 .replace(", which ran from 1 April 2024 to 31 March 2025", ""), "fees.md")
    assert year_spans(undated) == {} and not superseded(undated, old, 5)


_SUPERSEDES_EN = ("# Family Leave Policy\n\n**Version:** 4.0  \n**Supersedes:** Version 3.1 (effective 1 April 2022)\n\n"
                  "## 14. Holiday clubs\n\n**Table 14.2 – Holiday club subsidy (Version 4.0)**\n\n| Band | Subsidy per child |\n"
                  "|---|---|\n| Band C | £200 |\n| Band D | £210 |\n\n## Appendix C: Version 3.1 rates\n\n"
                  "**Table C.6 – Childcare support (Version 3.1)**\n\n| Band | Holiday club subsidy per child |\n|---|---|\n"
                  "| Band C | £150 |\n| Band D | £160 |\n")


@pytest.mark.parametrize("value, former", [("£210", False), ("£160", True)])
def test_the_edition_a_document_s_label_says_it_supersedes_is_its_former_rule(value, former):
    from aegis_tui.text.structure import former_names, superseded

    doc = Document.from_text(_SUPERSEDES_EN, "supersedes.md")
    assert former_names(doc) == {"Version 3.1"}
    assert superseded(doc, doc.text.index(value), len(value)) is former


def test_an_age_s_old_asks_no_former_rule():
    from aegis_tui.text.lexicon import FORMER_HEADER

    assert not FORMER_HEADER.search("How much for my 7-year-old?") and not FORMER_HEADER.search("aged 18 years old")
    assert FORMER_HEADER.search("What were the old rates?") and FORMER_HEADER.search("原标准是多少？")
