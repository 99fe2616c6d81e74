"""The structure builder: markdown-it-py blocks, then CJK/numbered titles, articles, list items and pipe tables."""

from __future__ import annotations

import re
from functools import lru_cache

from .lexicon import CJK, NOT_IN_TITLE_EN, NOT_LAST_IN_TITLE_EN, is_cjk
from .structure import Block, Cell, Heading, Structure, Table, codes

# ---- line patterns ------------------------------------------------------------------------------------------
_CN_NUM = "零〇一二两三四五六七八九十百千"
_ARTICLE = re.compile(rf"^第[{_CN_NUM}\d]+条(?:之[{_CN_NUM}]+)?")
# numbered titles, most specific first: (kind, pattern); the kind decides nesting by first appearance
_TITLES = [
    ("编", re.compile(rf"^第[{_CN_NUM}\d]+(?:编|部分)")),
    ("章", re.compile(rf"^第[{_CN_NUM}\d]+章")),
    ("节", re.compile(rf"^第[{_CN_NUM}\d]+节")),
    ("条", _ARTICLE),
    ("cn、", re.compile(rf"^[{_CN_NUM}]+、")),
    ("(cn)", re.compile(rf"^[（(][{_CN_NUM}]+[)）]")),
    ("d.d.d", re.compile(r"^\d+\.\d+\.\d+\.?(?=\s|[^\d.])")),
    ("d.d", re.compile(r"^\d+\.\d+\.?(?=\s|[^\d.])")),
    ("d.", re.compile(r"^\d+(?:\.|、)(?=\s*[^\d\s])")),
    ("(d)", re.compile(r"^[（(]\d+[)）]")),
    ("word", re.compile(r"^(?:chapter|part|section|article)\s+(?:\d+|[ivxlc]+)\b", re.IGNORECASE)),
]
_LIST_MARKER = re.compile(
    rf"^(?:[-*+•·▪◦●○]\s+|\d+[.)]\s+|\d+、|[（(](?:\d+|[{_CN_NUM}]+|[a-zA-Z]|[ivxIVX]+)[)）]|[{_CN_NUM}]+、|[①-⑳]"
    r"|[a-zA-Z][.)]\s+)")
_SENTENCE_PUNCT = set("。；;！？!?，,：:")
_NOT_TITLE_QUANTITY = re.compile(r"[$¥€£%]|\d\s*(?:元|万元|美元|个百分点)")
_BLOCKQUOTE = re.compile(r"^\s*(?:>\s?)+")
_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_SENTENCE_END = re.compile(r"[。！？!?]|\.\s")
# the longest a paragraph opening with a table's number is its caption ("Table 2 — Maximum Company matching contribution
# from 1 April 2025 (% of Pensionable Salary)"); a longer one is a sentence about the table
CAPTION_LENGTH = 120
NOTE_LENGTH = 200  # the longest a note between a caption and its table is ("对应最低工资标准：…")
# (a table's number may be lettered, "Table D1 —", "Table C.1 –", "Table B:", or an appendix's, "附表2", "表3-2")
_CAPTION = re.compile(r"^(?:table|tab\.|附?表)\s*(?:[\d一二三四五六七八九十]|(?-i:[A-Z])(?:\.?\d|(?=[\s—–:：.]|-(?![A-Za-z]))))",
                      re.IGNORECASE)
# a line between a table's caption and the table that states its unit ("单位：元/个·月", "(Amounts in USD)")
_UNIT_LINE = re.compile(r"^[（(]?\s*(?:(?:计量|金额|计价)?单位|units?|amounts?\s+in|all\s+amounts)\b\s*[：:]?",
                        re.IGNORECASE)


def _is_title(rest: str) -> bool:
    """Whether the text after a number marker reads as a title: short, no sentence punctuation, no amount."""
    rest = rest.strip()
    if not rest or len(rest) > 60 or (rest[0].isascii() and rest[0].islower()):
        return False
    cjk = sum(1 for c in rest if is_cjk(c))
    if cjk > 30 or any(c in _SENTENCE_PUNCT for c in rest) or rest.endswith("."):
        return False
    return not _NOT_TITLE_QUANTITY.search(rest)



