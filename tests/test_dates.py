"""Calendar dates in text, and the periods a header, a caption or a heading bounds by them (aegis_tui.text.dates)."""

from datetime import date

import pytest

from aegis_tui.text.dates import find_dates, period


@pytest.mark.parametrize("text, days", [
    ("她2024年11月在云泽市第一人民医院门诊开了药", [(date(2024, 11, 1), date(2024, 11, 30))]),
    ("本办法自2025年1月1日起施行", [(date(2025, 1, 1), date(2025, 1, 1))]),
    ("今年（2025年）被认定了糖尿病", [(date(2025, 1, 1), date(2025, 12, 31))]),
    ("I bought a Classic policy in January 2025, and it was stolen on 3rd April 2025",
     [(date(2025, 1, 1), date(2025, 1, 31)), (date(2025, 4, 3), date(2025, 4, 3))]),
    ("for service rendered on and after July 1, 2025", [(date(2025, 7, 1), date(2025, 7, 1))]),
    ("effective 2025-03-01", [(date(2025, 3, 1), date(2025, 3, 1))]),
    # an edition, a year of accounts and an impossible day are no dates
    ("《办法（2021年版）》 2025年度限额 2025年2月30日", []),
    # a year alone, as English says one, names the year; a year span (a financial year) is no calendar year
    ("Back in 2024 I was a Data Engineer", [(date(2024, 1, 1), date(2024, 12, 31))]),
    ("the scheme in 2024/25 and 2025-26", []),
])
def test_dates_a_text_states_name_their_days(text, days):
    assert [(d.first, d.last) for d in find_dates(text)] == days


@pytest.mark.parametrize("text, bounds", [
    ("原办法（2019年版，执行至2024年12月31日）", (None, date(2024, 12, 31))),
    ("本办法（自2025年1月1日起）", (date(2025, 1, 1), None)),
    ("2025年3月1日前适用的2021年版城市分类", (None, date(2025, 2, 28))),
    ("出发日期在2025年2月28日（含）以前的", (None, date(2025, 2, 28))),
    ("HTI-0622 (policies issued before 1 March 2025)", (None, date(2025, 2, 28))),
    ("HTI-0325 (policies issued on or after 1 March 2025)", (date(2025, 3, 1), None)),
    ("2023 Tariff (1 April 2023 – 31 March 2025)", (date(2023, 4, 1), date(2025, 3, 31))),
    ("Table 1 — Resident permit prices from 1 April 2025", (date(2025, 4, 1), None)),
    ("permits issued after 31 March 2025", (date(2025, 4, 1), None)),
    # (the words after a date bind it before a "于" ahead of it: "适用于2025年6月及以前的发放月份" ends in June)
    ("失业保险金月标准（原标准，适用于2025年6月及以前的发放月份）", (None, date(2025, 6, 30))),
    ("新标准，适用于2025年7月及以后的发放月份", (date(2025, 7, 1), None)),
    # a date that bounds nothing: a day of issue
    ("印发日期：2024年11月18日", None),
    ("2021年版·一类城市", None),
])
def test_a_phrase_bounds_the_period_of_its_figures_by_dates(text, bounds):
    assert period(text) == bounds


@pytest.mark.parametrize("text, name", [
    ("Band to 30 September 2025", "Band"), ("Band from 1 October 2025", "Band"),
    ("Band effective from 1 October 2025", "Band"), ("Zone (until 31 March 2025)", "Zone"),
    ("2025年6月30日前类别", "类别"), ("2025年7月1日起类别", "类别"), ("自2025年7月1日起区域类别", "区域类别"),
    ("Band (registered before 1 April 2017)", "Band (registered)"),
])
def test_a_phrase_without_the_dates_bounding_its_period_is_what_it_names(text, name):
    from aegis_tui.text.dates import undated

    assert undated(text) == name


def test_columns_of_classes_dated_apart_are_former_and_current_but_not_a_member_s_own_dates():
    from aegis_tui.text.document import Document
    from aegis_tui.text.structure import earlier_column

    def table(header: str):
        return Document.from_text(f"# T\n\n{header}\n|---|---|---|\n| Hayfield | Band 1 | Band 2 |\n", "t.md").structure.tables[0]

    dated = table("| Locality | Band to 30 September 2025 | Band from 1 October 2025 |")
    assert [earlier_column(dated, c) for c in range(3)] == [False, True, False]
    own = table("| Vehicle | Band (registered before 1 April 2017) | Band (registered on or after 1 April 2017) |")
    assert [earlier_column(own, c) for c in range(3)] == [False, False, False]
