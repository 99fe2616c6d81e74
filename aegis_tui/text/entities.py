"""Subject names: fuzzy mentions of an entity in text and whether two subject strings name the same entity."""

from __future__ import annotations

import os
import re
import threading
from functools import lru_cache

from .lexicon import (
    AGENT_ENDINGS_EN,
    ASKING_VERBS_ZH,
    CJK_RANGE,
    CLITICS_EN,
    DERIVING_SUFFIXES_EN,
    FIELD_ENDINGS_EN,
    IRREGULAR_EN,
    NUMBERED_NAME_EN,
    NUMERALS_ZH,
    PARTICLE_ENDINGS_ZH,
    PARTY_SUFFIXES_EN,
    PERIODS_EN,
    QUESTION_WORDS,
    SERIES_NAMES_EN,
    STOP_EN,
    SUBJECT_ALIASES,
)
from .quantity import parse_quantity, width_fold

# ---- Chinese words ----------------------------------------------------------------------------------------------
CJK_RUN = re.compile(f"[{CJK_RANGE}]+")  # a run of Chinese characters


_SEGMENTER: list = []
_SEGMENTER_LOCK = threading.Lock()


def _segmenter():
    with _SEGMENTER_LOCK:
        return _segmenter_locked()


def _segmenter_locked():
    """The segmenter, loaded on first use; the caller holds _SEGMENTER_LOCK."""
    if not _SEGMENTER:
        import logging
        import warnings

        with warnings.catch_warnings():  # (it imports pkg_resources where it can, which newer setuptools warns of)
            warnings.simplefilter("ignore")
            import jieba  # (lazy: its dictionary takes about a second to load, once a process)
        jieba.setLogLevel(logging.CRITICAL + 10)  # (it logs its loading, and a cache it cannot write, at length)
        tokenizer = jieba.Tokenizer()
        tokenizer.initialize()
        _SEGMENTER.append(tokenizer)
    return _SEGMENTER[0]


_TAGS: list = []


def _tag(word: str) -> str:
    """The part of speech the segmenter's dictionary gives a word ("用": p, a preposition; "收": v, a verb); '' for a
    word it does not hold. Its table (the dictionary's own, read once a process) comes with the segmenter."""
    with _SEGMENTER_LOCK:
        if not _TAGS:
            import jieba.posseg

            _TAGS.append(jieba.posseg.POSTokenizer(_segmenter_locked()).word_tag_tab)
    return _TAGS[0].get(word, "")


def load_segmenter(text: str, background: bool = False) -> None:
    """Load the Chinese word segmenter and its part-of-speech table now, when a text holds Chinese: they take about
    a second and a third, once a process, better spent while a model loads or a document opens than in a question's
    answer."""
    if _SEGMENTER and _TAGS or not CJK_RUN.search(text):
        return
    if background:
        threading.Thread(target=_load_segmenter, name="aegis-segmenter", daemon=True).start()
    else:
        _load_segmenter()


def _load_segmenter() -> None:
    _segmenter()
    _tag("")  # (the part-of-speech table seams reads, loaded beside the segmenter)


def _particle_apart(word: str) -> list[str]:
    """A two-character word whose second character is a locative or a complement ("县里", "扣掉"), or both of whose
    characters are modals ("才能"), or a modal and the verb after it that the segmenter joined by guess, not from its
    dictionary ("能补", "能贷", "要交"; not 能力, 要求, 会议), as its two characters; a unit ("公里") and any other word
    whole."""
    if len(word) == 2 and (word[1] in PARTICLE_ENDINGS_ZH and parse_quantity("1" + word) is None
                           or word[0] in ASKING_VERBS_ZH and word[1] in ASKING_VERBS_ZH
                           or word[0] in ASKING_VERBS_ZH and _segmenter().FREQ.get(word, 0) < GUESSED_WORD_FREQ):
        return [word[0], word[1]]  # (two modals together, "才能" of "多少天才能按丢件处理", are how it asks too)
    return [word]


GUESSED_WORD_FREQ = 50  # a word the segmenter's dictionary counts fewer times is one it guessed ("会扣": 3)


