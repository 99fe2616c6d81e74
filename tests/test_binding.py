"""entity_binding and the structure rules as tables over our own documents (tests/docs/q_*.md)."""

import json
from pathlib import Path

import pytest

from aegis_tui.answer.verify import DEFAULT_RULES, Tier1CodeVerifier
from aegis_tui.schema import ExtractionPayload
from aegis_tui.text.document import Document

DOCS = Path(__file__).parent / "docs"


def _doc(name: str) -> Document:
    return Document.load(DOCS / name)


def _fact(subject, predicate, value, quote):
    return {"subject": subject, "predicate": predicate, "object_value": value, "source_text": quote,
            "fact_type": "numeric"}


def _verify(doc, fact, rules=DEFAULT_RULES):
    report = Tier1CodeVerifier(doc, rules).verify(ExtractionPayload.model_validate({"atomic_facts": [fact]}))
    return report.facts[0]


ALLOWANCE = "The field allowance is $68/day (breakfast $12, lunch $18, dinner $38)."
GROUPS = [
    # (document, fact, passes, comment): a parenthesised list is an enumeration of its own
    ("q_field_en.md", _fact("breakfast", "field allowance", "$68/day", ALLOWANCE), False,
     "the lead value does not bind to the first item in the parentheses"),
    ("q_field_en.md", _fact("breakfast", "field allowance", "$12", ALLOWANCE), True, "an item binds its own value"),
    ("q_field_en.md", _fact("dinner", "field allowance", "$38", ALLOWANCE), True, "the last item"),
    ("q_field_en.md", _fact("lunch", "field allowance", "$12", ALLOWANCE), False, "a neighbour's value"),
    ("q_field_en.md", _fact("field allowance", "daily amount", "$68/day", ALLOWANCE), True,
     "the lead value binds to the lead word"),
    ("q_field_en.md", _fact("field allowance", "breakfast portion", "$12", ALLOWANCE), True,
     "the item named in the predicate, the lead word as subject"),
    ("q_field_en.md", _fact("field allowance", "daily amount", "$38", ALLOWANCE), False,
     "an item's value is not the lead's"),
]


@pytest.mark.parametrize("name,fact,passes,comment", GROUPS, ids=[r[3] for r in GROUPS])
def test_parenthesised_lists_bind_each_value_to_its_item(name, fact, passes, comment):
    fv = _verify(_doc(name), fact)
    assert fv.passed is passes, (fv.failed_rules, [c.detail for c in fv.checks if not c.passed])


LONG_N = "| North | $180 | $1,050 |"
LOOSE = [
    # (fact, passes, comment): a label picks a row or column by the words that set it apart
    (_fact("North", "nightly rate", "$180", LONG_N), True, "'nightly' sets the column apart"),
    (_fact("north region", "maximum nightly rate", "$180", LONG_N), True, "the full header"),
    (_fact("North", "weekly rate", "$180", LONG_N), False, "the other column's word"),
    (_fact("North", "maximum rate", "$180", LONG_N), False, "words every column shares pick none"),
    (_fact("South", "nightly rate", "$180", LONG_N), False, "another row"),
    (_fact("North", "weekly rate", "$1,050", LONG_N), True, "the weekly column"),
    (_fact("Coastal", "standard rate", "$210", "| Coastal hub | $210 | $340 |"), True, "part of a row label"),
]


@pytest.mark.parametrize("fact,passes,comment", LOOSE, ids=[r[2] for r in LOOSE])
def test_table_binding_reads_what_sets_headers_apart(fact, passes, comment):
    fv = _verify(_doc("q_field_en.md"), fact, DEFAULT_RULES.only("table_binding"))
    assert fv.passed is passes, fv.checks[0].detail


def _tampered():
    return [(name, case) for name in ("q_field_en", "q_welfare_zh")
            for case in json.loads((DOCS / f"{name}.facts.json").read_text(encoding="utf-8"))]


@pytest.mark.parametrize("name,case", _tampered(), ids=[c["comment"] for _, c in _tampered()])
def test_own_tampered_set(name, case):
    """Every true fact passes every rule; every tampered one fails, among others by the rule it targets."""
    fv = _verify(_doc(f"{name}.md"), case["fact"])
    assert fv.verdict == case["verdict"], (fv.failed_rules, [c.detail for c in fv.checks if not c.passed])
    if case["verdict"] == "fail":
        assert case["rule"] in fv.failed_rules, fv.failed_rules


