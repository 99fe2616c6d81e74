"""Stage-1 and baseline prompts, built apart from the model: document first so its KV prefix is shared."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ..grammar.grounded import containing_rule, substring_rule
from ..text.lexicon import CJK, FUNCTION_WORDS_EN
from ..text.quantity import find_quantities
from .relevance import Candidate
from .repair import RepairNote
from .structural import title_of

TEXT = {
    "zh": {
        "doc": "【文件】\n{doc}\n【文件结束】\n",
        "task_label": "【任务】为条款中的数值标注主体(subject)和谓词(predicate)，两者都必须摘自条款原文；"
                      "再判断该数值是否回答问题(relevant)。以下示例来自另一份文件《{src}》。\n",
        "task_facts": "【任务】用 JSON 列出回答问题所需的事实，每条事实的 source_text 必须逐字摘自文件，"
                      "object_value 必须出现在 source_text 中。以下示例来自另一份文件《{src}》。\n",
        "task_prose": "【任务】根据文件回答问题。\n",
        "q": "问题：", "section": "章节：", "clause": "条款：", "value": "数值：", "answer": "答案：",
        "repair": "注意：上次的答案 {prev} 未通过核验（{rule}：{detail}），请重新选择。\n",
        "task_index": "【任务】为条款中的数值标注主体(subject)和谓词(predicate)，两者都必须摘自条款原文。"
                      "以下示例来自另一份文件《{src}》。\n",
        "task_pick": "【任务】判断每条事实是否回答问题（是/否）。只有直接回答问题所问内容的事实才答“是”。"
                     "以下示例来自另一份文件《{src}》。\n",
        "fact": "事实：", "pick": "回答问题：", "text": "原文：", "yes": "是", "no": "否",
    },
    "en": {
        "doc": "[DOCUMENT]\n{doc}\n[END OF DOCUMENT]\n",
        "task_label": "[TASK] Label the subject and predicate of the value in the clause; both must be copied "
                      "from the clause, then say whether the value answers the question (relevant). The examples "
                      "come from another document, \"{src}\".\n",
        "task_facts": "[TASK] List, as JSON, the facts needed to answer the question. Each source_text must be "
                      "copied verbatim from the document and must contain its object_value. The examples come "
                      "from another document, \"{src}\".\n",
        "task_prose": "[TASK] Answer the question from the document.\n",
        "q": "Question: ", "section": "Section: ", "clause": "Clause: ", "value": "Value: ", "answer": "Answer: ",
        "repair": "Note: the previous answer {prev} failed verification ({rule}: {detail}); choose again.\n",
        "task_index": "[TASK] Label the subject and predicate of the value in the clause; both must be copied "
                      "from the clause. The examples come from another document, \"{src}\".\n",
        "task_pick": "[TASK] Say whether each fact answers the question (yes/no): yes only when the fact gives "
                     "what the question asks for. The examples come from another document, \"{src}\".\n",
        "fact": "Fact: ", "pick": "Answers the question: ", "text": "Text: ", "yes": "yes", "no": "no",
    },
}


@lru_cache(maxsize=1)
def fewshot() -> dict:
    return json.loads(resources.files("aegis_tui.answer").joinpath("fewshot.json").read_text(encoding="utf-8"))


def _lang(lang: str) -> str:
    return lang if lang in TEXT else "en"


def _compact(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))


@dataclass(frozen=True)
class PromptParts:
    """A prompt as shared prefix + per-request suffix; the engine reuses the prefix's KV across requests."""

    prefix: str
    suffix: str
    system: str = ""

    @property
    def text(self) -> str:
        return self.prefix + self.suffix


def render(parts: PromptParts, chat_template: str | None = None, bos_token: str = "", eos_token: str = "") -> str:
    """Completion-style text for base models, or the GGUF's chat template for instruct models.

    With a chat template the document still opens the user message, after a constant system message, so
    every request over the same document shares the same token prefix.
    """
    if not chat_template:
        return parts.text
    messages = []
    if parts.system:
        messages.append({"role": "system", "content": parts.system})
    messages.append({"role": "user", "content": parts.text})
    return _compiled_template(chat_template).render(
        messages=messages, add_generation_prompt=True, bos_token=bos_token, eos_token=eos_token,
    )


