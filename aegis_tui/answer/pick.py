"""Choosing among verified facts: which shortlisted facts of the index answer the question.

Code decides where it can: a fact whose predicate names what the question asks for is chosen; when every
part of the question names what it asks for, the other facts are not; a fact whose evidence (its clause,
section and headers) never mentions anything the question asks for is not either. Every other shortlisted
fact gets the model's grammar-constrained yes/no, all of them in flight at once across the slots,
the question in the shared prefix. Irrelevance is a decision, not a failure: a "no" is recorded as skipped.
"""

from __future__ import annotations

import functools
import os
import re
from collections import Counter
from datetime import timedelta

from ..text.clock import holds, periods, times_given
from ..text.dates import Dated, find_dates, period, undated
from ..text.document import Document
from ..text.entities import abbreviated, compounds, derivations, same_entity, seams, series_name, stem
from ..text.lexicon import (
    AMOUNT_ASKED_EN,
    ASKING_VERBS_ZH,
    ASKS_SEVERAL,
    BOUND_LEAST,
    BOUND_MOST,
    CATCH_ALL,
    CATEGORY_HEADER_ZH,
    CITY_BEFORE_PLACE_ZH,
    CJK,
    CJK_RANGE,
    CLITICS_EN,
    CONJUNCTIONS_ZH,
    DEFINED_AS_COLON_ZH,
    DEFINED_AS_ZH,
    DEFINED_BY_GROUPS_ZH,
    DEFINED_BY_LIST_EN,
    DEFINED_BY_LIST_ZH,
    DEFINED_BY_RANGE_EN,
    DEFINED_BY_SEMICOLONS_EN,
    EXAMPLE_OPENER,
    FORMER_ASKED,
    FORMER_HEADER,
    FORMER_SAID,
    FUNCTION_ZH,
    HOW_PHRASES_EN,
    HOW_PHRASES_ZH,
    INCLUDES_LINES_ZH,
    INCLUDES_ZH,
    LISTING_CELL,
    LISTING_SEPARATORS,
    MEMBER_SEPARATORS_EN,
    MEMBER_SEPARATORS_ZH,
    NAMED_THEN_INCLUDES_ZH,
    NARRATION_ZH,
    NEGATED_EN,
    NEGATION_ZH,
    NUMBER_RANGE_EN,
    NUMBERED_NAME_EN,
    NUMERALS_ZH,
    PERIODS_EN,
    PERIODS_ZH,
    PLACE_ENDING_ZH,
    PRONOUNS_EN,
    PRONOUNS_ZH,
    PROVINCE_BEFORE_CITY_ZH,
    QUERY_STOP_ZH,
    QUESTION_FILLER_EN,
    QUESTION_WORDS,
    STATISTIC,
    STATISTIC_SECTION,
    STOP_EN,
    TABLE_POINTER,
    THRESHOLD_PREDICATE,
    TWO_WORD_COMPOUND_EN,
    UNIT_MARKS,
    WHETHER_PHRASES_ZH,
    as_written,
    is_cjk,
    negated_terms_zh,
    unnegated_zh,
)
from ..text.quantity import PHYSICAL_DIMENSIONS, dimension_of, find_quantities
from ..text.ranges import (
    bound_numbers,
    holding,
    intervals,
    meets,
    meets_stated,
    named_number,
    ordinal_matches,
    ordinals,
    other_ordinal,
    stated_measures,
)
from ..text.seasons import months_given, season_of, seasons
from ..text.structure import (
    article_title,
    current,
    dated,
    earlier_column,
    former_names,
    illustrative,
    in_force,
    named_years,
    names_in,
    period_scopes,
    repealed,
    superseded,
)
from .factindex import IndexedFact, caption_topic
from .job import Job
from .prompts import fact_line, is_yes, pick_grammar, pick_prompt
from .relevance import (
    asked_dimensions,
    asked_predicates,
    asks_whether,
    candidate_key,
    document_candidates,
    given_matches,
    key_offset,
    listed_asks,
    listed_items,
    predicate_asked,
    question_parts,
    row_gives,
)
from .rules import admitted_dimensions
from .states import State
from .structural import (
    PARENTHESIS,
    classes,
    clause_start,
    clause_topic,
    header_name,
    identifies,
    names,
    ordinal_apart,
    shared_ends,
    short_title,
    title_of,
    value_at,
    value_columns,
)

PICK_MAX_TOKENS = 2
# what a figure is paid on top of another for ("夜间附加费", "加收", "a night surcharge")
_ADDITION = re.compile(r"附加|加收|加价|\b(?:surcharge|supplement|additional|extra)\b", re.IGNORECASE)


# a fact's predicate or subject naming a question word counts fully; its section or table caption, and its clause,
# this much
SECTION_WEIGHT = 0.5
CHAR_WEIGHT = 0.25  # a single Chinese character of the question, beside its bigrams
CLAUSE_WEIGHT = 0.3
# a caption this long still titles its table for matching (a predicate joined with one keeps to factindex's bound)
MATCH_CAPTION = 24
MATCH_CAPTION_EN = 60  # … an English one, in characters of its words ("Monthly Water Base Charge by Meter Size")
# the chosen facts together must cover this share of the question's weight, else none answers it ("the monthly
# premium for family coverage" where only family coverage has values). Measured over the fourteen sets, labels held
# fixed: 0.3 → 0.34 recovers 5 fewer of 665 gold figures (3 fewer answers fully right) and 12 fewer answers state
# an unasked figure, 5 more questions the document cannot answer are declined; 0.35 recovers 7 fewer for 14
MIN_COVER = 0.34
# a Chinese question's weight counts its character pairs inside its words and its characters, which a fact's label
# names less fully than an English one's words (its pairs across its own words, 工对 in "缴存职工对审核结果有异议的",
# are no word of it): its chosen facts must cover more of it. Measured over the twelve earlier sets, every Chinese
# answer's share logged once with no floor: at 0.45 they recover 279 of 556 gold figures (280 before these weights,
# with a floor of 0.5) and 4 fewer answers state an unasked figure; 0.5 recovers 5 fewer, 0.4 states 14 more
MIN_COVER_ZH = 0.45
# a fact joins the answer when it adds at least this share of the question's weight not yet covered, or this
# share of what the first facts chosen covered (a question asking three things covers each in part) …
FIRST_RATIO = 0.35
MIN_GAIN = 0.15
# … or, after the first round, this share of the weight of a part of the question no chosen fact touches yet
PART_SHARE = 0.6
# … and, with the round's best, the facts saying the same thing that add at least this share of its gain
PEER_RATIO = 0.8
# a question asking for one figure, answered by this many facts of one kind (one measure for several things, or
# several measures of one thing) about things it does not name, is listed the document's figures rather than
# answered (see listing)
LISTING = 3
# where a question's sentences end ("…for a fortnight. If I crack a filling…, what's the most you'll pay?")
ASKING_SENTENCE = re.compile(r"(?<=[。？?！!；;])|(?<=\.)\s+")


def _before_parts(question: str, parts: list[str]) -> list[str]:
    """What a question says before each of its parts and after the one before it (the narration a part may ask of:
    "My car got a boot on it." before "What does it cost to have it taken off")."""
    out, end = [], 0
    for part in parts:
        at = question.find(part, end)
        out.append(question[end:at] if at >= 0 else "")
        end = at + len(part) if at >= 0 else end
    return out


def asking_sentences(question: str) -> list[tuple[str, bool]]:
    """The question's sentences, each with whether it asks: one ending in a question mark, where any does; else
    every sentence asks ("Tell me the cap for dental."). A sentence narrating the case ("the project is at our
    Marsden Vale plant.") asks nothing, whatever words it holds."""
    sentences = [x for x in ASKING_SENTENCE.split(question) if x and x.strip()]
    marked = [x.rstrip().endswith(("?", "？")) for x in sentences]
    return list(zip(sentences, marked if any(marked) else [True] * len(sentences)))


_PARTS_OF_WORD = re.compile(r"[-'’]")
_CLITIC = re.compile(rf"['’](?:{'|'.join(CLITICS_EN)})$")


NEGATED = "no_"  # the mark of a negated English term ("no_contract")


def _names_unnegated(label: str, term: str) -> bool:
    """Whether a label names a term, and nowhere as its negation ("本市户籍或非本市户籍的灵活就业人员" names 非本市户籍 too)."""
    ats = [m.start() for m in re.finditer(re.escape(term), label)]
    return bool(ats) and not any(NEGATION_ZH.search(label[max(0, at - 2):at]) for at in ats)


def _label_words(fact) -> set[str]:
    """The words of a fact's subject and predicate, single characters left out."""
    return {t for t in _stemmed(f"{fact.subject} {fact.predicate}") if len(t) > 1}


def _stemmed(text: str) -> set[str]:
    """Content terms of a text: CJK bigrams, and English words split at hyphens ("out-of-pocket" is out, of,
    pocket as a question writes it), without filler words, lightly stemmed, a negated one as a term of its own
    ("no_contract"); and the periods it counts over."""
    from .relevance import _WORD, terms

    out = set()
    # an ordinal is its number however written ("second" ~ "2nd", 第二套 ~ 第2套 ~ 首套): one term in place of its
    # words or characters (what it counts stays a word of the text, apart: 套房 of "第一套房" is no word)
    for a, b, n, counter in reversed(ordinal_matches(text)):
        if text[a:b].isascii():
            text = text[:a] + " " + text[b:]
            out.add(f"#{n}")
        else:
            text = text[:a] + " " + text[b - len(counter):b] + " " + text[b:]
            out.add(f"第{n}")
    # a Chinese phrase asking how long or when (多长时间, 多久) is how a question asks, as English filler is
    text = WHETHER_PHRASES_ZH.sub(" ", HOW_PHRASES_ZH.sub(" ", text))
    # the period a measure is counted over is one term however worded (一年 ~ 每年 ~ 年度, 一次 ~ 单次; annual ~ a year
    # ~ the whole year), and the phrase none of its words
    for name, pattern in PERIODS_ZH:
        text, found = pattern.subn(" ", text)
        if found:
            out.add(name)
    # (an adjective stays a word of its own, "weekly" still "week" differently derived; a phrase, "per week", "the
    # whole year", is the period alone)
    for name, pattern in PERIODS_EN:
        text, found = pattern.subn(lambda m: m.group() if " " not in m.group().strip() and "-" not in m.group()
                                   else " ", text)
        if found:
            out.add(name)
    # (a count of one thing the asker narrates, "换一辆纯电动的小轿车", "买两台空调": no word of what it asks, nor is the pair
    # it makes with the word before it, 换一)
    text = _COUNTED_THINGS_ZH.sub(" ", text)
    for t in terms(text):
        if not t.isascii():
            # (院的, 线和, 我家: no word of their own)
            # (nor a vague or asking count's, 几天 of "那几天" or "几天", a count's measure word, 两个 and 个月 of "两个月",
            # nor narration's, 以后 of "回来以后")
            if not any(ch in FUNCTION_ZH or ch in CONJUNCTIONS_ZH or ch in PRONOUNS_ZH or ch == "几" for ch in t) \
                    and t not in NARRATION_ZH and not COUNTED_ZH.fullmatch(t):
                out.add(t)
                # its characters too, weighed lightly: 一年最多 shares 年 and 最 with 年度最高 and no bigram (not a
                # modal's or a particle's, 要 of 要挂, 里 of 村里: how the question asks)
                out.update(ch for ch in t if ch not in QUERY_STOP_ZH and ch not in ASKING_VERBS_ZH)
    # a negated word is another term: "no contract" is the case without one
    for m in NEGATED_EN.finditer(text):
        out.add(NEGATED + stem(m.group(1).lower()))
    text = HOW_PHRASES_EN.sub(" ", NEGATED_EN.sub(" ", text))
    for word in _WORD.findall(text):  # each part stemmed once: a stem is not a word to stem again
        word = word.lower()
        if word in QUESTION_FILLER_EN:  # "don't", "it's"
            continue
        # a clitic is no part of a compound: "what's" is "what" standing alone, "tenant's" "tenant"
        parts = _PARTS_OF_WORD.split(_CLITIC.sub("", word))
        # a filler word standing alone ("how long") says nothing; inside a compound ("long-term") it tells it apart
        filler = QUESTION_FILLER_EN if len(parts) == 1 else STOP_EN
        # (a filler word inflected is filler: "taking" as "take")
        out |= {t for w in parts if len(w) > 1 and w not in filler and (t := stem(w)) not in filler}
    return out


_COUNTED_THINGS_ZH = re.compile(r"(?<![统同唯第万单零〇一二两三四五六七八九十百千\d])[一两二三四五六七八九十]\s*"
                                r"(?:个(?!月)|辆|台(?!账)|件(?!事)|套|张|份|位|名(?![称额单])|部(?![门分署])|只)")
COUNTED_ZH = re.compile(rf"[{''.join(sorted(NUMERALS_ZH))}半这那每]个|个月")  # (a count and its measure word)


_DF: dict[str, tuple[int, dict[str, int]]] = {}


def _document_frequency(doc: Document) -> tuple[int, dict[str, int]]:
    """How many of the document's sentences (headings and table rows included) hold each term."""
    if doc.sha256 not in _DF:
        if len(_DF) >= 8:
            _DF.pop(next(iter(_DF)))
        df: dict[str, int] = {}
        for sentence in doc.sentences:
            for t in _stemmed(sentence.text):
                df[t] = df.get(t, 0) + 1
        _DF[doc.sha256] = (max(1, len(doc.sentences)), df)
    return _DF[doc.sha256]


def held_terms(text: str, doc: Document) -> set[str]:
    """The English content terms of a text (as `_stemmed` reads them) that the document holds somewhere, each with
    the document's words it stands for as cover reads them, the same word differently derived ("grad" ~ graduate)."""
    _, df = _document_frequency(doc)
    out = set()
    for t in _stemmed(text):
        if t.isascii():
            out |= ({t} if t in df else set()) | derivations(t, df)
    return out


def compound_terms(words: set[str], doc: Document) -> set[str]:
    """The document's words that join one of these terms to another of its words ("household" for "hous")."""
    _, df = _document_frequency(doc)
    return {v for t in words for v in compounds(t, df)}


def shares_terms(text: str, words: set[str]) -> bool:
    """Whether a text holds any of these content terms."""
    return bool(words & _stemmed(text))


_OF_BASE = re.compile(r"\s*of\s+(?:the\s+)?([A-Za-z][^,;.:()]*)", re.IGNORECASE)
_BASE_OF = re.compile(r"(?:按|以|依)?([^，,；;。：:\s\d按以依]{2,12})的\s*$")
_INCLUDES = re.compile(r"((?:[A-Za-z][\w'-]*\s+){0,2}[A-Za-z][\w'-]*)\s*\(([A-Za-z][^()]*,[^()]*)\)")
_ABBREVIATED = re.compile(r"((?:[A-Za-z][\w'-]*\s+){0,5}[A-Za-z][\w'-]*)\s*[（(]([A-Z]{2,6})[)）]")
_ABBR: dict[str, dict[str, set[str]]] = {}


def _abbreviations(doc: Document) -> dict[str, set[str]]:
    """The abbreviations a document defines ("Short-Term Disability (STD)"): each one's stem → the stems of the
    words it stands for, the words whose initials spell it; and the members of a name it defines by what it
    includes, each → the name's stems."""
    if doc.sha256 not in _ABBR:
        if len(_ABBR) >= 8:
            _ABBR.pop(next(iter(_ABBR)))
        out: dict[str, set[str]] = {}
        for m in _ABBREVIATED.finditer(doc.text):
            words, abbr = m.group(1).split(), m.group(2)
            for k in range(1, len(words) + 1):
                phrase = words[-k:]
                if "".join(p[0] for w in phrase for p in _PARTS_OF_WORD.split(w) if p).upper() == abbr:
                    if long := _stemmed(" ".join(phrase)):
                        out.setdefault(stem(abbr.lower()), set()).update(long)
                    break
        # a two-word compound the document hyphenates stands for its words written as one ("setup" asked, "set-up"
        # written), and they for it: hyphens vary in writing
        for m in TWO_WORD_COMPOUND_EN.finditer(doc.text.lower()):
            if len(words := _stemmed(m.group(0))) == 2:
                out.setdefault(stem(m.group(1) + m.group(2)), set()).update(words)
        # a name the document defines by what it includes ("Basic services (fillings, simple extractions)"): each
        # one-word member stands for the name, as an abbreviation does ("a filling" asked, "Basic services" written)
        for m in _INCLUDES.finditer(doc.text):
            name = _stemmed(m.group(1))
            for member in re.split(r",\s*|\s+(?:and|or)\s+", m.group(2)):
                words = [stem(w.lower()) for w in _PARTS_OF_WORD.split(member.strip()) if w]
                if name and len(words) == 1 and words[0].isalpha() and words[0] not in name:
                    out.setdefault(words[0], set()).update(name)
        # a name the document defines by its members ("一类城市是指北京、上海、广州、深圳", "远郊区县（含北山县、临江县）",
        # "一类区域：海晏区、东津区、望江新区；"): each member stands for it ("在深圳工作" asked, 交通补贴·一类城市 written); a
        # Chinese member by each of its character pairs
        for defined, members in defined_by_members(doc).items():
            _member_pairs(out, defined, members)
        _ABBR[doc.sha256] = out
    return _ABBR[doc.sha256]


def _member_pairs(out: dict[str, set[str]], defined: str, members) -> None:
    """Each Chinese member's character pairs standing for the stems of the name it is a member of (_abbreviations)."""
    name = {t for t in _stemmed(defined) if len(t) > 1}
    for member in members:
        if name and len(member) <= 6 and CJK.fullmatch(member[0]) and not find_quantities(member):
            for pair in {member[i:i + 2] for i in range(len(member) - 1)} - name:
                out.setdefault(pair, set()).update(name)


def _abbreviations_asked(question: str, doc: Document) -> dict[str, set[str]]:
    """_abbreviations, a member a former classification placed elsewhere standing for that name too where the question
    asks of its time (members_asked: "芦花村…2025年2月" names 三类 as well as 二类)."""
    out = _abbreviations(doc)
    now, asked = defined_by_members(doc), members_asked(question, doc)
    if asked is now:
        return out
    out = {k: set(v) for k, v in out.items()}
    for name, members in asked.items():
        _member_pairs(out, name, members - now.get(name, set()))
    return out


_MEMBERS: dict[str, tuple[dict[str, set[str]], dict[str, dict[str, int]], list[frozenset[str]], frozenset[int]]] = {}


def defined_by_members(doc: Document) -> dict[str, set[str]]:
    """The names a document defines by their members ("一类城市是指北京、上海、广州、深圳", "远郊区县（含北山县、
    临江县）", "一类区域：海晏区、东津区、望江新区；", a table placing job titles in Bands), each with its members of two
    characters or more, as the current classification places them (a former one's placements: formerly_by_members)."""
    return _memberships(doc)[0]


def _memberships(doc: Document) -> tuple[dict[str, set[str]], dict[str, dict[str, int]], list[frozenset[str]],
                                         frozenset[int]]:
    """defined_by_members, formerly_by_members, the names each table column places rows in (_one_column) and the
    tables placing rows in classes (placing_table), read once a document."""
    if doc.sha256 not in _MEMBERS:
        if len(_MEMBERS) >= 8:
            _MEMBERS.pop(next(iter(_MEMBERS)))
        out: dict[str, set[str]] = {}
        for m in [*DEFINED_AS_ZH.finditer(doc.text), *INCLUDES_ZH.finditer(doc.text),
                  *DEFINED_BY_LIST_ZH.finditer(doc.text)]:
            name = re.sub(r"^.*?所称", "", m.group("name"))  # (本办法所称…)
            members = {x.strip() for x in MEMBER_SEPARATORS_ZH.split(m.group("members")) if len(x.strip()) >= 2}
            out.setdefault(name, set()).update(members)
        keyed = _table_keys(doc)
        keys = [k for ks in keyed.values() for k in ks]
        # (a definitions list's term, its members without their asides: "新能源乘用车：指纯电动乘用车、插电式混合动力（含增程式）
        # 乘用车和燃料电池乘用车")
        for m in DEFINED_AS_COLON_ZH.finditer(PARENTHESIS.sub("", doc.text)):
            # (things, not a sentence's clauses: "乘用车：指设计和制造上用于载客的汽车" defines by what it is, no members)
            members = {x.strip() for x in MEMBER_SEPARATORS_ZH.split(m.group("members")) if len(x.strip()) >= 2}
            if len(members) < 2 or any(_CLAUSE_WORDS_ZH.search(x) for x in members):
                continue
            name = m.group("name")
            # (members each the name's head with words of their own before it are named by those words too, three
            # characters at least: 纯电动 of 纯电动乘用车, where 新能源乘用车 is defined; not words a header of the tables
            # holds, 城镇 of 城镇职工, nor two, 本市 of 本市户籍人员)
            head = next((name[i:] for i in range(0, len(name) - 1)
                         if all(x.endswith(name[i:]) and len(x) - len(name) + i >= 2 for x in members)), "")
            members |= {short for x in members if head and len(short := x[:-len(head)]) >= 3
                        and not any(short in k for k in keys)}
            out.setdefault(name, set()).update(members)
        for m in DEFINED_BY_GROUPS_ZH.finditer(doc.text):
            # (each member a name, "渔山县", "江宁高新技术产业开发区", "观澜县（观澜港临港产业园除外）" as 观澜县; a lead naming a
            # sentence after its colon lists nothing: "申请条件：连续缴费满12个月、…")
            # (a comma before 以及 parts no member: "澄江区环城路以内区域，以及青澜火车站")
            items = [re.sub(r"[（(][^（）()]*[）)]", "", x).strip()
                     for group in re.split(r"[；;]", m.group("members")) if group.strip()
                     for x in re.split(r"以及|[、，,]", group.strip()) if x.strip()]
            if len(items) < 2 or not all(2 <= len(x) <= 16 and not re.search(r"[\d《》（）()：:]", x) for x in items):
                continue
            members = set(items) | {x[c.end():] for x in items if (c := CITY_BEFORE_PLACE_ZH.match(x))}
            out.setdefault(m.group("name"), set()).update(members)
        for m in INCLUDES_LINES_ZH.finditer(doc.text):
            members = set()
            for line in m.group("members").split("\n"):
                line = re.sub(r"^.*?的", "", line.strip().rstrip("；;。"))  # ("四川省的甘孜藏族自治州、…")
                for x in MEMBER_SEPARATORS_ZH.split(line):
                    # (a province before its city names the city: "海南省三沙市"; a place is spoken of by the two
                    # characters before its administrative ending: 甘孜 for 甘孜藏族自治州, 新疆 for 新疆维吾尔自治区)
                    x = PROVINCE_BEFORE_CITY_ZH.sub("", x.strip())
                    if len(x) >= 2:
                        members.add(x)
                        if PLACE_ENDING_ZH.search(x) and len(x) >= 3:
                            members.add(x[:2])
            if members:
                out.setdefault(re.sub(r"^.*?所称", "", m.group("name")), set()).update(members)
        for m in DEFINED_BY_LIST_EN.finditer(doc.text):  # ("Bayview (headquarters)" is Bayview)
            members = {re.sub(r"\s*\(.*\)$", "", x).strip() for x in MEMBER_SEPARATORS_EN.split(m.group("members"))}
            out.setdefault(m.group("name").strip(), set()).update(x for x in members if len(x) >= 2)
        for m in NAMED_THEN_INCLUDES_ZH.finditer(doc.text):
            # (a class a table of figures is keyed by, "| 丙类 | 4个月 | 6个月 |"; each member between semicolons, of one
            # of its parts the long ones, a short one before 、 sharing the last's head: "前臂、小腿、上臂、大腿截肢")
            if m.group("name") in keys:
                out.setdefault(m.group("name"), set()).update(
                    x for group in re.split(r"[；;]", m.group("members"))
                    for x in (re.sub(r"[（(][^（）()]*[）)]|等$", "", y.strip()) for y in group.split("、"))
                    if len(x) >= (4 if "、" in group else 2) and not any(ch.isdigit() for ch in x))
        former: dict[str, dict[str, int]] = {}
        classes: dict[tuple[int, int], set[str]] = {}
        for m in DEFINED_BY_SEMICOLONS_EN.finditer(doc.text):
            # (a category a table is keyed by: not any lead of a paragraph listing things, "Examples: …; …")
            if any(_names(k, name := m.group("name").strip()) for k in keys):
                # (a name, no figure: "Premier: less 20% co-payment = $5,600; …" is a worked sum)
                out.setdefault(name, set()).update(x for y in m.group("members").split(";") for x in _member_en(y)
                                                   if not any(ch.isdigit() for ch in x))
        for name, members in [*_defined_by_tables(doc, keyed, former, classes).items(),
                              *_defined_under_headings(doc, keyed).items(),
                              *_defined_by_yes(doc, keys).items()]:
            out.setdefault(name, set()).update(members)
        for name in [n for n in out if EXAMPLE_OPENER.match(n) or not re.search(r"[^\W\d_]", n)
                     or _YEAR_NAME.fullmatch(n.strip())]:
            # (a worked example's title names no class, "**示例六：丧葬补助金和抚恤金**", nor a dash or a number, "| — |",
            # nor a year, "2024年" over a statistics table's districts)
            del out[name]
        # (a Chinese place is spoken of without its administrative ending, "杭州" for 杭州市; a list's closing word
        # is no part of its last member, "以及苏州市")
        for name, members in out.items():
            if _PLACES_ZH.search(name):
                members |= {y for x in members if not _latin(x) for y in _spoken_place(x)}
        kept = _one_name_each({name: set(at) for name, at in former.items()})
        _MEMBERS[doc.sha256] = (_placed_by_rows(doc, _one_name_each(out)),
                                {name: {m: at for m, at in former[name].items() if m in kept[name]} for name in former},
                                [frozenset(names) for names in classes.values() if len(names) >= 2],
                                frozenset(t for (t, c), names in classes.items() if len(names) >= 2 or c < 0))
    return _MEMBERS[doc.sha256]


