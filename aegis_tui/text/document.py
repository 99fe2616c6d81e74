"""Documents: load (UTF-8 or GB18030), index lines and offsets, segment sentences and clauses."""

from __future__ import annotations

import bisect
import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import DocumentError
from .formats import BINARY_FORMATS, SourceMap, read_binary
from .lexicon import is_cjk

if TYPE_CHECKING:
    from .roles import NumberRole
    from .structure import Structure

MAX_DOCUMENT_BYTES = 16 * 1024 * 1024
MAX_BINARY_BYTES = 64 * 1024 * 1024  # .docx/.pdf carry images and fonts beside their text

# Sentence ends: CJK terminators always; ASCII ones only when followed by space/end (not 0.67, not e.g.).
_ZH_END = "。！？!?"
_CLAUSE_SPLIT = "；;"
_FRAGMENT_SPLIT = "，、,："
_ABBREVIATIONS = {"e.g", "i.e", "etc", "mr", "mrs", "ms", "dr", "no", "vs", "u.s", "inc", "ltd", "art", "sec"}


@dataclass(frozen=True)
class Span:
    """A verbatim slice of the document: text == document.text[start:end]."""

    start: int
    end: int
    text: str
    kind: str = "span"
    sentence: int = -1


@dataclass(frozen=True)
class Position:
    """A 1-based line and column for a character offset."""

    line: int
    column: int
    offset: int


def _decode(data: bytes, name: str) -> tuple[str, str]:
    """The text of a document's bytes and the encoding read; a leading U+FEFF is a byte-order mark in any encoding,
    however many (UTF-16's own, one written after it, GB18030's, which has none of its own), not text: one document
    reads alike whatever it was saved as."""
    text, encoding = _decode_bytes(data, name)
    return text.lstrip("\ufeff"), encoding


def _decode_bytes(data: bytes, name: str) -> tuple[str, str]:
    if not data.strip():
        raise DocumentError(f"{name}: the document is empty")
    head = data[:8192]
    if b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DocumentError(f"{name}: looks like a binary file, not a text document")
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="strict"), "utf-8-sig"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), "utf-16"
        except UnicodeDecodeError:
            raise DocumentError(f"{name}: invalid UTF-16 text") from None
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        text = data.decode("gb18030")
    except UnicodeDecodeError:
        raise DocumentError(f"{name}: not valid UTF-8 or GB18030 text") from None
    non_ascii = [c for c in text if ord(c) > 127]
    plausible = sum(1 for c in non_ascii if _is_cjk_or_punct(c))
    if non_ascii and plausible / len(non_ascii) < 0.9:
        raise DocumentError(f"{name}: not valid UTF-8, and does not look like GB18030 Chinese text")
    return text, "gb18030"


def _is_cjk_or_punct(ch: str) -> bool:
    """What GB18030-decoded Chinese text is made of: ideographs (Extension B too), CJK and general punctuation."""
    o = ord(ch)
    return is_cjk(ch) or (
        0x3000 <= o <= 0x303F or 0xFF00 <= o <= 0xFFEF or 0x2000 <= o <= 0x206F or 0x20000 <= o <= 0x2A6DF
        or 0x2460 <= o <= 0x24FF or 0x00B7 == o or 0x2190 <= o <= 0x22FF
    )