def test_own_tampered_set_covers_every_kind():
    kinds = " ".join(c["comment"] for _, c in _tampered())
    for kind in ("row swapped", "column swapped", "sibling table", "section number", "article number", "version",
                 "date used as an amount", "wrong header", "scope", "true:"):
        assert kind in kinds
    assert {c["rule"] for _, c in _tampered() if c["verdict"] == "fail"} >= {
        "table_binding", "number_role", "scope", "entity_binding"}


@pytest.mark.parametrize("name,fact,where,path", [
    ("q_field_en.md", _fact("Inland town", "suite cap", "$205", "| Inland town | $130 | $205 |"),
     {"table": 1, "row": 3, "col": 3}, ["Field Operations Expense Standard", "1. Lodging"]),
    ("q_welfare_zh.md", _fact("管理人员", "省外疗休养天数", "6天", "| 管理人员 | 4 | 6 |"),
     {"table": 2, "row": 3, "col": 3}, ["某公司职工疗休养与体检管理办法", "第一章 疗休养补助", "第四条"]),
    ("q_welfare_zh.md", _fact("退休人员", "体检费用限额", "800元", "第六条 体检费用每人每年限额800元"),
     {"table": None, "line": 27}, ["某公司职工疗休养与体检管理办法", "第三章 退休人员体检", "第六条"]),
])
def test_report_json_locates_each_fact(name, fact, where, path):
    doc = _doc(name)
    body = Tier1CodeVerifier(doc).verify(ExtractionPayload.model_validate({"atomic_facts": [fact]})).to_json()
    (item,) = body["facts"]
    assert item["verdict"] == "pass"
    assert {k: item["location"][k] for k in where} == where
    assert item["heading_path"] == path
    assert item["location"]["format"] == "markdown" and item["location"]["describe"]


def test_audit_record_carries_the_location():
    from aegis_tui.audit import build_record

    fact = _fact("Coastal hub", "suite cap", "$340", "| Coastal hub | $210 | $340 |")
    report = Tier1CodeVerifier(_doc("q_field_en.md")).verify(ExtractionPayload.model_validate({"atomic_facts": [fact]}))
    (item,) = build_record(report, question="suite cap in a coastal hub?")["facts"]
    assert "table 1, row 2, column 3" in item["location"]["describe"]
    assert item["heading_path"][-1] == "1. Lodging"


@pytest.fixture(scope="module")
def forms(tmp_path_factory) -> dict[tuple[str, str], Document]:
    """Each of our documents as Markdown and as the DOCX and PDF built from it (tests/docbuilder.py)."""
    from docbuilder import write_docx, write_pdf

    out = tmp_path_factory.mktemp("q_forms")
    loaded = {}
    for name in ("q_field_en", "q_welfare_zh"):
        source = (DOCS / f"{name}.md").read_text(encoding="utf-8")
        loaded[name, "markdown"] = _doc(f"{name}.md")
        loaded[name, "docx"] = Document.load(write_docx(source, out / f"{name}.docx"))
        loaded[name, "pdf"] = Document.load(write_pdf(source, out / f"{name}.pdf"))
    return loaded


@pytest.mark.parametrize("fmt", ["docx", "pdf"])
def test_docx_and_pdf_verdicts_equal_markdown(forms, fmt):
    """The same facts over the DOCX and PDF form give the Markdown form's verdicts; PDF evidence names the page."""
    for name, case in _tampered():
        md = _verify(forms[name, "markdown"], case["fact"])
        other = _verify(forms[name, fmt], case["fact"])
        assert (other.verdict, other.failed_rules) == (md.verdict, md.failed_rules), case["comment"]
        assert other.verdict == case["verdict"], case["comment"]
        report = Tier1CodeVerifier(forms[name, fmt]).verify(ExtractionPayload.model_validate(
            {"atomic_facts": [case["fact"]]}))
        where = report.to_json()["facts"][0]["location"]
        assert where["format"] == fmt
        if fmt == "pdf":
            assert where["page"] == 1 and where["describe"].startswith("page 1")