_YEAR_NAME = re.compile(r"(?:19|20)\d\d(?:\s*[/–-]\s*\d{2,4})?\s*(?:年度|年版|年)?")


def placing_table(doc: Document, index: int) -> bool:
    """Whether a table places its rows in classes, a column naming two or more ("| 高新区 | 智谷街道 | 一类区域 | 3.17 |")."""
    return index in _memberships(doc)[3]


def formerly_by_members(doc: Document) -> dict[str, dict[str, int]]:
    """The names a document's tables placed their members under before a change, where a column or table marks the
    classification a former one ("| 原类别 | 现类别 |", "| Zone 2024/25 | Zone 2025/26 |", "Table C.1 – Grade to Band
    mapping (Version 3.1)" where Version 4.0 supersedes it): each name with its members, each at the offset of the
    cell placing it (whose period says when it held). defined_by_members holds the current classification alone."""
    return _memberships(doc)[1]


def _one_column(doc: Document, a: str, b: str) -> bool:
    """Whether two names a document defines by members are classes one column of a table places its rows in ("| Nail
    bar | Retail |", "| Hotel | Hospitality |" under "| Property use | Class |"): of one kind, though their words share
    nothing."""
    return any(a in names and b in names for names in _memberships(doc)[2])


def _placed_by_rows(doc: Document, defined: dict[str, set[str]]) -> dict[str, set[str]]:
    """The members each name holds, with the things a table of no category places beside one of them: a row naming
    a thing first and, in another cell, a member of exactly one name makes the thing a member of that name ("| 10 |
    芦苇湾家园 | 北湖区 | 芦塘镇 | 700套 |" where 芦塘镇 is in 四类区域: a project in that town is in its area). Not a table
    naming the names themselves (where the members were found), nor a thing already a member or a name."""
    # (a member named by words, no figure: "芦塘镇", not a row number or a rate a list caught)
    where = {m: name for name, members in defined.items() for m in members
             if len(m) >= 2 and not any(ch.isdigit() for ch in m) and not LISTING_CELL.match(m)}
    known = {m for members in defined.values() for m in members} | set(defined)
    added: dict[str, set[str]] = {}
    for table in doc.structure.tables:
        cells = [c for row in table.rows[table.header_rows:] for c in row]
        if any(c.text.strip() in defined for c in cells):
            continue
        numbering = table.numbering_columns()
        firsts = [next((c for c in row if c.col not in numbering and c.text.strip() and not c.text.strip().isdigit()),
                       None) for row in table.rows[table.header_rows:]]
        # (a thing naming several rows is what they are grouped under, "| 36 | 云泽市 | 云中区 | … |" then "| 38 | 云泽市 |
        # 湖阳县 | … |", no thing the row places)
        counts = Counter(c.text.strip() for c in firsts if c is not None)
        placed: dict[str, set[str]] = {}
        for row, first in zip(table.rows[table.header_rows:], firsts):
            if first is None or (thing := first.text.strip()) in known or len(thing) < 2 or counts[thing] > 1 \
                    or LISTING_CELL.match(thing) or any(ch.isdigit() for ch in thing):
                continue
            names = {where[c.text.strip()] for c in row if c is not first and c.text.strip() in where}
            if len(names) == 1:
                placed.setdefault(names.pop(), set()).add(thing)
        # (a table placing its things under two names at least: one whose things all fall under one name, "| Affenpinscher
        # | Exotic Shorthair |", lists side by side, or names where they are, "| 南浦区医疗保障服务中心 | … | 南浦区 |")
        if len(placed) >= 2:
            for name, things in placed.items():
                added.setdefault(name, set()).update(things)
    # (a thing placed under two names tells neither)
    twice = {m for name, ms in added.items() for m in ms if any(m in o for other, o in added.items() if other != name)}
    return {name: members | (added.get(name, set()) - twice) for name, members in defined.items()}


# the things a sentence lists after its colon, to its end ("…: physiotherapy, hydrotherapy, acupuncture and massage therapy.")
COLON_LIST_EN = re.compile(r":[ \t]+(?P<members>[^.:;\n]+?)[ \t]*(?:\.(?!\d)|$)", re.MULTILINE)


def _member_en(text: str) -> set[str]:
    """The things an English list item names, without what parentheses say and the words that close the list
    ("hair salons and barber shops" is two); none that is no short name (five words at most, each part of one written
    as a place and a site: "Lancaster – Heysham Power Station Support Office")."""
    x = re.sub(r"\s*\([^()]*\)", "", text).strip().rstrip(".").strip()
    # (… and the whole, where it is one name with an "and" in it, its words but the "and" five at most: "Council Tax and
    # Business Rates system")
    parts = MEMBER_SEPARATORS_EN.split(re.sub(r"^(?:and|or)\s+", "", x))
    whole = [x] if len(parts) == 2 and "," not in x and len(x.split()) <= 6 else []
    return {y for y in parts if 2 <= len(y) and all(len(part.split()) <= 5 for part in _IN_PARTS.split(y))
            and not set(y) & set("()")} | {y for y in whole if not set(y) & set("()")}


_PLACES_ZH = re.compile(r"(?:城市|地区|区域|市|县)$")  # a name whose members are places ("一类城市", "三类地区")


def _spoken_place(member: str) -> set[str]:
    """How a Chinese place a list names is spoken of: without the list's closing word ("以及苏州市": 苏州市) and without
    its administrative ending, two characters or more remaining ("苏州市": 苏州; not "县级市" nor "所辖县")."""
    x = re.sub(r"^(?:以及|及|和|与)(?=..)", "", member)
    out = {x}
    if re.search(r"[^级辖][市县区]$", x) and len(x) >= 3:
        out.add(x[:-1])
    return out - {member}


def _member_zh(text: str) -> str:
    """A thing a Chinese list names, without the word that opens a list ("含电焊工": 电焊工); '' when it is no
    short name (a form, a sentence, a condition: "《…申请表》", "能够通过系统核验身份的无需其他材料", "发病6个月以上")."""
    x = re.sub(r"^(?:含|包括|包含|其中)", "", text.strip().rstrip("。.;；"))
    return x if len(x) <= 10 and not set(x) & set("《》（）()，,：:") and not any(c.isdigit() for c in x) else ""


def _table_keys(doc: Document) -> dict[int, list[str]]:
    """The column and row headers of each of the document's tables of figures (a cell holding a digit), by table,
    none listing things ("云溪县、松岩县、白沙县" groups members, it names no category); an English header opening with
    a series' member names that member too ("Tier 1 intervention rate" beside "Tier 1 maximum grant": Tier 1)."""
    def keys(t) -> list[str]:
        # (a row whose only digits point elsewhere keys nothing: "| Siberian Husky | Risk group C | Risk group B | Table 6
        # |" in a summary of changes; "| Zone C | Not covered |" still keys its class)
        rows = [t.row_header(r) for r in range(t.header_rows, len(t.rows))
                if not ((cells := [c.text for c in t.rows[r] if c not in t.label_cells(r)])
                        and any(ch.isdigit() for x in cells for ch in x)
                        and not any(ch.isdigit() for x in cells for ch in _REFERENCE.sub("", x)))]
        # (a first label column grouping rows that a column of codes identifies, "| 乙类 | Y10 | 帕金森病 | 3,000元 |",
        # keys them by its groups too)
        heads = [h for h in [*(t.column_header(c) for c in range(len(t.rows[0]) if t.rows else 0)), *rows,
                             *groups[t.index]]
                 if h and not LISTING_CELL.match(h)]
        return heads + sorted({m.group() for h in heads if (m := _SERIES_MEMBER.match(h.strip()))
                               and m.group() != h.strip() and series_name(m.group(1))})

    groups = {t.index: _catalogue_groups(t) for t in doc.structure.tables}
    # (a cell pointing to another table or part, "Table 6", "附表2", holds no figure)
    out = {t.index: keys(t) for t in doc.structure.tables
           if any(ch.isdigit() for row in t.rows[t.header_rows:] for c in row for ch in _REFERENCE.sub("", c.text))}
    # (a table whose caption names groups a catalogue's first column sorts rows into is keyed by them, as by a header:
    # "表4 门诊慢特病（甲类病种）起付标准和报销比例" holds 甲类's rates, "表2 …（乙类、丙类病种）…" 乙类's and 丙类's)
    for t in doc.structure.tables:
        if t.index in out and t.caption:
            title = title_of(t.caption)
            out[t.index] += sorted({g for i, gs in groups.items() if i != t.index for g in gs
                                    if g not in out[t.index] and (len(g) >= 2 or not _latin(g))
                                    and _names(title, g) and not _BESIDES_GROUP.search(title.replace(g, "\0"))})
    return out


# (a caption naming a group it leaves out, "非甲类病种…", "（甲类病种除外）", is keyed by the others, not by it)
_BESIDES_GROUP = re.compile(r"(?:非|除|不含|不包括)\0|\0[^，,；;（）()]{0,4}(?:除外|以外)")


def _catalogue_groups(table) -> list[str]:
    """The groups a catalogue's first label column sorts its rows into, where a column of codes identifies each row
    ("| 乙类 | Y10 | 帕金森病 | 3,000元 |": 甲类, 乙类, 丙类); none where no column holds codes or no group holds two rows."""
    if not table.code_columns():
        return []
    firsts = [table.rows[r][table.row_header_col].text.strip() for r in range(table.header_rows, len(table.rows))
              if table.row_header_col < len(table.rows[r])]
    return sorted(set(firsts)) if len(set(firsts)) < len(firsts) else []


# a reference to a part of the document ("Table 6", "Appendix D2", "Schedule 3", "附表2", "表5", "第三十五条")
_REFERENCE = re.compile(r"\b(?:Tables?|Appendix|Annex|Schedule|Section|Part|Clause|Article|Paragraph)\s+[A-Z]?\d+(?:\.\d+)*"
                        r"|附?表\s*\d+(?:[-—.]\d+)*|第[一二三四五六七八九十百零〇\d]+[条章节款]")


_INCLUDING_EN = re.compile(r"(?:^|,\s*|\s)(?:including|such\s+as|namely)\s+", re.IGNORECASE)


def _cell_list(text: str) -> str:
    """The part of a table cell that lists things one by one: the whole cell ("Riverside Park; Alder Beach Park; …",
    "龙潭镇、石门乡、…"), or what an English cell lists after "including" ("All UK locations outside London, including
    Manchester, Birmingham, … Aberdeen and Belfast"); '' when it lists nothing."""
    text = text.strip()
    # (what a member's parentheses say of it is no item: "…, Station Road (west of the railway bridge), Victoria Avenue")
    if LISTING_CELL.match(text) or LISTING_CELL.match(re.sub(r"\s*[（(][^（）()]*[）)]", "", text)):
        return text
    m = _INCLUDING_EN.search(text) if _latin(text) else None
    return tail if m and LISTING_CELL.match(tail := text[m.end():].strip().rstrip(".")) else ""


def _items(text: str) -> set[str]:
    """The things a table cell lists ("Riverside Park; Alder Beach Park; …", "龙潭镇、石门乡、…"); none where each
    item states an amount or a share: those are values ("Essential £150, Classic £120, Premier £99")."""
    if len(pieces := [x for x in re.split(r"[;，；、]|,(?!\d{3})", text) if x.strip()]) > 1 and all(
            any(m.quantity.dimension in _VALUE_KINDS for m in find_quantities(PARENTHESIS.sub(" ", x))) for x in pieces):
        return set()
    return {y for x in LISTING_SEPARATORS.split(text.strip().rstrip("。.;；"))
            for y in (_member_en(x) if _latin(x) else {_member_zh(x)}) if len(y) >= 2}


_VALUE_KINDS = frozenset({"money", "percent", "rate"})
_NOTES_HEADER = re.compile(r"备注|说明|\b(?:notes?|remarks?|comments?)\b", re.IGNORECASE)


def _defined_by_tables(doc: Document, keyed: dict[int, list[str]], former: dict[str, dict[str, int]] | None = None,
                       classes: dict[tuple[int, int], set[str]] | None = None) -> dict[str, set[str]]:
    """Names a document defines by a table of their members: a table under a heading naming a category that a
    table of figures is keyed by ("### 一、A类紧缺职业（共20个）" over the occupations, a row each, where the 补贴标准
    table has an A类紧缺职业 column; "（一）一类偏远乡镇" over 区县 | 乡镇 rows, the towns listed in a cell), or a table
    of categories, each row's label one a table of figures is keyed by and a cell of it listing its members
    ("| Category P1 | Riverside Park; Alder Beach Park; … |"). keyed: each table of figures' headers (_table_keys);
    former collects the members a former classification placed (formerly_by_members), classes the names each
    table column places rows in.
    """
    out: dict[str, set[str]] = {}
    # (what the document's tables list one by one, "南京、苏州、成都、武汉", is named as a member where it is listed)
    listed = {x for t in doc.structure.tables for row in t.rows[t.header_rows:] for c in row
              if (part := _cell_list(c.text)) for x in _items(part)}
    for table in doc.structure.tables:
        # (a former classification, "| 原规定城市类别 | 原规定包含城市 | 本办法城市类别 |", defines no member now; it still
        # places its rows in classes, "| Locality | Previous Band | New Band | Reason |": what a row states is about its
        # member)
        replaced = bool(table.rows) and any(FORMER_HEADER.search(table.column_header(c) or "")
                                            for c in range(len(table.rows[0])))
        body = range(table.header_rows, len(table.rows))
        if repealed(doc, table.start):
            continue  # (nor one under a heading marked repealed: "附件15 2019版办法所附职业资格证书目录（已废止，仅供参照）")
        path = doc.structure.heading_path(table.start)
        name = re.sub(r"\s*[（(][^（）()]*[）)]\s*$", "", _appendix_title(title_of(path[-1]))) if path else ""
        keys = [k for i, ks in keyed.items() if i != table.index for k in ks]  # (another table's)
        columns = {t.column_header(c).strip() for t in doc.structure.tables if t.index in keyed and t.index != table.index
                   for c in range(len(t.rows[0]) if t.rows else 0)}
        def was(cell, table=table) -> bool:
            # (a category named in a former classification's column or table: "| 原类别 | 现类别 |", "| Zone 2024/25 |
            # Zone 2025/26 |", "Band (Version 3.1)" beside the current Version 4.0's; superseded reads a header
            # FORMER_HEADER marks, "| 原标准 |")
            return bool(_FORMER_MARK.match(table.column_header(cell.col))) or earlier_column(table, cell.col) \
                or superseded(doc, cell.start, 0)

        if replaced:
            # (where a row's class stands in two columns, the former and the current, "| Previous Band | New Band |",
            # "| 调整前类别 | 调整后类别 |"; not a table of former and current figures by class, "| Rate Group | 2024–25
            # Minimum (prior policy) | …"; its columns' classes tell no kinship of names apart: recorded under the table)
            rows = [table.rows[r] for r in body]
            sorting = [{_category_named(row[c].text, keys, table.column_header(c)) for row in rows if c < len(row)}
                       for c in range(len(table.rows[0]))]
            full = [names for names in sorting if rows and "" not in names]
            if classes is not None and any(len(a | b) >= 2 and all(x == y or _kin(x, y) for x in a for y in b)
                                           for i, a in enumerate(full) for b in full[i + 1:]):
                classes[(table.index, -1)] = set()
            continue
        rows = _defined_by_rows(table, keys, keyed, listed, columns, was,
                                former if former is not None else {}, classes if classes is not None else {})
        for label, members in [*rows.items(), *_defined_by_columns(table, keys).items()]:
            out[label] = out.get(label, set()) | members
        # (rows defining kin categories, A级 and C级, are what the heading names the kind of, not its members)
        kinds = any(_kin(a, b) for a in rows for b in rows if a != b)
        # (… nor is a heading over a table of amounts or shares what its rows are members of: "5.1 Fixed excess" over
        # "| Plan | Dogs … | Cats … |" names what the figures measure, each plan no member of it)
        amounts = sum(any(m.quantity.dimension in _VALUE_KINDS for c in table.rows[r] if not table.is_label(c.col)
                          and not _NOTES_HEADER.search(table.column_header(c.col)) for m in find_quantities(c.text))
                      for r in body) * 2 > len(body)
        if len(name) >= 2 and not illustrative(doc, table.start) and not kinds and not amounts:
            # (an English heading over a table of no figures names the key however its words are inflected: "Giant
            # Breeds", "Giant breed dogs")
            figures = table.index in keyed
            # (a Chinese one names the key its name opens with, the kind of thing listed after it: "B类证书" over the
            # certificates, where the 取证奖励 table has a B类 row beside A类 and C类)
            name = name if any(name in k for k in keys) else _key_named(name, keys) if name.isascii() and not figures \
                else _key_opening(name, keys) if not name.isascii() else ""
            if name:
                width = max((len(table.rows[r]) for r in body), default=0)
                if width == 2 and not figures:
                    # (a label and its list: 区县 | 乡镇 — the labels group the members)
                    members = {x for r in body for c in table.rows[r][1:] for x in _items(c.text)}
                else:  # its rows' labels, and what a cell lists ("含电焊工、气焊工、钎焊工")
                    members = {x for r in body if (x := table.row_header(r)) and not any(ch.isdigit() for ch in x)}
                    # (rows labelled by a number, "| B-11 | 项目管理专业人士（PMP） | …": the column of names says them)
                    members = members or _name_column(table)
                    members |= {x for r in body for c in table.rows[r] if (part := _cell_list(c.text))
                                for x in _items(part)}
                out.setdefault(name, set()).update(x for x in members if x != name)
    return out


def _defined_by_columns(table, keys: list[str]) -> dict[str, set[str]]:
    """The categories a table's columns define: two or more column headers of one kind that tables of figures are keyed
    by ("| College | Group I | Group II | Group III |"), their cells naming members, no figure among them ("Biology;
    Chemistry; Biochemistry"); each header with the members its column's cells name."""
    width = len(table.rows[0]) if table.rows else 0
    named = {c: h for c in range(width) if (h := table.column_header(c).strip()) in keys}
    if not any(_kin(a, b) for a in named.values() for b in named.values() if a != b):
        return {}
    cells = {c: [row[c].text for row in table.rows[table.header_rows:] if c < len(row)] for c in named}
    if any(q.quantity.dimension != "date" for texts in cells.values() for x in texts for q in find_quantities(x)) \
            or any(_BARE_FIGURE.fullmatch(x.strip()) for texts in cells.values() for x in texts):
        # (a table of figures by category lists no members, its figures bare under a header's unit or not, "| D类 | 600
        # | 480 |"; "Economics (through Summer 2026)" is one)
        return {}
    return {named[c]: {x for text in texts for x in _items(text)} for c, texts in cells.items()}


_BARE_FIGURE = re.compile(r"[,.%$￥¥—–~+\-\s]*\d[\d,.%$￥¥—–~+\-\s]*")  # (a cell of a figure alone: "600", "1,200")


def _key_opening(name: str, keys: list[str]) -> str:
    """The longest Chinese key a name opens with and goes on after, one of a kind of keys ("B类" of "B类证书" beside
    A类 and C类), or ''."""
    opening = [k for k in keys if len(k) >= 2 and not k.isascii() and name.startswith(k) and len(name) > len(k)
               and any(_kin(k, other) for other in keys if other != k)]
    return max(opening, key=len, default="")


def _name_column(table) -> set[str]:
    """The names a table's first column of names holds (most of its body cells without a digit: "证书名称" beside
    "序号"), each also by the name before its parentheses and the abbreviation in them ("项目管理专业人士（PMP）":
    项目管理专业人士, PMP)."""
    body = table.rows[table.header_rows:]
    for c in range(max((len(row) for row in body), default=0)):
        texts = [row[c].text.strip() for row in body if c < len(row) and row[c].text.strip()]
        names = [x for x in texts if not any(ch.isdigit() for ch in x)]
        if len(names) >= 2 and 2 * len(names) >= len(body):
            out = set(names)
            for x in names:
                if len(aliases := _aliases(x)) == 3:
                    out.add(aliases[2])
                    if re.fullmatch(r"[A-Z][A-Za-z]{1,9}", aliases[1]):
                        out.add(aliases[1])
            return {x for x in out if len(x) >= 2}
    return set()


def _appendix_title(title: str) -> str:
    """A heading's title without the appendix it numbers ("Appendix 1 — Giant Breeds": Giant Breeds)."""
    return re.sub(r"^(?:appendix|annex|schedule|exhibit)\s+[\w.]+\s*[—–:.-]\s*", "", title, flags=re.IGNORECASE)


def _key_named(name: str, keys: list[str]) -> str:
    """The shortest English key holding every word of a name of two words or more, however inflected ("Giant Breeds":
    "Giant breed dogs"), or ''."""
    words = {stem(w) for w in re.findall(r"[A-Za-z]+", name)}
    held = [k for k in keys if k.isascii() and len(words) > 1 and words <= {stem(w) for w in re.findall(r"[A-Za-z]+", k)}]
    return min(held, key=len, default="")


def _defined_by_rows(table, keys: list[str], keyed: dict[int, list[str]], listed: set[str] = frozenset(),
                     columns: set[str] = frozenset(), was=lambda cell: False,
                     former: dict[str, dict[str, int]] | None = None,
                     classes: dict[tuple[int, int], set[str]] | None = None) -> dict[str, set[str]]:
    """The categories a table's rows define: each row's label a category the tables of figures are keyed by, by its
    label cell's name or the name it gives in parentheses ("三级（C级）" over a "C级" row), its members what a cell of
    it lists; or, in a table of no figures, a row's cell naming such a category ("| 临川区 | 临川街道、文昌街道、白鹭洲街道 |
    一类区域 |"), its members what the row's other cells name (a county in two categories' rows tells neither:
    _one_name_each). keyed: each table of figures' headers (_table_keys); columns: their column headers. A category
    cell was() marks a former classification's places the row's members in former, name → member → the cell's offset,
    not in the current names returned; classes collects the names each column's cells place rows in."""
    out: dict[str, set[str]] = {}
    body = range(table.header_rows, len(table.rows))
    # (a cell names a category as the tables of figures' headers do, or as their headers begin before a period they
    # add, what it says in parentheses or after a dash aside: "Zone 2 (Middle Harbour)" names the "Zone 2 — 2025/26"
    # column's Zone 2)
    codes = table.code_columns()  # (a row's code, "| Y10 | 帕金森病 |", is no class it is in)
    naming = {id(c): name for r in body for c in table.rows[r] if c.col not in codes
              if (name := _category_named(c.text, keys, table.column_header(c.col)) or _member_named(table, c, keys))}
    by_column: dict[int, set[str]] = {}
    for r in body:
        for c in table.rows[r]:
            if id(c) in naming:
                by_column.setdefault(c.col, set()).add(naming[id(c)])
    sorting = {col for col, names in by_column.items()
               if len(names) >= 2 or any(_classes_column(table.column_header(col), name) for name in names)}
    # (a table of no figures: codes and names only, "| Penhallow Reach | P1 – P40 | Zone 2 (Middle Harbour) |"; a
    # column numbering its rows, "| 序号 | 所属区 | 街道 | 区位类别 |", counts nothing, nor a row label's own figure,
    # "| Graduate Engineer (first 24 months) | Engineering | 4 |")
    numbering = table.numbering_columns()
    label_cols = {table.row_header_col, *table.label_cols}
    figureless = table.index not in keyed or all(
        _CODES_CELL.fullmatch(c.text.strip()) or c.col in numbering and c.text.strip().isdigit()
        or c.col in label_cols and id(c) not in naming and not c.text.strip().isdigit()
        for r in body for c in table.rows[r] if id(c) not in naming and any(ch.isdigit() for ch in c.text))
    # (a row labelled by a code and a name, "| LZM020 | 慢性阻塞性肺疾病 |", is labelled by its name, which may hold a code
    # of its own, "| D066 | Swansea – SA1 Waterfront Office | Office |")
    labelled = {r: [c for c in cells if _name_like(c.text)] + [c for c in cells if not _name_like(c.text)]
                for r in body if (cells := table.label_cells(r))}
    labels = {cells[0].text.strip() for cells in labelled.values()}
    listing = _listing_columns(table)
    # (a catalogue whose rows a column of codes identifies, grouped by a first column naming classes another table is
    # keyed by: "| 乙类 | Y03 | 帕金森病 | 3,000元 |" places 帕金森病 in 乙类, whose 报销比例 a table of figures gives)
    elsewhere = {k for i, ks in keyed.items() if i != table.index for k in ks} if codes else set()
    for r in body if elsewhere else ():
        head = table.rows[r][table.row_header_col] if table.row_header_col < len(table.rows[r]) else None
        name = next((c for c in table.label_cells(r) if c is not head and c.col not in codes and id(c) not in naming
                     and _name_like(PARENTHESIS.sub("", c.text))), None)
        # (the row's one thing, named without its aside: "尿毒症透析治疗（血液透析、腹膜透析）" is 尿毒症透析治疗)
        thing = PARENTHESIS.sub("", name.text).strip() if name is not None else ""
        if head is not None and 2 <= len(thing) <= 20 and not any(ch.isdigit() for ch in thing) \
                and naming.get(id(head)) in elsewhere:
            out.setdefault(naming[id(head)], set()).add(thing)
    for r, cells in labelled.items():
        # (a cell under a header saying its cells are categories names the row's first: "| 澜州市第三人民医院 | 南浦区 | … |
        # 二级 |" is in 二级 under "医疗机构级别", though 南浦区 heads another table's row; the current category before the
        # former, "| 南浦区 | 南湖街道 | 三类区域 | 二类区域 |" under "| 所属区 | 街道 | 原类别 | 现类别 |")
        named = sorted((c for c in table.rows[r] if c is not cells[0] and id(c) in naming),
                       key=lambda c: (not CATEGORY_HEADER_ZH.search(table.column_header(c.col)), was(c)))
        now = [c for c in named if not was(c)]
        then = next((c for c in named if was(c)), None)
        if classes is not None:
            for c in named:
                classes.setdefault((table.index, c.col), set()).add(naming[id(c)])
        # (a row placing its thing in classes of two kinds, each under a column of classes, is in both: "| 单手拇指缺失 |
        # 手部 | 七级 | 丁类 |" under "| 伤情/诊断名称 | 损伤部位 | 参考伤残等级 | 停工留薪期类别 |")
        heads = now[:1] + [c for c in now[1:] if _classes_column(table.column_header(c.col), naming[id(c)])
                           and not any(_kin(naming[id(c)], naming[id(x)]) for x in now[:1])]
        # (where the row's first label names a category itself, the next label before its category that names none:
        # "| 江城区 | 望江街道 | 一类区域 | 9.14 |" places the street, where a table of figures is keyed by the districts)
        first = min((c.col for c in named), default=0)
        own = [c for c in cells if id(c) not in naming and c.col < first and c.col not in numbering
               and not any(ch.isdigit() for ch in c.text)][:1] if id(cells[0]) in naming else []
        label = own[0] if own else cells[0]
        if named and not figureless and id(label) not in naming and _name_like(label.text) \
                and not (any(_series_kin(label.text.strip(), x) for x in labels if x != label.text.strip())
                         and any(find_quantities(undated(c.text)) for c in table.rows[r] if c not in cells)):
            # (in a table of figures too, a row whose cell names a category is labelled by a member of it: "| Abbey Walk
            # multi-storey | Rivenhall | Band B | No maximum |" beside "| Market Square | … | Band A | 4 hours |"; not
            # rows labelled by categories of their own, "| 一类接待对象 | 550元/人 | B档 |" beside "| 二类接待对象 | …": the
            # cell names what goes with that category, no membership; names numbered alike in a row of no figures (a
            # remark's date is none, "自2025年3月1日起按三级结算") are
            # members, "| 澜州市第三人民医院 | 江北区 | 江北区…路8号 | 二级 |" beside "| 澜州市第一人民医院 | … | 三级 |", as
            # are names sharing a word, "| Millbrook Academy | 11–18 academy | Core Partner |" beside "Eastgate Academy")
            placed = {x for c in own for x in _items(c.text)} or set(_items(label.text))
            _place_row(out, former, placed, heads, then, table.rows[r], naming, now, keys, table)
            continue
        if figureless and named and any(c.col in sorting for c in named):
            # (the other cells name its members, however few: "| 临川区 | 云岭街道、青桐镇 | 二类区域 |"; a label another
            # table lists as a member of its own, "| 成都 | 简阳市、蒲江县、大邑县 | 三类城市 |" where 成都 is listed among the
            # 二类城市, is the place the listed ones are in, no member here)
            # (where a column sorts rows into classes: its header says so, or it names two classes at least; not a column
            # of what a row's body does, "| 评价机构名称 | 机构类型 | 主要评价职业（工种） |" naming one occupation a table
            # counts)
            parent = cells[0] if cells[0].text.strip() in listed else None
            first = min(c.col for c in named)
            placed = {x for c in table.rows[r] if c.col < first and c is not parent and c.col not in numbering
                      for x in _items(c.text)}
            _place_row(out, former, placed, heads, then, table.rows[r], naming, now, keys, table)
            continue
        lists = [part if part else c.text for c in table.rows[r]
                 if ((part := _cell_list(c.text)) or c.col in listing and c is not cells[0])]
        # (… or the row's other label cell that is a key itself, a code before its name: "| E | Compact SUV | Nissan
        # Qashqai, Kia Sportage |" where the rates table's rows are "| E | £54 |")
        if lists and (label := next((x for i, x in enumerate(_aliases(cells[0].text))
                                     if any(x in k if i == 0 else x == k for k in keys)), "")
                      or next((x for c in cells[1:] if not _cell_list(c.text) and c.col not in listing
                               and len(_items(c.text)) < 2 for x in _aliases(c.text)
                               if x in keys), "")):
            # (not the columns of a table of figures it lists, "| Cancer | 30 days | Essential Cover, Classic Lifetime,
            # Premier Lifetime |": the plans the row applies to, each a column of its own elsewhere)
            items = {x for cell in lists for x in _items(cell)}
            if (members := items - columns) or not items:
                out.setdefault(label, set()).update(members)
    return out


