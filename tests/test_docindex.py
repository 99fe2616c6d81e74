"""The per-document index: sentence bounds, list heads, quantities by range, and its cache by document hash."""

import pytest

from aegis_tui.samples import sample_path
from aegis_tui.text.docindex import LIST_ITEM, DocumentIndex, document_index
from aegis_tui.text.document import Document
from aegis_tui.text.quantity import parse_quantity

DOCS = {name: Document.load(sample_path(name)) for name in ("policy_zh", "policy_en")}


def _at(name, needle):
    offset = DOCS[name].text.find(needle)
    assert offset >= 0, needle
    return offset


SENTENCES = [
    # (sample, text at the offset, the sentence around it, comment)
    ("policy_zh", "600元", "第八条\u3000起付线标准按医疗机构级别确定：一级及以下定点医疗机构300元；二级定点医疗机构600元；"
     "三级定点医疗机构1200元。", "； does not end a sentence"),
    ("policy_zh", "20万元", "第十一条\u3000一个自然年度内，参保人员住院及门诊慢特病发生的政策范围内医疗费用，统筹基金年度最高"
     "支付限额为20万元。", "the first of two sentences on a line"),
    ("policy_zh", "超过最高支付限额", "超过最高支付限额的部分，按规定纳入大病保险和医疗救助支付范围。",
     "the second sentence on the same line"),
    ("policy_zh", "70%", "（二）在二级定点医疗机构住院的，报销比例为70%；", "a list item is its own line"),
    ("policy_en", "$0.67", "Employees using a personal vehicle are reimbursed at $0.67 per mile.",
     "a decimal point does not end a sentence"),
    ("policy_en", "$400", "Hotel costs are reimbursed up to $250 per night in standard cities and $400 per night in "
     "high-cost cities.", "two values, one sentence"),
]


@pytest.mark.parametrize("name,needle,sentence,comment", SENTENCES, ids=[s[3] for s in SENTENCES])
def test_sentence_bounds(name, needle, sentence, comment):
    s, e = document_index(DOCS[name]).sentence_bounds(_at(name, needle))
    assert DOCS[name].text[s:e] == sentence


HEADS = [
    # (sample, text at the offset, the enumeration head above it, comment)
    ("policy_zh", "（一）在一级", "第九条\u3000统筹基金的报销比例为：", "first item under its head"),
    ("policy_zh", "55%", "第九条\u3000统筹基金的报销比例为：", "last item: the head is found across items"),
    ("policy_zh", "300元", "", "not a list item"),
    ("policy_zh", "20万元", "", "an article line has no head"),
    ("policy_en", "$75", "", "English prose has no head"),
]


@pytest.mark.parametrize("name,needle,head,comment", HEADS, ids=[h[3] for h in HEADS])
def test_head_lines(name, needle, head, comment):
    assert document_index(DOCS[name]).head_lines(_at(name, needle)) == head


RANGES = [
    # (sample, from, to (inclusive), quantity texts in the range, comment)
    ("policy_zh", "第八条", "1200元", ["300元", "600元", "1200元"], "one line, ordinal 第八条 and 一级 skipped"),
    ("policy_zh", "（一）", "55%", ["85%", "70%", "55%"], "across lines, list markers skipped"),
    ("policy_zh", "第六条", "1000元", ["3个月", "4年", "1年", "1000元"], "durations and a raise"),
    ("policy_en", "Hotel costs", "high-cost cities.", ["$250 per night", "$400 per night"], "rates"),
    ("policy_en", "Employees using", "$45", ["$0.67 per mile", "300 miles", "$40 per day", "$60", "$45"],
     "one line of the English sample"),
    ("policy_zh", "300元", "300", [], "a value cut by the range is not in it"),
]


@pytest.mark.parametrize("name,first,last,texts,comment", RANGES, ids=[r[4] for r in RANGES])
def test_quantities_in(name, first, last, texts, comment):
    start = _at(name, first)
    end = DOCS[name].text.find(last, start) + len(last)
    found = document_index(DOCS[name]).quantities_in(start, end)
    assert [m.text for m in found] == texts
    assert all(DOCS[name].text[m.start:m.end] == m.text for m in found)  # document offsets


@pytest.mark.parametrize("name,value,stated", [
    ("policy_zh", "200000元", True),  # 20万元 written out
    ("policy_zh", "55%", True),
    ("policy_zh", "650元", False),  # not in the document
    ("policy_en", "$0.67 per mile", True),
    ("policy_en", "$999", False),
])
def test_all_quantities(name, value, stated):
    assert (parse_quantity(value) in document_index(DOCS[name]).all_quantities()) is stated


def test_line_bounds():
    doc = DOCS["policy_zh"]
    s, e = document_index(doc).line_bounds(_at("policy_zh", "70%"))
    assert doc.text[s:e] == "（二）在二级定点医疗机构住院的，报销比例为70%；"


@pytest.mark.parametrize("line,item", [
    ("（一）在一级及以下定点医疗机构住院的", True),
    ("(2) taxi", True),
    ("一、总则", True),
    ("1. Purpose", True),
    ("3、门诊", True),
    ("- bullet", True),
    ("• bullet", True),
    ("第九条　统筹基金的报销比例为：", False),  # an article is not a list item
    ("2024年1月1日起施行", False),  # a year is not a marker
])
def test_list_item_markers(line, item):
    assert bool(LIST_ITEM.match(line)) is item


def test_cache_is_keyed_by_text_and_bounded():
    doc = DOCS["policy_en"]
    first = document_index(doc)
    assert document_index(Document.from_text(doc.text, path="copy")) is first  # same text, same index
    assert isinstance(first, DocumentIndex) and first.text == doc.text
    for i in range(8):  # eight other documents push the oldest one out
        document_index(Document.from_text(f"document {i}: 100元"))
    assert document_index(doc) is not first