def seams(text: str) -> set[str]:
    """The Chinese character pairs of a text that only ever straddle two of its words of two characters or more
    ("提取申请没通过" → 取申; "老婆怀孕" → 婆怀), as a dictionary segmenter splits it: no word of the text, though a
    document may hold them by chance. A one-character word is no whole word of its own here: it may be what tells
    the next apart ("男职工" is 男 and 职工, and 男职 is what the question asks by); unless it is a modal or light
    verb (能 of "补助金能拿多少": 金能 and 能拿 are no words), a preposition, which tells nothing apart but introduces
    the word after it ("用公积金": 用公 is no word), or a verb ending its clause after a word it acts on ("按什么标准收",
    "上门做的": 准收 and 门做 are no words); the part of speech is the segmenter's dictionary's."""
    inside, across = set(), set()
    for run in CJK_RUN.findall(text):
        words = [p for w in _segmenter().cut(run) for p in _particle_apart(w)]
        for w in words:
            inside.update(a + b for a, b in zip(w, w[1:]))
        # (a modal, light verb or particle standing alone, 能 of 补助金能拿, 了 of 买了, is how a question asks, as
        # English "can", "get", "did": a pair it makes with a neighbour is no word either)
        # (nor one a question word makes with the word before it: 贷多 of 能贷多少)
        for k, (x, y) in enumerate(zip(words, words[1:])):
            after = words[k + 2] if k + 2 < len(words) else ""
            # (… nor one a word ending in a modal makes, "最多能" of 最多能贷; nor an adverb or conjunction standing alone
            # before the word it introduces: 再申 of "再申请", 就去)
            if len(x) > 1 and len(y) > 1 or x in ASKING_VERBS_ZH or y in ASKING_VERBS_ZH or QUESTION_WORDS.match(y) \
                    or len(x) > 1 and x[-1] in ASKING_VERBS_ZH and x[-1] != "了" \
                    or len(x) == 1 and _tag(x) == "p" \
                    or len(x) > 1 and len(y) == 1 and _tag(y) == "v" and (not after or after in _CLAUSE_END_ZH):
                across.add(x[-1] + y[0])
    return across - inside


_CLAUSE_END_ZH = frozenset("的了吗呢")  # (particles after a clause's last verb: "上门做的", "能报吗")


def abbreviated(text: str, names: list[str], least: int = 4) -> list[str]:
    """The longest stretches of a text's Chinese runs, of `least` characters or more, that are a name or shorten it
    as Chinese shortens names: its characters, in its order, some left out ("居民医保门诊慢特病" of
    "城乡居民基本医疗保险门诊慢性病和特殊疾病待遇管理实施细则")."""
    def shortens(s: str, name: str) -> bool:
        it = iter(name)
        return all(c in it for c in s)

    out: list[str] = []
    for run in CJK_RUN.findall(text):
        i = 0
        while i <= len(run) - least:
            j = i
            while j < len(run) and any(shortens(run[i:j + 1], n) for n in names):
                j += 1
            if j - i >= least:
                out.append(run[i:j])
                i = j
            else:
                i += 1
    return out