_WEEKDAY_OR_MONTH = re.compile(r"\b(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|january|february|march|april|may|june|july|"
                               r"august|september|october|november|december)\b", re.IGNORECASE)


def _listed_name(cell: str, item: str) -> bool:
    """Whether an item of a listing cell is a name: an English one capitalised, no day, month or date ("Kia Picanto";
    not "weekends", "Monday", "1 April"); a Chinese one listed at 、 or ；, not a clause a comma closes ("按月发放，逐年调整")."""
    if _latin(item):
        return item[0].isupper() and not _WEEKDAY_OR_MONTH.search(item) and not find_dates(item)
    return bool(re.search(r"[、；;]", cell))


def _listing_columns(table) -> set[int]:
    """The columns whose every body cell lists two things or more, in two rows at least ("| Example models |" over
    "Nissan Qashqai, Kia Sportage", "Kia Picanto, Hyundai i10"): what a row's one cell lists, LISTING_CELL's three
    things at least, a column of them says of each row; not a column of figures ("Essential £150, Classic £120": _items
    lists no amounts), nor of phrases, days or clauses (_listed_name)."""
    body = table.rows[table.header_rows:]
    out = set()
    for col in range(len(table.rows[0]) if len(body) >= 2 else 0):
        cells = [row[col].text.strip() for row in body if col < len(row)]
        if len(cells) == len(body) and all(len(items := _items(x)) >= 2 and all(_listed_name(x, y) for y in items)
                                           for x in cells):
            out.add(col)
    return out


_FORMER_MARK = re.compile(r"\s*(?:原|旧)")  # (a header marking the former classification: "原类别", "原区域类别")
_CLASS_NAME_EN = re.compile(r"[A-Z][a-z]+ (?:[A-Z]|\d{1,2})")  # (a class of a lettered or numbered series: "Zone C")


def _classes_column(header: str, name: str) -> bool:
    """Whether a column's cells name classes: its header says so ("停工留薪期类别", "参考伤残等级") or the class is one of a
    lettered or numbered series ("Zone C", "Band 2")."""
    return bool(CATEGORY_HEADER_ZH.search(header) or _CLASS_NAME_EN.fullmatch(name))


def _name_like(text: str) -> bool:
    """Whether a label cell reads as a name: no digit in it, or words with a code among them and no quantity ("Swansea –
    SA1 Waterfront Office", not "D066" nor "Up to 15 nights")."""
    return not any(ch.isdigit() for ch in text) or len(re.findall(r"[A-Za-z]{3,}", text)) >= 2 \
        and not find_quantities(text)


def _member_named(table, cell, keys) -> str:
    """The member of a numbered series a bare number names under a header naming the series ("| Job title | Function |
    Grade |" over "| Project Engineer | Engineering | 4 |": Grade 4), where a header of the tables of figures numbers it
    ("Grades 4 and 5"); or the row a bare letter names under a header a table of figures' rows are keyed under ("| Breed
    | Risk group |" over "| Golden Retriever | B |", where "| Risk group | Description |" keys "| B | Elevated risk |":
    "B Elevated risk"); '' otherwise."""
    header = table.column_header(cell.col).strip()
    if re.fullmatch(r"[A-Z]", letter := cell.text.strip()) and header in keys:
        rows = {k for k in keys if k.startswith(f"{letter} ") and k[2:3].isalpha()}
        return rows.pop() if len(rows) == 1 else ""
    if not cell.text.strip().isdigit() or not (series := series_name(header)) or " " in header:
        return ""
    n = int(cell.text.strip())
    return f"{header} {n}" if any(n in _numbered(k, {series}).get(series, ()) for k in keys) else ""


# a cell of codes, no figure: "P1 – P40", "G9", "Q1–Q24", a list of them ("NM4, NM5, NM7")
_CODES_CELL = re.compile(r"[A-Z]{1,3}\d+(?:\s*[–—~-]\s*[A-Z]{0,3}\d+)?(?:\s*,\s*[A-Z]{1,3}\d+)*")


def _category_named(text: str, keys, header: str = "") -> str:
    """The category a table cell names, as a header of the tables of figures does, whole or before a period it adds
    ("Zone 2 (Middle Harbour)" where a header reads "Zone 2 — 2025/26"; "Zone 3 (Outer and Upper Harbour) — Zone 2 until
    31 March 2025" names Zone 3), or without the words its kind of keys share where its column's header says its cells
    are categories or names those words ("三类" under "区域类别" names 三类区域 beside 一类区域 and 二类区域, "三级" under
    "医疗机构级别" 三级定点医疗机构支付比例 beside 二级定点医疗机构支付比例); '' when it names none."""
    text = text.strip()
    if text in keys:
        return text
    if 2 <= len(text) <= 4 and CJK.match(text) and (short := [
            k for k in keys if k.startswith(text) and len(k) - len(text) >= 2
            and (k[len(text):] in header or CATEGORY_HEADER_ZH.search(header))
            and any(o != k and o.endswith(k[len(text):]) and _kin(k, o) for o in keys)]):
        return min(short, key=len)
    name = re.split(r"\s+[—–-]\s+", re.sub(r"\s*[（(][^（）()]*[）)]", "", text))[0].strip()
    # (… or before the year it adds without a dash: "Band B" for "Band B 2025/26")
    # (not a place before a site's name, "Aberdeen" of the cell "Aberdeen – Dyce Energy Office" beside another table's
    # row "Aberdeen – Altens Pipeline Yard Zone B Zone C"; a class of a series may stand there, "Zone 3 (Outer Harbour) —
    # Zone 2 until 31 March 2025")
    site = _latin(name) and re.search(r"\s[—–-]\s+[A-Z]", text) and not _CLASS_NAME_EN.fullmatch(name)
    return name if len(name) >= 2 and not site and any(
        k == name and name != text or re.match(rf"{re.escape(name)}(?:\s+[—–-]\s+|\s+(?=(?:19|20)\d\d\b))", k)
        for k in keys) else ""


# a cell telling the class a member was in before it moved ("2025年7月1日起由三类区域调整为二类区域", "Rezoned from 1 April
# 2025 (was Priority Zone 2)", "moved from Zone B to Zone A"): the former class's words
_MOVED_FROM = re.compile(r"由(?P<zh>[^，,；;。由]{2,12}?)(?:调整|调|变更|改|划|升|降)(?:为|至|入)|原(?:为|属|是)(?P<zh2>[^，,；;。]{2,12}?)(?=[，,；;。]|$)"
                         r"|\b(?i:was|previously(?:\s+in)?|formerly(?:\s+in)?|moved\s+from|(?:re-?)?(?:zoned|tiered|banded)\s+from)"
                         r"\s+(?P<en>[A-Z][\w-]*(?:\s+[\w-]+){0,3}?)"
                         r"(?=\s+(?:to|until|before|on|in|from|since|after)\b|\s*[),;.]|\s*$)"
                         # (… or the class it was in for the days before one: "Group C for periods of insurance starting
                         # before 1 March 2025")
                         r"|\b(?P<before>[A-Z][\w-]*(?:\s+[\w-]+){0,2}?)\s+(?:for|in|during|until)\s+(?:[\w-]+\s+){0,6}?"
                         r"(?i:before|prior\s+to|until)\s+\d")


# … or the class it moves to from a day ("Moves to Gold from 1 October 2025", "Moved to Gold from 1 January 2025",
# "自2025年10月1日起调整为二类区域", "自2025年3月1日起按三级结算"): the words of that class
_MOVED_TO = re.compile(r"(?:(?:调整|调|变更|改|划|升|降)(?:为|至|入)|起按)(?P<zh>[^，,；;。（(由按]{2,12}?)(?=结算|执行|计算|管理|[，,；;。（(]|$)"
                       r"|\b(?i:moves?|moved|moving|(?:re-?)?(?:zoned|tiered|banded|graded|classified)|upgraded|downgraded"
                       r"|transferred)\s+to\s+(?P<en>[A-Z][\w-]*(?:\s+[\w-]+){0,3}?)"
                       r"(?=\s+(?:(?:for|of)\s+(?:[\w-]+\s+){0,3}?)?(?:from|on|with\s+effect|as\s+of|since)\b)")


def _moved_to(text: str, keys, header: str) -> str:
    """The class a remark says its row's member moves to ("Moves to Gold from 1 October 2025": Gold); '' if none."""
    m = _MOVED_TO.search(text)
    return _category_named((m.group("zh") or m.group("en")).strip(), keys, header) if m else ""


def _moved_from(row, naming: dict[int, str], now: list, keys, table) -> tuple[str, int] | None:
    """The class a row's remark says its member was in before the current one ("由三类区域调整为二类区域"), of the
    current class's kind, and where the remark stands; None where no cell says one."""
    found = _remarked(_MOVED_FROM, row, naming, now, keys, table)
    return found[:2] if found is not None else None


def _remarked(pattern: re.Pattern, row, naming: dict[int, str], now: list, keys, table) -> tuple[str, int, int] | None:
    """The class a row's remark names by pattern, of the kind of the class a column names (ending alike, or placed
    by that column in another row: "Gold" beside "Silver") and another than that one, where the remark stands, and that
    column; None where no cell names one."""
    current = {naming[id(c)] for c in now}
    for cell in row:
        if id(cell) in naming or not (m := pattern.search(cell.text)):
            continue
        said = next(g for g in m.groups() if g).strip()
        for c in now:
            # (a Chinese class said with its 类, "原为紧缺类", as the column says it without: "紧缺")
            # (… or a lettered one by the word its column's header ends in, "Group C" under "Risk group", where the
            # column's bare letters name the rows they key: "C High risk")
            name = next((n for x in (said, re.sub(r"(?<=..)类$", "", said)) if (
                n := _category_named(x, keys, table.column_header(c.col)) or (x if x in keys else "")
                or _lettered(x, table.column_header(c.col), keys))), "")
            if name and name not in current and (_kin(name, naming[id(c)]) or any(
                    naming.get(id(x)) == name for other in table.rows for x in other if x.col == c.col)):
                return name, cell.start, c.col
    return None


def _lettered(said: str, header: str, keys) -> str:
    """The row a class said by the last word of its column's header and a letter keys ("Group C" under "Risk group":
    "C High risk"), as a bare letter there names it (_member_named); '' otherwise."""
    m = re.fullmatch(r"([A-Za-z]+)\s+([A-Z])", said)
    if m is None or not header.lower().endswith(m.group(1).lower()) or header.strip() not in keys:
        return ""
    rows = {k for k in keys if k.startswith(f"{m.group(2)} ") and k[2:3].isalpha()}
    return rows.pop() if len(rows) == 1 else ""


def _place_row(out: dict[str, set[str]], former, placed: set[str], heads: list, then, row, naming: dict[int, str],
               now: list, keys, table) -> None:
    """Place a row's members in the classes its cells name (heads), and record their former class: the former
    column's (then), else the one a remark says they moved from. A remark saying they move to another class of that
    kind from a day ("| SYS-07 | … | Silver | Moves to Gold from 1 October 2025 |") places them there, the class the
    column names being the former one until that day, as the remark's day says."""
    names = [naming[id(c)] for c in heads]
    was = (naming[id(then)], then.start) if then is not None else None
    if was is None and (to := _remarked(_MOVED_TO, row, naming, now, keys, table)) is not None \
            and (i := next((i for i, c in enumerate(heads) if c.col == to[2]), None)) is not None:
        # (the class of the column the remark's class is of: "| Silver | Band 2 | Moves to Band 1 from … |" moves the
        # Band)
        was = names[i], to[1]
        names[i] = to[0]
    for name in names:
        out.setdefault(name, set()).update(placed)
    _place_former(former, placed, was, lambda: _moved_from(row, naming, now, keys, table))


def _place_former(former: dict[str, dict[str, int]] | None, placed, then: tuple[str, int] | None, moved) -> None:
    """Record a row's members in the class a former classification placed them in: its former column's (then: the
    name and the cell's offset), else the one its remark says they moved from (moved(), read only then)."""
    if former is None:
        return
    if (was := then or moved()) is not None:
        former.setdefault(was[0], {}).update(dict.fromkeys(placed, was[1]))


_YES = re.compile(r"(?:yes|y|是|✓|√)\.?", re.IGNORECASE)
_NO = re.compile(r"(?:no|n|否|✗|×|—|-)\.?", re.IGNORECASE)


def _defined_by_yes(doc: Document, keys: list[str]) -> dict[str, set[str]]:
    """Names a table defines by answering yes or no for each of its rows ("| Breed | Giant breed? |", "| Great Dane | Yes
    |"), where a table of figures is keyed by the name its header asks ("Giant breed dogs (see Appendix A)"): each name
    with the rows answered yes."""
    out: dict[str, set[str]] = {}
    for table in doc.structure.tables:
        body = range(table.header_rows, len(table.rows))
        for c in range(1, len(table.rows[0]) if table.rows else 0):
            name = re.sub(r"^(?:是否|is\s+it\s+an?\s+)", "", table.column_header(c).strip().rstrip("?？").strip(),
                          flags=re.IGNORECASE)
            cells = [table.rows[r][c].text.strip() for r in body if c < len(table.rows[r])]
            if len(name) < 2 or not any(_names(k, name) for k in keys) or not cells \
                    or not all(_YES.fullmatch(x) or _NO.fullmatch(x) for x in cells):
                continue
            members = {m for r in body if c < len(table.rows[r]) and _YES.fullmatch(table.rows[r][c].text.strip())
                       and (m := re.sub(r"\s*[（(][^（）()]*[）)]", "", table.rows[r][0].text).strip())}
            if members:
                out.setdefault(name, set()).update(members)
    return out


def _aliases(label: str) -> list[str]:
    """A label and the name it gives in parentheses, and the one outside them ("三级（C级）": 三级（C级）, C级, 三级)."""
    m = re.fullmatch(r"\s*([^（）()]+?)\s*[（(]([^（）()]+)[）)]\s*", label)
    return [label.strip(), m.group(2).strip(), m.group(1).strip()] if m else [label.strip()]


def _defined_under_headings(doc: Document, keyed: dict[int, list[str]]) -> dict[str, set[str]]:
    """Names a document defines by the lines under a heading naming them, when a table of figures is keyed by them
    ("### 二、二类城市（43个）" over "1. 直辖市：天津市、重庆市；" and "2. 省会城市…：石家庄、…、杭州、…；", where the
    住宿费 table has a 二类城市 column): each line's members (after its colon, if it has one), a note's ("注：…") not; in
    English, what a sentence of the section lists after its colon (three things at least, none with a figure), or a
    paragraph of names between semicolons under a title a table's header names before its dash ("### Breed Group 2 —
    Large breeds")."""
    keys = [k for ks in keyed.values() for k in ks]
    out: dict[str, set[str]] = {}
    headings = doc.structure.headings
    for i, heading in enumerate(headings):
        name = re.sub(r"\s*[（(][^（）()]*[）)]\s*$", "", title_of(heading.text.lstrip("#").strip()))
        end = headings[i + 1].start if i + 1 < len(headings) else len(doc.text)
        if not CJK.search(name):  # (English, dashes and all: "Breed Group 2 — Large breeds")
            # (an English section over a category a table's row or column is keyed by, listing its kinds after a
            # colon: "### F5. Complementary therapy" over "…the following therapies …: physiotherapy, hydrotherapy,
            # acupuncture, chiropractic treatment and massage therapy.")
            name = re.sub(r"^(?:[A-Z]{1,2}\d*|\d+)(?:\.\d+)*\.?\s+(?=[A-Z])", "", name)  # ("F5. ", "12.1 ")
            key = next((k for k in keys if k.isascii() and k.strip().lower() == name.lower()), "")
            if len(name.split()) > 1 and key:
                members = {x for m in COLON_LIST_EN.finditer(doc.text, heading.end, end)
                           if len(listed := _member_en(m.group("members"))) >= LISTING
                           and not any(ch.isdigit() for x in listed for ch in x) for x in listed}
                if members:
                    out.setdefault(key, set()).update(members - {key})
            # (… or a section titled by the name a table's header names, its gloss after a dash, whose paragraph
            # lists names between semicolons: "### Breed Group 2 — Large breeds" over "Akita; Alaskan Malamute; …;
            # Weimaraner." where the co-payment table has a "Dogs — Breed Group 2" column)
            elif (titled := re.split(r"\s+[—–]\s+", name)[0].strip()) and len(titled.split()) > 1 \
                    and any(not CJK.search(k) and _names(k, titled) for k in keys):
                for paragraph in doc.text[heading.end:end].split("\n\n"):
                    # (the whole paragraph, or what it lists after its colon: "All breeds not listed in Breed Group 2,
                    # including (for example): Beagle; Pug; Whippet.")
                    listed = paragraph.rsplit(":", 1)[-1].strip().rstrip(".")
                    items = [x for y in listed.split(";") for x in _member_en(y)]
                    if len(items) >= LISTING and ";" in listed and not any(ch.isdigit() for x in items for ch in x):
                        out.setdefault(titled, set()).update(set(items) - {titled})
            continue
        if len(name) < 2 or not any(name in k for k in keys):
            continue
        members: set[str] = set()
        for line in doc.text[heading.end:end].splitlines():
            line = re.sub(r"^\s*(?:[-*+]|\d+[.、)]|[（(]?[一二三四五六七八九十]+[）)、.])?\s*", "", line).strip()
            if not line or line.startswith(("注", "|", "#")):
                continue
            # (a line listing names, each short, after its colon if it has one; not a sentence: "按出差天数包干发放，…")
            # ("呼和浩特": within a line of names 和 is a character of one)
            listed = [PROVINCE_BEFORE_CITY_ZH.sub("", x.strip()) for x in re.split(
                r"以及|[、，,]", re.split(r"[：:]", line, maxsplit=1)[-1].rstrip("；;。等"))]
            if len(listed) < 2 or not all(2 <= len(_member_zh(x)) <= 6 for x in listed):
                continue
            for x in listed:
                members.add(x)
                if PLACE_ENDING_ZH.search(x) and len(x) >= 3:
                    members.add(x[:-1] if x.endswith(("市", "县", "区")) else x[:2])
        if members:
            out.setdefault(name, set()).update(members - {name})
    return out


PART_OF = 0.6  # the share of one name's members another holds that makes it a group within that other


def _within(part: set[str], whole: set[str]) -> bool:
    """Whether most of a name's members are another's: a group within it."""
    return bool(part) and len(part & whole) >= PART_OF * len(part)


def _one_name_each(defined: dict[str, set[str]]) -> dict[str, set[str]]:
    """The members each name holds that no kin of it holds too (a county listed under two classes of towns tells
    neither apart), unless most of one's members are the other's (a group within it); an English member also in the
    singular ("nail salons" asked as "a nail salon")."""
    out = {}
    for name, members in defined.items():
        # (not a part of it, nor a whole it is part of: 省会城市 listed within 二类城市 is a group of its members)
        shared = {m for other, theirs in defined.items() if other != name and _kin(other, name)
                  and not _within(theirs, members) and not _within(members, theirs) for m in theirs}
        kept = members - shared
        out[name] = kept | {_one_of(m) for m in kept if m.isascii() and m[:1].islower()}
    return out


def _one_of(plural: str) -> str:
    """An English plural's singular, as a list's members are asked one at a time (salons, facilities)."""
    if plural.endswith("ies"):
        return plural[:-3] + "y"
    return plural[:-1] if plural.endswith("s") and not plural.endswith(("ss", "is", "us")) else plural


def defined_by_range(doc: Document) -> dict[str, tuple[str, int, int]]:
    """The names an English document defines by a numbered range of a series ("- **Tier 1:** job grades 1 to 4",
    "- Tier 3: job grades 8 and above"), each with the series' name and the range's ends."""
    if doc.sha256 not in _RANGES:
        if len(_RANGES) >= 8:
            _RANGES.pop(next(iter(_RANGES)))
        _RANGES[doc.sha256] = {m.group("name").strip(): (m.group("series").lower(), int(m.group("lo")),
                                                         int(m.group("hi")) if m.group("hi") else 10 ** 6)
                               for m in DEFINED_BY_RANGE_EN.finditer(doc.text)}
    return _RANGES[doc.sha256]


_RANGES: dict[str, dict[str, tuple[str, int, int]]] = {}

# units of a range that defines no category a case falls in by its size: an amount or a share is what a table of
# figures states ("£1,000 to £5,000" beside a plan is its limit, not the plan's members)
_NOT_A_MEASURE = set("$€£¥元%")
_MEASURES: dict[str, dict[str, list[str]]] = {}