@pytest.mark.parametrize("drop_title,subject,passes", [
    (False, "退休人员", True),  # the chapter heading names whom 第六条 applies to
    (True, "退休人员", True),  # also when the document has no title above its chapters
    (False, "某公司职工", False),  # the document's title scopes everything and so binds nothing
])
def test_a_clause_binds_to_its_section_heading(drop_title, subject, passes):
    text = (DOCS / "q_welfare_zh.md").read_text(encoding="utf-8")
    doc = Document.from_text(text.split("\n", 2)[2] if drop_title else text)
    fv = _verify(doc, _fact(subject, "体检费用限额", "800元", "第六条 体检费用每人每年限额800元"),
                 DEFAULT_RULES.only("entity_binding"))
    assert fv.passed is passes, fv.checks[0].detail


CARGO, TRUCK = "| Cargo bike | 0.18 | 400 |", "| Box truck | 0.57 | 1600 |"
HEADER_UNITS = [
    # (document, fact, passes, comment): a bare cell's unit comes from its header, and unit_dimension reads it
    ("q_freight_en.md", _fact("Cargo bike", "allowance", "0.18", CARGO), True, "a bare rate under 'Allowance (USD/km)'"),
    ("q_freight_en.md", _fact("Cargo bike", "allowance", "$0.18 per km", CARGO), True, "the rate with the header's unit"),
    ("q_freight_en.md", _fact("Cargo bike", "allowance", "$0.18", CARGO), True, "the amount of the rate"),
    ("q_freight_en.md", _fact("Box truck", "weekly cap", "1600 km", TRUCK), True,
     "a cap the header states in km is a distance"),
    ("q_freight_en.md", _fact("Box truck", "weekly cap", "1600", TRUCK), True, "the same cap, bare"),
    ("q_freight_en.md", _fact("Box truck", "allowance", "1600", TRUCK), False, "the cap's value as the allowance"),
    ("q_freight_en.md", _fact("Box truck", "allowance", "0.57 km", TRUCK), False, "a unit from the wrong header"),
    ("q_freight_en.md", _fact("Cargo bike", "allowance", "0.57", TRUCK), False, "row swapped"),
    # a two-row header whose group cell spans the empty cell beside it: 通讯补贴（元/月） over 区内 | 区外
    ("q_courier_zh.md", _fact("项目主管", "区外通讯补贴", "450元/月", "| 项目主管 | 200 | 450 |"), True,
     "both header levels, the unit from the spanning group cell"),
    ("q_courier_zh.md", _fact("项目主管", "区外", "450元", "| 项目主管 | 200 | 450 |"), True,
     "the level that sets the column apart"),
    ("q_courier_zh.md", _fact("项目主管", "区内通讯补贴", "450元/月", "| 项目主管 | 200 | 450 |"), False,
     "column swapped under a two-row header"),
    ("q_courier_zh.md", _fact("项目主管", "通讯补贴", "450元/月", "| 项目主管 | 200 | 450 |"), False,
     "only the group level names both columns"),
    ("q_courier_zh.md", _fact("技术员", "区外通讯补贴", "450元/月", "| 项目主管 | 200 | 450 |"), False,
     "row swapped under a two-row header"),
    # a header repeated over merged cells (as DOCX and PDF give it); 城内 / 出城 share 城, which sets neither apart
    ("q_courier_zh.md", _fact("厢式货车", "出城", "610元/月", "| 厢式货车 | 340 | 610 |"), True,
     "the lower level alone, whose words the other column shares in part"),
    ("q_courier_zh.md", _fact("厢式货车", "城内", "610元/月", "| 厢式货车 | 340 | 610 |"), False,
     "column swapped: the other lower level"),
    ("q_courier_zh.md", _fact("厢式货车", "出城油料补贴", "340元/月", "| 厢式货车 | 340 | 610 |"), False,
     "column swapped with both levels named"),
    # a subject may name the cell by its row and its column together
    ("q_courier_zh.md", _fact("厢式货车（出城）", "油料补贴", "610元/月", "| 厢式货车 | 340 | 610 |"), True,
     "row and column in the subject"),
    ("q_courier_zh.md", _fact("出城厢式货车", "油料补贴", "610元", "| 厢式货车 | 340 | 610 |"), True,
     "column before row in the subject"),
    ("q_courier_zh.md", _fact("厢式货车（城内）", "油料补贴", "610元/月", "| 厢式货车 | 340 | 610 |"), False,
     "the subject names the other column"),
    ("q_courier_zh.md", _fact("两轮车（出城）", "油料补贴", "610元/月", "| 厢式货车 | 340 | 610 |"), False,
     "the subject names another row"),
    ("q_courier_zh.md", _fact("厢式货车", "油料补贴", "610元/月", "| 厢式货车 | 340 | 610 |"), False,
     "no column named at all"),
]