_RUN_IN = re.compile(r"^([\s\u3000]*)([^。．.：:；;，,！？!?\d]{2,16})[。．]")


# an English clause's run-in title after its number ("7.1 Low-income assistance. Residential customers …", "4.2 Late
# Payment. If Tenant …"): a first sentence of at most five words, none a verb, pronoun or article of a sentence
_RUN_IN_EN = re.compile(r"^(\s*)([A-Z][A-Za-z'’-]*(?:(?:\s+|\s*[/&,]\s*)[A-Za-z][A-Za-z'’-]*){0,4})\.\s+(?=[A-Z(\"“])")
# the numbering of clauses that may open with a run-in title
_CLAUSE_NUMBERS_EN = ("d.d.d", "d.d")


def _run_in_title_en(rest: str) -> int:
    """The length of an English clause's run-in title after its number (up to, not including, its full stop);
    0 when it has none."""
    m = _RUN_IN_EN.match(rest)
    if m is None:
        return 0
    words = m.group(2).lower().replace(",", " ").replace("/", " ").replace("&", " ").split()
    if any(w in NOT_IN_TITLE_EN for w in words) or words[-1] in NOT_LAST_IN_TITLE_EN:
        return 0
    return m.end(2)


def _run_in_title(rest: str) -> int:
    """The length of an article's run-in title after its number (up to, not including, its full stop): a first
    sentence of at most 16 characters with no comma, colon or figure, and more text after it; 0 when the article
    has none."""
    m = _RUN_IN.match(rest)
    if m is None or not rest[m.end():].strip():  # an article that is one short sentence is its own text
        return 0
    return m.end(2) if any(is_cjk(c) for c in m.group(2)) and _is_title(m.group(2)) else 0


_BOLD = re.compile(r"^(\*\*|__)(?=\S)(.+?)(?<=\S)\1$")


def _title_kind(line: str) -> str | None:
    bold = _BOLD.match(line)
    if bold and bold.group(1) in bold.group(2):
        bold = None  # "**a** and **b**": bold words, not a bold line
    inner = bold.group(2) if bold else line
    for kind, pattern in _TITLES:
        m = pattern.match(inner)
        if m and _is_title(inner[m.end():].lstrip(" \t\u3000:：.-–—")):
            return kind
    if bold and _is_title(inner):
        return "bold"  # a line that is all bold, short and alone: a heading in converted documents
    return None


def _number_kind(line: str) -> str | None:
    """The kind of numbering a line starts with ("d.", "cn、", "(cn)", ...), title or not."""
    for kind, pattern in _TITLES:
        if kind not in ("编", "章", "节", "条", "word") and pattern.match(line):
            return kind
    return None


def _last_sentence(text: str) -> str:
    cut = 0
    for m in _SENTENCE_END.finditer(text[:-1]):
        cut = m.end()
    return text[cut:].strip()


# ---- Markdown units -----------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _markdown():
    from markdown_it import MarkdownIt  # lazily: importing the text layer stays cheap

    return MarkdownIt("commonmark").enable("table")


def _units(text: str) -> list[tuple]:
    """Top-level units from markdown-it: ("heading", l0, l1, level), ("table", l0, l1), ("lines", l0, l1, depth)."""
    units: list[tuple] = []
    depth = 0
    in_table = False
    # markdown-it reads a lone \r as a line break; the canonical text breaks lines at \n only
    for tok in _markdown().parse(text.replace("\r", " ")):
        t = tok.type
        if t == "table_open":
            units.append(("table", tok.map[0], tok.map[1]))
            in_table = True
        elif t == "table_close":
            in_table = False
        elif in_table:
            continue
        elif t in ("bullet_list_open", "ordered_list_open"):
            depth += 1
        elif t in ("bullet_list_close", "ordered_list_close"):
            depth -= 1
        elif t == "heading_open":
            units.append(("heading", tok.map[0], tok.map[1], int(tok.tag[1])))
        elif t in ("paragraph_open", "code_block", "fence", "html_block") and tok.map:
            units.append(("lines", tok.map[0], tok.map[1], depth))
    return units