def defined_by_measures(doc: Document) -> dict[str, list[str]]:
    """The names a table defines by ranges of a measure: each row's label one another table of figures is keyed by,
    a column of it stating a range in every row but one at most ("| Band C | 7.01 m to 9.00 m |" where Table 1 has a
    Band C row; "| Band 3 | 101–150 |" under "CO2 emissions (g/km)"): each name with its ranges, the column's header
    before each (its unit: g/km). An amount or a share is no measure of a case (_NOT_A_MEASURE)."""
    if doc.sha256 not in _MEASURES:
        if len(_MEASURES) >= 8:
            _MEASURES.pop(next(iter(_MEASURES)))
        keyed = _table_keys(doc)
        out: dict[str, list[str]] = {}
        for table in doc.structure.tables:
            keys = {k for i, ks in keyed.items() if i != table.index for k in ks}
            body = range(table.header_rows, len(table.rows))
            # (its first cell: "| Band 3 | 101–150 | £165 |" labels the row Band 3, its range a label cell too)
            # (not a row's number, "| 8 | 满7年不满8年 | 15个月 |": it names no class)
            labels = {r: label for r in body if table.rows[r] and (label := table.rows[r][0].text.strip())
                      and not label.isdigit() and any(_names(k, label) for k in keys)}
            if len(labels) < 2:
                continue
            for c in range(1, len(table.rows[0]) if table.rows else 0):
                # (a unit its header gives in parentheses is its cells': "CO2 emissions (g/km)"; not an abbreviation,
                # "Length overall (LOA)")
                unit = " ".join(f"({u})" for u in re.findall(r"[(（]([^()（）]{1,12})[)）]", table.column_header(c))
                                if not re.fullmatch(r"[A-Z]{2,}", u))
                texts = {r: f"{table.rows[r][c].text} {unit}".strip() for r in body if c < len(table.rows[r])}
                ranges = {r: rs for r, t in texts.items() if (rs := intervals(t))}
                if len(ranges) < max(2, len(texts) - 1) \
                        or any(iv.unit in _NOT_A_MEASURE for rs in ranges.values() for iv in rs) \
                        or any(q.quantity.dimension in ("money", "percent") for t in texts.values()
                               for q in find_quantities(t)):
                    continue
                for r, label in labels.items():
                    if r in texts:
                        out.setdefault(label, []).append(texts[r])
        _MEASURES[doc.sha256] = out
    return _MEASURES[doc.sha256]


# a definition naming a thing and, after a colon or 指, what it is ("1. 标准车型：核定载客5座（含驾驶员）的轿车；",
# "经济型指核定载客5座、轴距不小于2650毫米的车辆；", "- Junior: aged 11 to 17", "- **Senior** — aged 66 and over"), up to
# the end of its clause
_DESCRIBED_ZH = re.compile(r"(?:^|(?<=[\s*；;。，,]))(?:\d+[.、．]\s*|[（(][一二三四五六七八九十\d]+[)）]\s*)?(?:\*\*)?"
                           rf"(?P<name>[{CJK_RANGE}]{{2,8}}?)(?:\*\*)?(?:[：:][ \t]*(?:是指|系指|指)?|是指|系指|指)"
                           r"(?P<text>[^；;。\n]{2,80})")
_DESCRIBED_EN = re.compile(r"(?m)^[ \t]*(?:[-*+][ \t]+|\d+[.)][ \t]+)?(?:\*\*|__)?(?P<name>[A-Z][\w'’-]*(?:[ \t]+[\w'’-]+){0,3}?)"
                           r"(?:\*\*|__)?[ \t]*(?::|[ \t][—–])(?:\*\*|__)?[ \t]+(?P<text>[^\n;]{2,120})")
_AGED = re.compile(r"\b(?:aged?|ages)\b|年龄|年满|周岁|岁", re.IGNORECASE)
_DESCRIBED: dict[str, dict[str, tuple]] = {}


def defined_by_description(doc: Document) -> dict[str, tuple]:
    """The names a document defines in words by what they measure: a definition of a name some table of figures is
    keyed by, stating a range or a figure with its unit ("标准车型：核定载客5座（含驾驶员）的轿车", "大型车型：核定载客7座及
    以上的多用途乘用车", "- Junior: aged 11 to 17"), each name with the ranges it states (ranges.stated_measures)."""
    if doc.sha256 not in _DESCRIBED:
        if len(_DESCRIBED) >= 8:
            _DESCRIBED.pop(next(iter(_DESCRIBED)))
        keys = {x.casefold() for ks in _table_keys(doc).values() for k in ks for x in (k.strip(), *k.split())}
        out: dict[str, tuple] = {}
        for pattern in (_DESCRIBED_ZH, _DESCRIBED_EN):
            for m in pattern.finditer(doc.text):
                name, text = m.group("name").strip(), m.group("text")
                # (what the thing is, not a rule for it: no sum of money or share, "标准车型：起步价11元（含3公里）", no
                # worked sum, "- 时长费：30×0.4＝12元", no length of time, "- Junior: minimum term 3 months"; a figure
                # with no unit only as an age, "aged 11 to 17")
                if name.casefold() not in keys or re.search(r"[=＝]", text) \
                        or any(q.quantity.dimension in ("money", "percent") for q in find_quantities(text)):
                    continue
                aged = _AGED.search(text) is not None
                measures = tuple(x for x in stated_measures(text) if x.unit != "x"
                                 and dimension_of(f"1{x.unit}") != "time" and (x.unit or aged))
                if measures:
                    out[name] = out.get(name, ()) + measures
        _DESCRIBED[doc.sha256] = out
    return _DESCRIBED[doc.sha256]


def described_by(question: str, doc: Document) -> set[str]:
    """The names defined by what they measure (defined_by_description) whose measures hold a figure the question
    gives ("一辆五座的车" of 标准车型's 5座) and the question does not name: not when every name stating a measure of that
    unit holds it (it tells none apart), nor by a figure of what the question says its case is not."""
    described = defined_by_description(doc)
    if not described:
        return set()
    # (not a figure of what the question says its case is not: "也不是七座的")
    asked = unnegated_zh(question)
    held = {n for n, ms in described.items() if not _names(question, n) and meets_stated(ms, asked)}
    # (… nor where the question names a name of that measure itself: "一辆五座的标准车型")
    return {n for n in held if any(o not in held and _same_measure(described[n], described[o]) for o in described)
            and not any(_names(question, o) and _same_measure(described[n], described[o]) for o in described)}


def _same_measure(a: tuple, b: tuple) -> bool:
    """Whether two definitions state a measure of one unit (5座 and 7座及以上): names of one kind."""
    return any(x._unit_of(y.unit) for x in a for y in b)


def _of_a_kind(doc: Document, a: str, b: str) -> bool:
    """Whether two names are of one kind: ending alike (_kin), or defined in words by the same measure ("Adult: aged
    18 to 65" and "Senior: aged 66 and over"), so that a text naming both ("applies to all new Adult, Young Adult and
    Senior memberships") is about each."""
    described = defined_by_description(doc)
    return _kin(a, b) or a in described and b in described and _same_measure(described[a], described[b])


def asks_former(question: str, doc: Document, words: bool = True) -> bool:
    """Whether a question asks of the rule a document replaced: by its name ("按原办法算", "2022版的标准", "under
    Version 3.1"), by asking what held before the change ("before the new rates took effect"), or by the day of its
    case falling before the document takes effect ("我2024年11月…", "a permit starting 1 January 2025"); with words,
    by an English word of the former too ("the previous rate"), or by asking what a figure was ("以前是多少", "what
    did I pay for it last year")."""
    days = find_dates(question)
    header = next((m for m in FORMER_HEADER.finditer(question) if words or not m.group().isascii()), None)
    return bool(header or FORMER_ASKED.search(question) or words and FORMER_SAID.search(question)
                or _before_in_force(doc, days) and not _both_sides(doc, question) or names_in(question, former_names(doc)))


def members_asked(question: str, doc: Document) -> dict[str, set[str]]:
    """The names a document defines by their members as they stood when the question's case is: the current
    classification, each member a former one placed elsewhere moved to its former name where the question asks of
    the former rule (asks_former), its case falls in the former classification's period ("in January 2025" of "| Zone
    2024/25 |"), or it names that period's year alone ("for 2024/25"); in both names where the question gives days
    either side of the change ("2025年2月和2025年6月")."""
    defined = defined_by_members(doc)
    then = formerly_by_members(doc)
    if not then:
        return defined
    if (doc.sha256, question) in _ASKED:
        return _ASKED[doc.sha256, question]
    if len(_ASKED) >= 8:
        _ASKED.pop(next(iter(_ASKED)))
    _ASKED[doc.sha256, question] = out = _members_when(question, doc, defined, then)
    return out


_ASKED: dict[tuple[str, str], dict[str, set[str]]] = {}


def _members_when(question: str, doc: Document, defined: dict[str, set[str]],
                  then: dict[str, dict[str, int]]) -> dict[str, set[str]]:
    """members_asked, uncached: defined the current classification, then the former one's placements."""
    # (an English "previous", "prior" or "old" asks the former rule only of a figure, not of a classification: "my
    # previous employer", "two months old")
    before = asks_former(question, doc, words=False)
    days, years = find_dates(question), named_years(question)
    both = _both_sides(doc, question)
    if not (before or both or days or years):
        return defined
    when = _case_day(days, in_force(doc))

    def held_then(at: int) -> bool:
        if before or both or _straddled(doc, question, at):
            return True
        found = doc.structure.cell_at(at)
        bounds = _former_bounds(doc, at) or dated(doc, at)
        if when is not None and bounds is not None and bounds[1] is not None and \
                (bounds[0] is None or bounds[0] <= when.first) and when.last <= bounds[1]:
            return True
        own = named_years(f"{found[0].column_header(found[1].col)} {found[0].caption}") if found else set()
        return bool(years) and years <= own

    moved = {(name, m) for name, members in then.items() for m, at in members.items() if held_then(at)}
    if not moved:
        return defined
    # (out of the current classes of the former one's kind only: "| Silver | Band 2 | Moves to Band 1 from … |" keeps
    # Silver in May; not where the question asks of days either side of the move: then it is in both)
    out = {name: set(members) for name, members in defined.items()}
    for name, m in moved if not both else ():
        if _straddled(doc, question, then[name][m]):
            continue
        for other, members in out.items():
            if other != name and m in members and (_kin(other, name) or _one_column(doc, other, name)):
                members.discard(m)
    for name, m in moved:
        out.setdefault(name, set()).add(m)
    return out


# a column header saying the day a row's change took effect ("调整生效日期", "生效日期", "Effective date", "Effective from")
# (not one naming when something ends or the former class began: "Effective until", "原类别生效日期")
_TOOK_EFFECT = re.compile(r"^\s*(?:调整)?(?:生效|执行|起始|调整)(?:日期|时间)\s*$|^\s*(?:date\s+)?effective(?:\s+(?:date|from|on))?\s*$",
                          re.IGNORECASE)


def _editions(doc: Document, classes: set[str]) -> bool:
    """Whether a table of figures naming one of the classes has a former edition of them: a column its header marks as
    former, or figures superseded (the 原标准 beside the 新标准)."""
    for table in doc.structure.tables:
        said = " ".join([table.caption, *(table.column_header(c) for c in range(len(table.rows[0]) if table.rows else 0)),
                         *table.row_headers()])
        if not any(_names(said, n) for n in classes):
            continue
        for row in table.rows[table.header_rows:]:
            for cell in row:
                if not table.is_label(cell.col) and any(ch.isdigit() for ch in cell.text) and (
                        FORMER_HEADER.search(table.column_header(cell.col)) or superseded(doc, cell.start, 0)):
                    return True
    return False


def _former_bounds(doc: Document, at: int) -> tuple | None:
    """The days a member's former class held, as the remark of its row dates the move ("2025年7月1日起由三类区域调整为
    二类区域", "Moves to Gold from 1 October 2025": until the day before; "was Zone 3 until 31 March 2025", "Area 2 for
    policies purchased before 1 April 2025": until that day), or a date alone under a header saying the change took
    effect then ("| 三类 | 二类 | 2025年1月1日 |" under "| 原类别 | 现类别 | 调整生效日期 |"); None where its row says none."""
    found = doc.structure.cell_at(at)
    for cell in found[0].rows[found[1].row] if found is not None else ():
        if (_MOVED_FROM.search(cell.text) or _MOVED_TO.search(cell.text)) and (moved := period(cell.text)) is not None:
            # (the former class's own period, "was Area 2 from 1 April 2023 until 31 March 2025"; else the day the move
            # took effect ends it)
            if moved[1] is not None and not _MOVED_TO.search(cell.text):
                return moved
            return None, moved[0] - timedelta(days=1) if moved[0] is not None else moved[1]
        if _TOOK_EFFECT.search(found[0].column_header(cell.col)) and len(days_in := find_dates(cell.text)) == 1 \
                and not cell.text.replace(cell.text[days_in[0].start:days_in[0].end], "").strip(" ()（）"):
            return None, days_in[0].first - timedelta(days=1)
    return None


def _straddled(doc: Document, question: str, at: int) -> bool:
    """Whether the question asks of days either side of the day a member's move took effect, as its row dates it
    (Turkey in Area 2 for policies bought before 1 April 2025, asked "on 20 March 2025, and what if I wait and buy it on
    10 April 2025?")."""
    bounds = _former_bounds(doc, at)
    return bounds is not None and bounds[1] is not None and _both_sides(doc, question, bounds[1] + timedelta(days=1))


def _straddling(question: str, doc: Document) -> set[str]:
    """The members moved on a day of their own whose day the question asks of both sides of (_straddled)."""
    return {m for members in formerly_by_members(doc).values() for m, at in members.items()
            if _straddled(doc, question, at)}


def classes_then_and_now(question: str, doc: Document) -> tuple[set[str], set[str]]:
    """For a question giving days either side of the change (_both_sides; or of the day a member's own move took
    effect) about a member the change moved (芦花村, 三类 before 1 April 2025 and 二类 since): the names only its former
    classification places it in, and those only the current one does; empty sets otherwise."""
    if not find_dates(question):
        return set(), set()
    both = _both_sides(doc, question)
    defined = defined_by_members(doc)
    everyone = _everyone(defined) | _everyone(formerly_by_members(doc))
    was, now = set(), set()
    for name, members in formerly_by_members(doc).items():
        for m, at in members.items():
            if (both or _straddled(doc, question, at)) and _spans(question, m, everyone):
                current = {n for n, ms in defined.items() if m in ms}
                if current and name not in current:
                    was.add(name)
                    now |= current
    return was, now


def _latin(text: str) -> bool:
    """Whether a name is written in Latin letters: no Chinese character in it, whatever its dashes and quotes
    ("Edinburgh – Quartermile Office", "King's Cross")."""
    return not any(is_cjk(ch) for ch in text)


def _everyone(defined) -> frozenset[str]:
    """Every member of every name a classification defines (the others a member named in parts is told from)."""
    return frozenset(m for members in defined.values() for m in members)


def _tells(doc: Document, defined: dict[str, set[str]], name: str, member: str) -> bool:
    """Whether a member tells its name apart: no other name of its kind places it too (a district whose towns are in
    different classes, "望海区"; a header word caught as a member of each Zone), a group within the name or holding it
    aside (省会城市 within 二类城市; never one of its series, 一类 beside 三类)."""
    # (two names holding the same members are no group one within the other: "Ashcombe Bursary" and "Care Leaver and
    # Estranged Student Bursary" each listing the awards it combines with)
    return not any(member in held and (_kin(other, name) or _one_column(doc, other, name))
                   and (_series_kin(other, name) or held == defined[name]
                        or not _within(held, defined[name]) and not _within(defined[name], held))
                   for other, held in defined.items() if other != name)


def _named_whole(question: str, members: set[str]) -> set[str]:
    """The members a question names other than inside a longer one it names ("Little Marden", not its "Marden")."""
    everyone = frozenset(members)
    spans = {m: found for m in members if (found := _spans(question, m, everyone))}
    return {m for m, found in spans.items()
            if not all(any(a <= x and y <= b and b - a > y - x for other in spans.values() for a, b in other)
                       for x, y in found)}


def implying_words(question: str, doc: Document) -> dict[str, set[str]]:
    """Each name a question implies by a member or a numbered figure of it (Ashcombe → Band B, "grade 6" → Tier 2),
    with the words of the question that imply it; members as classified when its case is (members_asked)."""
    out: dict[str, set[str]] = {}
    # (the longest member named wins: "子公司副总经理" names 第三档, not 总经理's 第一档 within it; a Chinese member may be
    # named in two parts a word or two apart, "子公司担任副总经理")
    defined = members_asked(question, doc)
    # (a member the classification places in two names of a kind tells neither apart — a district whose towns are in
    # different classes, "望海区" beside its "盐田镇"; a header word caught as a member of each — unless the question's
    # days either side of a change place it in both, its former class and its current one)
    # (… or either side of the day its own move took effect)
    either = _both_sides(doc, question)
    straddling = _straddling(question, doc)
    everyone = _everyone(defined)
    # (not by a member the question says its case is not: "不是最便宜的经济型")
    unnegated = unnegated_zh(question)
    spans = {(name, member): found for name, members in defined.items() if not _names(question, name)
             for member in members if (found := _spans(unnegated, member, everyone))
             and (either or member in straddling or _tells(doc, defined, name, member))}
    whole = _named_whole(question, {member for _, member in spans})
    for name, member in spans:
        if member in whole:
            out.setdefault(name, set()).update(_stemmed(member))
    for name, (series, lo, hi) in defined_by_range(doc).items():
        for m in re.finditer(rf"\b{re.escape(series)}s?\s+(\d{{1,4}})\b", question, re.IGNORECASE):
            if not _names(question, name) and lo <= int(m.group(1)) <= hi:
                out.setdefault(name, set()).update(_stemmed(m.group()))
    # (… or by a figure of the question a range of a measure holds: "an 8.6 m yacht" in Band C's "7.01 m to 9.00 m")
    for name, ranges in defined_by_measures(doc).items():
        if not _names(question, name) and any(meets(r, question) for r in ranges):
            out.setdefault(name, set())
    # (… or by the side of a boundary the question places its case on: "环城路里面" of "一类区域：澄江区环城路以内区域",
    # "二环外" of "三类区域：二环路以外的中心城区其他区域")
    for name, words in bounded_by(question, doc).items():
        out.setdefault(name, set()).update(words)
    # (… or by a figure a definition in words states: "一辆五座的出租车" of "标准车型：核定载客5座（含驾驶员）的轿车")
    for name in described_by(question, doc):
        out.setdefault(name, set())
    codes = defined_by_codes(doc)
    for m in _GRADE_ASKED.finditer(question):
        for name, ranges in codes.items():
            if not _names(question, name) and any(p == m.group(1) and lo <= int(m.group(2)) <= hi
                                                  for p, lo, hi in ranges):
                out.setdefault(name, set()).update(_stemmed(m.group()) or {m.group()})
    # … and the name a name it implies is a member of, by the same words: a job title's grade is in a Band ("Senior
    # Payroll Analyst" → G4 → Band B), one step, as a table mapping one to the other says; a class among others of its
    # kind (Band A, Band C), not a name a table's column happens to list classes under ("| Relief | Amount |" listing
    # "Zone A … Zone C")
    # (… nor one holding every name of that kind, "Counts against Relocation Expenses Cap" listing Tier 1 to Tier 4: it
    # tells none apart)
    for name, words in list(out.items()):
        kind = {o.casefold() for o in defined if o == name or _kin(o, name) or _one_column(doc, o, name)}
        for outer, held in defined.items():
            if outer not in out and not _names(question, outer) and any(m.casefold() == name.casefold() for m in held) \
                    and any(_kin(outer, o) or _one_column(doc, outer, o) for o in defined if o != outer) \
                    and not (len(kind) > 1 and kind <= {m.casefold() for m in held}):
                out[outer] = set(words)
    return out


# a boundary and the side of it a definition places a name on ("澄江区环城路以内区域", "二环路（含）以内", "二环路以外的…"),
# and a question its case ("环城路里面", "二环外", "二环路以内"): the boundary the characters before the side word, a
# road or a river a place may go before ("澄江区环城路"), the side in or out
_SIDE_DEFINED_ZH = re.compile(rf"(?P<edge>[{CJK_RANGE}]{{2,10}}?)(?:（含）|\(含\))?(?P<side>以内|之内|以外|之外)")
_SIDE_ASKED_ZH = re.compile(r"(?P<side>以内|之内|里面|里头|里边|内|以外|之外|外面|外头|外边|外)")
_PLACE_BEFORE_EDGE_ZH = re.compile(rf"^[{CJK_RANGE}]{{1,4}}?[区县市](?=[{CJK_RANGE}]{{2,}}$)")
# (not a question asking which, "是不是二环以外")
_NOT_ON_SIDE_ZH = re.compile(r"(?:不在|没在|没有在|(?<!是)不是在?|并非在?|不属于|非|(?<!是)不)$")
_BOUNDED: dict[str, dict[str, list[tuple[str, bool]]]] = {}


def defined_by_boundary(doc: Document) -> dict[str, list[tuple[str, bool]]]:
    """The names a Chinese document's list of groups defines by a side of a boundary ("- 一类区域：澄江区环城路以内区域，
    以及青澜火车站", "- 三类区域：二环路以外的中心城区其他区域"), each with its boundaries and whether it lies inside each;
    not a boundary that is another of the names ("一类区域以外"); none where fewer than two names are so defined."""
    if doc.sha256 not in _BOUNDED:
        if len(_BOUNDED) >= 8:
            _BOUNDED.pop(next(iter(_BOUNDED)))
        found: dict[str, list[tuple[str, bool]]] = {}
        for m in DEFINED_BY_GROUPS_ZH.finditer(doc.text):
            for side in _SIDE_DEFINED_ZH.finditer(m.group("members")):
                edge = re.split(r"[、，,；;：:和与及]|以及", side.group("edge"))[-1]
                edge = _PLACE_BEFORE_EDGE_ZH.sub("", re.sub(r"^除", "", edge))  # ("除一类城市以外": 一类城市)
                if len(edge) >= 2:
                    found.setdefault(m.group("name"), []).append((edge, side.group("side") in ("以内", "之内")))
        bounded = {name: [(e, i) for e, i in edges if e not in found]
                   for name, edges in found.items() if any(e not in found for e, _ in edges)}
        # (names set apart by sides of boundaries: one alone is no such classification, "处理结果：…死亡以外…")
        _BOUNDED[doc.sha256] = bounded if len(bounded) >= 2 else {}
    return _BOUNDED[doc.sha256]


def bounded_by(question: str, doc: Document) -> dict[str, set[str]]:
    """The names a question implies by placing its case on their side of boundaries the document defines them by
    (defined_by_boundary), with the words doing so: on its side of each such boundary the question names, naming one
    at least, where one name alone is so implied; a boundary a road's name is is named short of its 路 ("二环" of
    二环路). A side the question says its case is not on is the other ("不在环城路里面": outside it)."""
    defined = defined_by_boundary(doc)
    placed: dict[str, tuple[bool, str]] = {}  # each boundary the question names: inside it?, the words saying so
    for edge in {e for edges in defined.values() for e, _ in edges}:
        forms = [edge] + ([edge[:-1]] if edge.endswith("路") and len(edge) >= 3 else [])
        for form in forms:
            if (m := re.search(re.escape(form) + r"(?:（含）)?" + _SIDE_ASKED_ZH.pattern, question)) \
                    and not re.match(r"\s*(?:还是|或者?|和|、)\s*(?:以|之)?[内外里]", question[m.end():]):
                # (not one asking which side, "环城路里面还是外面")
                negated = bool(_NOT_ON_SIDE_ZH.search(question[max(0, m.start() - 4):m.start()]))
                placed[edge] = (("外" not in m.group("side")) != negated, m.group())
                break
    implied = {name: {placed[e][1] for e, _ in edges if e in placed} for name, edges in defined.items()
               if any(e in placed for e, _ in edges) and all(placed[e][0] == inside for e, inside in edges if e in placed)
               and not _names(question, name)}
    if len(implied) != 1:
        return {}
    return {name: set().union(*(_stemmed(w) for w in words)) for name, words in implied.items()}


# a grade written as a series' letters and its number ("P5", "M3"), alone or as the ends of a range ("P4—P5",
# "S3—S4", "M6（副总裁）及以上"), in a question or a table cell
_GRADE_ASKED = re.compile(r"(?<![A-Za-z0-9])([A-Z]{1,2})(\d{1,2})(?![\d.])")
_GRADE_CELL = re.compile(r"(?<![A-Za-z0-9])([A-Z]{1,2})(\d{1,2})(?:\s*[—–~\-－至到]\s*\1?(\d{1,2}))?(?![\d.])"
                         r"(?:[（(][^）)]*[）)])?(\s*及以上)?")
_CODES: dict[str, dict[str, list[tuple[str, int, int]]]] = {}


def defined_by_codes(doc: Document) -> dict[str, list[tuple[str, int, int]]]:
    """The names a table defines by ranges of grades in its cells, each row's label one a table of figures is keyed
    by ("| 二档 | P4—P5 | M1（主管） | T1 | S3—S4 |" where the 住房补贴 table has a 二档 row): each name with its ranges
    (series letters, lowest, highest)."""
    if doc.sha256 not in _CODES:
        if len(_CODES) >= 8:
            _CODES.pop(next(iter(_CODES)))
        keyed = _table_keys(doc)
        out: dict[str, list[tuple[str, int, int]]] = {}
        for table in doc.structure.tables:
            keys = {k for i, ks in keyed.items() if i != table.index for k in ks}
            for r in range(table.header_rows, len(table.rows)):
                label = (table.row_header(r) or "").strip()
                if label not in keys:
                    continue
                for c in table.rows[r]:
                    if c.text.strip() == label:
                        continue
                    for m in _GRADE_CELL.finditer(c.text):
                        lo = int(m.group(2))
                        hi = 99 if m.group(4) else int(m.group(3) or lo)
                        out.setdefault(label, []).append((m.group(1), lo, max(lo, hi)))
        _CODES[doc.sha256] = out
    return _CODES[doc.sha256]


def implied_names(question: str, doc: Document) -> tuple[set[str], set[str]]:
    """The names a document defines by their members that the question implies by naming a member of each and not
    the name itself (北塘区 → 二类区域), and the other names of their kind (ending alike: 一类区域, 三类区域), which
    it rules out; none when it names one of that kind itself. Read once a (document, question)."""
    if (doc.sha256, question) not in _IMPLIED:
        if len(_IMPLIED) >= 8:
            _IMPLIED.pop(next(iter(_IMPLIED)))
        _IMPLIED[doc.sha256, question] = _implied_names(question, doc)
    implied, kin = _IMPLIED[doc.sha256, question]
    return set(implied), set(kin)


