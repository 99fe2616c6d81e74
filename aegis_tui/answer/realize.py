"""EntityAwareRealizer: verified facts -> a fluent zh/en answer that keeps every number bound to its subject."""

from __future__ import annotations

import re

from ..schema import FactType
from ..text.docindex import document_index
from ..text.document import Document
from ..text.entities import mentions
from ..text.lexicon import (
    CAP_ZH,
    CHANGE_VERBS_EN,
    CHANGE_ZH,
    GENERIC_SUBJECTS,
    NON_MODIFIERS_EN,
    SUBJECT_BOUNDARY_ZH,
    is_cjk,
)
from ..text.quantity import Quantity, find_quantities, parse_quantity
from .binding import item_label
from .report import FactVerdict, VerificationReport

FALLBACK_TEXT = {
    "zh": "文件中没有可核验的依据说明这一点。",
    "en": "The document does not state this with verifiable evidence.",
}
LEAD = {"zh": "根据文件：", "en": "According to the document: "}

# predicate family -> template of one clause ({p} predicate, {v} value)
TEMPLATES = {
    "zh": {"default": "{p}为{v}", "change": "{p}{v}", "cap": "{p}{v}", "text": "{p}：{v}"},
    "en": {"default": "the {p} is {v}", "change": "the {p} is {v}", "cap": "the {p} is {v}", "text": "{p}: {v}",
           "verbal": "{p} {v}"},
}
# a predicate ending in a change ("报销比例降低", "rate reduced by") or a cap ("起付标准不超过") takes its value
# directly, without 为
_CHANGE_END = re.compile("(?:" + "|".join(CHANGE_ZH) + ")$|(?:" + "|".join(CHANGE_VERBS_EN) + ") by$")
_CAP_END = re.compile("(?:" + "|".join(CAP_ZH) + ")$")

_VERBAL = re.compile(r"(?:\b(?:to|at|of|within|by|is|are|be|up)$)|^\w+ed\b", re.IGNORECASE)


def _family(fv: FactVerdict, lang: str = "zh") -> str:
    if fv.fact.fact_type != FactType.NUMERIC:
        return "text"
    if _CHANGE_END.search(fv.fact.predicate):
        return "change"
    if _CAP_END.search(fv.fact.predicate):
        return "cap"
    if lang == "en" and _VERBAL.search(fv.fact.predicate.strip()):
        return "verbal"  # "reimbursed up to" + "$250 per night", not "the reimbursed up to is …"
    return "default"


def _allowed(facts: list[FactVerdict]) -> set[Quantity]:
    allowed: set[Quantity] = set()
    for fv in facts:
        f = fv.fact
        for text in (f.subject, f.predicate, f.object_value):
            allowed.update(m.quantity for m in find_quantities(text))
        if (q := parse_quantity(f.object_value)) is not None:
            allowed.add(q)
    return allowed


def _sentence_start(document: Document, offset: int) -> int:
    start, _ = document_index(document).sentence_bounds(offset)
    while start < offset and document.text[start].isspace():
        start += 1
    return start


class EntityAwareRealizer:
    """Groups verified facts by subject and renders them with per-family templates in the document's language."""

    def realize(self, report: VerificationReport, document: Document, language: str | None = None,
                question: str | None = None) -> str:
        lang = language if language in TEMPLATES else document.language
        verified = report.verified
        allowed = _allowed(verified)
        groups: dict[str, list[FactVerdict]] = {}
        for fv in verified:
            subject = self.subject_of(fv, document)
            if subject:
                groups.setdefault(subject, []).append(fv)
        sentences = []
        for subject, facts in groups.items():
            sentence = self._sentence(subject, facts, lang)
            # the guard: a sentence carrying any number that no verified fact states is dropped whole
            if all(m.quantity in allowed for m in find_quantities(sentence)):
                sentences.append(sentence)
        if not sentences:
            return FALLBACK_TEXT[lang]
        return LEAD[lang] + ("" if lang == "zh" else " ").join(sentences)

    def subject_of(self, fv: FactVerdict, document: Document) -> str:
        """The subject as the document names it, with its modifiers (三级医疗机构 -> 三级定点医疗机构)."""
        subject = fv.fact.subject.strip()
        binding = fv.check("entity_binding")
        ev = binding.evidence if binding else None
        text = document.text
        if ev and "subject_offset" in ev:
            s, e = ev["subject_offset"], ev["subject_offset"] + ev["subject_length"]
            s = self._extend_left(text, s, ev.get("item_offset", s))
            surface = text[s:e].strip()
            if surface and not find_quantities(surface) and mentions(subject, surface):
                subject = surface
                if subject[:1].isupper() and subject[1:2].islower() and s == _sentence_start(document, s):
                    subject = subject[0].lower() + subject[1:]  # "Expense reports must..." -> "expense reports"
        if subject.lower() in GENERIC_SUBJECTS or not subject:
            subject = self._label_of(fv, document)
        return subject

    @staticmethod
    def _extend_left(text: str, start: int, floor: int) -> int:
        """Take in modifiers just before a mention: CJK up to a boundary, or hyphenated/adjective words."""
        s = start
        if s and is_cjk(text[s - 1]):
            while s > floor and is_cjk(text[s - 1]) and text[s - 1] not in SUBJECT_BOUNDARY_ZH:
                s -= 1
            return s if start - s <= 6 else start
        for _ in range(2):  # at most two modifier words: "high-cost cities", "standard cities"
            m = re.search(r"([A-Za-z]+(?:-[A-Za-z]+)*)[ \t]*$", text[floor:s])
            if not m or m.group(1).lower() in NON_MODIFIERS_EN:
                break
            s = floor + m.start(1)
        return s

    @staticmethod
    def _label_of(fv: FactVerdict, document: Document) -> str:
        check = fv.check("value_in_source")
        if not check or not check.evidence:
            return ""
        idx = document_index(document)
        offset = check.evidence["offset"]
        ss, _ = idx.sentence_bounds(offset)
        item = document.text[ss:offset + check.evidence["length"]]
        label = item_label(item, idx.quantities_in(ss, offset + check.evidence["length"]), ss, fv.fact.predicate)
        return "" if find_quantities(label) or len(label) > 40 else label

    @staticmethod
    def _sentence(subject: str, facts: list[FactVerdict], lang: str) -> str:
        families = [_family(fv, lang) for fv in facts]
        clauses = [TEMPLATES[lang][fam].format(p=fv.fact.predicate.strip(), v=fv.fact.object_value.strip())
                   for fv, fam in zip(facts, families)]
        if lang == "zh":
            head = subject if subject.endswith("的") else subject + "的"
            return head + "，".join(clauses) + "。"
        body = clauses[0] if len(clauses) == 1 else ", ".join(clauses[:-1]) + " and " + clauses[-1]
        if all(f == "verbal" for f in families):
            return f"{subject[:1].upper()}{subject[1:]}: {body}."
        return f"For {subject}, {body}."
