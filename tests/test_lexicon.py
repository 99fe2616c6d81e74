"""The lexicon: each decision where the old copies disagreed, pinned as a table, and each list written once."""

import re
from pathlib import Path

import pytest

from aegis_tui.answer.realize import EntityAwareRealizer
from aegis_tui.answer.relevance import terms
from aegis_tui.answer.verify import Tier1CodeVerifier
from aegis_tui.samples import sample_path
from aegis_tui.schema import ExtractionPayload
from aegis_tui.text import lexicon
from aegis_tui.text.document import Document
from aegis_tui.text.entities import paired_units, units
from aegis_tui.text.lexicon import (
    CHANGE_BEFORE,
    CJK,
    FUNCTION_WORDS_EN,
    NON_MODIFIERS_EN,
    PREDICATE_DIMENSIONS,
    QUERY_STOP_EN,
    STOP_EN,
    is_change,
    is_cjk,
)
from aegis_tui.text.quantity import DIMENSIONS

PACKAGE = Path(lexicon.__file__).resolve().parents[1]

CHARS = [
    # (character, is CJK, comment)
    ("中", True, "CJK Unified Ideographs"),
    ("\u4e00", True, "first Unified Ideograph"),
    ("\u9fff", True, "last code point of the Unified block"),
    ("\u3400", True, "Extension A counts (documents.py and prompts.py started at U+4E00)"),
    ("\u4dbf", True, "last Extension A ideograph"),
    ("\u4dc0", False, "Yijing hexagram between the blocks is a symbol (entities.py and verify.py counted it)"),
    ("，", False, "full-width comma is punctuation"),
    ("A", False, "Latin"),
    ("ア", False, "katakana"),
]


@pytest.mark.parametrize("ch,cjk,comment", CHARS, ids=[c[2] for c in CHARS])
def test_cjk_range(ch, cjk, comment):
    assert is_cjk(ch) is cjk
    assert bool(CJK.fullmatch(ch)) is cjk


def test_paired_units_join_a_character_to_its_neighbour():
    # one Chinese character or a bare number is no word: it is compared joined to a neighbour it touches
    assert paired_units("交通补贴一个月") == {"交通", "通补", "补贴", "贴一", "一个", "个月"}
    assert "8年" in paired_units("满8年及以上") and "8" not in paired_units("满8年及以上")
    # a span of one such token takes its neighbours outside it; a character other than a numeral stands alone too
    assert paired_units("一类城市", 0, 1) == {"一类"}
    assert paired_units("月提取限额", 0, 1) == {"月", "月提"}
    # English words stand alone, by their stems
    assert paired_units("New account set-up fees") == {"new", "account", "set", "up", "fee"}


def test_extension_a_is_cjk_everywhere():
    ext_a = "\u3400\u3401"
    assert units(ext_a) == ("\u3400", "\u3401")  # two name units, like any two Chinese characters
    assert terms(ext_a) == [ext_a]  # one bigram
    assert Document.from_text(ext_a + "ab").language == "zh"


CHANGES = [
    # (predicate, names a change, comment)
    ("报销比例提高", True, "提高 raises a level"),
    ("报销比例降低", True, "降低 lowers it"),
    ("报销比例上调", True, "上调 (the realizer's copy lacked it)"),
    ("起付标准不超过", False, "不超过 is a cap, not a change (the realizer's copy counted it)"),
    ("最高不超过", False, "a cap stays a level"),
    ("rate reduced by", True, "English verb"),
    ("rate increase", True, "English noun"),
    ("rate increases", True, "inflected noun"),
    ("cap decreased", True, "decreased (only the value-role copy had it)"),
    ("budget cut", True, "cut as a word"),
    ("appraised value", False, "'raised' inside a word is no change"),
    ("execution period", False, "'cut' inside a word is no change"),
    ("cut-off date", False, "a cut-off is a date, not a change"),
    ("nightly lodging cap", False, "a level"),
]


@pytest.mark.parametrize("predicate,change,comment", CHANGES, ids=[c[2] for c in CHANGES])
def test_change_words(predicate, change, comment):
    assert is_change(predicate) is change


BEFORE = [
    # (text just before a value, the value is given as a change, comment)
    ("相应提高", True, "提高1000元"),
    ("降低了", True, "降低了10个百分点"),
    ("但最高不超过", False, "不超过90% is the cap itself"),
    ("costs were reduced by ", True, "reduced by 10%"),
    ("were cut ", True, "cut 5%"),
    ("a haircut ", False, "'cut' inside a word"),
    ("is capped at ", False, "a level"),
]