_IMPLIED: dict[tuple[str, str], tuple[frozenset[str], frozenset[str]]] = {}


def _implied_names(question: str, doc: Document) -> tuple[frozenset[str], frozenset[str]]:
    """implied_names, uncached."""
    # (by a member, or by a numbered range a figure of the question falls in: "- Tier 2: job grades 5 to 7", asked
    # "I'm a grade 6 manager")
    implied = set(implying_words(question, doc))
    defined = {**dict.fromkeys(defined_by_codes(doc), set()), **dict.fromkeys(defined_by_measures(doc), set()),
               **dict.fromkeys(defined_by_description(doc), set()), **dict.fromkeys(defined_by_boundary(doc), set()),
               **members_asked(question, doc),
               **dict.fromkeys(defined_by_range(doc), set())}
    # (a group within an implied name, most of its members the name's, is none of the others: 省会城市 within 二类城市)
    # (… or a class the column placing a member in its name places others in: Hospitality beside Retail)
    kin = {other for other in defined if any((_kin(other, name) or _one_column(doc, other, name))
                                             and not _within(defined[other], defined[name]) for name in implied)}
    # (… or a name defined by the same measure: "Adult: aged 18 to 59" beside the "Junior: aged 11 to 17" a 12-year-old
    # implies)
    described = defined_by_description(doc)
    kin |= {other for name in implied & described.keys() for other in described
            if _same_measure(described[name], described[other])}
    if any(_names(question, name) for name in kin):
        return frozenset(implied), frozenset()
    return frozenset(implied), frozenset(kin - implied)


def placement(question: str, doc: Document, name: str) -> tuple[str, int, int] | None:
    """Where the document places the member the question names in a name it implies ("Tolworth Bridge" → Band 1):
    (the member, the offset of the cell or words placing it, and the length of that cell or those words); the former
    classification's cell where the question's case falls in its period, else the current one's (a row naming the
    member, its cell naming the class in a column no later one supersedes), else a sentence naming both; None where
    the question names no member of it."""
    defined = members_asked(question, doc)
    either = _both_sides(doc, question)
    straddling = _straddling(question, doc)
    # (the member that tells its class apart, as implying_words reads it: not one placed in two names of a kind; the
    # longest, else the last named, "桐溪县溪口镇" by 溪口镇)
    everyone = _everyone(defined)
    unnegated = unnegated_zh(question)
    asked = [m for m in defined.get(name, set()) if _spans(unnegated, m, everyone)
             and (either or m in straddling or _tells(doc, defined, name, m))]
    if not asked:
        return None
    member = max(asked, key=lambda m: (len(m), max(_spans(unnegated, m, everyone))))
    then = formerly_by_members(doc).get(name, {})
    if member in then and member not in defined_by_members(doc).get(name, set()):
        found = doc.structure.cell_at(then[member])
        return member, then[member], len(found[1].text) if found is not None else len(name)
    keys = [k for ks in _table_keys(doc).values() for k in ks]
    # (a row whose cell is the member itself before one that names it inside a longer name, "| Little Marden |" asked of
    # Marden; its class under a current column, not "原类别", "Previous Band" or a column a later one supersedes)
    for exact in (True, False):
        for table in doc.structure.tables:
            for row in table.rows[table.header_rows:]:
                if not any(c.text.strip() == member or member in _items(c.text) if exact else _names(c.text, member)
                           for c in row):
                    continue
                for c in row:
                    header = table.column_header(c.col)
                    if not _names(c.text, member) and not FORMER_HEADER.search(header) \
                            and not _FORMER_MARK.match(header) and not earlier_column(table, c.col) \
                            and not superseded(doc, c.start, 0) \
                            and (_category_named(c.text, keys, header) == name or c.text.strip() == name
                                 or _member_named(table, c, keys) == name or _moved_to(c.text, keys, header) == name):
                        return member, c.start, len(c.text)
    for sentence in doc.sentences:
        if _names(sentence.text, member) and _names(sentence.text, name):
            return member, sentence.start, len(sentence.text)
    return None


def implied_by(question: str, doc: Document, thing: str) -> set[str]:
    """The names the question implies through a member that a thing it asks of holds ("my Great Dane" → Giant breed),
    so that a fact naming the name is about the thing."""
    implied, _ = implied_names(question, doc)
    members = members_asked(question, doc)
    return {n for n in implied if any(_names(thing, m) for m in members.get(n, ()))}


def other_members(question: str, doc: Document, key: str, implied: set[str]) -> list[str]:
    """The members a table row keys a value by when they are members of a name the question implies through
    another member, none of them named by the question ("| 三亚、海口 | 二类城市 | 30% | 715 |" asked of 成都, a
    二类城市 too: 三亚 and 海口); [] otherwise."""
    offset = key_offset(key)
    found = doc.structure.cell_at(offset) if offset is not None else None
    if found is None:
        return []
    table, cell = found
    members = members_asked(question, doc)
    everyone = _everyone(members)
    for label in table.label_cells(cell.row):
        items = [re.sub(r"[（(][^（）()]*[）)]", "", x).strip()
                 for x in re.split(r"以及|[、，,；;]|\s+and\s+", label.text)]
        items = [x for x in items if x]
        for name in implied:
            own = members.get(name, set())
            if items and all(x in own for x in items) and not any(_spans(question, x, everyone) for x in items) \
                    and any(_spans(question, m, everyone) for m in own):
                return items
    return []


def names_name(text: str, name: str) -> bool:
    """Whether a text names a name a document defines (public face of _names)."""
    return _names(text, name)


IMPLIED_CELLS = 12  # the most table cells the names a question implies bring to its shortlist


def implied_cells(question: str, doc: Document) -> list:
    """The table cells at the names a question implies by members ("部门经理…去杭州出差": the C级 row's 二类城市 cell of
    each table keyed by both), for its shortlist: the question reaches them through members, in none of their words.
    The cells whose row and column headers name the most of the implied names, or one of them and a class the
    question names by its ordinal ("银滩县…评了九级": the 九级伤残 row's 三类地区 cell of each table keyed by both) or by a
    word of its own ("我爸退休了…白沙县人民医院": the 二级 row's 退休人员 cell), two
    at least (one name's row or column holds every other case's figure), most first; at most IMPLIED_CELLS."""
    implied, _ = implied_names(question, doc)
    if not implied:
        return []
    when = next(iter(find_dates(question)), None)
    named: dict[int, list] = {}
    for c in document_candidates(doc):
        found = doc.structure.cell_at(key_offset(candidate_key(c)))
        if found is not None:
            table, cell = found
            heads = f"{table.row_header(cell.row)} {table.column_header(cell.col)}"
            if n := sum(1 for name in implied if _names(heads, name)):
                # (a row labelled in two cells is named by either: "| 起步价（含起步里程） | 大型车型 |" asked "起步价" of a
                # 七座 car, its 大型车型 implied)
                labels = [(x.text, [r[x.col].text for r in table.rows[table.header_rows:] if x.col < len(r)])
                          for x in table.label_cells(cell.row)] if len(table.label_cells(cell.row)) > 1 else []
                n += any(not any(_names(h, name) for name in implied)
                         and (_ordinal_named(question, h, others) or _word_named(question, h, others)
                              or _part_picks(question, h, others))
                         for h, others in ((table.row_header(cell.row), table.row_headers()), *labels,
                                           (table.column_header(cell.col), [table.column_header(x)
                                                                            for x in range(len(table.rows[0]))])))
                # (a table of one figure a row: the row whose label begins with the name holds that figure alone,
                # "| Giant breed dogs (see Appendix A) | 6 years |"; not a row that mentions it, "Change of Licence Class
                # at the same premises", "Change of location (same Licence Class)")
                label = table.row_header(cell.row).strip().lower()
                n += len(table.label_cells(cell.row)) == len(table.rows[cell.row]) - 1 \
                    and any(label.startswith(name.lower()) for name in implied)
                # (… or a column whose period holds the day of the question's case, beside one whose period does not:
                # "我在芦苇湾家园…2025年9月签的租赁合同" names the 四类区域 row's "新租金标准（2025年7月1日起签订…）" cell)
                n += bool(when) and _period_holds(table.column_header(cell.col), when) and any(
                    period(table.column_header(x)) is not None and not _period_holds(table.column_header(x), when)
                    for x in range(len(table.rows[0])) if x != cell.col)
                named.setdefault(n, []).append(c)
    return [c for n in sorted(named, reverse=True) if n >= 2 for c in named[n]][:IMPLIED_CELLS]


def _period_holds(header: str, when: Dated) -> bool:
    """Whether a header's period ("新租金标准（2025年7月1日起签订或者续签的合同）", "up to 31 March 2025") holds a day."""
    bounds = period(header)
    return bounds is not None and (bounds[0] is None or bounds[0] <= when.first) \
        and (bounds[1] is None or when.last <= bounds[1])


def _word_named(question: str, header: str, others: list[str]) -> bool:
    """Whether the question names a header by a word of it that no other header of its row or column has ("我爸退休了"
    names 退休人员 beside 在职职工 and 灵活就业人员, by 退休)."""
    own = {t for t in _stemmed(header) if len(t) > 1}
    rest = {t for other in others if other != header for t in _stemmed(other)}
    return bool((own - rest) & _stemmed(question))


def _part_picks(question: str, header: str, others: list[str]) -> bool:
    """Whether a part of a question asking several things picks a header among others by what sets it apart
    ("首小时收多少？后面每30分钟又收多少？": "白天首小时" by its part, though "白天首小时后每30分钟" holds all its words)."""
    parts = question_parts(question)
    return len(parts) > 1 and any(identifies(part, header, others, derived=True,
                                             elsewhere=" ".join(x for x in parts if x != part)) for part in parts)


APART = 3  # the most characters between the two parts of a Chinese member a question names apart


def _spans(text: str, member: str, among: set[str] = frozenset()) -> list[tuple[int, int]]:
    """Where a text names a member: each whole occurrence; else, Chinese, its two parts in order at most APART
    characters apart ("子公司担任副总经理" for 子公司副总经理), each two characters or more; else, English, a member
    written in parts ("Edinburgh – Quartermile Office") by its own words apart, as _by_parts reads them among the
    other members."""
    if _latin(member):
        return _whole_words(text, member) or _by_parts(text, member, among)
    found = [(i, i + len(member)) for i in range(len(text)) if text.startswith(member, i)]
    for cut in range(2, len(member) - 1) if not found and len(member) >= 5 else ():
        head, tail = member[:cut], member[cut:]
        found += [(m.start(), m.end()) for m in re.finditer(rf"{re.escape(head)}[^，,。；;？?！!]{{1,{APART}}}?"
                                                                 rf"{re.escape(tail)}", text)]
    return found


_IN_PARTS = re.compile(r"\s[–—-]\s|,\s")  # (a member written as a place and a site: "Aberdeen – Dyce Energy Office")
_PROPER_WORD = re.compile(r"(?<![\w'’-])[A-Z][\w'’]+")


PART_WORD_SHARED = 2  # the most members a word of a member named in parts may be in and still tell it apart


@functools.lru_cache(maxsize=64)
def _whole_spans(text: str, among: frozenset[str]) -> tuple[tuple[int, int, str], ...]:
    """Where a text names Latin members whole, with each member."""
    return tuple((*span, member) for member in among if _latin(member) and member.lower() in text.lower()
                 for span in _whole_words(text, member))


def _whole_words(text: str, name: str) -> list[tuple[int, int]]:
    """Where a text names a Latin name as whole words, any case (a Chinese character beside it is no letter of its
    word: "刚考过了PMP，"); nor a suffix saying it is of its kind: "a Nissan Qashqai-type car", "a Ford Focus-sized car")."""
    kind = f"|-(?!{_KIND_SUFFIX})" if len(name) >= 3 else "|-"  # (not a code: "E-Class" names no group E)
    return [m.span() for m in re.finditer(rf"(?<![A-Za-z0-9_'’-]){re.escape(name)}(?![A-Za-z0-9_]{kind})",
                                          text, re.IGNORECASE)]


_KIND_SUFFIX = r"(?:type|style|sized?|like|class)\b"  # ("Qashqai-type": a name followed by one is still named whole)


@functools.lru_cache(maxsize=4096)
def _proper_words(member: str) -> frozenset[str]:
    """A Latin member's capitalised words, not its function words ("Aberdeen – Dyce Energy Office")."""
    return frozenset(w for w in _PROPER_WORD.findall(member) if w.lower() not in STOP_EN) if _latin(member) \
        else frozenset()


@functools.lru_cache(maxsize=16)
def _word_counts(among: frozenset[str]) -> Counter:
    """How many members hold each capitalised word."""
    return Counter(w for m in among for w in _proper_words(m))


def _by_parts(text: str, member: str, among: set[str]) -> list[tuple[int, int]]:
    """Where an English member written in parts ("Edinburgh – Quartermile Office", "Aberdeen – Dyce Energy Office") is
    named by its own capitalised words apart, in one sentence ("our Edinburgh office at Quartermile", "the Dyce office"
    in Aberdeen, "Canary Wharf"): two of them or more, each in at most PART_WORD_SHARED members and none inside another
    member the text names whole, that no other member holds all of; one span over them, else none."""
    if not _IN_PARTS.search(member):
        return []
    among = frozenset(among)  # (the same object when a frozenset, as _everyone gives it)
    # (not a word of another member the text names whole: "Site" of "Site Manager")
    taken = _whole_spans(text, among)
    spans = {w: [(a, b) for m in re.finditer(rf"(?<![\w'’-]){re.escape(w)}(?![\w'’-])", text) for a, b in [m.span()]
                 if not any(x <= a and b <= y for x, y, other in taken if other != member)]
             for w in _proper_words(member)}
    said = {w for w, at in spans.items() if at}
    if len(said) < 2:
        return []
    # (of its words, those few others hold: "Office" and "Park" tell no site apart, "Lancaster" and an Office said of
    # another site name none)
    counts = _word_counts(among)
    said = {w for w in said if counts[w] <= PART_WORD_SHARED}
    if len(said) < 2 or any(other != member and said <= _proper_words(other) for other in among):
        return []
    at = [span for w in said for span in spans[w]]
    start, end = min(a for a, _ in at), max(b for _, b in at)
    return [(start, end)] if not re.search(r"[.?!;](?:\s|$)", text[start:end]) else []


def _names(text: str, name: str) -> bool:
    """Whether a text names a name: a Chinese one anywhere in it, an English one as whole words; a Chinese name closing
    on what parentheses say, as a label writes it without them ("紧缺职业" for the column "紧缺职业（工种）")."""
    if _names_whole(text, name):
        return True
    bare = _CLOSING_ASIDE.sub("", name)
    return bare != name and len(bare) >= 2 and not _latin(bare) and _names_whole(text, bare)


_CLOSING_ASIDE = re.compile(r"\s*[（(][^（）()]*[）)]\s*$")


def _names_whole(text: str, name: str) -> bool:
    """_names, of the name as written."""
    if not _latin(name):
        return name in text
    if _whole_words(text, name):
        return True
    # (a member of a numbered series is named by a list or range of its numbers: "Grade 4" by "Grades 4 and 5")
    member = _SERIES_MEMBER.fullmatch(name)
    return bool(member and (series := series_name(member.group(1))) and member.group(1)[:4].lower() in text.lower()
                and int(member.group(2)) in _numbered(text, {series}).get(series, ()))


_SERIES_MEMBER = re.compile(r"([A-Za-z]{3,})\s+(\d{1,2})")


def _kin(a: str, b: str) -> bool:
    """Whether two names a document defines by members are of one kind: a Chinese pair ending alike (一类区域,
    二类区域; A级, C级), an English pair sharing a first or last word (Band A, Band B; High-Cost locations, Standard
    locations)."""
    if not (_latin(a) and _latin(b)):
        # (or, of names of one length, all but the first character: "A级", "C级")
        return a[-2:] == b[-2:] or len(a) == len(b) > 1 and a[1:] == b[1:]
    x, y = a.lower().split(), b.lower().split()
    # (not by an ordinal alone: "Tier 3" and "Band 3" are of two kinds)
    return len(x) > 1 and len(y) > 1 and (x[0] == y[0] or x[-1] == y[-1] and not (x[-1].isdigit() or len(x[-1]) == 1))


_SERIES_PART = re.compile(r"[\d一二三四五六七八九十甲乙丙丁A-Z]{1,3}")


def _series_kin(a: str, b: str) -> bool:
    """Whether two names differ only by what numbers or letters them in a series ("一类接待对象", "二类接待对象"; "Band
    A", "Band B"), not names sharing a word ("Millbrook Academy", "Eastgate Academy")."""
    i, j = shared_ends(a, b)
    return all(_SERIES_PART.fullmatch(x.strip()) for x in (a[i:len(a) - j], b[i:len(b) - j]))


def _ordinal_named(question: str, header: str, headers) -> bool:
    """Whether a question names a header of a series by its ordinal and the word it counts ("评了九级" names
    "九级伤残" beside "八级伤残"), or in full."""
    header = header.strip()
    for other in headers:
        if (span := ordinal_apart(header, (other or "").strip())) is not None:
            at, end = span
            said = {header} | ({header[at:end + 1], header[max(0, at - 1):end]} if not header.isascii() else set())
            return any(len(x) >= 2 and _names(question, x) for x in said)
    return False


def _spelled_out(words, spelled: dict[str, set[str]], shortened: dict[str, set[str]]):
    """Words with each abbreviation of `spelled` they hold joined by the words it stands for, and the words of each
    name of `shortened` they hold in full by its abbreviation ("STD" ~ short-term disability); a dict keeps each
    word's weight."""
    weights = words if isinstance(words, dict) else dict.fromkeys(words, 1.0)
    out = dict(weights)
    for a, long in spelled.items():
        if a in weights:
            for t in long:
                out[t] = max(out.get(t, 0.0), weights[a])
    for a, long in shortened.items():
        if a not in weights and long <= weights.keys() and not _wider(long, weights.keys(), shortened):
            out[a] = min(weights[t] for t in long)
    return out if isinstance(words, dict) else set(out)


def _wider(long: set[str], words, abbreviations: dict[str, set[str]]) -> bool:
    """Whether words spell out another abbreviation whose words hold these and more (short-term disability holds
    what is left of long-term disability once "long" is dropped as a filler word)."""
    return any(long < other <= words for other in abbreviations.values())


_ROWS_MEASURE: dict[str, dict[int, bool]] = {}


def _rows_measure(doc: Document, table) -> bool:
    """_measured_by_row, read once per table of a document."""
    if doc.sha256 not in _ROWS_MEASURE:
        if len(_ROWS_MEASURE) >= 8:
            _ROWS_MEASURE.pop(next(iter(_ROWS_MEASURE)))
        _ROWS_MEASURE[doc.sha256] = {}
    read = _ROWS_MEASURE[doc.sha256]
    if table.index not in read:
        read[table.index] = _measured_by_row(table)
    return read[table.index]


def _measured_by_row(table) -> bool:
    """Whether a table's rows are its measures and its columns the things measured ("| Monthly dues | $39.99 |
    $59.99 |" over "| | Essential | Plus |"): each row's values are of one dimension where some column's are not."""
    def dims(cells) -> set[str]:
        return {d for c in cells if c.text and (d := dimension_of(c.text)) is not None}

    body = [[c for c in row if not table.is_label(c.col)] for row in table.rows[table.header_rows:]]
    columns: dict[int, list] = {}
    for row in body:
        for c in row:
            columns.setdefault(c.col, []).append(c)
    return (len(body) > 1 and len(columns) > 1 and all(len(dims(row)) <= 1 for row in body)
            and any(len(dims(cells)) > 1 for cells in columns.values()))


def _unreferenced(table, row: int):
    """A function of a text giving it without the parentheses that name another row of a table, whole ("(part of the
    vet fees limit)" beside "Vet fees")."""
    others = [h.casefold() for r in range(table.header_rows, len(table.rows)) if r != row
              and len(h := PARENTHESIS.sub("", table.row_header(r)).strip()) >= 2]

    def strip(text: str) -> str:
        return PARENTHESIS.sub(lambda m: " " if any(re.search(rf"(?<!\w){re.escape(o)}(?!\w)", m.group().casefold())
                                                    for o in others) else m.group(), text)
    return strip



def _sides(f: IndexedFact, doc: Document, spelled: dict[str, set[str]] | None = None,
           shortened: dict[str, set[str]] | None = None) -> tuple[dict[str, float], set[str]]:
    """What a fact says it is, as weighted terms (its predicate fully; for a table cell its column header fully
    and the table's caption and section half, since a table's columns may be scopes and its caption the measure;
    for a clause its section half), and who it is about (its subject: for a cell, the row label)."""
    what: dict[str, float] = {}

    def add(text: str, w: float, measure: bool = False) -> None:
        for t in _stemmed(text):
            what[t] = max(what.get(t, 0.0), w)
        # (a table's caption naming its measure names the end its values are, as a label would: "The maximum nightly
        # room rate … is set by destination tier and Band:" over "£240 per night")
        for e in named_ends(text) if measure else ():
            what[f"<{e}>"] = max(what.get(f"<{e}>", 0.0), w)

    add(f.fact.predicate, 1.0)
    add(f.fact.object_value, SECTION_WEIGHT)  # its unit says what it measures too: "per mile", "天"
    offset = key_offset(f.key)
    found = doc.structure.cell_at(offset) if offset is not None else None
    caption = title_of(found[0].caption) if found is not None else ""
    # (what a cell's subject says in parentheses of another row of its table is a reference, named only as its clause
    # names it: "Complementary treatment (part of the vet fees limit)" beside the row "Vet fees" is no vet fees limit;
    # not what tells its row apart, "Monthly dues (12-month contract)", "Band A (London)")
    unreferenced = _unreferenced(found[0], found[1].row) if found is not None else (lambda text: text)
    who = _stemmed(unreferenced(f.fact.subject))
    if found is not None:
        add(found[0].column_header(found[1].col), 1.0)  # with the parentheses a label drops: "(no contract)"
        if _rows_measure(doc, found[0]):
            # a table measuring along its rows says what a cell is by its row ("Group class credits per month") and
            # whom it is of by its column ("Plus")
            # (a reference to another row in its parentheses is none of what it is, as its subject's is not)
            add(unreferenced(found[0].row_header(found[1].row)), 1.0)
            who = _stemmed(found[0].column_header(found[1].col))
    # (a table whose columns are classes of a series, "| 伤残等级 | 一类地区 | 二类地区 | 三类地区 |", gives one measure
    # across them: its caption's title, or its article's, says what each cell is, as a column header would)
    measure = 1.0 if found is not None and classes(found[0], found[1].col) else SECTION_WEIGHT
    # (a caption's unit in parentheses is no part of the title's length, as a header's is none of its name: "Daily
    # subsistence allowance by destination tier and Band (GBP per day)")
    if short_title(header_name(caption), MATCH_CAPTION_EN if caption.isascii() else MATCH_CAPTION):
        add(caption, measure, True)  # a title ("疗休养补助标准如下"), not a sentence about the whole table
    elif caption and (last := re.split(r"[，,；;。]", caption)[-1].strip()) and TABLE_POINTER.search(last) \
            and len(last) <= MATCH_CAPTION \
            and admitted_dimensions(found[0].column_header(found[1].col)) is None:
        # … but a sentence's clause pointing to the table says what its values are ("…政策范围内费用，起付线以上部分按
        # 下表比例支付"), when their column's header does not ("职工医保（退休）"; not "职工医保支付比例")
        add(last, SECTION_WEIGHT, True)
    # (a sentence ending in a colon over the table points to it as "下表" does: "The maximum nightly room rate, … is
    # set by destination tier and Band:")
    if caption and (TABLE_POINTER.search(caption) or found[0].caption.rstrip().endswith((":", "："))) \
            and (topic := caption_topic(caption, whole_clause=True)):
        # … and the sentence's topic says what they measure ("失业保险金的领取期限，根据…确定，具体如下表")
        add(topic, measure, True)
    add(f.section, SECTION_WEIGHT)
    if found is None and offset is not None and (topic := _lead_topic(doc, offset)):
        # (a list item's lead-in says what its values are, as a table's caption does: "会议邀请外部专家授课、演讲的，讲课费按照
        # 每半天（4学时）计算，标准如下：" over "（二）具有正高级专业技术职称的人员：每半天不超过3000元")
        add(topic, SECTION_WEIGHT)
    if offset is not None:  # (and the title of its article, as a heading's: "第二十三条【一次性工伤医疗补助金】")
        add(article_title(doc, offset), measure)
    if found is not None and (named := _stemmed(caption)) and all(
            _stemmed(found[0].column_header(c)) & named for c in value_columns(found[0])):
        # a caption naming each value column's measure ("Intervention rates and maximum grants" over "Tier 3
        # intervention rate" and "Tier 3 maximum grant") names, by a word another column's header holds and the cell's
        # own does not, that column's: the rate cell is no maximum grant (a caption naming some columns only, "Roof
        # payment schedule" beside "… or other flat roof", names the whole table)
        # (… not by the topic a caption names before its colon, the whole table's: "Temporary accommodation: nightly cap
        # by Cost Zone" over "Nightly cap" and "Daily subsistence while in temporary accommodation")
        table, cell = found
        mine = _stemmed(f"{table.column_header(cell.col)} {f.fact.predicate}")
        topic, colon, rest = caption.partition(":") if ":" in caption else caption.partition("：")
        theirs = {t for c in value_columns(table) if c != cell.col for t in _stemmed(table.column_header(c))} - mine \
            - (_stemmed(topic) if colon and rest.strip() else set())
        for t in theirs & what.keys():
            if what[t] < 1.0:
                del what[t]
    # the period its clause counts the value over is what it is, as a label's would be ("…的时间原则上每周不超过8小时，
    # 每月不超过40小时" labelled "时间原则上": 8小时 is the week's, 40小时 the month's); the last one before it, the
    # one that governs it
    before = _clause_before(f.fact)
    if periods := [(m.start(), name) for name, pattern in PERIODS_ZH for m in pattern.finditer(before)]:
        what[max(periods)[1]] = 1.0
    spelled, shortened = spelled or {}, shortened or {}
    return (_spelled_out(what, spelled, shortened),
            _spelled_out(who | _stemmed(clause_topic(f.fact)), spelled, shortened))