# ---- numbered series: "Class 1", "Classes 2 and 3", "Tiers 1-3" ------------------------------------------------
def series_name(word: str) -> str:
    """A series name in the singular, lower-cased ("Classes" → class, "Severities" → severity); '' for a word that
    names no series."""
    w = word.lower()
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith(("sses", "xes", "zes", "ches", "shes")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    return w if w in SERIES_NAMES_EN else ""


def series_spans(text: str) -> list[tuple[int, int]]:
    """Where a text names members of a numbered series ("Classes 2 and 3"): one name, whose "and" joins no
    clauses."""
    return [m.span() for m in NUMBERED_NAME_EN.finditer(text) if series_name(m.group(1))]


# ---- subjects: fuzzy mentions ---------------------------------------------------------------------------------
_TOKEN = re.compile(f"[{CJK_RANGE}]|[a-z0-9]+")


@lru_cache(maxsize=4096)
def units(text: str) -> tuple[str, ...]:
    """Comparable units of a name: CJK characters and ASCII words (lower case, plural 's' dropped)."""
    return tuple(t for t, _, _ in _tokens_with_pos(text))


def stem(word: str) -> str:
    """A light English stem, so that derived forms of one word compare equal (reimbursed ~ reimbursement ~
    reimburse, entertaining ~ entertainment, wiring ~ wire ~ wired, stopped ~ stop, response ~ respond); other text
    is returned lower-cased."""
    w = word.lower()
    if w in IRREGULAR_EN:
        return IRREGULAR_EN[w]
    out = w
    for suf in ("ement", "ment", "ing", "ed", "es", "s", "al"):  # (accidental ~ accident, renewal ~ renew)
        # a verb ending keeps a stem of three letters ("wiring", "rated"), not "speed" or "using"
        short = suf in ("ing", "ed") and len(w) - len(suf) >= 3 and not w.endswith("eed")
        if (len(w) > len(suf) + 3 or short) and w.endswith(suf) and not (suf == "s" and w.endswith("ss")):
            # (a word ending in "ss" is no plural: class ~ classes, business ~ businesses)
            out = w[: -len(suf)]
            if suf in ("ing", "ed"):
                out = _verb_stem(out)
            break
    if len(out) >= 5 and out.endswith("e") and out[-2] not in _VOWELS:
        out = out[:-1]  # reimburse ~ reimburs(ed), receive ~ receiv(ing); not "care" beside "car"
    if len(out) >= 6 and out.endswith("ns"):
        out = out[:-1] + "d"  # the Latin pairs: response ~ respond, expense ~ expend, defense ~ defend
    elif len(out) >= 7 and out.endswith("olution"):
        out = out[:-5] + "v"  # … resolution ~ resolve, solution ~ solve
    elif len(out) >= 6 and out.endswith("eipt"):
        out = out[:-2] + "v"  # … receipt ~ receive
    return out


_VOWELS = frozenset("aeiouy")


def derived(a: str, b: str) -> bool:
    """Whether one English stem begins the other as the same word differently derived: by two letters or more,
    or by a final e."""
    short, long_ = sorted((a, b), key=len)
    extra = long_[len(short):]
    # (not by an ending that makes a party of it: cash / cashier, employ / employer)
    return long_.startswith(short) and (len(extra) >= 2 or extra == "e") and extra not in PARTY_SUFFIXES_EN


def kin(a: str, b: str) -> bool:
    """Whether two English stems are one word with different endings (redundant ~ redundancy, respond ~
    response): they share six letters or more and all but the last three of the shorter, and neither ending
    makes a party of it (employer / employee) — save a practitioner beside the field he practises (chiropractor
    ~ chiropractic)."""
    p = len(os.path.commonprefix((a, b)))
    ends = {a[p:], b[p:]}
    return p >= 6 and p >= min(len(a), len(b)) - 3 and (not ends & AGENT_ENDINGS_EN or bool(ends & FIELD_ENDINGS_EN))


def derivations(term: str, words, suffixed: bool = False) -> set[str]:
    """The English words among words that are term differently derived (mileage ~ mile, redundant ~ redundancy),
    as cover matches a question's word to the document's; none for a word under four letters. suffixed: only by
    an ending that derives words ("-age", "-ation"), not a shortening ("grad" ~ graduate) nor what may be a
    compound ("house" ~ household) — the reading that widens a search, not the one that matches a shortlist."""
    if not term.isascii() or len(term) < 4:
        return set()
    return {v for v in words if v != term and v.isascii() and len(v) >= 4 and (
        kin(term, v) or derived(term, v) and (not suffixed or _suffixed(term, v))) and not _compound(term, v, words)}


def compounds(term: str, words) -> set[str]:
    """The English words among words that are term joined to another of them ("household" of house and hold): what
    names a thing where nothing names it by its own word."""
    if not term.isascii() or len(term) < 4:
        return set()
    return {v for v in words if v != term and v.isascii() and v.startswith(term) and _compound(term, v, words)}


def _suffixed(a: str, b: str) -> bool:
    short, long_ = sorted((a, b), key=len)
    return long_[len(short):] in DERIVING_SUFFIXES_EN or long_ == short + "e"


def _compound(a: str, b: str, words) -> bool:
    """Whether the longer of two words is the shorter joined to another word of the text, not derived from it:
    "household" is house and hold where the text holds "hold" (not "mileage": -age derives)."""
    short, long_ = sorted((a, b), key=len)
    rest = long_[len(short):]
    # (a stem that lost its final e: "hous" of house, "ehold")
    word = rest[1:] if rest[:1] == "e" and rest[1:] in words else rest
    return long_.startswith(short) and len(word) >= 3 and word not in DERIVING_SUFFIXES_EN and word in words


def _verb_stem(base: str) -> str:
    """The stem a verb ending left, as its other forms stem: a doubled consonant undone ("stopp" → stop; not
    "bill", "pass"), a dropped "e" restored to a short stem ("wir" → wire, "rat" → rate)."""
    if len(base) >= 3 and base[-1] == base[-2] and base[-1] not in _VOWELS and base[-1] not in "lsfz":
        return base[:-1]
    if len(base) == 3 and base[0] not in _VOWELS and base[1] in _VOWELS and base[2] not in _VOWELS | set("wx"):
        return base + "e"
    return base


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _tokens_with_pos(text: str) -> list[tuple[str, int, int]]:
    out = []
    for m in _TOKEN.finditer(width_fold(text).lower()):
        w = m.group()
        if w in STOP_EN:
            continue
        out.append((_singular(w), m.start(), m.end()))
    return out


def _bound(token: str) -> bool:
    """A token that is no word alone: a bare number or one Chinese character."""
    return token.isdigit() or len(token) == 1 and not token.isascii()


def paired_units(text: str, start: int = 0, end: int | None = None, *, singles: bool = False) -> frozenset[str]:
    """The words of text[start:end] as a paraphrase would share them: English words by their stems; Chinese
    characters and bare numbers joined to a neighbour they touch ("三级" of 三级医院, "8年" of 满8年, "购买" of
    多子女家庭购买). One character is no word: the 一 of 一类城市 is not the 一 of 一个月, nor the 多 of 多子女 the 多
    of 最多. A span that is one such token takes its neighbours outside the span ("一" setting 一类城市 apart from
    二类城市 is "一类"), and a character other than a numeral stands for itself there too (月 of 月限额 beside
    年限额). singles: every unit stands for itself as well (a question, read against headers set apart by one).
    A clitic ("'s" of What's, Master's) is no word."""
    end = len(text) if end is None else end
    toks = [t for t in _tokens_with_pos(text) if not (t[0] in CLITICS_EN and text[t[1] - 1:t[1]] in ("'", "’"))]
    inside = {k for k, (_, s, e) in enumerate(toks) if s < end and e > start}
    out = {stem(toks[k][0]) for k in inside if singles or not _bound(toks[k][0])}
    lone = len(inside) == 1
    if lone and (only := toks[min(inside)][0]) not in NUMERALS_ZH and not only.isdigit():
        out.add(only)
    for k in range(len(toks) - 1):
        (a, _, a_end), (b, b_start, _) = toks[k], toks[k + 1]
        if a_end == b_start and (_bound(a) or _bound(b)) \
                and ({k, k + 1} <= inside or lone and {k, k + 1} & inside):
            out.add(a + b)
    # the period an English measure is counted over, however worded ("monthly" ~ "per month" ~ "a month")
    out.update(name for name, pattern in PERIODS_EN for m in pattern.finditer(text) if m.start() < end and m.end() > start)
    return frozenset(out)


# Chinese characters a name may carry that its mention leaves out: the classifier 类 ("工程类项目" is named by
# "工程项目", "货物类采购" by "货物采购") and the possessive 的 ("退休人员的门诊" by "退休人员门诊")
_OPTIONAL_ZH = frozenset("类的")


@lru_cache(maxsize=4096)
def _variants(subject: str) -> tuple[tuple[str, ...], ...]:
    out = [units(subject)]
    low = subject.lower()
    for alias, term in SUBJECT_ALIASES.items():
        if alias in low:
            out.append(units(low.replace(alias, term)))
    for u in list(out):
        if len(bare := tuple(t for t in u if t not in _OPTIONAL_ZH)) not in (0, len(u)) and len(bare) >= 2:
            out.append(bare)
    return tuple(u for u in out if u)


def mentions(subject: str, text: str) -> list[tuple[int, int]]:
    """Where a subject is named in text: its units in order within a short window (三级医疗机构 ~ 三级定点医疗机构)."""
    variants = _variants(subject)
    if not variants:
        return []
    toks = _tokens_with_pos(text)
    found = []
    for want in variants:
        window = len(want) * 2 + 2
        for i, (tok, s, _) in enumerate(toks):
            if tok != want[0]:
                continue
            j, k = i + 1, 1
            while k < len(want) and j < len(toks) and j - i < window:
                if toks[j][0] == want[k]:
                    k += 1
                j += 1
            if k == len(want):
                found.append((s, toks[j - 1][2]))
        if found:
            break
    return found


@lru_cache(maxsize=4096)
def same_entity(a: str, b: str) -> bool:
    """Two subject strings name the same entity when one's units are an in-order subset of the other's."""
    ua, ub = units(a), units(b)
    if not ua or not ub:
        return False
    short, long_ = (ua, ub) if len(ua) <= len(ub) else (ub, ua)
    it = iter(long_)
    return all(u in it for u in short)