@lru_cache(maxsize=8)
def _compiled_template(chat_template: str):
    """The chat template compiled once (a fan-out question renders it for every candidate)."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    return ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True).from_string(chat_template)


def document_prefix(doc_text: str, lang: str) -> str:
    return TEXT[_lang(lang)]["doc"].format(doc=doc_text.strip())


def label_prompt(doc_text: str, question: str, cand: Candidate, lang: str,
                 repair: RepairNote | None = None) -> PromptParts:
    """Fan-out: the model labels subject and predicate of one (clause, value) candidate."""
    t = TEXT[_lang(lang)]
    ex = fewshot()[_lang(lang)]
    lines = [document_prefix(doc_text, lang), t["task_label"].format(src=ex["document"])]
    for e in ex["label"]:
        lines.append(f"{t['q']}{ex['question']}\n{t['clause']}{e['context']}\n{t['value']}{e['value']}\n"
                     f"{t['answer']}{_compact(e['answer'])}\n")
    lines.append(f"{t['q']}{question.strip()}\n")
    prefix = "".join(lines)
    section = f"{t['section']}{cand.scope}\n" if cand.scope else ""  # the heading the clause stands under
    suffix = f"{section}{t['clause']}{cand.context}\n{t['value']}{cand.value}\n"
    if repair:
        suffix += t["repair"].format(prev=repair.prev, rule=repair.rule, detail=repair.detail)
    suffix += t["answer"]
    return PromptParts(prefix, suffix, system=t["task_label"].format(src=ex["document"]).strip())


def facts_prompt(doc_text: str, question: str, lang: str, repair: RepairNote | None = None) -> PromptParts:
    """Single pass: the model lists every fact as an ExtractionPayload under the grounded grammar."""
    t = TEXT[_lang(lang)]
    ex = fewshot()[_lang(lang)]
    prefix = (document_prefix(doc_text, lang) + t["task_facts"].format(src=ex["document"])
              + f"{t['q']}{ex['question']}\n{t['answer']}{_compact(_grammar_order(ex['facts']))}\n")
    suffix = f"{t['q']}{question.strip()}\n"
    if repair:
        suffix += t["repair"].format(prev=repair.prev, rule=repair.rule, detail=repair.detail)
    suffix += t["answer"]
    return PromptParts(prefix, suffix, system=t["task_facts"].format(src=ex["document"]).strip())


def index_label_prompt(cand: Candidate, lang: str, heading_path: tuple[str, ...] = (),
                       repair: RepairNote | None = None) -> PromptParts:
    """Indexing: the model labels one value from its local context only (heading path, quote, clause).

    No document and no question: the shared prefix is the instruction and the examples, so every value of
    every document shares it, and no document is too long for a slot.
    """
    t = TEXT[_lang(lang)]
    ex = fewshot()[_lang(lang)]
    lines = [t["task_index"].format(src=ex["document"])]
    for e in ex["label"]:
        answer = {k: v for k, v in e["answer"].items() if k != "relevant"}
        lines.append(f"{t['clause']}{e['context']}\n{t['value']}{e['value']}\n{t['answer']}{_compact(answer)}\n")
    prefix = "".join(lines)
    path = " > ".join(h.strip() for h in heading_path if h.strip())
    section = f"{t['section']}{path}\n" if path else (f"{t['section']}{cand.scope}\n" if cand.scope else "")
    quote = " ".join(cand.quote.split())
    text = f"{t['text']}{quote}\n" if quote and quote not in " ".join(cand.context.split()) else ""
    suffix = f"{section}{text}{t['clause']}{cand.context}\n{t['value']}{cand.value}\n"
    if repair:
        suffix += t["repair"].format(prev=repair.prev, rule=repair.rule, detail=repair.detail)
    suffix += t["answer"]
    return PromptParts(prefix, suffix, system=t["task_index"].format(src=ex["document"]).strip())


def fact_line(subject: str, predicate: str, value: str, scope: str = "") -> str:
    """One verified fact as the relevance prompt shows it: [scope] subject / predicate: value."""
    where = f"[{scope}] " if scope else ""
    return f"{where}{subject} / {predicate}: {value}"


def pick_prompt(question: str, line: str, lang: str) -> PromptParts:
    """Answering from the index: does this verified fact answer the question? (the prefix holds the question)"""
    t = TEXT[_lang(lang)]
    ex = fewshot()[_lang(lang)]
    lines = [t["task_pick"].format(src=ex["document"]), f"{t['q']}{ex['question']}\n"]
    for e in ex["label"]:
        a = e["answer"]
        lines.append(f"{t['fact']}{fact_line(a['subject'], a['predicate'], e['value'])}\n"
                     f"{t['pick']}{t['yes'] if a['relevant'] else t['no']}\n")
    lines.append(f"{t['q']}{question.strip()}\n")
    suffix = f"{t['fact']}{line}\n{t['pick']}"
    return PromptParts("".join(lines), suffix, system=t["task_pick"].format(src=ex["document"]).strip())


def pick_grammar(lang: str) -> str:
    """GBNF for the relevance decision: the language's yes or no."""
    t = TEXT[_lang(lang)]
    return f'root ::= "{t["yes"]}" | "{t["no"]}"\n'


def is_yes(text: str, lang: str) -> bool:
    return text.strip().startswith(TEXT[_lang(lang)]["yes"])


FACT_ORDER = ("source_text", "subject", "predicate", "object_value", "fact_type")