# a Chinese clause setting a condition ("会议邀请外部专家授课、演讲的"), and an article's number before its text
_CONDITION_CLAUSE_ZH = re.compile(r"的\s*$")
_ARTICLE = re.compile(r"^\s*[*_]*第[一二三四五六七八九十百零〇\d]+条[*_]*\s*")


def _lead_topic(doc: Document, offset: int) -> str:
    """What the lead-in of the list item at an offset says its values are: the topic of its first clause that sets no
    condition ("讲课费" of "会议邀请外部专家授课、演讲的，讲课费按照每半天（4学时）计算，标准如下："); '' when none."""
    block = doc.structure.block_at(offset)
    if block is None or block.kind != "list_item" or not block.lead_in:
        return ""
    clauses = re.split(r"[，,]", _ARTICLE.sub("", block.lead_in.strip()))
    while len(clauses) > 1 and _CONDITION_CLAUSE_ZH.search(clauses[0]):
        clauses = clauses[1:]
    # (only over items naming whom a value is for before it, "（二）具有正高级专业技术职称的人员：每半天不超过3000元": a list of
    # clauses, "（一）申请人向…提出申请", has a lead-in about whom they concern, "参保人员或其委托人")
    if not any(c in doc.text[block.start:offset] for c in "：:"):
        return ""
    return caption_topic("，".join(clauses), whole_clause=True)


# the Chinese word right after a bare number, when it is no bound or link ("以上", "至", "的") but the number's own unit
_GLUED_UNIT_ZH = re.compile(rf"(?![以及至到或和的内后前多余左])[{CJK_RANGE}]{{1,2}}")


def _of_a_kind_asked(f: IndexedFact, dims: set[str]) -> bool:
    """Whether a fact's value is of a dimension the question asks for; a bare number is, only when its label or
    quote gives a unit of one ("日限额（元）", "咨询费（元/人天）"; not "418 Alder Street" asked a percentage)."""
    dim = dimension_of(f.fact.object_value)
    if dim not in ("number", None):
        return dim in dims
    if "count" in dims and dim == "number":
        return True  # (how many times: "| 年度次数 | 2 |", "| Claims per policy year | 3 |")
    at = value_at(f.fact)
    if at >= 0 and (glued := _GLUED_UNIT_ZH.match(f.fact.source_text, at + len(f.fact.object_value))):
        # a word glued to the number is its unit ("120课时" in a row beside "1,800元"): it alone says what it counts
        return any(UNIT_MARKS[d].search(glued.group()) for d in dims if d in UNIT_MARKS)
    # (a table cell's quote is its row, whose other cells' units are theirs: its own row and column labels say it)
    cell = f.fact.source_text.lstrip().startswith("|")
    said = f"{f.fact.subject} {f.fact.predicate}" + ("" if cell else f" {f.fact.source_text}")
    return any(UNIT_MARKS[d].search(said) for d in dims if d in UNIT_MARKS)


_ADJECTIVAL = re.compile(r"(\d)-(year|month|week|day|hour)s?\b", re.IGNORECASE)


def _label_figures(text: str) -> frozenset[tuple[str, str, object]]:
    """The periods and counts a text states as single figures (dimension, unit, value): "2-year plan" (as "2
    years"), "3人", "two years"; not the bounds of a range."""
    text = _ADJECTIVAL.sub(r"\1 \2s", text)
    spans = bound_numbers(text)
    return frozenset((m.quantity.dimension, m.quantity.unit, m.quantity.value) for m in find_quantities(text)
                     if m.quantity.dimension in ("time", "count")
                     and not any(a < m.end and m.start < b for a, b in spans))


def _as_stated(fact) -> str:
    """A fact's value with the few words around it in its quote ("已年满60周岁的", "aged 65 or over"): where the
    document states it as a bound, this is the range it bounds."""
    at = value_at(fact)
    if at < 0:
        return ""
    return fact.source_text[max(0, at - 6):at + len(fact.object_value) + 6]


def named_ends(text: str) -> set[str]:
    """Which ends of a range a text names: {"most"} (最多, maximum), {"least"} (最低, minimum), both or none."""
    return {end for end, pattern in (("most", BOUND_MOST), ("least", BOUND_LEAST)) if pattern.search(text)}


def _clause_before(fact) -> str:
    """The words of a fact's clause before its value ("最低发放", "up to a maximum monthly benefit of")."""
    quote, at = fact.source_text, value_at(fact)
    return quote[clause_start(quote, at):at] if at >= 0 else ""


def _share_base(fact) -> str:
    """What a fact's percent is a share of, as its quote names it ("上表标准" in "按上表标准的50%执行", "the fees
    remaining for the Initial Term" in "25% of the fees remaining …"); '' when the quote names none."""
    at = value_at(fact)
    if at < 0 or dimension_of(fact.object_value) != "percent":
        return ""
    quote = fact.source_text
    if m := _OF_BASE.match(quote, at + len(fact.object_value)):
        return m.group(1)
    m = _BASE_OF.search(quote, 0, at)
    if not m:
        return ""
    # "…支付至合同金额的80%", "预借金额不超过出差预算的80%": 合同金额, 出差预算 (a bound word is none of the base)
    base = re.split(r"[至到按以依为对]", m.group(1))[-1]
    # (… not one ending it: "年度支付限额")
    return base[max((b.end() for pattern in (BOUND_MOST, BOUND_LEAST) for b in pattern.finditer(base)
                     if b.end() < len(base)), default=0):]


# a question asking what share of something a measure may be ("月供最多能占家里月收入的多少", "what percentage of my salary"):
# that something
_SHARE_OF_ASKED = re.compile(r"[占按照]([^，,。；;？?]{2,14}?)的(?:多少|百分之几|百分之多少|几成|比例)"
                             r"|\b(?:percentage|share|proportion|per\s*cent)\s+of\s+(?:my|our|the|your|their)?\s*([a-z][a-z\s-]{2,30})",
                             re.IGNORECASE)


def _share_of_asked(question: str, base: str) -> bool:
    """Whether the question asks what share of a base a value is, naming that base by a word of its own (月收入 of
    "借款人家庭月收入")."""
    words = {t for t in _stemmed(base) if len(t) > 1}
    return any(words & {t for t in _stemmed(next(g for g in m.groups() if g)) if len(t) > 1}
               for m in _SHARE_OF_ASKED.finditer(question))


def _end_readings(fact):
    """Which ends of a range a fact's value is, read in turn from its label, from the words of its clause before it
    ("最低发放200元，…") and from its whole quote, each with how surely that place says it (the quote not at all:
    it may name the end of another value)."""
    yield named_ends(f"{fact.subject} {fact.predicate}"), 1.0
    yield named_ends(_clause_before(fact)), CLAUSE_WEIGHT
    yield named_ends(fact.source_text), 0.0


def _fact_ends(fact) -> set[str]:
    """Which end a fact's value is: as the first place that names one says."""
    return next((ends for ends, _ in _end_readings(fact) if ends), set())


def _end_frequency(doc: Document) -> dict[str, int]:
    """How many of the document's sentences name each end of a range (most: 最高, maximum; least: 最低, minimum)."""
    if doc.sha256 not in _ENDS:
        if len(_ENDS) >= 8:
            _ENDS.pop(next(iter(_ENDS)))
        counts = {"most": 0, "least": 0}
        for sentence in doc.sentences:
            for e in named_ends(sentence.text):
                counts[e] += 1
        _ENDS[doc.sha256] = counts
    return _ENDS[doc.sha256]


_ENDS: dict[str, dict[str, int]] = {}


def _title_terms(doc: Document, question: str = "") -> set[str]:
    """The terms of what titles the document (Structure.titles), and of the question's stretches that shorten a title
    ("居民医保门诊慢特病" of "城乡居民基本医疗保险门诊慢性病和特殊疾病…细则")."""
    titles = doc.structure.titles
    return {t for title in titles for t in _stemmed(title)} | {
        t for stretch in abbreviated(question, titles) for t in _stemmed(stretch)}


def _names_entity(question: str, subject: str) -> bool:
    """Whether the question names a fact's subject: in full, or by a range holding what it gives."""
    return names(question, subject) or meets(subject, question)


_COMPOUND = re.compile(r"\b((?:[a-z]+-)+)([a-z]{3,})\b", re.IGNORECASE)


def _compounds(text: str) -> dict[str, set[str]]:
    """A text's hyphenated compounds, by head: {"term": {"short"}} for "short-term", {"network": {"out-of"}}."""
    out: dict[str, set[str]] = {}
    for m in _COMPOUND.finditer(text):
        out.setdefault(m.group(2).lower(), set()).add(m.group(1).lower().rstrip("-"))
    return out


def _contrary(mine: dict[str, set[str]], theirs: dict[str, set[str]]) -> bool:
    """Whether a text names only other compounds of a head the question's compound has."""
    return any(head in theirs and not theirs[head] & mods for head, mods in mine.items())


def unmentioned(question: str, doc: Document) -> list[str]:
    """The question's words the document never mentions, as the question writes them: English words no word of
    the document's family matches ("car", "hire"), and Chinese runs of character pairs the document never holds,
    without the characters a mentioned pair takes ("员工去新加坡出差" → 去新加坡)."""
    _, df = _document_frequency(doc)
    english = [v for v in df if v.isascii() and len(v) >= 5]

    defined = _abbreviations(doc)

    def mentioned(t: str) -> bool:
        # an English word is mentioned by any word of its family: one sharing all but its last three letters
        # (redundant ~ redundancy, reimburse ~ reimbursement), or hyphenated ("setup" by "set-up")
        return t in df or bool(defined.get(t)) or t.isascii() and len(t) >= 5 and any(
            len(os.path.commonprefix((t, v))) >= max(5, min(len(t), len(v)) - 3) for v in english)

    # (a pronoun is whom the question speaks of: "can I give him cash" asks nothing of "him")
    absent = {t for t in _stemmed(question) if not any(c.isdigit() for c in t) and t not in PRONOUNS_EN
              and (len(t) >= 3 if t.isascii() else len(t) == 2) and not mentioned(t)}
    out: list[str] = []
    from .relevance import _WORD

    for word in _WORD.findall(question):
        out += [w for w in _PARTS_OF_WORD.split(word) if w.isascii() and stem(w.lower()) in absent]
    # Chinese: the characters of never-held pairs that no held pair of the question takes, nor its question words
    # (多少, 多大: how it asks, not what about)
    pairs = [question[i:i + 2] for i in range(len(question) - 1)]
    asking = {i for m in QUESTION_WORDS.finditer(question) for i in range(*m.span())}
    # (a figure's characters are the figure, not a name: "2025年11月去成都" never holds 月去, and 去 alone names nothing)
    figures = {i for x in [*find_quantities(question), *find_dates(question)] for i in range(x.start, x.end)}
    held = {i + j for i, p in enumerate(pairs) if p in df and not p.isascii() for j in (0, 1)} | asking | figures
    never = {i + j for i, p in enumerate(pairs) if p in absent and not {i, i + 1} & asking for j in (0, 1)}
    run = ""
    for i, ch in enumerate(question + " "):
        if i in never and i not in held:
            run += ch
        elif run:
            out.append(run)
            run = ""
    # (a word holding a figure, "一年", is how long or how much the question asks about, and the answer would
    # echo a number the document may not state)
    # (nor how it asks or narrates: "能拿", a lone "有", "高了" as "高")
    out = [w if w.isascii() else w.rstrip("了") for w in out]
    return [w for w in dict.fromkeys(out) if not find_quantities(w) and (w.isascii() or len(w) > 1)
            and not all(ch in ASKING_VERBS_ZH for ch in w)]


def _numbered(text: str, only: set[str] | None = None) -> dict[str, set[int]]:
    """The numbers a text gives each series name ("Classes 2 and 3", "Tiers 1-3"); a number that is a quantity
    ("Level 3 days") is not a member's number."""
    out: dict[str, set[int]] = {}
    for m in NUMBERED_NAME_EN.finditer(text):
        name = series_name(m.group(1))
        if not name or only is not None and name not in only:
            continue
        if any(q.start == 0 and q.quantity.dimension != "number" for q in find_quantities(text[m.start(2):m.end(2) + 16])):
            continue
        nums = {int(n) for n in re.findall(r"\d+", m.group(2))}
        for lo, hi in NUMBER_RANGE_EN.findall(m.group(2)):
            nums.update(range(int(lo), int(hi) + 1))
        out.setdefault(name, set()).update(nums)
    return out


def unnumbered(question: str, doc: Document) -> list[str]:
    """The members of a series the question names that the document numbers otherwise, as the question writes
    them ("Severity 3" where it has only Severity 1 and 2; "Tier 5" beside Tiers 1-4): what the question asks
    about is not in the document, and a figure of another member would answer another question."""
    mine = _numbered(question)
    theirs = _numbered(doc.text, set(mine)) if mine else {}
    # (a range a list item defines a category by holds its numbers: "- Tier 3: job grades 8 and above" numbers grade 9)
    for series, lo, hi in defined_by_range(doc).values():
        if series in theirs:
            theirs[series] |= {n for n in mine.get(series, ()) if lo <= n <= hi}
    return [m.group(0) for m in NUMBERED_NAME_EN.finditer(question)
            if (name := series_name(m.group(1))) in theirs and not _numbered(m.group(0))[name] <= theirs[name]]


def listing(question: str, doc: Document, facts: list) -> list[str]:
    """When the facts left to answer a question list the document's figures of a kind instead of answering it,
    what the question names that the document never mentions; [] when they answer it. A question that asks for
    one figure ("What is the limit for car hire excess?", "每年的健康体检费用最多能报销多少？"), answered by several
    facts about none of the things it names, while it names something the document never mentions (car hire,
    体检): it asks about that, and the facts are the figures of the same kind for other things (each section's
    excess, each hospital level's rate)."""
    # a part with no word of its own ("…, and if so what is it?") asks again what another part asks
    asks = [p for p in question_parts(question) if _stemmed(p)]
    if len(asks) > 1 or ASKS_SEVERAL.search(question) or any(_names_entity(question, f.subject) for f in facts):
        return []
    # a list: the same measure for several things (each section's excess), or several measures of one thing (a
    # row's cities); not a thing's two measures beside a third fact
    by_predicate: dict[str, set[str]] = {}
    by_subject: dict[str, set[str]] = {}
    for f in facts:
        by_predicate.setdefault(f.predicate, set()).add(f.subject)
        by_subject.setdefault(f.subject, set()).add(f.predicate)
    if max(map(len, [*by_predicate.values(), *by_subject.values()]), default=0) < LISTING:
        return []
    return unmentioned(question, doc)


def catch_all(facts: list, absent: list[str]) -> list:
    """Of facts that list one measure for named cases and for the case of all others ("一类城市 | 二类城市 | 其他
    城市"), the others' case, when each thing the question names that the document never mentions is of that
    case's kind: a Chinese name sharing a character with the kind ("去县城" and 其他城市). [] otherwise (an English
    name never mentioned cannot be told to be of the kind: "Boston" and "other cities")."""
    cases = [(f, m) for f in facts if (m := CATCH_ALL.search(f"{f.subject} {f.predicate}"))]
    if not cases or len(cases) == len(facts) or len({m.group(0) for _, m in cases}) != 1 or not absent:
        return []
    kind = cases[0][1].group("zh") or ""
    if not all(set(term) & set(kind) for term in absent):
        return []
    return [f for f, _ in cases]


def listing_reason(facts: int, absent: list[str]) -> str:
    """The reason a listing (see listing) is not the answer, for each of its facts."""
    return (f"the question asks for one figure and names none of the {facts} things the facts are about; it "
            f"names what the document never mentions ({', '.join(absent[:4])})")


NARRATED_WEIGHT = 0.5  # how much a word only the narrated case says weighs toward the share of the question covered
CASE_YEARS = 10  # how far before a document takes effect a date the question gives can be the day of its case


def _before_in_force(doc: Document, dates: list[Dated]) -> bool:
    """Whether the question's case falls before the document takes effect: the day of its case (_case_day) ends
    before that day ("我2024年11月在…开了药", "a permit starting 1 January 2025"); a date a decade or more before it (a
    birth date, "born in May 1960") is no case of the rules it replaced."""
    force = in_force(doc)
    if force is None:
        return False
    when = _case_day(dates, force)
    return when is not None and when.last < force


def _case_days(dates: list[Dated], force) -> list[Dated]:
    """The dates a question gives that can be days of its case: within a decade before the day the document takes
    effect (not a birth date), any where that day is unknown."""
    return [d for d in dates if force is None or d.first.year > force.year - CASE_YEARS]


def _case_day(dates: list[Dated], force) -> Dated | None:
    """The day of the question's case among the dates it gives: the first within a decade of the day the document
    takes effect (not a birth date), a month or a day before a year given alone ("I joined in 2019 and my leave
    started on 3 March 2025": 3 March 2025)."""
    days = _case_days(dates, force)
    return next((d for d in days if (d.first.month, d.first.day, d.last.month, d.last.day) != (1, 1, 12, 31)),
                next(iter(days), None))


_EACH_DAY_ASKED = re.compile(r"分别|各是|各为|各自|各能|各有|\b(?:respectively|each|both)\b|\bwhat\s+if\b", re.IGNORECASE)


def _both_sides(doc: Document, question: str, pivot=None) -> bool:
    """Whether the question asks of days on both sides of the day the document takes effect, the former rule and the
    current one: days joined as one ask's ("2025年6月去的和2025年9月去的", in force from 1 July 2025), or each in a part
    asking of it ("2025年6月份按多少比例报？2025年9月份呢？"); not days of two events a case narrates ("I bought a policy
    in January 2025, and my suitcase was stolen in April 2025. What excess …?")."""
    force = pivot or in_force(doc)
    if force is None:
        return False
    days = _case_days(find_dates(question), force)
    before, after = [d for d in days if d.last < force], [d for d in days if d.first >= force]
    if not (before and after):
        return False
    # (a question asking of each, "分别最多能贷多少", "各是多少", "and what if I wait and buy it on 10 April 2025?", where
    # its asking sentences give both days: not "I bought a policy on 20 March 2025 and we fly on 10 April 2025. What is
    # the premium for each of us?")
    spans = _asking_spans(question)
    if _EACH_DAY_ASKED.search(question) and all(any(any(a <= d.start < b for a, b in spans) for d in side)
                                                for side in (before, after)):
        return True
    if any(_JOINED_DAYS.fullmatch(question[x.end:y.start]) for a in before for b in after
           for x, y in ((a, b), (b, a)) if x.end <= y.start):
        return True
    # (each day in its own asking sentence: "如果是2025年5月发证，…能领多少？如果是2025年11月发证，又能领多少？")
    sides = [([d for d in before if a <= d.start < b], [d for d in after if a <= d.start < b]) for a, b in spans]
    return any(x and not y for x, y in sides) and any(y and not x for x, y in sides)


def _asking_spans(question: str) -> list[tuple[int, int]]:
    """Where each sentence asking the question stands in it (start, end)."""
    spans, at = [], 0
    for sentence, asks in asking_sentences(question):
        at = question.find(sentence, at)
        if asks and at >= 0:
            spans.append((at, at + len(sentence)))
    return spans


def _asked_days(question: str, dates: list[Dated]) -> list[Dated]:
    """The dates a question gives in the sentences asking it, where they give any; else all of them."""
    spans = _asking_spans(question)
    return [d for d in dates if any(a <= d.start < b for a, b in spans)] or dates


# (what joins two days as one ask's: "2025年6月去的和", "2025年3月和", "March 2025 and")
_JOINED_DAYS = re.compile(r"[^，,。；;？?!！]{0,4}?(?:和|与|及|、|\s+(?:and|or)\s+(?:(?:in|on|for)\s+)?)[^，,。；;？?!！]{0,2}",
                          re.IGNORECASE)


# a Chinese accounting year a heading or caption names its figures by ("2025年度各县…汇总表"), and any year written
_ACCOUNT_YEAR = re.compile(r"((?:19|20)\d\d)\s*年度")
_YEAR_ZH = re.compile(r"((?:19|20)\d\d)\s*年")
_CLAUSE_WORDS_ZH = re.compile(r"的|或者|用于|以上|以下|是")
# (a date of the asker's life, not of the case the rules apply to: "1962年出生", "2010年开始在江北区参保")
_LIFE_EVENT_ZH = re.compile(r"[^，。？！,.?!]{0,6}?(?:出生|生人|参保|参加工作|入职|开始)")
_NOW = re.compile(r"现在|目前|如今|\b(?:now|currently|at\s+present)\b", re.IGNORECASE)


# the condition a clause states after its value ("6% when the average price is above $4.50 …", "£20 if the vehicle
# is over 22 ft"), up to the clause's end
_TRAILING_CONDITION = re.compile(r"[^\w.;。；]{0,4}\s*(?:when|if|where|provided\s+that)\b([^;。；\n]{3,120}?)(?=[;。；]|\.(?:\s|$)|$)",
                                 re.IGNORECASE)


def _season_of_fact(f: IndexedFact, doc: Document, defined: dict[str, frozenset[int]]) -> frozenset[int] | None:
    """The months of the season a fact's label names, else its table cell's column or row (seasons.season_of)."""
    found = season_of(f"{f.fact.subject} {f.fact.predicate}", defined)
    if found is None and (at := key_offset(f.key)) is not None and (cell := doc.structure.cell_at(at)) is not None:
        table, c = cell
        found = season_of(table.column_header(c.col), defined) or season_of(table.row_header(c.row), defined)
    return found


