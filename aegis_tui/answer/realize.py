"""EntityAwareRealizer: verified facts -> a fluent zh/en answer that keeps every number bound to its subject."""

from __future__ import annotations

import re
from dataclasses import replace

from ..schema import FactType
from ..text.docindex import LIST_ITEM, document_index
from ..text.document import Document
from ..text.entities import mentions
from ..text.lexicon import (
    CAP_ZH,
    CHANGE_VERBS_EN,
    CHANGE_ZH,
    GENERIC_SUBJECTS,
    NON_MODIFIERS_EN,
    SUBJECT_BOUNDARY_ZH,
    TABLE_POINTER,
    is_cjk,
)
from ..text.quantity import Quantity, find_quantities, parse_quantity
from ..text.ranges import one_range
from .binding import item_label
from .report import FactVerdict, VerificationReport
from .structural import PARENTHESIS, clause_topic, column_name, header_name, title_of

FALLBACK_TEXT = {
    "zh": "文件中没有可核验的依据说明这一点。",
    "en": "The document does not state this with verifiable evidence.",
}
# after the fallback, when the question names what the document never mentions (pick.unmentioned)
NOT_MENTIONED = {"zh": "文件未提及：{terms}。", "en": "It does not mention: {terms}."}
LEAD = {"zh": "根据文件：", "en": "According to the document: "}
# how a member the question names came to its class's figures (a "membership" check's evidence)
BASIS = {"zh": "{member}属于{name}（{where}）。", "en": "{member} is in {name} ({where}).",
         "zh-": "{member}属于{name}。", "en-": "{member} is in {name}."}
SCOPED_LEAD = {"zh": "根据文件「{scope}」部分：", "en": "According to the document, under \"{scope}\": "}

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

_ARTICLE = re.compile(r"(?:the|a|an)\s", re.IGNORECASE)
_VERBAL = re.compile(r"(?:\b(?:to|at|of|within|by|is|are|be|up)$)|^\w+ed\b", re.IGNORECASE)


def _clause(template: str, predicate: str, value: str) -> str:
    """One clause; a predicate that brings its own article ("the deductible …") does not take the template's."""
    if _ARTICLE.match(predicate):
        template = template.removeprefix("the ")
    return template.format(p=predicate, v=value)


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


def _label_spans(sentence: str, facts: list[FactVerdict]) -> list[tuple[int, int]]:
    """Where a sentence writes the subjects and predicates of its facts read from table cells, each occurrence: the
    table's own headers, as the document writes them (not a label the model wrote for a clause, which may carry a
    number the clause reads otherwise: "3.3 request a credit within")."""
    labels = {x.strip() for fv in facts if _cell(fv) is not None
              for x in (fv.fact.subject, fv.fact.predicate) if x.strip()}
    return [(m.start(), m.end()) for label in labels for m in re.finditer(re.escape(label), sentence)]


def _cell(fv: FactVerdict) -> dict | None:
    """The table cell a verified fact was read from (table_binding's evidence), if any."""
    check = fv.check("table_binding")
    ev = check.evidence if check and check.passed else None
    return ev if ev and "table" in ev and ev.get("row_header") else None


# a period a header or predicate names, said after an amount: "$210 a night", "$68 a day"; not a length ("2-year
# plan", "12-month term": the amount is for the whole of it)
_LENGTH = r"(?<!\d-)(?<!\d )(?<!\d)"
_PERIODS = [(re.compile(_LENGTH + r"\bnight(?:ly|s)?\b", re.I), "a night"),
            (re.compile(_LENGTH + r"\b(?:daily|day)\b", re.I), "a day"),
            (re.compile(_LENGTH + r"\b(?:weekly|week)\b", re.I), "a week"),
            (re.compile(_LENGTH + r"\b(?:monthly|month)\b", re.I), "a month"),
            (re.compile(_LENGTH + r"\b(?:annual|yearly|year)\b", re.I), "a year"),
            (re.compile(_LENGTH + r"\b(?:hourly|hour)\b", re.I), "an hour")]
# … nor when the amount is a rate per another unit ("Rate per CCF": $5.64 is per CCF, not a month)
_PER_UNIT = re.compile(r"\bper\s+(?!night|day|week|month|year|hour|annum)[A-Za-z]", re.I)


def _caption_topic(caption: str) -> str:
    """A Chinese table caption as the topic of its rows' sentences: without its numbering, its parentheses and a
    closing 如下; '' for a caption that is a sentence, holds a figure or runs long."""
    topic = re.sub(r"(?:如下表?|见下表)[:：]?$", "", PARENTHESIS.sub("", title_of(caption))).strip(" ：:")
    # (nor a pointer to the table, "缴存比例按下表执行", nor a figure the guard would find: 每万元)
    return topic if 2 <= len(topic) <= 24 and not any(ch.isdigit() or ch in "，,；;。" for ch in topic) \
        and not TABLE_POINTER.search(topic) and not find_quantities(topic) else ""