def _check_text(text: str, name: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise DocumentError(f"{name}: the document is empty")
    controls = sum(1 for c in text if unicodedata.category(c) == "Cc" and c not in "\n\t\f")
    if controls > max(2, len(text) // 200):
        raise DocumentError(f"{name}: looks like a binary file, not a text document")
    return text


@dataclass
class Document:
    """A loaded document: canonical text, its source map, offset index, segmentation and structure."""

    text: str
    path: str = "<text>"
    encoding: str = "utf-8"
    format: str = "text"
    source: SourceMap = field(default=None, repr=False, compare=False)  # type: ignore[assignment]
    _line_starts: list[int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        if self.source is None:
            self.source = SourceMap(self.text, self.format)

    @classmethod
    def from_text(cls, text: str, path: str = "<text>") -> Document:
        return cls(_check_text(text, path), path=path)

    @classmethod
    def load(cls, path: str | Path) -> Document:
        p = Path(path)
        name = str(path)
        if not p.exists():
            raise DocumentError(f"{name}: no such file")
        if p.is_dir():
            raise DocumentError(f"{name}: is a directory, not a document")
        size = p.stat().st_size
        binary = p.suffix.lower() in BINARY_FORMATS
        limit = MAX_BINARY_BYTES if binary else MAX_DOCUMENT_BYTES
        if size > limit:
            raise DocumentError(f"{name}: {size} bytes is larger than the {limit} byte limit")
        if binary:
            if size == 0:
                raise DocumentError(f"{name}: the document is empty")
            text, source, fmt = read_binary(p, name)
            return cls(_check_text(text, name), path=name, encoding="utf-8", format=fmt, source=source)
        try:
            data = p.read_bytes()
        except OSError as exc:
            raise DocumentError(f"{name}: cannot read ({exc.strerror})") from None
        text, encoding = _decode(data, name)
        if p.suffix.lower() not in (".md", ".markdown"):
            return cls(_check_text(text, name), path=name, encoding=encoding, format="text")
        # a Markdown file's emphasis markers and link targets are not what it says: out of the canonical text
        from .formats.markdown_inline import strip_inline_markup

        text, source = strip_inline_markup(_check_text(text, name))
        return cls(_check_text(text, name), path=name, encoding=encoding, format="markdown", source=source)

    @cached_property
    def structure(self) -> Structure:
        """Headings, paragraphs, list items and tables of the canonical text (built once)."""
        from .structure import build_structure

        return build_structure(self.text)

    @cached_property
    def roles(self) -> list[NumberRole]:
        """Every number in the text with its role (value, section number, date, ...), in order."""
        from .roles import build_roles

        return build_roles(self)

    @cached_property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    @cached_property
    def language(self) -> str:
        """'zh' when CJK characters dominate the letters, else 'en'."""
        cjk = sum(1 for c in self.text if is_cjk(c))
        latin = sum(1 for c in self.text if c.isascii() and c.isalpha())
        return "zh" if cjk >= latin / 4 else "en"

    def position(self, offset: int) -> Position:
        """Line and column (1-based) of a character offset."""
        line = bisect.bisect_right(self._line_starts, offset) - 1
        return Position(line=line + 1, column=offset - self._line_starts[line] + 1, offset=offset)

    @property
    def line_count(self) -> int:
        return len(self._line_starts)

    # ---- segmentation -------------------------------------------------
    @cached_property
    def sentences(self) -> list[Span]:
        """Sentences: split at 。！？!? and sentence-final '.', and at line breaks."""
        spans: list[Span] = []
        for line_start, line in self._lines():
            start = 0
            i = 0
            while i < len(line):
                ch = line[i]
                end = None
                if ch in _ZH_END:
                    end = i + 1
                    while end < len(line) and line[end] in "”\"’)）」』":
                        end += 1
                elif ch == "." and self._english_sentence_end(line, i):
                    end = i + 1
                if end is not None:
                    self._add(spans, line_start, line, start, end, "sentence", len(spans))
                    start = i = end
                    continue
                i += 1
            self._add(spans, line_start, line, start, len(line), "sentence", len(spans))
        return spans

    @cached_property
    def _sentence_starts(self) -> list[int]:
        return [s.start for s in self.sentences]

    def sentence_at(self, offset: int) -> Span | None:
        """The sentence starting at or before an offset (None before the first)."""
        i = bisect.bisect_right(self._sentence_starts, offset) - 1
        return self.sentences[i] if i >= 0 else None

    @cached_property
    def clauses(self) -> list[Span]:
        """Clauses: sentences split further at ；/; (each keeps its sentence index)."""
        return self._split(self.sentences, _CLAUSE_SPLIT, "clause")

    @cached_property
    def fragments(self) -> list[Span]:
        """Fragments: clauses split at ，、,： — the finest grain, e.g. one item of an enumeration."""
        return self._split(self.clauses, _FRAGMENT_SPLIT, "fragment", keep_decimal_commas=True)

    def _lines(self):
        for idx, start in enumerate(self._line_starts):
            end = self._line_starts[idx + 1] - 1 if idx + 1 < len(self._line_starts) else len(self.text)
            yield start, self.text[start:end]

    @staticmethod
    def _english_sentence_end(line: str, i: int) -> bool:
        nxt = line[i + 1] if i + 1 < len(line) else ""
        if nxt and not nxt.isspace() and nxt not in "\"')”’":
            return False  # 0.67, U.S.A, example.com
        word = re.search(r"([A-Za-z.]+)$", line[:i])
        if word and word.group(1).lower().rstrip(".") in _ABBREVIATIONS:
            return False
        if re.search(r"(^|\s)[A-Z]$", line[:i]):
            return False  # an initial: "J. Smith"
        return True

    def _add(self, spans, base, line, start, end, kind, sentence):
        piece = line[start:end]
        stripped = piece.strip()
        if not stripped:
            return
        lead = len(piece) - len(piece.lstrip())
        s = base + start + lead
        spans.append(Span(s, s + len(stripped), stripped, kind, sentence))

    def _split(self, parents: list[Span], seps: str, kind: str, keep_decimal_commas: bool = False) -> list[Span]:
        out: list[Span] = []
        for idx, parent in enumerate(parents):
            sentence = parent.sentence if parent.sentence >= 0 else idx
            text = parent.text
            start = 0
            for i, ch in enumerate(text):
                if ch not in seps:
                    continue
                if keep_decimal_commas and ch == "," and 0 < i < len(text) - 1 and text[i - 1].isdigit() and text[i + 1].isdigit():
                    continue  # 200,000
                self._add(out, parent.start, text, start, i + 1, kind, sentence)
                start = i + 1
            self._add(out, parent.start, text, start, len(text), kind, sentence)
        return out

    # ---- verbatim search ---------------------------------------------
    @cached_property
    def _folded(self) -> tuple[str, list[int]]:
        return fold_with_map(self.text)

    def find(self, quote: str, start: int = 0) -> Span | None:
        """Find a quote after NFKC + whitespace folding; return the matching original span."""
        folded, mapping = self._folded
        needle = fold(quote)
        if not needle:
            return None
        fstart = 0
        if start:
            fstart = bisect.bisect_left(mapping, start)
        pos = folded.find(needle, fstart)
        if pos < 0:
            return None
        s = mapping[pos]
        e = mapping[pos + len(needle) - 1] + 1
        # extend the end over the rest of a multi-char NFKC expansion's source char
        return Span(s, e, self.text[s:e], "match")


def fold(text: str) -> str:
    """NFKC and whitespace folding: the only normalisation allowed when matching quotes."""
    return fold_with_map(text)[0]


def fold_with_map(text: str) -> tuple[str, list[int]]:
    """Fold text and return, for each folded character, the offset of its source character."""
    out: list[str] = []
    mapping: list[int] = []
    in_space = False
    for i, ch in enumerate(text):
        norm = unicodedata.normalize("NFKC", ch)
        for c in norm:
            if c.isspace():
                if in_space or not out:
                    continue
                in_space = True
                out.append(" ")
                mapping.append(i)
            else:
                in_space = False
                out.append(c)
                mapping.append(i)
    if out and out[-1] == " ":
        out.pop()
        mapping.pop()
    return "".join(out), mapping
