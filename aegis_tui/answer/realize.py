"""EntityAwareRealizer: verified facts -> a fluent zh/en answer that keeps every number bound to its subject."""

from __future__ import annotations

import re

from ..schema import FactType
from ..text.document import Document
from ..text.quantity import Quantity, find_quantities, parse_quantity
from .verify import FactVerdict, VerificationReport, _label, document_index, mentions

FALLBACK_TEXT = {
    "zh": "文件中没有可核验的依据说明这一点。",
    "en": "The document does not state this with verifiable evidence.",
}
LEAD = {"zh": "根据文件：", "en": "According to the document: "}

# predicate family -> template of one clause ({p} predicate, {v} value)
TEMPLATES = {
    "zh": {"default": "{p}为{v}", "change": "{p}{v}", "text": "{p}：{v}"},
    "en": {"default": "the {p} is {v}", "change": "the {p} is {v}", "text": "{p}: {v}", "verbal": "{p} {v}"},
}
_CHANGE = re.compile(r"(降低|提高|增加|减少|不超过|上浮|下浮|reduced by|increased by|lowered by|raised by)$")
# subjects that name nothing: a sentence built on them would lose its subject ("相关规定标准为85%")
GENERIC_SUBJECTS = {"相关规定", "规定", "标准", "本办法", "该", "其", "此", "上述", "文件", "政策", "it", "this",
                    "that", "they", "the policy", "policy", "the document", "document", "standard", "rule"}
_EN_STOP = {"the", "a", "an", "of", "in", "for", "at", "on", "to", "and", "or", "by", "with", "is", "are", "was",
            "be", "per", "from", "than", "under", "over", "up", "using", "all", "any", "each", "every", "that",
            "which", "who", "must", "may", "should", "will", "shall", "can", "not", "no", "as", "into", "within"}
_BOUNDARY_ZH = set("，、；：。！？（）()《》“”在的为是按对由于和与或及")


_VERBAL = re.compile(r"(?:\b(?:to|at|of|within|by|is|are|be|up)$)|^\w+ed\b", re.IGNORECASE)


def _family(fv: FactVerdict, lang: str = "zh") -> str:
    if fv.fact.fact_type != FactType.NUMERIC:
        return "text"
    if _CHANGE.search(fv.fact.predicate):
        return "change"
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
        if s and "\u4e00" <= text[s - 1] <= "\u9fff":
            while s > floor and "\u4e00" <= text[s - 1] <= "\u9fff" and text[s - 1] not in _BOUNDARY_ZH:
                s -= 1
            return s if start - s <= 6 else start
        for _ in range(2):  # at most two modifier words: "high-cost cities", "standard cities"
            m = re.search(r"([A-Za-z]+(?:-[A-Za-z]+)*)[ \t]*$", text[floor:s])
            if not m or m.group(1).lower() in _EN_STOP:
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
        label = _label(item, idx.quantities_in(ss, offset + check.evidence["length"]), ss, fv.fact.predicate)
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