def cover(question: str, doc: Document, shortlist: list[IndexedFact], contexts: dict[str, str]):
    """The facts that together answer what the question asks, by its words: (chosen keys, the reason for each
    key left out), or None when no fact shares a word with the question.

    Each question word the document uses weighs by its rarity among the document's sentences (a word every
    sentence holds tells nothing). A fact matches a word through what it says it is (predicate; a cell's column,
    caption and section), who it is about (subject) or its clause (partly). Only a fact whose predicate side
    names something asked can answer: one that matches only by its subject is another figure of the same entity
    ("在职职工" asked for its 年度最高支付限额 is not answered by its 起付标准). Facts are taken greedily by the
    weight they add that the facts taken before did not cover; the facts that say the same thing as the round's
    best (the same predicate-side match: each level's 起付线, each member's allowance) come with it, and focus
    later keeps the entities the question names. A fact that adds too little is left out: it answers
    something else.
    """
    import math

    question = as_written(question)  # "每年交3000块钱": its figures are read as written in a document
    n, df = _document_frequency(doc)
    # the date of the question's case ("a policy bought in January 2025", "2024年11月") says which rule is in force
    # (_before_in_force), not a figure a case holds (2025 is no age of "aged 18 and over") nor a word asked
    undated = question
    for d in (case_dates := find_dates(question)):
        undated = undated[:d.start] + " " * (d.end - d.start) + undated[d.end:]
    # a range the question states ("不到75岁") is a condition its rows are picked by, not a word of theirs
    blanked = undated
    for a, b in bound_numbers(undated):
        blanked = blanked[:a] + " " * (b - a) + blanked[b:]
    # (a Chinese character pair across two of its words is no word of it, though the document may hold it by
    # chance: "提取申请没通过" asks nothing by 取申)
    # (an age the question gives, "for my 8-year-old", "我62岁了", is a figure a case holds: "year" and "old" are its
    # unit, no word of what it asks; where the question asks by them elsewhere, "in one leave year", they are)
    unaged = blanked
    for m in find_quantities(blanked):
        if m.quantity.dimension == "age":
            unaged = unaged[:m.start] + " " * (m.end - m.start) + unaged[m.end:]
    wanted = (_stemmed(unaged) - seams(unaged)) | {t for t in _stemmed(blanked) - seams(blanked)
                                                    if any(c.isdigit() for c in t)}
    # (a negated word the document never negates is asked as the word: "without a prescription", "prescription
    # required"; not a word made another by "non-", which names the others: a non-reserved permit is no reserved
    # one, a non-resident no resident)
    # (… nor what the question prefers another to: "keyhole rather than open surgery" asks no open surgery)
    others = {NEGATED + stem(m.group(1).lower()) for m in NEGATED_EN.finditer(blanked)
              if m.group(0).lower().startswith(("non", "rather", "instead"))}
    wanted |= {t[len(NEGATED):] for t in wanted if t.startswith(NEGATED) and t not in df and t not in others}
    # an English word of the question stands for the document's words it begins or that begin it (mileage ~ mile,
    # executiv ~ executive) or that share all but their endings with it (redundant ~ redundancy): the same word,
    # differently derived; one letter apart other than a final e, or a party's ending, they are different words
    # (employe, employer)
    # (a word the question uses itself stands for itself; the others in one order, whatever the hash seed: "cancel"
    # and "cancelling" both asked had swapped places by the order of a set)
    alias = {v: a for a in sorted(wanted) for v in derivations(a, df) if v not in wanted}
    asked = {t for t in wanted if t in df or t in alias.values()}
    # (a word the document writes only hyphenated, "setup" of "set-up", is asked as that compound, as rare as its
    # commoner word)
    defined = _abbreviations_asked(question, doc)
    joined = {t: max(df[v] for v in defined[t]) for t in wanted - asked if defined.get(t) and defined[t] <= df.keys()}
    asked |= joined.keys()
    # (a word the document never uses that a label written for it does, "deadline" of "deadline to submit a request"
    # for "submit a request … within 30 days", is asked as rare as the labels holding it are few)
    labelled: dict[str, int] = {}
    for f in shortlist:
        for t in (wanted - asked) & _stemmed(f.fact.predicate):
            labelled[t] = labelled.get(t, 0) + 1
    asked |= labelled.keys()
    if not asked:
        return None
    df = {**df, **joined, **labelled, **{a: max([df.get(a, 0)] + [df[v] for v, x in alias.items() if x == a])
                             for a in asked if a not in joined and a not in labelled}}
    # each word weighs by its rarity, a Chinese character a quarter as much as a pair (a pair across two words was
    # left out above)
    # (in one order, the words' sums come out the same in every process: ties are decided alike, whatever the hash seed)
    weight = {t: math.log(1 + n / df[t]) * (1.0 if t.isascii() or len(t) > 1 else CHAR_WEIGHT) for t in sorted(asked)}
    # a word of the document's title names what every value of it is about ("养老保险" in a 养老保险 rule): it tells
    # none apart
    weight |= {t: CHAR_WEIGHT * weight[t] for t in _title_terms(doc, question) if t in weight and not t.isascii()}
    # a question asking for the most ("the highest monthly benefit") asks for what the document gives as the most,
    # whatever word it uses ("a maximum monthly benefit of"): that end is asked like a word, matched by a fact
    # whose label names it, or partly by its clause before the value
    ends = named_ends(question)
    end = f"<{next(iter(ends))}>" if len(ends) == 1 else ""
    if end and (stated := _end_frequency(doc)[end[1:-1]]):
        weight[end] = math.log(1 + n / stated)
    # (a fact giving that end names the words the question asks it by: "最多" beside "最长领取期限")
    end_words = {t for m in (BOUND_MOST if ends == {"most"} else BOUND_LEAST).finditer(question)
                 for t in _stemmed(m.group())} if end in weight else set()
    # a figure the question gives ("a $30,000 contract", "I'm 72") is named by a label whose case holds it ("$10,001
    # to $50,000", "insured persons aged 70 or over") as a rare word of the question would be
    meeting = {f.key for f in shortlist if meets(f"{f.fact.subject} {f.fact.predicate}", undated)}
    # … or whose own clause, after its value, states the condition holding it ("- **6%** when the average price is
    # above $4.50 and up to $5.00 per gallon", asked at $4.80 a gallon)
    trailing = {f.key: m.group(1) for f in shortlist if (at := value_at(f.fact)) >= 0
                and (m := _TRAILING_CONDITION.match(f.fact.source_text, at + len(f.fact.object_value)))}
    meeting |= {k for k, condition in trailing.items() if meets(condition, undated)}
    # … as is the day of its case by a label whose period holds it ("2024年7月—2025年6月丧葬补助金", asked "今年（2024年）9月";
    # a period open at one end, "本办法（自2025年1月1日起）", is a rule's, which _before_in_force decides by)
    if case_dates:
        when = case_dates[0]
        meeting |= {f.key for f in shortlist if (b := period(f"{f.fact.subject} {f.fact.predicate}")) is not None
                    and b[0] is not None and b[1] is not None and b[0] <= when.last and b[1] >= when.first}
    # … or whose evidence (clause, column, row, caption) states a period of the day holding the time the question
    # gives ("晚上十点半" in "夜间时段（22:00—次日5:00）"); evidence stating only periods that do not hold it is of
    # another time of day ("Mon–Fri 07:00–20:00" asked of a call at 2am)
    on_hours: set[str] = set()
    off_hours: set[str] = set()
    if minutes := times_given(question):
        for f in shortlist:
            if stated := periods(contexts.get(f.key, f.fact.source_text)):
                (on_hours if any(holds(p, t) for p in stated for t in minutes) else off_hours).add(f.key)
        meeting |= on_hours
    # … or whose label, row or column names a season the document defines by months holding the month the question
    # gives ("in July": "Route 2 peak", peak season being May 1 through September 30); one naming another season is
    # the rule of other months
    in_season: set[str] = set()
    off_season: set[str] = set()
    if (months := months_given(question)) and (defined_seasons := seasons(doc.text)):
        for f in shortlist:
            held_months = _season_of_fact(f, doc, defined_seasons)
            if held_months is not None:
                (in_season if held_months & months else off_season).add(f.key)
        meeting |= in_season
    # … or whose table row holds it in another cell ("每年交3000元", the row "| 第八档 | 3000元 | 110元 | 70元 |"); such
    # a case names the figure's digits as its own words ("贷25年" beside "5年以上")
    digits: dict[str, set[str]] = {}
    given_digits: dict[str, set] = {}  # the digits of each figure given, by the figures they are the digits of
    held_digits: set[str] = set()
    for m in given_matches(undated):
        terms = {t for t in _stemmed(m.text) if t in asked and any(c.isdigit() for c in t)}
        for f in shortlist:
            if (at := key_offset(f.key)) is not None and row_gives(doc, at, {m.quantity}):
                meeting.add(f.key)
            elif f.key not in meeting or not meets(f"{f.fact.subject} {f.fact.predicate}", m.text):
                continue
            digits.setdefault(f.key, set()).update(terms)
            held_digits |= terms
        for t in terms:
            given_digits.setdefault(t, set()).add(m.quantity)
    # … and a figure no case holds ("花了3000块" where no row or range holds 3000元) is what the asker has, not a word
    # a fact must say: its digits weigh nothing (unless they are a held figure's too: "交了15年，每年15元")
    for t in set(given_digits) - held_digits:
        weight.pop(t, None)
        asked = asked - {t}
    given = "<given>"
    if meeting:
        weight[given] = math.log(1 + n)
        asked = asked | {given}
    # a physical measure the question asks ("能分到的房子最大有多少平米", "how many gallons"), rare in a document as a
    # rare word is, is named by a fact stating one however the two word it ("建筑面积上限 60平方米")
    dims = asked_dimensions(question)
    kinds = dims or frozenset()
    measure = "<measure>"
    if kinds and kinds <= PHYSICAL_DIMENSIONS and (
            stating := sum(1 for f in shortlist if dimension_of(f.fact.object_value) in kinds)):
        weight[measure] = math.log(1 + n / stating)
        asked = asked | {measure}
    total = sum(weight.values())
    # an abbreviation the document defines stands for its words where the question uses the other form only
    # ("short-term disability" asked, "STD benefits" written; "the SAR" asked, "a Suspicious Activity Report"
    # written); a question using both already matches either (a member, as classified when the question's case is)
    spelled = {a: long for a, long in defined.items() if a not in wanted and long <= wanted}
    shortened = {a: long for a, long in defined.items() if a in wanted and not long <= wanted}
    implying = implying_words(question, doc)
    kind_asked = [f for f in shortlist if dims is None or _of_a_kind_asked(f, dims)]
    # (not a figure of the table placing members in classes, "| Little Marden | parish | 70 | Band 3 |": that names the
    # member beside its class, no figure of the kind asked for it)
    placed = [f for f in kind_asked if not ((at := key_offset(f.key)) is not None
                                            and (cell := doc.structure.cell_at(at)) is not None
                                            and placing_table(doc, cell[0].index))]
    # (… nor a member named only inside a longer one the question names, "Marden" of "Little Marden")
    asked_members = members_asked(question, doc)
    whole = _named_whole(question, {m for members in asked_members.values() for m in members})
    # (a bare number naming the member, a 咨询电话 beside "碧水市、清河县", is no figure of a kind asked)
    located = {name for name, members in asked_members.items() if name in implying
               and any(m in whole and _names(f"{f.fact.subject} {f.fact.predicate}", m) for m in members for f in placed
                       if dimension_of(f.fact.object_value) not in ("number", None))}
    amount_only = {t for x, asks in asking_sentences(question) if asks
                   and (words := {alias.get(w, w) for w in _stemmed(x)} & asked) and words <= AMOUNT_ASKED_EN
                   for t in words}
    match: dict[str, dict[str, float]] = {}
    says: dict[str, tuple] = {}
    about: dict[str, set[str]] = {}  # the asked words a fact's subject names
    by_key = {f.key: f for f in shortlist}
    for f in shortlist:
        what, who = _sides(f, doc, spelled, shortened)
        for v, w in list(what.items()):
            if v in alias:
                what[alias[v]] = max(what.get(alias[v], 0.0), w)
            if v.startswith(NEGATED):  # ("without approval" still speaks of approval, as a section would)
                what[v[len(NEGATED):]] = max(what.get(v[len(NEGATED):], 0.0), w * SECTION_WEIGHT)
        who = {alias.get(t, t) for t in who}
        clause = {alias.get(t, t) for t in _stemmed(contexts.get(f.key, f.fact.source_text))}
        clause |= {t[len(NEGATED):] for t in clause if t.startswith(NEGATED)}
        ms = {}
        own_figures = None
        for t in sorted(asked):
            m = max(what.get(t, 0.0), 1.0 if t in who else 0.0, CLAUSE_WEIGHT if t in clause else 0.0)
            if m and t in given_digits:
                # the digits of a figure the question gives name only that figure ("70 days ago" is not the 70 of
                # "70%"); a case holding it names them below
                if own_figures is None:
                    own_figures = {q.quantity for q in find_quantities(
                        f"{f.fact.subject} {f.fact.predicate} {contexts.get(f.key, f.fact.source_text)}")}
                m = m if given_digits[t] & own_figures else 0.0
            if m:
                ms[t] = m
        if end in weight and (m := next((w for read, w in _end_readings(f.fact) if read == ends), 0.0)
                              or what.get(end, 0.0)):
            ms[end] = m
            ms.update({t: max(ms.get(t, 0.0), m) for t in end_words & asked})
        if given in weight and f.key in meeting:
            ms[given] = 1.0
            ms.update({t: 1.0 for t in digits.get(f.key, ())})
        # (a word asking an amount in a sentence asking by no other, "What will it cost?", names no measure, as 多少钱
        # names none: any sum answers it; not "how many weeks of full pay")
        if amount_only and dimension_of(f.fact.object_value) == "money":
            ms.update({t: 1.0 for t in amount_only})
        if measure in weight and dimension_of(f.fact.object_value) in kinds:
            what = {**what, measure: 1.0}
            ms[measure] = 1.0
        for name, words in implying.items():
            # (a fact of the name a member implies names the member: "at Ashcombe" asked, a Band B cell; only as
            # surely as a section names what it holds where a fact of the kind asked names the member itself, "远郊区县
            # （含北山县、临江县…）城市低保标准", which then answers before the name's other measures)
            if _names(f"{f.fact.subject} {f.fact.predicate}", name):
                ms.update({t: max(ms.get(t, 0.0), SECTION_WEIGHT if name in located else 1.0) for t in words & asked})
        match[f.key] = ms
        says[f.key] = tuple(sorted((t, what[t]) for t in asked if t in what))
        about[f.key] = {t for t in asked & who if len(t) > 1}
    if not any(match.values()):
        return None
    # (naming the end asked alone names nothing asked: it is how the question asks)
    named = {k for k, ms in match.items() if any(m >= SECTION_WEIGHT and len(t) > 1 and t != end for t, m in ms.items())}
    # a value of another dimension than the one asked ("多少天" answered by 2万元) answers something else; a bare
    # number answers only if its label or quote says a unit of what is asked ("日限额（元）"; not "418 Alder Street"
    # asked a percentage)
    wrong = {f.key for f in shortlist if dims is not None and not _of_a_kind_asked(f, dims)}
    named -= wrong
    # a worked example's figures, or those of a question the document poses, are a case's, not the rule's ("示例一：
    # 某职工本人工资为6,000元…", "问：朋友开车来我家，停了三个小时…？"): they answer no question about the rule
    example = {k for k in named if (at := key_offset(k)) is not None and illustrative(doc, at)}
    named -= example
    # … nor is a bare number that is a name's ("… that do not meet the Euro 6 emission standard": no quantity of 6)
    name_numbers = {k for k in named if dimension_of(by_key[k].fact.object_value) == "number"
                    and named_number(by_key[k].fact.source_text, value_at(by_key[k].fact))}
    named -= name_numbers
    # … nor a count in the table placing members in classes ("| 高新区 | 智谷街道 | 一类区域 | 3.17 |" under "常住人口（万
    # 人）"): it is about the member, answering only a question asking it by its column's words (a rate or a time there,
    # "| Market Square | Band A | 4 hours |", may be what is asked)
    attribute = {k for k in named if dimension_of(by_key[k].fact.object_value) in ("count", "number")
                 and (at := key_offset(k)) is not None and (found := doc.structure.cell_at(at))
                 and placing_table(doc, found[0].index)
                 and not {t for t in _stemmed(header_name(found[0].column_header(found[1].col))) if len(t) > 1} & asked}
    named -= attribute
    # … and a value a change replaced ("由相当于2个月租金降为相当于1个月租金", a table's 原规定 column) is no longer the rule
    # (unless the question asks the former rule by its name: "按原办法算", "2022版的标准")
    # (… or gives the day of its case before the document takes effect: "2025年1月去成都出差", "a policy bought in
    # January 2025", the document in force from 1 March 2025; then a figure marked as the document's own rule, "|
    # 本办法（自2025年1月1日起） |", "Table 1 — … prices from 1 April 2025", is of another period)
    # (or asks what held before the change: "before the new rates took effect")
    # (a question giving days either side of that day asks both: "2025年6月去的和2025年9月去的")
    both = _both_sides(doc, question)
    earlier = (_before_in_force(doc, case_dates) or FORMER_ASKED.search(question) is not None) and not both
    of_former = asks_former(question, doc)

    # (the days its asking sentences give, where they give any: "2025年初厂子关了。请问2025年3月份我能领到多少？" asks
    # of March 2025)
    asked_days = _asked_days(question, case_dates)

    def in_period(bounds: tuple) -> bool | None:
        """Whether a day of the question's case is in a period (not by a birth date, a decade or more before it);
        None where it gives none."""
        ref = bounds[0] or bounds[1]
        days = _case_days(asked_days, ref)
        return any((bounds[0] is None or bounds[0] <= d.last) and (bounds[1] is None or d.first <= bounds[1])
                   for d in days) if days else None

    # (the period a figure's column, caption or heading dates it to: "表1 失业保险金月标准（原标准，适用于2025年6月及以前的
    # 发放月份）" is the rule of a case in March 2025 however its caption names it)
    # (not the document's title's: "关于自2025年1月1日起调整…的通知" dates its 原标准 column no less than its 新标准)
    scoped = {k: bounds for k in named if case_dates and (at := key_offset(k)) is not None
              and (bounds := dated(doc, at, title=False)) is not None}

    def held(k: str) -> bool:
        # (a former rule's figure is the case's where its period, ended, holds the case's day: not an open period a
        # comparison's caption gives both columns, "| 原标准 | 新标准 |" under "…（自2025年1月1日起执行）")
        found = doc.structure.cell_at(key_offset(k))
        return k in scoped and scoped[k][1] is not None and bool(in_period(scoped[k])) \
            and not (found is not None and FORMER_HEADER.search(found[0].column_header(found[1].col)))

    former = {k for k in named if not of_former and not both and (at := key_offset(k)) is not None
              and superseded(doc, at, len(by_key[k].fact.object_value)) and not held(k)}
    later = {k for k in named if earlier and (at := key_offset(k)) is not None and current(doc, at)}
    # … and a figure its own clause, else its column, caption or heading, dates to a period no day of the question's
    # case is in ("From 1 April 2025 the core contribution is 3%", asked "In 2024, what core contribution …?";
    # "表2 …（新标准，适用于2025年7月及以后的发放月份）", asked of March 2025): another period's
    elsewhen = {k for k in named if case_dates and (bounds := period(_clause_before(by_key[k].fact))
                                                    or scoped.get(k)) is not None and in_period(bounds) is False}
    # … or one whose column, table or section names only other years than the span the question names ("for 2024/25"
    # asked, "Table 6.1 – KLSR percentages for 2025/26")
    if spans := named_years(undated):
        elsewhen |= {k for k in named if (at := key_offset(k)) is not None
                     and (own := named_years(" ".join(period_scopes(doc, at, title=False)))) and not own & spans
                     and not named_years(f"{by_key[k].fact.subject} {by_key[k].fact.predicate} "
                                         f"{by_key[k].fact.source_text}") & spans}
    # … or one whose column, caption or heading names only other accounting years than the question's case is in
    # ("附件10 2025年度各县…待遇标准汇总表", asked "2024年那时候…基础养老金一个月是多少钱")
    # (the years of the case's days only, a date the document's rules can be in force on, not a birth or a first
    # contribution's, "我1962年出生", "2010年开始参保"; the accounting years the question names itself too, "2024年度…
    # 清算金额"; none where the question asks of now, "现在…每月多少")
    years = {y for d in _case_days(case_dates, in_force(doc)) if not _LIFE_EVENT_ZH.match(question, d.end)
             for y in range(d.first.year, d.last.year + 1)}
    if years and not _NOW.search(question):
        years |= {int(y) for y in _ACCOUNT_YEAR.findall(question)}
        elsewhen |= {k for k in named if (at := key_offset(k)) is not None
                     and (own := _ACCOUNT_YEAR.findall(" ".join(period_scopes(doc, at, title=False))))
                     and not {int(y) for y in own} & years
                     and not {int(y) for y in _YEAR_ZH.findall(f"{by_key[k].fact.subject} {by_key[k].fact.predicate} "
                                                               f"{by_key[k].fact.source_text}")} & years}
    # … and, asked one thing at a time of day a period holds, a figure of the same measure stated for no period is the
    # rule for the rest of the day ("表1 巡游车日间运价"'s 起步价 beside "表2 夜间时段（22:00—次日5:00）"'s, asked at 22:30)
    if on_hours and len(question_parts(question)) == 1 and sum(asks for _, asks in asking_sentences(question)) == 1:
        # (not beside a timed addition: "夜间时段附加费 | 起步价附加 2元" is paid on top of the 起步价, no rule in its place)
        timed = [(dimension_of(by_key[k].fact.object_value), _label_words(by_key[k].fact)) for k in on_hours & named
                 if not _ADDITION.search(f"{by_key[k].fact.subject} {by_key[k].fact.predicate} {contexts.get(k, '')}")]
        off_hours |= {k for k in named - on_hours if (words := _label_words(by_key[k].fact)) and any(
            dim == dimension_of(by_key[k].fact.object_value) and timed_words & words for dim, timed_words in timed)}
    named -= former | later | elsewhen | off_hours | off_season
    # a figure the question gives ("我已经62岁了", "uptime was 97.5%") meets a condition; a fact whose value is the
    # threshold of that condition (年满60周岁, below 95.0%) says when something holds, not what the question asks; a
    # cap it falls under ("a medical freeze of up to 6 months", asked "for five months") is what it asks
    given = {m.quantity.dimension for m in find_quantities(undated)
             if not (m.quantity.value == 1 and m.quantity.dimension == "time")}  # 一年, a day: a period
    met = {f.key for f in shortlist if f.key in named and dimension_of(f.fact.object_value) in given
           and (THRESHOLD_PREDICATE.search(f.fact.predicate)
                or meets(_as_stated(f.fact), undated) and "most" not in _fact_ends(f.fact))}
    named -= met
    # what the question gives decides between facts labelled by cases of it (妊娠未满4个月流产的 / 妊娠满4个月流产的,
    # asked "怀孕五个月"; 不满75周岁 / 75周岁及以上, asked "不到75岁"): a fact whose case does not hold it answers another case
    # (a case its clause states after its value is its case too: "3% when the average price is above $4.00 and up to
    # $4.50 per gallon" is not a $4.80 one's)
    cases = {f.key: f"{f.fact.subject} {f.fact.predicate} {trailing.get(f.key, '')}".strip() for f in shortlist
             if f.key in named}
    held = holding(list(cases.values()), undated)
    unmet = {k for k, label in cases.items() if held is not None and label not in held and intervals(label)}
    named -= unmet
    # … and, among facts whose labels state single figures of a kind the question gives one of ("$200 to $499.99
    # 2-year plan" beside "… 3-year plan", asked "two years of VoltCare+"), a label stating another figure of it
    # is another case, when some label states the question's
    figures = {k: _label_figures(label) for k, label in cases.items() if k in named}
    stated = _label_figures(blanked)
    if stated and any(figures[k] & stated for k in figures):
        kinds = {q[:2] for q in stated}
        unmet |= {k for k, fs in figures.items() if not fs & stated and any(f[:2] in kinds for f in fs)}
        named -= unmet
    # … or, a series of single figures ending in a range ("1人户", "2人户", "3人户", "4人及以上户", asked "我家一共5口人"),
    # by the range that holds the question's figure
    elif stated and (ranged := {k for k in figures if intervals(cases[k]) and meets(cases[k], undated)}):
        kinds = {q[:2] for q in stated}
        unmet |= {k for k, fs in figures.items() if k not in ranged and any(f[:2] in kinds for f in fs)}
        named -= unmet
    # … and a fact of no case, of the measure a held case states ("一次性给付津贴5万元" beside "确诊时已年满60周岁的，津贴为
    # 3万元", asked "我已经62岁了"), is the general rule that case overrides, when the question asks one thing and does
    # not name that fact's subject ("在职职工和不到75岁的退休人员")
    overridden: set[str] = set()
    if len(question_parts(question)) == 1:
        held_facts = [by_key[k] for k in meeting & named]
        for f in shortlist:
            words = _label_words(f.fact)
            if f.key in named and f.key not in meeting and not intervals(cases.get(f.key, "")) \
                    and not _names_entity(question, f.fact.subject) and any(
                    dimension_of(g.fact.object_value) == dimension_of(f.fact.object_value)
                    and words & {t for t in _stemmed(g.fact.predicate) if len(t) > 1} for g in held_facts):
                overridden.add(f.key)
    named -= overridden
    # a compound the question uses ("short-term disability", "in-network") and another of the same head in what a
    # fact says it is ("Long-Term Disability Benefits", "out-of-network") name two sibling scopes: the fact is the
    # other one's (unless it names the question's too)
    mine = _compounds(question)
    contrary = {f.key for f in shortlist if f.key in named and mine
                and _contrary(mine, _compounds(f"{f.section} {f.fact.subject} {f.fact.predicate}"))}
    # … as is what a question's "non-" word excludes: the reserved permit, asked the non-reserved one's price
    if excluded := {t[len(NEGATED):] for t in others}:
        contrary |= {f.key for f in shortlist if f.key in named
                     and excluded & _stemmed(f"{f.fact.subject} {f.fact.predicate}")}
    # … and what a Chinese question says its case is not ("插座充电（没单独装表）", "不是最便宜的经济型"): a fact whose
    # subject or predicate names it (not as a case without it, "未单独装表的") is the other case's
    for term in negated_terms_zh(question):
        contrary |= {f.key for f in shortlist if f.key in named and _names_unnegated(
            f"{f.fact.subject} {f.fact.predicate}", term)}
    named -= contrary
    # … and so are two ordinals of one series: "第二套住房" asked of "第一套房", the 2nd checked bag asked of the 1st
    counted = ordinals(question)
    series = {f.key for f in shortlist if f.key in named and other_ordinal(f"{f.fact.subject} {f.fact.predicate}", counted)}
    named -= series
    # a question asking for the most (最多, the maximum) is not answered by a value the document gives as the least
    # (最低, "the minimum weekly benefit … is $50"), nor the other way round
    opposite = {f.key for f in shortlist if f.key in named and len(ends) == 1
                and _fact_ends(f.fact) == {"least", "most"} - ends}
    named -= opposite
    # a statistic of what happened (a 测算's "实际住宿费中位数", the median claim; a figure under a heading reporting a
    # year's operation, "附件14 2024年度分县（区）失业保险待遇发放情况") is no rule's figure: it answers only a
    # question asking for one
    statistic = {f.key for f in shortlist if f.key in named and not STATISTIC.search(question)
                 and (STATISTIC.search(f"{f.fact.subject} {f.fact.predicate}") or not STATISTIC_SECTION.search(question)
                      and (at := key_offset(f.key)) is not None
                      and any(STATISTIC_SECTION.search(h) for h in doc.structure.heading_path(at)))}
    named -= statistic
    # a fact giving a measure as a share of itself ("第二次住院起付线按上述标准的50%计算", "the deductible is 50% of the
    # standard deductible") states a case's rule: beside facts giving that measure in its own dimension it answers
    # only a question naming its case
    own = {f.key: want for f in shortlist if f.key in named and (want := admitted_dimensions(f.fact.predicate))}
    # (unless it names a word the question asks that none of them does: "要乘的系数是多少" of an 额度系数 beside the 最高额度)
    shares = {k for k, (key, dims) in own.items() if dimension_of(by_key[k].fact.object_value) not in dims
              and (measures := [j for j, w in own.items()
                                if w[0] == key and dimension_of(by_key[j].fact.object_value) in w[1]])
              and not _names_entity(question, by_key[k].fact.subject)
              and not {t for t, w in says[k] if w == 1.0 and len(t) > 1}
              - {t for j in measures for t, w in says[j] if w == 1.0}}
    named -= shares
    # a percent of a base its quote names ("第三天及以后每天按上表标准的50%执行") whose label says of what the question
    # asks nothing beyond that base is the base's measure for a case: it answers only a question naming the case,
    # or asking for a share of that base ("累计应付到合同金额的多少"); "an early termination fee equal to 25% of the
    # fees remaining" says "early termination" beyond its base
    based = {f.key for f in shortlist if f.key in named and (base := _share_base(f.fact))
             and {alias.get(t, t) for t in _stemmed(f.fact.predicate)} & asked <= _stemmed(base)
             and not {t for t in _stemmed(base) if len(t) > 1} <= asked
             and not _names_entity(question, f.fact.subject) and not _share_of_asked(question, base)}
    named -= based
    covered: dict[str, float] = {t: 0.0 for t in weight}
    # the asked words of each part of the question ("…的起付线是多少？年度封顶线是多少？")
    asking = question_parts(question)
    # (a part asking by no word of its own asks of the narration before it: "My car got a boot on it. What does it cost
    # to have it taken off, and …?")
    worded = [(words, asked_dimensions(part)) for part, before in zip(asking, _before_parts(question, asking))
              if (words := {alias.get(t, t) for t in _stemmed(part)} & asked
                  or {alias.get(t, t) for t in _stemmed(before)} & asked)]
    # (a part asking only whether, "Does the Council offer a loan for the match funding", beside one asking how much,
    # is no part a fact answers on its own: the figures answer the other)
    whether = [words for part in asking if asks_whether(part)
               and (words := {alias.get(t, t) for t in _stemmed(part)} & asked)]
    # a part asking nothing but the end ("…and what's the most it can add up to?") is answered, while no chosen fact
    # gives that end, by a label naming it ("Maximum fine per item") as a part asking a word is by a label naming it
    end_only = end in weight and len(asking) > 1 and any(
        named_ends(part) == ends and {alias.get(t, t) for t in _stemmed(part)} & asked <= end_words for part in asking)
    parts = [words for words, _ in worded]
    # what each part asks of its own: its words no other part uses ("how long is the waiting period before
    # long-term disability starts" beside "how many weeks can short-term disability be paid": long, period, start)
    # (… less the words the narration before the parts states: "孩子有血友病看门诊慢特病，2025年救助比例是多少？门诊慢特病一年最多
    # 救助多少钱？" scopes both parts to 门诊慢特病, its 救助比例 the 55% of that column, not a 比例 of any column)
    scope = {alias.get(t, t) for x in _before_parts(question, asking) for t in _stemmed(x)} & asked
    apart = [{t for t in part if t not in scope and not any(t in other for other in parts if other is not part)} or part
             for part in parts]
    chosen: list[str] = []
    first = 0.0

    def _untouched(i: int) -> bool:
        """Whether no chosen fact covers a word part i asks of its own by its label or section (a clause may
        mention it); where the part says the kind of value it asks, no chosen fact of that kind (the 年度医疗救助限额's
        30,000元 names 医疗 of "医疗救助能按多少比例再报", and answers no share)."""
        kinds = worded[i][1]
        by = [c for c in chosen if not kinds or _of_a_kind_asked(by_key[c], kinds)]
        return not any(match[c].get(t, 0.0) >= SECTION_WEIGHT for c in by for t in _own_words(i))

    def _own_words(i: int) -> set[str]:
        """The words part i asks of its own, less how it asks for the end ("limit" of "the overall vet fees limit",
        which any maximum answers), unless it asks nothing else."""
        words = {t for t in apart[i] if len(t) > 1}
        return words - end_words or words

    def _part_share(k: str) -> float:
        """The largest share of the weight of an untouched part that fact k matches, naming one of its words
        fully: by its label, or by whom it is about where that is what the part asks of its own ("what is the
        overall vet fees limit", the Vet fees row's Classic cell)."""
        named_fully = {t for t, w in says[k] if w == 1.0 and len(t) > 1} | (about[k] if scoped[k] else set())
        shares = [sum(weight[t] * match[k].get(t, 0.0) for t in part) / sum(weight[t] for t in part)
                  for i, part in enumerate(parts) if part & named_fully and _untouched(i)]
        return max(shares + ([1.0] if _end_part(k) else []), default=0.0)

    # (a fact whose label says nothing the question does not ask, "Classic" of the Vet fees row's cell asked "On the
    # Classic plan, what is the overall vet fees limit", says only the scope: whom it is about is what it measures; not
    # "公示无异议 | 将初审意见报送区县残联期限", which says what else it is)
    scoped = {k: bool(ws := {alias.get(t, t) for t in _stemmed(by_key[k].fact.predicate) if len(t) > 1})
              and ws <= asked for k in match}

    def _about_untouched(k: str) -> bool:
        """Whether fact k is about what a part no chosen fact touches asks of its own, of a kind it asks, its label
        saying only the scope: its answer (the Vet fees row's cell labelled "Classic")."""
        return scoped[k] and any(about[k] & _own_words(i) and _untouched(i)
                                 and (not dims_ or _of_a_kind_asked(by_key[k], dims_))
                                 for i, (_, dims_) in enumerate(worded))

    def _end_part(k: str) -> bool:
        """Whether fact k's label names the end asked, which a part asks alone and no chosen fact gives yet."""
        return end_only and match[k].get(end) == 1.0 and covered[end] < SECTION_WEIGHT

    def _kind_unanswered(k: str) -> bool:
        """Whether fact k gives the kind of value a part asks ("how many nights of temporary accommodation", a time)
        and no chosen fact gives, naming fully a word that part asks of its own: a caption's words a chosen fact of
        another kind shares (the nightly cap's "Temporary accommodation") leave that part unanswered."""
        return bool(own_words) and any(_of_a_kind_asked(by_key[k], dims) and not any(
            _of_a_kind_asked(by_key[c], dims) for c in chosen)
                                       and any(w == 1.0 and t in part for t, w in says[k] if len(t) > 1)
                                       for part, (_, dims) in zip(apart, worded))

    def _beside(k: str) -> bool:
        """Whether fact k stands in the sentence of a chosen fact and names fully a word of a part no chosen fact
        touches: the same provision answering another part ("…terminate for convenience on 180 days' notice,
        subject to an early termination fee equal to 25%…", asked the notice and the fee)."""
        quote = by_key[k].fact.source_text
        return any(by_key[c].fact.source_text == quote for c in chosen) and any(
            w == 1.0 and len(t) > 1 and any(t in part and _untouched(i) for i, part in enumerate(parts))
            for t, w in says[k])

    # one value answers one part of a question asking several ("街道多少个工作日内要把初审做完？村里公示要挂几天？"): a
    # fact weighs by the words the parts share and those of the one part it answers best, not by words of two
    # parts its label happens to hold ("公示…的，将初审意见…报送期限" is neither the 初审 deadline nor the 公示 period)
    # … and only a part asking its kind of value ("…最晚哪天之前要交？" is not answered by a price)
    own_words = set().union(*apart) if len(apart) > 1 and all(dims for _, dims in worded) else set()

    def _gain(k: str) -> float:
        def add(words) -> float:
            return sum(weight[t] * max(0.0, m - covered[t]) for t, m in match[k].items() if t in words)
        common = add(match[k].keys() - own_words)
        if not own_words:
            return round(common, 9)
        return round(common + max((add(part) for part, (_, dims) in zip(apart, worded)
                                   if _of_a_kind_asked(by_key[k], dims)), default=0.0), 9)

    listed = [{alias.get(t, t) for t in _stemmed(x)} & asked for x in listed_items(question)]
    # the words of the sentences that ask (a question may narrate its case first: "Our manufacturing company has 140
    # employees … — what rate and maximum grant apply?")
    asking_words = {t for x, asks in asking_sentences(question) if asks
                    for t in {alias.get(w, w) for w in _stemmed(x)} & asked if len(t) > 1 and not t.startswith("<")}
    asking_total = sum(weight[t] for t in asking_words) or total

    def _co_measure(k: str, g: float) -> bool:
        """Whether fact k gives another measure that a part of the asking sentences the chosen facts answer names
        ("what rate and maximum grant apply?": the rate beside the maximum grant), of an entity a chosen fact is
        about, adding enough of what those sentences ask, however little of the narrated case's weight; and nothing
        else (a fact adding a word of the narrated case, 白沙市 beside the 银滩县 of the chosen fact's class, is of
        another entity)."""
        asking_gain = sum(weight[t] * max(0.0, m - covered[t]) for t, m in match[k].items() if t in asking_words)
        return asking_gain >= MIN_GAIN * asking_total and asking_gain >= g - 1e-9 and any(
            w == 1.0 and t in asking_words and covered[t] < SECTION_WEIGHT
            and any(t in part and not _untouched(i) for i, part in enumerate(parts)) for t, w in says[k]) \
            and any(same_entity(by_key[k].fact.subject, by_key[c].fact.subject) for c in chosen)

    while True:
        whom = set().union(*(about[k] for k in chosen))  # the asked words the chosen facts are about
        gains = {k: _gain(k) for k in named if k not in chosen}
        if chosen:
            # after the first round only a fact that names, in what it says it is, an asked word no chosen fact
            # names so is another part of the question ("…起付线是多少？统筹能报多大比例？"); one that adds only its
            # subject's or clause's words answers something else
            gains = {k: g for k, g in gains.items()
                     if any(w == 1.0 and covered[t] < SECTION_WEIGHT and len(t) > 1 for t, w in says[k]) or _end_part(k)
                     or _kind_unanswered(k) or _about_untouched(k)}
            if any(about[k] for k in chosen):
                # the first facts are about someone the question names: so must the later ones be, or about an
                # entity a chosen fact is about, unless they answer a part of the question no chosen fact touches
                # ("what is the excess on that?" is not answered by what "we also pay"; each level's 起付线 comes
                # with each level's 报销比例; "the mileage rate, and how soon must reports be submitted?")
                subjects = {by_key[k].fact.subject for k in chosen}
                # (a thing the question lists, "起付线和报销比例分别是多少", is a part of its own)
                # (a single Chinese character a chosen fact's label holds, 月 of "6月30日", touches no part)
                open_ = {t for part in parts + listed if all(covered[t] == 0 for t in part if len(t) > 1) for t in part}
                gains = {k: g for k, g in gains.items() if about[k] or any(t in open_ for t, _ in says[k])
                         or any(same_entity(by_key[k].fact.subject, s) for s in subjects)}
                # of the facts saying the same thing, those about whom a chosen fact is about answer for them; one
                # about another of the question's words only ("part-time staff": Class 2's "Salaried staff" beside
                # Class 4's "Part-time employees") is another entity's, unless the question names it in full
                ours = {says[k] for k in gains if about[k] & whom}
                gains = {k: g for k, g in gains.items() if says[k] not in ours or not about[k] or about[k] & whom
                         or _names_entity(question, by_key[k].fact.subject)}
        best = max(gains.values(), default=0.0)
        first = first or best
        if best <= 0:
            break
        if best < MIN_GAIN * total and best < FIRST_RATIO * first:
            # a part of the question no chosen fact touches yet ("…起付线是多少？统筹能报多大比例？") is answered on
            # its own: a fact covering most of that part's weight joins, however little of the whole it weighs
            # (… else a fact giving another measure the answered part names, of the same entity: _co_measure)
            gains = {k: g for k, g in gains.items() if g > 0 and (_part_share(k) >= PART_SHARE or _beside(k))} \
                or {k: g for k, g in gains.items() if g > 0 and _co_measure(k, g)}
            if not gains:
                break
            best = max(gains.values())
        top = max(sorted(k for k in gains if gains[k] == best), key=lambda k: (len(says[k]), len(about[k] & whom)))
        # a peer about another entity the question names, in full or by a range holding what it gives, comes
        # however few words that entity's name has ("在职职工和不到75岁的退休人员": 在职职工 is shorter)
        # … but not one about fewer of the things the question names and none of its own (女职工's 1500元 beside
        # the 男职工 spouse's 800元 asked by 男职工: it shares 职工 and names nothing the best does not)
        round_ = [k for k, g in gains.items() if says[k] == says[top] and not about[k] < about[top]
                  and (g >= PEER_RATIO * best or g > 0 and _names_entity(question, by_key[k].fact.subject))] or [top]
        for k in round_:
            for t, m in match[k].items():
                covered[t] = max(covered[t], m)
        chosen += round_
    # a part answered only by a fact that answers another part too ("首小时收多少？后面每30分钟又收多少？": "白天首小时后每30分钟"
    # names 首小时 beside the second part's 每30分钟) is answered by its own fact of the same entity, whose label names
    # what that fact names of the part and nothing the other parts ask of their own ("白天首小时")
    def _take_best(gains: dict[str, float]) -> None:
        """Choose the facts of the best gain among gains (none where it is empty), covering what they match."""
        best = max(gains.values(), default=None)
        for k in sorted(k for k, g in gains.items() if g == best):
            chosen.append(k)
            for t, m in match[k].items():
                covered[t] = max(covered[t], m)

    for i in range(len(parts)) if len(parts) > 1 else ():
        own = _own_words(i)
        others = set().union(*(_own_words(j) for j in range(len(parts)) if j != i))
        touching = [c for c in chosen if any(match[c].get(t, 0.0) >= SECTION_WEIGHT for t in own)]
        if not touching or not all(any(match[c].get(t, 0.0) >= SECTION_WEIGHT for t in others) for c in touching):
            continue
        kinds = worded[i][1]
        named_by = {t for c in touching for t in own if match[c].get(t, 0.0) == 1.0}
        fits = {k: sum(weight[t] * match[k].get(t, 0.0) for t in parts[i]) for k in named if k not in chosen
                and named_by and all(match[k].get(t, 0.0) == 1.0 for t in named_by)
                and not any(match[k].get(t, 0.0) >= SECTION_WEIGHT for t in others)
                and (not kinds or _of_a_kind_asked(by_key[k], kinds))
                and any(same_entity(by_key[k].fact.subject, by_key[c].fact.subject) for c in touching)}
        _take_best(fits)
    # a question listing the things it asks each of ("伙食补助和市内交通补助分别是多少", "市里和区里分别会给我补贴多少") is
    # answered for each: an item no chosen fact names in full is answered by the facts that do, of a kind a chosen
    # fact gives, best over the item's words and those the question asks of all its items (the 起付线 of
    # "在职职工和退休人员的起付线", not the 退休人员's other figures); a single character listed is a word there (市, 区)
    items = listed if chosen else []
    shared = asked - set().union(*items) if items else set()
    for words in items:
        if not words or any(all(match[c].get(t, 0.0) >= 1.0 for t in words) for c in chosen):
            continue
        kinds_chosen = {dimension_of(by_key[c].fact.object_value) for c in chosen}
        gains = {k: sum(weight[t] * match[k].get(t, 0.0) for t in words | shared) for k in named
                 if k not in chosen and all(match[k].get(t, 0.0) >= 1.0 for t in words)
                 and dimension_of(by_key[k].fact.object_value) in kinds_chosen}
        _take_best(gains)
    # a part asking a kind of quantity no chosen fact gives ("生育保险能报多少钱" beside the days of leave chosen) is
    # answered by a held case's value of that kind: the question's figure singled that case out
    # (… as is each ask a part lists: "每个月能领多少钱、一共能领几个月", the months by the ask's words)
    asks = []
    for part in question_parts(question):
        each = listed_asks(part)
        asks += each if len(each) > 1 else [part]
    for part in asks if meeting and chosen else ():
        wants = asked_dimensions(part)  # (the question's dims stay for the reasons below)
        if wants and not any(dimension_of(by_key[k].fact.object_value) in wants for k in chosen):
            held = {k: sum(weight[t] * m for t, m in match[k].items())
                    for k in sorted(meeting & named) if k not in chosen
                    and dimension_of(by_key[k].fact.object_value) in wants}
            chosen += [k for k, g in held.items() if g == max(held.values())]
    # a question narrating its case before it asks ("I'm on Platinum and off to Cancún for a fortnight. If I crack a
    # filling and need an emergency dentist there, what's the most you'll pay?") asks by the words of the sentences
    # holding its question: where a shortlisted fact's label names one of them, a chosen fact whose label names only
    # the narrated case's words answers another question about that case (the Platinum plan's premium for those aged
    # 80 and over, "renewal only"); all of an asking sentence asks ("For the licence year that ended on 31 March 2025,
    # what was the fee…" asks a licence's fee)
    narrated_only: set[str] = set()
    if asking_words and asked - set().union(*parts) - {"<given>", "<measure>", end}:
        # (a table cell's row label may be the measure and its column the case: "Valuables — single item limit | Plus";
        # of the kind of quantity asked, where the question says which: not a count of opinions for "按多少比例")
        def _says_asked(k: str) -> bool:
            return any(w >= SECTION_WEIGHT and (t in asking_words or t == "<measure>") for t, w in says[k]) \
                or bool(about[k] & asking_words) and (dims is None or dimension_of(by_key[k].fact.object_value) in dims) \
                or end in weight and match[k].get(end, 0.0) >= SECTION_WEIGHT

        # (… unless a sentence asks by no word of its own, "他能领多少？", "What will it cost?": it asks of what the
        # narration before it says; a word asking an amount, as 多少钱 does, names nothing it is of)
        bare = any(not {t for w in _stemmed(x) if len(t := alias.get(w, w)) > 1 and t in asked
                        and t not in AMOUNT_ASKED_EN}
                   for x, asks in asking_sentences(question) if asks)
        if not bare and any(_says_asked(k) for k in named):
            narrated_only = {k for k in chosen if not _says_asked(k)}
            chosen = [k for k in chosen if k not in narrated_only]
    floor = MIN_COVER if all(t.isascii() for t in asked) else MIN_COVER_ZH
    # (what the question narrates of its case and does not ask by, "我在北岸区红星镇的砖厂干了二十多年，交了22年失业保险，
    # 2025年初厂子关了。", may weigh less toward how much of it the chosen facts cover than what it asks by; not where the
    # facts cover the narrated case better than the asking sentences, "评估为重度失能三级…接受入住式护理。…按多少比例报？")
    said = {asks: {alias.get(w, w) for x, a in asking_sentences(question) if a == asks for w in _stemmed(x)}
            for asks in (True, False)}
    narrated = (asked & said[False]) - said[True] if said[True] else set()

    def share(words) -> float:
        def part(light: float) -> float:
            weights = {t: weight[t] * (light if t in narrated else 1.0) for t in words}
            return sum(weights[t] * covered[t] for t in words) / (sum(weights.values()) or 1.0)

        return max(part(1.0), part(NARRATED_WEIGHT))

    scant: list[str] = []
    if share(asked) < floor and not (len(parts) > 1 and any(share(part) >= floor for part in parts
                                                             if part not in whether or len(whether) == len(parts))):
        # what the question asks most of (its rarest words) is in no fact: the facts share only its scope; a
        # question asking two things may be answered in one of them ("…起付线是多少？统筹能报多大比例？")
        scant, chosen = chosen, []
    reasons = {k: (f"its value is not a {' or '.join(sorted(dims or ()))} quantity, which the question asks for"
                   if k in wrong else
                   "it is a figure of a worked example or of a question the document poses, not of its rule"
                   if k in example else
                   "its value numbers a name in its clause (\"Euro 6\"), no quantity" if k in name_numbers else
                   "it is a count about a member of the table placing members in classes, which the question does not "
                   "ask" if k in attribute else
                   "it is the former value of a change, which the document replaced" if k in former else
                   "it is the rule in force after the date the question gives" if k in later else
                   "it is the rule of another period than the day or year the question gives" if k in elsewhen else
                   "it is the rule of another time of day than the one the question gives" if k in off_hours else
                   "it is the rule of another season than the month the question gives" if k in off_season else
                   "its value is the threshold of a condition that a figure the question gives meets" if k in met else
                   "its label is a case that what the question gives does not fall in" if k in unmet else
                   "it is the general rule, and what the question gives falls in a case of its own" if k in overridden
                   else
                   "it is about a sibling of what the question names (long-term beside short-term)" if k in contrary else
                   "it is another of a series than the one the question names (第二套 beside 第一套)" if k in series else
                   f"it is the {'least' if 'most' in ends else 'most'} where the question asks for the "
                   f"{next(iter(ends), '')}" if k in opposite else
                   "it is a statistic of what happened (a median, a mean, a year's operation), which the question does "
                   "not ask for"
                   if k in statistic else
                   "its value is a share of the measure other facts give, for a case the question does not name"
                   if k in shares else
                   "its value is a share of a base its quote names, for a case the question does not name"
                   if k in based else
                   "with the facts chosen beside it, it covers too little of what the question asks (at most its "
                   "scope)" if k in scant else
                   "its label names only the case the question narrates, nothing its question asks" if k in narrated_only
                   else
                   "its label says nothing the question asks for (at most who it is about)" if k not in named
                   else "it adds too little of what the question asks to the facts chosen")
               for k in match if k not in chosen}
    return chosen, reasons