def split_row(line: str, base: int) -> list[tuple[int, int]]:
    """The stripped (start, end) spans of a pipe row's cells; escaped pipes (\\|) do not split."""
    pipes = []
    i = 0
    while i < len(line):
        if line[i] == "\\":
            i += 2
            continue
        if line[i] == "|":
            pipes.append(i)
        i += 1
    lo = len(line) - len(line.lstrip())
    hi = len(line.rstrip())
    if lo >= hi:
        return []
    bounds = [p for p in pipes if lo <= p < hi]
    edges = ([lo - 1] if not bounds or bounds[0] != lo else []) + bounds + ([hi] if not bounds or bounds[-1] != hi - 1 else [])
    spans = []
    for a, b in zip(edges, edges[1:]):
        s, e = a + 1, b
        while s < e and line[s].isspace():
            s += 1
        while e > s and line[e - 1].isspace():
            e -= 1
        spans.append((base + s, base + e))
    return spans


def _is_pipe_row(line: str) -> bool:
    s = line.strip()
    return len(s) >= 2 and s[0] == "|" and s[-1] == "|"


# ---- the builder --------------------------------------------------------------------------------------------
class _Builder:
    """One pass over the units: keeps the heading stack, the open block and the current lead-in."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.blocks: list[Block] = []
        self.tables: list[Table] = []
        self.headings: list[Heading] = []
        self.stack: list[tuple[str, int, str]] = []  # (kind, level, text); kind "md" for Markdown headings
        self.article = ""
        self.article_kind: str | None = None  # the numbering of an English clause whose run-in title is the article
        self.open: list | None = None  # [kind, start, end, path, lead_in, indent, unit, numbering kind]
        self.lead = ""
        self.items: list[tuple[int, str]] = []  # (indent, text) of the enclosing list items
        self.seen_content = False

    def line(self, n: int) -> tuple[int, int, str]:
        start = self.starts[n]
        end = self.starts[n + 1] - 1 if n + 1 < len(self.starts) else len(self.text)
        return start, end, self.text[start:end]

    def path(self) -> tuple[str, ...]:
        base = tuple(t for _, _, t in self.stack)
        return base + (self.article,) if self.article else base

    def close(self) -> None:
        if self.open:
            kind, start, end, path, lead, *_ = self.open
            self.blocks.append(Block(kind, start, end, path, lead))
            self.open = None

    def heading(self, kind: str, level: int, start: int, end: int, tstart: int, tend: int) -> None:
        self.close()
        title = self.text[tstart:tend]
        if kind == "md":
            while self.stack and (self.stack[-1][0] != "md" or self.stack[-1][1] >= level):
                self.stack.pop()
        else:
            kinds = [k for k, _, _ in self.stack]
            if kind in kinds:
                del self.stack[kinds.index(kind):]
            level = len(self.stack) + 1
        self.stack.append((kind, level, title))
        self.article, self.article_kind = "", None
        self.lead = ""
        self.items = []
        self.headings.append(Heading(title, level, tstart, tend))
        self.blocks.append(Block("heading", start, end, self.path()))

    # -- units
    def md_heading(self, l0: int, level: int) -> None:
        start, end, line = self.line(l0)
        s = start + len(line) - len(line.lstrip())
        e = max(s, start + len(line.rstrip()))
        m = re.match(r"#{1,6}\s*", self.text[s:e])
        ts = s + (m.end() if m else 0)
        te = e
        closing = re.search(r"\s+#+$", self.text[ts:te])
        if closing:
            te = ts + closing.start()
        self.seen_content = True
        self.heading("md", level, s, e, ts, max(ts, te))

    def table(self, lines: list[int], separator: int | None) -> None:
        self.close()
        rows: list[list[Cell]] = []
        spans: list[tuple[int, int]] = []
        for n in lines:
            if n == separator:
                continue
            start, end, line = self.line(n)
            r = len(rows)
            rows.append([Cell(self.text[s:e], s, e, r, c) for c, (s, e) in enumerate(split_row(line, start))])
            spans.append((start + len(line) - len(line.lstrip()), start + len(line.rstrip())))
        if not rows:
            return
        header_rows = 0
        if separator is not None:
            header_rows = sum(1 for n in lines if n < separator)
        elif not any(ch.isdigit() for c in rows[0] for ch in c.text) and any(
                ch.isdigit() for row in rows[1:] for c in row for ch in c.text):
            header_rows = 1
        index = len(self.tables)
        label = _row_header_col(rows[header_rows:])
        table = Table(index, spans[0][0], spans[-1][1], header_rows, rows, self._caption(), self.path(),
                      label, spans, _label_cols(rows[header_rows:], label))
        self.tables.append(table)
        self.blocks.append(Block("table", table.start, table.end, table.heading_path, table=index))
        self.lead = ""
        self.items = []
        self.seen_content = True

    def _caption(self) -> str:
        prev = self.blocks[-1] if self.blocks else None
        # (a unit line under the caption, "表2 车位服务费上限" then "单位：元/个·月", is not the caption)
        if prev and prev.kind == "paragraph" and len(self.blocks) > 1 and prev.end - prev.start <= 40 \
                and _UNIT_LINE.match(self.text[prev.start:prev.end]):
            prev = self.blocks[-2]
        if prev and prev.kind in ("paragraph", "list_item"):
            text = self.text[prev.start:prev.end]
            if text.endswith(("：", ":")) and len(text) <= 200:
                return _last_sentence(text)
            if _CAPTION.match(text) and len(text) <= CAPTION_LENGTH:
                return text
            # a note between the caption and its table ("表1 失业保险金月标准（原标准）", then "对应最低工资标准：…",
            # then the table) does not hide the caption
            before = self.blocks[-2] if len(self.blocks) > 1 and self.blocks[-2].end <= prev.start else None
            if prev.kind == "paragraph" and prev.end - prev.start <= NOTE_LENGTH and before is not None \
                    and before.kind == "paragraph" \
                    and _CAPTION.match(caption := self.text[before.start:before.end]) \
                    and len(caption) <= CAPTION_LENGTH:
                return caption
        path = self.path()
        return path[-1] if path else ""

    def text_line(self, n: int, depth: int, unit: int, following: tuple[str, str | None] | None) -> None:
        """Classify one line; following = (title kind or "", numbering kind) of the next text line, if any."""
        start, end, raw = self.line(n)
        quote = _BLOCKQUOTE.match(raw)
        body = raw[quote.end():] if quote else raw
        stripped = body.strip()
        if not stripped:
            return
        s = start + (len(raw) - len(body)) + (len(body) - len(body.lstrip()))
        e = s + len(stripped)
        indent = len(body) - len(body.lstrip())
        first = not self.seen_content
        self.seen_content = True
        kind = _title_kind(stripped)
        numbering = _number_kind(stripped)
        # the next item of a list under way ("3. Meals" after "1. Airfare", "2. Lodging") is no title
        in_list = numbering is not None and self.open is not None and self.open[0] == "list_item" \
            and self.open[7] == numbering
        next_kind, next_numbering = following or (None, None)
        # after a lead-in ("…as follows:"), a numbered line followed by its sibling starts a list
        starts_list = bool(self.lead) and numbering is not None and next_numbering == numbering
        if kind and not in_list and not starts_list and (
                kind in ("编", "章", "节", "条", "word", "bold") or next_kind != kind):
            bold = _BOLD.match(stripped)
            inner = (s + bold.start(2), s + bold.end(2)) if bold and bold.group(1) not in bold.group(2) else (s, e)
            self.heading(kind, 0, s, e, *inner)
            return
        article = _ARTICLE.match(stripped)
        run_in = 0
        if article is None and numbering in _CLAUSE_NUMBERS_EN and not in_list:
            article = dict(_TITLES)[numbering].match(stripped)
            run_in = _run_in_title_en(stripped[article.end():])
            article = article if run_in else None
        if article is None and self.article_kind is not None and numbering == self.article_kind:
            # the next clause of the numbering a run-in title opened ("7.3 …" after "7.2 Senior credit. …") ends it
            self.close()
            self.article, self.article_kind = "", None
        if article:
            self.close()
            # an article that opens with a short title sentence ("第七条 门急诊医疗保险金。被保险人…") is titled
            # by it: the title scopes the article's values as a heading would
            end = article.end() + (run_in or _run_in_title(stripped[article.end():]))
            self.article = stripped[:end].strip()
            self.article_kind = numbering if run_in else None
            self.headings.append(Heading(self.article, len(self.path()), s, s + end))
            self.items = []
            self.open = ["paragraph", s, e, self.path(), "", indent, unit, None]
        elif (numbering and not in_list and not self.lead and not self.items
              and numbering in [k for k, _, _ in self.stack]):
            # a numbered section with its text on the same line ("三、本通知自…起执行") ends its sibling's scope
            kinds = [k for k, _, _ in self.stack]
            del self.stack[kinds.index(numbering):]
            self.close()
            self.article, self.article_kind = "", None
            self.open = ["paragraph", s, e, self.path(), "", indent, unit, None]
        elif _LIST_MARKER.match(stripped):
            self.close()
            while self.items and self.items[-1][0] >= indent:
                self.items.pop()
            lead = self.items[-1][1] if self.items else self.lead
            self.items.append((indent, _LIST_MARKER.sub("", stripped, count=1).strip()))
            self.open = ["list_item", s, e, self.path(), lead, indent, unit, numbering]
            return
        elif first and following is not None and _is_title(stripped) and not stripped[0].isdigit():
            self.heading("title", 1, s, e, s, e)  # a document's first short line is its title
            return
        elif self.open and self.open[6] == unit and (self.open[0] == "paragraph" or depth > 0):
            self.open[2] = e
        else:
            self.close()
            self.items = []
            self.open = ["paragraph", s, e, self.path(), "", indent, unit, None]
        self.lead = _last_sentence(stripped) if stripped.endswith(("：", ":")) else ""


def _row_header_col(body: list[list[Cell]]) -> int:
    """The leftmost column whose body cells are mostly words, not numbers (a 序号 column is skipped)."""
    width = max((len(r) for r in body), default=0)
    for col in range(width):
        texts = [r[col].text for r in body if col < len(r) and r[col].text]
        if texts and sum(1 for t in texts if any(c.isalpha() for c in t)) * 2 >= len(texts):
            return col
    return 0


def _wordy(text: str) -> bool:
    """Whether a cell's text is words beyond its figures: two English words, or three Chinese characters."""
    from .quantity import without_figures

    text = without_figures(text)
    return len(re.findall(r"[A-Za-z]{2,}", text)) >= 2 or len(CJK.findall(text)) >= 3