@pytest.mark.parametrize("name,fact,passes,comment", HEADER_UNITS, ids=[r[3] for r in HEADER_UNITS])
def test_header_units_and_header_levels(name, fact, passes, comment):
    fv = _verify(_doc(name), fact)
    assert fv.passed is passes, (fv.failed_rules, [c.detail for c in fv.checks if not c.passed])


@pytest.mark.parametrize("fact,passes", [
    (_fact("Cargo bike", "rate", "0.18", CARGO), True),  # the header's USD/km makes the bare value a rate
    (_fact("Box truck", "weekly cap", "1600", TRUCK), True),  # the named header defines the cap as a distance
    (_fact("Box truck", "rate", "1600", TRUCK), False),  # a distance is no rate, and its header is not named
    (_fact("Box truck", "share percentage", "0.57", TRUCK), False),  # a rate per km is no percentage
])
def test_unit_dimension_reads_the_header_unit(fact, passes):
    fv = _verify(_doc("q_freight_en.md"), fact, DEFAULT_RULES.only("unit_dimension"))
    assert fv.passed is passes, fv.checks[0].detail


LTD = ("# Long-Term Disability\n\nThe benefit equals 60% of monthly earnings, up to a maximum monthly benefit of "
       "$12,000 for Class 1 and $8,500 for Classes 2 and 3.\n")
LTD_QUOTE = LTD.splitlines()[2]


@pytest.mark.parametrize("subject, value, passes", [
    ("Classes 2 and 3", "$8,500", True),    # the "and" of a numbered series joins one name, not two items
    ("Class 1", "$12,000", True),
    ("Class 1", "$8,500", False),           # a neighbour's value
    ("Classes 2 and 3", "$12,000", False),
])
def test_a_numbered_series_is_one_name_in_an_enumeration(subject, value, passes):
    doc = Document.from_text(LTD, "ltd.md")
    verdict = _verify(doc, _fact(subject, "maximum monthly benefit", value, LTD_QUOTE))
    assert verdict.passed is passes, verdict


OPENING = ("# Deposit\n\nWithin 21 days after Resident surrenders the apartment, Landlord will return the deposit, less "
           "deductions.\n\nWithin 10 days, Tenant pays the fee and Landlord repairs within 30 days.\n\n"
           "Tenant pays within 5 days, and Landlord answers.\n")
DISCOUNTS = ("# Discounts\n\n| Discount | Amount |\n|---|---|\n| Multi-policy (home and auto) | 15% |\n"
             "| Alarm | 10% |\n| Smoke detectors | 3% |\n\n# Fees\n\n| Fee | Amount |\n|---|---|\n| Late fee | $25 |\n"
             "| Reinstatement | 5% |\n| Returned payment | $30 |\n")


@pytest.mark.parametrize("text, fact, passes", [
    # a value's opening phrase leads into the clause whose subject acts within it
    (OPENING, _fact("Landlord", "deadline", "21 days", OPENING.splitlines()[2]), True),
    (OPENING, _fact("Resident", "deadline", "21 days", OPENING.splitlines()[2]), True),  # its own clause, as before
    # a value of its kind in that clause is that clause's own (the Landlord's 30 days): the period is not bound there
    (OPENING, _fact("Landlord", "deadline", "10 days", OPENING.splitlines()[4]), False),
    # a value that does not open its sentence binds no one after it
    (OPENING, _fact("Landlord", "deadline", "5 days", OPENING.splitlines()[6]), False),
    # every value under "Amount" is a percent: the table says what its header measures …
    (DISCOUNTS, _fact("Multi-policy (home and auto)", "Amount", "15%", "| Multi-policy (home and auto) | 15% |"), True),
    # … a column of amounts with one percent among them does not: "amount" still expects money there
    (DISCOUNTS, _fact("Reinstatement", "Amount", "5%", "| Reinstatement | 5% |"), False),
    (DISCOUNTS, _fact("Late fee", "Amount", "$25", "| Late fee | $25 |"), True),
])
def test_a_sentence_opening_value_and_a_column_of_one_kind(text, fact, passes):
    verdict = _verify(Document.from_text(text, "doc.md"), fact)
    assert verdict.passed is passes, verdict