@pytest.mark.parametrize("text,change,comment", BEFORE, ids=[b[2] for b in BEFORE])
def test_change_before_a_value(text, change, comment):
    assert bool(CHANGE_BEFORE.search(text)) is change


def test_a_cap_predicate_is_rendered_like_a_change_but_verified_as_a_level():
    doc = Document.load(sample_path("policy_zh"))
    fact = {"subject": "统筹基金", "predicate": "年度支付限额最高不超过", "object_value": "1万元",
            "source_text": "统筹基金年度支付限额按病种确定，最高不超过1万元"}
    report = Tier1CodeVerifier(doc).verify(ExtractionPayload.model_validate({"atomic_facts": [fact]}))
    assert report.all_passed, report.facts[0].failed_rules
    # the value follows 不超过 directly: "…不超过1万元", never "…不超过为1万元"
    assert EntityAwareRealizer().realize(report, doc) == "根据文件：统筹基金的年度支付限额最高不超过1万元。"


def test_english_stop_lists_extend_one_base():
    assert STOP_EN < FUNCTION_WORDS_EN < NON_MODIFIERS_EN
    assert STOP_EN < QUERY_STOP_EN
    # the prompts' function words: "by" and "with" carry no content (its old copy lacked them), "each" neither
    assert {"by", "with", "each"} <= FUNCTION_WORDS_EN
    # "each" names a period in "each quarter": names and ranking keep it
    assert "each" not in STOP_EN and "each" not in QUERY_STOP_EN
    assert {"what", "how", "much"} <= QUERY_STOP_EN - STOP_EN


def test_predicate_dimensions_are_quantity_dimensions():
    dims = {d for ds in PREDICATE_DIMENSIONS.values() for d in ds} | set(lexicon.CHANGE_DIMENSIONS)
    assert dims <= set(DIMENSIONS)


# a copy of a word list or of the CJK range outside the lexicon, as the old modules wrote them
COPIES = [
    (re.compile(r"\\u(?:3400|4e00)|0x(?:3400|4E00)", re.IGNORECASE), "a CJK range"),
    (re.compile(r"\{\"the\", \"a\", \"an\""), "an English stop-word list"),
    (re.compile(r"\"降低\", \"提高\"|提高\|降低|降低\|提高"), "a change-word list"),
]


@pytest.mark.parametrize("pattern,what", COPIES, ids=[c[1] for c in COPIES])
def test_word_lists_are_written_once(pattern, what):
    found = [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
             if p.name != "lexicon.py" and pattern.search(p.read_text(encoding="utf-8"))]
    assert not found, f"{what} outside text/lexicon.py: {found}"


@pytest.mark.parametrize("question, terms", [
    ("晚上11点在家里插座给电动车充电（没单独装表），电价是多少？", ["单独装表"]),
    ("我平时叫舒服一点的那种车（不是最便宜的经济型，也不是七座的），每公里多少钱？", ["经济型", "七座"]),
    ("她也不是低保户或者特困人员。评估费用要交多少？", ["低保户", "特困人员"]),
    ("国庆节被排了值班（不是加班），公司给多少补贴？", ["加班"]),
    # a question asking whether, or narrating what it has not done yet, says nothing of its case's kind
    ("脱贫户去参加培训，期间有没有生活补助？一天给多少？", []),
    ("他中级工证书是2025年3月发的，现在还没申请技能提升补贴。他能领多少？", []),
    ("我是不是和其他同事不一样？", []),
    ("不是说舒享型起步价13元吗？", []),
    ("不是经济型的话多少钱？", ["经济型"]),
    # … nor a change of status, which the document's dates decide
    ("2025年4月拿的证书，听说电子商务师已经不算紧缺了，补贴是多少？", []),
    # … nor what it names as its case elsewhere ("办了…备案" beside "要是当时没备案")
    ("走之前办了临时外出就医备案（要是没备案呢），报销比例少多少？", []),
])
def test_what_a_chinese_question_says_its_case_is_not(question, terms):
    from aegis_tui.text.lexicon import negated_terms_zh

    assert negated_terms_zh(question) == terms


def test_a_question_without_what_it_says_its_case_is_not_keeps_its_places():
    from aegis_tui.text.lexicon import unnegated_zh

    question = "我平时叫舒服一点的车（不是最便宜的经济型，也不是七座的），每公里多少钱？"
    blanked = unnegated_zh(question)
    assert len(blanked) == len(question) and "经济型" not in blanked and "七座" not in blanked
    assert blanked.index("每公里") == question.index("每公里")
    assert unnegated_zh("有没有生活补助？") == "有没有生活补助？"