_BARE_NUMBER = re.compile(r"[\d,.\s%]+")  # (a figure whose unit its header gives, "| 3000 |" under "年度限额（元）")


def _label_cols(body: list[list[Cell]], first: int) -> tuple[int, ...]:
    """The word columns right after the row-header column that label rows too ("Employee Only | In-network |
    $1,250"): no digits in any body cell (or in at most half, as words of a name holding a figure of another kind than
    the values': "Fire lane or within 15 feet of a fire hydrant | $100"), more than one distinct text, and a column
    with numbers after them. So is a column of ranges, each the case its row's values hold for ("Tier 3 | 16 to 30
    CCF | $5.64"): a bound is no figure of its own."""
    from .quantity import find_quantities
    from .ranges import interval

    width = max((len(r) for r in body), default=0)
    out: list[int] = []

    def kinds(cols) -> set[str]:
        return {m.quantity.dimension for r in body for c in cols if c < len(r)
                for m in find_quantities(r[c].text)} - {"number"}

    coded = False
    for col in range(first + 1, width - 1):
        after_code, coded = coded, False
        texts = [r[col].text for r in body if col < len(r) and r[col].text]
        figured = [t for t in texts if any(ch.isdigit() for ch in t)]
        # (a column of names, some with a figure of another kind in their words, "Fire lane or within 15 feet of a
        # fire hydrant" beside fines, names its rows as well)
        # (… or a column of cases, some as ranges and some as names: "Ages 8–12", "Age 65 and over", "Teachers and
        # childcare providers"; the names holding figures at most half)
        if codes(texts) and not kinds([col]):
            # a column of codes, one to a row ("| 甲类 | J02 | 尿毒症透析治疗 |"): the names right of it label the rows
            # too (not a grade some rows share, "| Site Operative | G1 | Band 1 |")
            out.append(col)
            coded = True
            continue
        bounded = {t for t in texts if interval(t) is not None}
        loose = [t for t in figured if t not in bounded]
        named = figured and len(loose) * 2 <= len(texts) and all(_wordy(t) or t in bounded for t in texts) \
            and not kinds([col]) & kinds(range(col + 1, width))
        # (the names beside a column of codes are names, however short some are and whatever figures a few hold:
        # "| J06 | 癫痫 |", "| Y03 | 高血压病（1级，无靶器官损害） |"; not a column of limits, some bare figures, "| 3000 |")
        named = named or after_code and len(loose) * 2 <= len(texts) and not kinds([col]) \
            and not any(_BARE_NUMBER.fullmatch(t.strip()) for t in texts)
        if not texts or len(set(texts)) < 2 or figured and not named and not all(t in bounded for t in texts):
            break
        out.append(col)
    ranged = [c for c in out if all(interval(r[c].text) is not None for r in body if c < len(r) and r[c].text)
              and any(ch.isdigit() for r in body if c < len(r) for ch in r[c].text)]
    if ranged:
        # … only beside values of another kind: ranges of usage beside rates ("16 to 30 CCF | $5.64"); ranges beside
        # figures of their own kind are thresholds, the figures asked for ("| 货物 | 400万元以上 | 100万元至400万元 |",
        # "| 5万元以上（含） | 1万美元以上（含） |")
        bounds, values = kinds(ranged), kinds(range(first + len(out) + 1, width))
        if not bounds or not values or bounds & values:
            out = out[:out.index(ranged[0])]
    later = [r[c].text for r in body for c in range(first + len(out) + 1, len(r))]
    return tuple(out) if any(ch.isdigit() for t in later for ch in t) else ()