def table_sentence(fv: FactVerdict, cell: dict, lang: str) -> tuple[str, str]:
    """A table fact as a person reads the table: 'Coastal hub — standard room: $210 a night.', '一线职工省外…为2600元。';
    with the lead its table's caption gives it, when the label leaves out what the caption says ('' if none)."""
    row = cell["row_header"].strip()
    subject = fv.fact.subject.strip()
    if subject and subject != row and row.startswith(subject) and any(ch.isdigit() for ch in row[len(subject):]):
        # a row's word column holding a figure of its own ("Emergency | Gas leak, no heat below 55°F"): the row is
        # named by the label the fact gives, not by words carrying a number no fact states
        row = subject
    column = cell.get("column_name") or (header_name(cell.get("column_header", "")) if cell.get("column_header") else "")
    predicate, value = fv.fact.predicate.strip(), fv.fact.object_value.strip()
    if lang == "zh":
        # each level of a two-row header the predicate leaves out comes before it: 区外 + 通讯补贴
        what = "".join(level for level in column.split(" / ") if level and not mentions(level, predicate)) + predicate
        said = f"{'' if row in what else row}{what}"
        # a caption the label leaves out says which table, and often whose ("表7 二类区域前期物业服务费基准价"): it
        # leads the table's sentences, as its title leads its rows
        topic = _caption_topic(cell.get("caption", ""))
        return f"{topic}：" if topic and topic not in said and not mentions(topic, said) else "", f"{said}为{value}。"
    label = column.replace(" / ", " ") or predicate
    label = label[:1].lower() + label[1:] if label[1:2].islower() or len(label) == 1 else label
    q = parse_quantity(value)
    period = ""
    if q is not None and q.dimension == "money":
        said = " ".join((cell.get("column_header", ""), cell.get("caption", ""), predicate))
        period = "" if _PER_UNIT.search(said) else next((" " + word for rx, word in _PERIODS if rx.search(said)), "")
    return "", f"{row[:1].upper()}{row[1:]} — {label}: {value}{period}."


def _as_ranges(facts: list[FactVerdict], ends_of: dict[int, list[FactVerdict]] | None = None) -> list[FactVerdict]:
    """The facts to write, the two ends of one range its quote states ("工程 | 竞争性谈判 | 60万元" and "… | 300万元"
    from "60万元至300万元") written once, as the range reads in the quote; ends_of collects, by the id of each range
    written, the two facts it stands for."""
    out, taken = [], set()
    for fv in facts:
        if fv.index in taken:
            continue
        f = fv.fact
        ends = next(((o, written) for o in facts if o.index != fv.index and o.index not in taken
                     and (o.fact.subject, o.fact.predicate) == (f.subject, f.predicate)
                     and (written := one_range(f.source_text, f.object_value, o.fact.source_text, o.fact.object_value))),
                    None)
        if ends is None:
            out.append(fv)
            continue
        taken.add(ends[0].index)
        out.append(replace(fv, fact=f.model_copy(update={"object_value": ends[1]})))
        if ends_of is not None:
            ends_of[id(out[-1])] = [fv, ends[0]]
    return out


def _sentence_start(document: Document, offset: int) -> int:
    start, _ = document_index(document).sentence_bounds(offset)
    if (marker := LIST_ITEM.match(document.text[start:offset])) is not None:
        start += marker.end()  # "- Motorcycles: …" starts its sentence after the list marker
    while start < offset and document.text[start].isspace():
        start += 1
    return start


_EDITION_YEAR = re.compile(r"(?:19|20)\d\d\s+[A-Z][a-z]+\b")  # an edition's year before its name ("2025 Scheme")