def _grammar_order(payload: dict) -> dict:
    """The example payload with each fact's keys in the order the grounded grammar makes the model write them."""
    return {"atomic_facts": [{k: f[k] for k in FACT_ORDER} for f in payload["atomic_facts"]]}


def prose_prompt(doc_text: str, question: str, lang: str) -> PromptParts:
    """Baseline: free prose, no grammar, no verification (the single-stage control group)."""
    t = TEXT[_lang(lang)]
    ex = fewshot()[_lang(lang)]
    prefix = (document_prefix(doc_text, lang) + t["task_prose"]
              + f"{t['q']}{ex['question']}\n{t['answer']}{ex['prose']}\n")
    return PromptParts(prefix, f"{t['q']}{question.strip()}\n{t['answer']}", system=t["task_prose"].strip())


_SEP = re.compile(r"[，、,；;：:。]")
_ENTITY_AFTER = re.compile(r"\s*(?:for|in|at|on|to|of)\s", re.IGNORECASE)


def _content(text: str) -> bool:
    """Whether text has a content word (any CJK, or an English word that is not a function word)."""
    return CJK.search(text) is not None or any(
        w.lower() not in FUNCTION_WORDS_EN for w in re.findall(r"[A-Za-z][A-Za-z\-]*", text))


def last_pieces(text: str, n: int) -> str:
    """The last n separator-delimited pieces of text (separators kept), e.g. the fragments nearest a value."""
    cuts = [m.end() for m in _SEP.finditer(text.rstrip("，、,；;：:。 "))]
    return text[cuts[-n]:] if len(cuts) >= n else text


def _split_on(text: str, word: str) -> list[str]:
    """text split at word, where word stands whole (an English word is never split inside: no "ing cap")."""
    return re.split(r"(?<![A-Za-z0-9])" + re.escape(word) + r"(?![A-Za-z0-9])", text)


def label_grammar(cand: Candidate, repair: RepairNote | None = None, relevance: bool = True) -> str:
    """GBNF for a fan-out answer: subject and predicate are spans of the candidate's text, then relevance.

    Relevance comes last so that even a small model that is biased towards "false" has labelled the value.
    """
    rules: list[tuple[str, str]] = []
    subj_alts = []
    # The value's own fragment; with the one before it when the own fragment is short ("报销比例为").
    own = last_pieces(cand.before, 1)
    near_before = own if len(own.strip()) >= 8 else last_pieces(cand.before, 2)
    near_after = _SEP.split(cand.after, maxsplit=1)[0]
    if not relevance and (later := find_quantities(near_after)):
        # the index's grammar: the words after a value end at the next value ("… in standard cities and $400 …")
        near_after = re.sub(r"(?:\s+(?:and|or)|[和及或与])\s*$", "", near_after[: later[0].start])
    pieces = [("subj-a", near_before), ("subj-b", near_after)]
    if _ENTITY_AFTER.match(near_after) and _content(near_after):
        pieces = pieces[1:]  # "$400 per night in high-cost cities": the entity follows the value
    elif not _content(near_after):
        pieces = pieces[:1]
    if cand.scope and not cand.cell and _content(title_of(cand.scope)):
        pieces.append(("subj-s", title_of(cand.scope)))  # the section may name who the clause applies to
    avoid = repair.avoid_subject if repair else None
    for name, text in pieces:
        # a repair of "the subject repeats the predicate" takes the predicate's words out of the subject's span
        parts = _split_on(text, avoid) if avoid and avoid in text else [text]
        for k, part in enumerate(parts):
            part = part.strip("，、,；;。.：: （）()的为")
            if any(ch.isalnum() for ch in part):
                rules += substring_rule(f"{name}-{k}", part)
                subj_alts.append(f"{name}-{k}")
    head = cand.head if cand.head and cand.head not in cand.fragment else ""
    colon = max(cand.before.rfind("："), cand.before.rfind(":"))
    own_head = cand.before[: colon + 1] if colon >= 0 and not near_before.startswith(cand.before[: colon + 1]) else ""
    pred_text = (head + own_head + near_before).strip() or cand.context
    need = repair.require_pred if repair else None
    if need and need in pred_text:
        rules += containing_rule("pred", pred_text, need)  # a repair: the predicate must name what is asked
    else:
        rules += substring_rule("pred", pred_text)
    if not subj_alts:
        rules += substring_rule("subj-c", cand.context)
        subj_alts.append("subj-c")
    if relevance:
        head = [
            ("root", '"{\\"subject\\": " subject ", \\"predicate\\": " pred ", \\"relevant\\": " relevant "}"'),
            ("relevant", '"true" | "false"'),
        ]
    else:  # indexing: no question, so no relevance
        head = [("root", '"{\\"subject\\": " subject ", \\"predicate\\": " pred "}"')]
    head.append(("subject", " | ".join(subj_alts)))
    return "\n".join(f"{n} ::= {r}" for n, r in head + rules) + "\n"