def build(text: str) -> Structure:
    """Parse the canonical text once (markdown-it-py, then CJK numbered titles inside its paragraphs)."""
    b = _Builder(text)
    units = _units(text)
    # pipe rows just above a Markdown table are more header rows of it (a two-row header)
    entries: list[tuple] = []
    for i, unit in enumerate(units):
        if unit[0] == "lines":
            lines = list(range(unit[1], unit[2]))
            nxt = units[i + 1] if i + 1 < len(units) else None
            pipes: list[int] = []
            if nxt and nxt[0] == "table" and nxt[1] == unit[2]:
                while lines and _is_pipe_row(b.line(lines[-1])[2]):
                    pipes.insert(0, lines.pop())
            entries.extend(("line", n, unit[3], i) for n in lines)
            if pipes:
                entries.append(("pretable", pipes))
        else:
            entries.append(unit)
    # pipe runs inside plain paragraphs (a .txt without separator rows) are tables too
    merged: list[tuple] = []
    k = 0
    while k < len(entries):
        entry = entries[k]
        if entry[0] == "line" and _is_pipe_row(b.line(entry[1])[2]):
            run = [entry[1]]
            while (k + len(run) < len(entries) and entries[k + len(run)][0] == "line"
                   and entries[k + len(run)][1] == run[-1] + 1 and _is_pipe_row(b.line(run[-1] + 1)[2])):
                run.append(run[-1] + 1)
            if len(run) >= 2:
                sep = next((n for n in run if _SEPARATOR.match(b.line(n)[2])), None)
                merged.append(("rows", run, sep))
                k += len(run)
                continue
        merged.append(entry)
        k += 1
    # the title kind of the next non-blank text line after each entry (one backward pass)
    next_kinds: list[tuple[str, str | None] | None] = [None] * len(merged)
    following: tuple[str, str | None] | None = None
    for idx in range(len(merged) - 1, -1, -1):
        next_kinds[idx] = following
        entry = merged[idx]
        if entry[0] == "line":
            line = b.line(entry[1])[2].strip()
            if line:
                following = (_title_kind(line) or "", _number_kind(line))
    pending: list[int] = []
    for idx, entry in enumerate(merged):
        if entry[0] == "pretable":
            pending = entry[1]
        elif entry[0] == "table":
            lines = pending + list(range(entry[1], entry[2]))
            b.table(lines, entry[1] + 1)
            pending = []
        elif entry[0] == "rows":
            b.table(entry[1], entry[2])
        elif entry[0] == "heading":
            b.md_heading(entry[1], entry[3])
        else:
            b.text_line(entry[1], entry[2], entry[3], next_kinds[idx])
    b.close()
    return Structure(b.blocks, b.tables, b.headings)