class EntityAwareRealizer:
    """Groups verified facts by subject and renders them with per-family templates in the document's language.
    After realize(), unsaid holds the verified facts the answer does not state (no subject to write, or a
    sentence the number guard dropped)."""

    unsaid: list[FactVerdict]
    carried: list[Quantity]  # the numbers no verified fact states that dropped a sentence

    def __init__(self) -> None:
        self.unsaid = []
        self.carried = []

    def realize(self, report: VerificationReport, document: Document, language: str | None = None,
                question: str | None = None, scope: str = "") -> str:
        """The answer; with a scope (the section every fact stands under) the lead names it."""
        lang = language if language in TEMPLATES else document.language
        ends_of: dict[int, list[FactVerdict]] = {}
        verified = _as_ranges(report.verified, ends_of)
        allowed = _allowed(verified)
        groups: dict[str, list[FactVerdict]] = {}
        cells: list[tuple[FactVerdict, dict]] = []
        self.unsaid, self.carried = [], []
        for fv in verified:
            if (cell := _cell(fv)) is not None:
                cells.append((fv, cell))
            elif subject := self.subject_of(fv, document):
                if lang == "zh" and (topic := clause_topic(fv.fact)) and topic not in subject:
                    # whom the clause is about stands before the subject it chose: "参保男职工的未就业配偶，产前
                    # 检查费用…" must not read as every insured person's 产前检查费用
                    subject = f"{topic}，{subject}"
                groups.setdefault(subject, []).append(fv)
            else:
                self.unsaid.append(fv)
        written = [(facts[0].index, ("", self._sentence(subject, facts, lang)), facts)
                   for subject, facts in groups.items()]
        # (a column named alike another but for its parenthesis is named with it: "Annual booster (previous)" beside
        # "Annual booster (current)", else the two figures would read as one measure's)
        tables = document.structure.tables
        cells = [(fv, {**cell, "column_name": column_name(tables[cell["table"] - 1], cell["column"] - 1)})
                 if 0 < cell.get("table", 0) <= len(tables) and cell.get("column") else (fv, cell) for fv, cell in cells]
        written += [(fv.index, table_sentence(fv, cell, lang), [fv]) for fv, cell in cells]
        sentences = []
        led = ""
        for _, (lead, sentence), facts in sorted(written, key=lambda p: p[0]):
            # (a caption leads the first of its table's sentences in a row, not each)
            sentence = (lead if lead != led else "") + sentence if sentence else sentence
            # the guard: a sentence carrying any number that no verified fact states is dropped whole, and its
            # facts are not said (unsaid: the caller takes them out of the answer's report); a year naming an
            # edition is no quantity it states ("Core Partner — 2025 Scheme: £1,000.")
            # (nor a number inside its facts' own label as the sentence writes it, read otherwise beside the words the
            # sentence puts around it: "Band B En-suite — 2025/26 weekly rent: £168.50." of the header "2025/26 weekly
            # rent", "…非居民用户1—10千伏为0.5503元/千瓦时" of "1—10千伏")
            labelled = _label_spans(sentence, facts)
            if sentence and not (stray := [m.quantity for m in find_quantities(sentence) if m.quantity not in allowed
                                           and not (m.quantity.dimension == "date"
                                                    and _EDITION_YEAR.match(sentence, m.start))
                                           and not any(a <= m.start and m.end <= b for a, b in labelled)]):
                sentences.append(sentence)
                led = lead
            else:
                self.unsaid += facts
                self.carried += stray if sentence else []
        # (a range written once and left unsaid leaves both its ends unsaid: the caller takes the report's own facts out)
        unwritten, self.unsaid = self.unsaid, [end for fv in self.unsaid for end in ends_of.get(id(fv), [fv])]
        if not sentences:
            return FALLBACK_TEXT[lang]
        lead = SCOPED_LEAD[lang].format(scope=" ".join(scope.split())) if scope else LEAD[lang]
        # (the member the question names stated in the class whose figures follow, where the document places it: the
        # binding of "Tolworth Bridge" to Band 1's figures is part of the answer's evidence)
        said = [fv for fv in verified if fv not in unwritten]
        basis = list(dict.fromkeys(BASIS[lang if c.evidence.get("where") else f"{lang}-"].format(**c.evidence)
                                   for fv in said for c in fv.checks
                                   if c.rule == "membership" and c.passed and c.evidence))
        return lead + ("" if lang == "zh" else " ").join(basis + sentences)

    def subject_of(self, fv: FactVerdict, document: Document) -> str:
        """The subject as the document names it, with its modifiers (三级医疗机构 -> 三级定点医疗机构)."""
        subject = fv.fact.subject.strip()
        binding = fv.check("entity_binding")
        ev = binding.evidence if binding else None
        text = document.text
        if ev and "subject_offset" in ev:
            s, e = ev["subject_offset"], ev["subject_offset"] + ev["subject_length"]
            s = self._extend_left(text, s, ev.get("item_offset", s))
            e = _close_brackets(text, s, e)
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
            # (not a number's measure word and what follows it: "2次" of "…最多享受2次技能提升补贴", "2025年度" of
            # "2025年度在职职工" are no modifiers of the subject)
            return s if start - s <= 6 and not (s and text[s - 1].isdigit()) else start
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
        clauses = [_clause(TEMPLATES[lang][fam], fv.fact.predicate.strip(), fv.fact.object_value.strip())
                   for fv, fam in zip(facts, families)]
        if lang == "zh":
            head = subject if subject.endswith("的") else subject + "的"
            return head + "，".join(clauses) + "。"
        body = clauses[0] if len(clauses) == 1 else ", ".join(clauses[:-1]) + " and " + clauses[-1]
        if all(f == "verbal" for f in families):
            return f"{subject[:1].upper()}{subject[1:]}: {body}."
        return f"For {subject}, {body}."


_BRACKETS = {"（": "）", "(": ")", "【": "】", "[": "]", "《": "》", "「": "」"}


def _close_brackets(text: str, start: int, end: int) -> int:
    """The end of a subject's span taken on past the brackets it opens and the document closes right after it
    ("住宿费超过标准（含上浮后标准" + "）"): a name is never written with half its brackets."""
    for _ in range(4):
        span = text[start:end]
        opened = [c for o, c in _BRACKETS.items() if span.count(o) > span.count(c)]
        if not opened or text[end:end + 1] not in opened:
            break
        end += 1
    return end