def choose(job: Job, doc: Document, shortlist: list[IndexedFact], contexts: dict[str, str]) -> list[IndexedFact]:
    """The shortlisted facts that answer job's question, in shortlist order; contexts holds each fact's evidence
    as the model saw it (section, headers, clause) by key.

    The question's words decide first (cover): the facts that together answer them, the others left out with
    the reason. When no shortlisted fact shares a word with the question, the lexicon's predicate words decide
    what they can and the model's grammar-constrained yes/no the rest, as below.
    """
    question = job.answer.asked
    lang = doc.language
    # a fact for another of the names a document defines by their members than the one the question's member is
    # in (北塘区 is in 二类区域: a 一类区域 figure is another area's) answers another question
    implied, siblings = implied_names(question, doc)
    apart: dict[str, str] = {}
    for f in shortlist if siblings else []:
        # (its label first: a table cell's context holds every column's header, "Band A | Band B | Band C")
        # (each kind apart: a Band A cell of the Zone 2 column is another band's where the question implies Band C
        # and Zone 2)
        # (the value's own clause names whom it is for first: "A档、B档员工8%" is another grade's whatever its label
        # says, "C档、D档员工5%" labelled D档 is C档's too)
        clause = _clause_before(f.fact)
        own = {n for n in implied if _names(clause, n)}
        if other := next((o for o in sorted(siblings) if _names(clause, o)
                          and not any(_of_a_kind(doc, o, n) for n in own)), None):
            apart[f.key] = other
            continue
        for said in (f"{f.fact.subject} {f.fact.predicate}", contexts.get(f.key, f.fact.source_text)):
            hit = own | {n for n in implied if _names(said, n)}
            if other := next((o for o in sorted(siblings) if _names(said, o)
                              and not any(_of_a_kind(doc, o, n) for n in hit)), None):
                apart[f.key] = other
                break
            if hit:
                break
    # a table row keyed by other members of a name the question implies by its own ("| 三亚、海口 | 二类城市 | 30% | 715 |"
    # where the question goes to 成都, of 二类城市 too) is those members' case: the question's is the name's own row
    for f in shortlist if implied else []:
        if f.key not in apart and (others := other_members(question, doc, f.key, implied)):
            apart[f.key] = ('、' if lang == 'zh' else ', ').join(others)
    # … and, asked of days either side of a change that moved the question's member to another class, a figure of its
    # former class is the former rule's, one of its current class the current rule's ("芦花村 … 2025年2月和2025年6月":
    # 三类's 原标准, 二类's 新标准)
    # (where the figures have one edition, the move alone changes the class: each class's figure is one day's)
    was, now = classes_then_and_now(question, doc)
    olds = {f.key: bool(FORMER_HEADER.search(f"{f.fact.subject} {f.fact.predicate}"))
            or (at := key_offset(f.key)) is not None and superseded(doc, at, len(f.fact.object_value))
            for f in shortlist} if was else {}
    for f in shortlist if was and (any(olds.values()) or _editions(doc, was | now)) else []:
        said = f"{f.fact.subject} {f.fact.predicate}"
        old = olds[f.key]
        then_named, now_named = any(_names(said, n) for n in was), any(_names(said, n) for n in now)
        if f.key not in apart and then_named != now_named and old != then_named:
            apart[f.key] = (f"{next(n for n in sorted(was | now) if _names(said, n))} "
                            + ("under the current rule" if then_named else "under the former rule"))
    for f in shortlist:
        if f.key in apart:
            job.answer.skip([f], f"it is for {apart[f.key]}, and what the question names is in "
                                 f"{('、' if lang == 'zh' else ', ').join(sorted(implied))}")
    shortlist = [f for f in shortlist if f.key not in apart]
    if not shortlist:
        return []
    covering = cover(question, doc, shortlist, contexts)
    if covering is not None:
        chosen, reasons = covering
        return _decide(job, lang, question, shortlist, {f.key: f.key in chosen for f in shortlist}, reasons, [])
    asked = asked_predicates(question)
    # a question that names what it asks for in every part ("起付线和报销比例…？年度封顶线…？") is answered by the
    # facts whose predicate names it; one with a part the lexicon does not know ("… and how soon must reports be
    # submitted?") leaves the facts it cannot place to the model, unless their evidence mentions nothing asked
    explicit = bool(asked) and all(asked_predicates(part) for part in question_parts(question))
    decided: dict[str, bool] = {}
    reasons: dict[str, str] = {}
    ask = []
    for f in shortlist:
        if predicate_asked(f.fact.predicate, question):
            decided[f.key] = True
        elif explicit:
            decided[f.key] = False
            reasons[f.key] = f"its predicate names none of what the question asks for ({', '.join(asked)})"
        elif asked and not any(w in contexts.get(f.key, f.fact.source_text).lower() for w in asked):
            decided[f.key] = False
            reasons[f.key] = f"its evidence does not mention what the question asks for ({', '.join(asked)})"
        else:
            ask.append(f)
    return _decide(job, lang, question, shortlist, decided, reasons, ask)


def _decide(job: Job, lang: str, question: str, shortlist: list[IndexedFact], decided: dict[str, bool],
            reasons: dict[str, str], ask: list[IndexedFact]) -> list[IndexedFact]:
    """The model's yes/no for the facts in ask (all in flight at once), then the chosen facts in order; the
    others are recorded as skipped with their reason."""
    if ask:
        grammar = pick_grammar(lang)
        handles = [job.submit(job.render(pick_prompt(question, fact_line(f.fact.subject, f.fact.predicate,
                                                                          f.fact.object_value, f.section), lang)),
                              grammar, PICK_MAX_TOKENS) for f in ask]
        job.emit(State.EXTRACT, f"{len(decided)} fact(s) chosen by predicate, {len(ask)} relevance decision(s) "
                                f"in flight")
        for f, c in zip(ask, job.wait(handles)):
            decided[f.key] = is_yes(c.text, lang)
    out = []
    for f in shortlist:
        if decided.get(f.key):
            out.append(f)
        else:
            job.answer.skip([f], reasons.get(f.key, "the model judged it does not answer the question"))
    return out
