"""Prompt building is pure: document first, few-shot from another document, chat templates, label grammars."""

import json
import os

import pytest

from aegis_tui.answer.prompts import facts_prompt, fewshot, label_grammar, label_prompt, prose_prompt, render
from aegis_tui.answer.relevance import enumerate_candidates
from aegis_tui.answer.repair import RepairNote
from aegis_tui.grammar.validate import lark_acceptor
from aegis_tui.samples import sample_path
from aegis_tui.text.document import Document

Q = "请问城乡居民医保住院在不同级别医院的起付线和报销比例分别是多少？年度封顶线是多少？"


@pytest.fixture(scope="module")
def doc():
    return Document.load(sample_path("policy_zh"))


@pytest.fixture(scope="module")
def cands(doc):
    return enumerate_candidates(doc, Q)


def test_document_goes_first_and_prefix_is_shared(doc, cands):
    parts = [label_prompt(doc.text, Q, c, "zh") for c in cands[:3]]
    assert all(p.text.startswith("【文件】\n" + doc.text.strip()) for p in parts)
    assert len({p.prefix for p in parts}) == 1  # one KV prefix for all fan-out requests of a question
    assert parts[0].suffix.endswith("答案：") and cands[0].value in parts[0].suffix
    for build in (facts_prompt, prose_prompt):
        assert build(doc.text, Q, "zh").text.startswith("【文件】\n" + doc.text.strip())


@pytest.mark.parametrize("lang, sample", [("zh", "policy_zh"), ("en", "policy_en")])
def test_fewshot_comes_from_another_document(lang, sample):
    text = Document.load(sample_path(sample)).text
    ex = fewshot()[lang]
    for e in ex["label"]:
        assert e["context"] not in text and e["value"] in e["context"]
    for f in ex["facts"]["atomic_facts"]:
        assert f["source_text"] not in text


def test_repair_note_names_rule(doc, cands):
    p = label_prompt(doc.text, Q, cands[0], "zh", repair=RepairNote("{}", "entity_binding", "x"))
    assert "entity_binding" in p.suffix and p.suffix.endswith("答案：")


def test_chat_template_keeps_document_first_in_user_turn(doc, cands, smollm2_model):
    from aegis_tui.models import inspect_model

    tpl = inspect_model(smollm2_model).chat_template
    a = render(label_prompt(doc.text, Q, cands[0], "zh"), tpl)
    b = render(label_prompt(doc.text, Q, cands[1], "zh"), tpl)
    assert a.startswith("<|im_start|>system") and "<|im_start|>user\n【文件】" in a
    assert a.endswith("<|im_start|>assistant\n")
    assert len(os.path.commonprefix([a, b])) > len(doc.text)  # the shared prefix includes the whole document


def test_completion_style_without_template(doc, cands):
    p = label_prompt(doc.text, Q, cands[0], "zh")
    assert render(p, None) == p.text


def test_label_grammar_admits_spans_of_the_clause_only(doc, cands):
    c = next(c for c in cands if c.value == "600元")
    acc = lark_acceptor(label_grammar(c))
    acc.parse(json.dumps({"subject": "二级定点医疗机构", "predicate": "起付线", "relevant": True}, ensure_ascii=False))
    for bad in ({"subject": "三级定点医疗机构", "predicate": "起付线"},  # not in this item
                {"subject": "二级定点医疗机构", "predicate": "报销比例"},  # not in the clause or its head
                {"subject": "二级", "predicate": "起付线", "relevant": "yes"}):
        with pytest.raises(Exception):
            acc.parse(json.dumps({"relevant": True, **bad}, ensure_ascii=False))


def test_english_entity_after_value(doc):
    en = Document.load(sample_path("policy_en"))
    c = next(c for c in enumerate_candidates(en, "What are the nightly lodging caps?") if c.value.startswith("$400"))
    acc = lark_acceptor(label_grammar(c))
    acc.parse('{"subject": "high-cost cities", "predicate": "reimbursed up to", "relevant": true}')
    with pytest.raises(Exception):  # "standard cities" is the other value's entity
        acc.parse('{"subject": "standard cities", "predicate": "reimbursed up to", "relevant": true}')


def test_repair_grammar_targets_the_failure(doc, cands):
    c = next(c for c in cands if c.value == "20万元")
    # predicate_relevance: the predicate must now contain the asked word
    acc = lark_acceptor(label_grammar(c, RepairNote("{}", "predicate_relevance", "", require_pred="最高支付限额")))
    acc.parse('{"subject": "统筹基金", "predicate": "年度最高支付限额", "relevant": true}')
    with pytest.raises(Exception):
        acc.parse('{"subject": "统筹基金", "predicate": "年度", "relevant": true}')
    # label: the subject may no longer repeat the predicate's words
    acc = lark_acceptor(label_grammar(c, RepairNote("{}", "label", "", avoid_subject="年度最高支付限额")))
    acc.parse('{"subject": "统筹基金", "predicate": "年度最高支付限额", "relevant": true}')
    with pytest.raises(Exception):
        acc.parse('{"subject": "年度最高支付限额", "predicate": "年度最高支付限额", "relevant": true}')
