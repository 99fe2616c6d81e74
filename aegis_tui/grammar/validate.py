"""Validate GBNF with a Lark grammar of GBNF, and translate GBNF to Lark to test what a grammar accepts."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from ..errors import GrammarError

_ESC = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\", "[": "[", "]": "]", "-": "-", "^": "^"}


@lru_cache(maxsize=1)
def _gbnf_parser():
    from lark import Lark

    text = resources.files("aegis_tui.grammar").joinpath("gbnf.lark").read_text(encoding="utf-8")
    return Lark(text, parser="lalr", maybe_placeholders=False)


def parse_gbnf(text: str):
    """Parse GBNF text with the Lark grammar of GBNF; check every referenced rule is defined and root exists."""
    from lark.exceptions import LarkError

    try:
        tree = _gbnf_parser().parse(text)
    except LarkError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise GrammarError(f"invalid GBNF: {first}") from None
    defined = {}
    for rule in tree.find_data("rule"):
        name = str(rule.children[0])
        if name in defined:
            raise GrammarError(f"invalid GBNF: rule {name!r} defined twice")
        defined[name] = rule
    if "root" not in defined:
        raise GrammarError("invalid GBNF: no root rule")
    for ref in tree.find_data("ref"):
        name = str(ref.children[0])
        if name not in defined:
            raise GrammarError(f"invalid GBNF: rule {name!r} is used but not defined")
    return tree


def _decode(body: str) -> list[str]:
    """Decode the escapes of a GBNF literal or class body into a list of characters."""
    out: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\":
            k = body[i + 1]
            if k in "xuU":
                n = {"x": 2, "u": 4, "U": 8}[k]
                out.append(chr(int(body[i + 2:i + 2 + n], 16)))
                i += 2 + n
                continue
            out.append(_ESC[k])
            i += 2
            continue
        out.append(c)
        i += 1
    return out


def _rx(ch: str) -> str:
    """One character as it must be written in a Lark /regexp/ so the regex engine sees it literally.

    Lark evaluates \\x and \\u escapes before compiling the pattern, so a regex-special ASCII character is
    written as two hex escapes: a backslash and the character (giving the regex an escaped character).
    """
    o = ord(ch)
    if ch.isascii() and ch.isalnum():
        return ch
    if o < 0x80:
        return f"\\x5c\\x{o:02x}" if (ch in "\\^$.|?*+()[]{}-/\"'#& ~" ) else f"\\x{o:02x}"
    return f"\\u{o:04x}" if o <= 0xFFFF else f"\\U{o:08x}"


def _class_regex(token: str) -> str:
    inner = token[1:-1]
    negate = inner.startswith("^")
    if negate:
        inner = inner[1:]
    # decode keeping track of which '-' are range operators (unescaped)
    items: list[tuple[str, bool]] = []  # (char, is_range_dash)
    i = 0
    while i < len(inner):
        if inner[i] == "\\":
            k = inner[i + 1]
            if k in "xuU":
                n = {"x": 2, "u": 4, "U": 8}[k]
                items.append((chr(int(inner[i + 2:i + 2 + n], 16)), False))
                i += 2 + n
            else:
                items.append((_ESC[k], False))
                i += 2
        else:
            items.append((inner[i], inner[i] == "-" and 0 < i < len(inner) - 1))
            i += 1
    parts: list[str] = []
    j = 0
    while j < len(items):
        ch, _ = items[j]
        if j + 2 < len(items) and items[j + 1][1]:
            parts.append(f"{_rx(ch)}-{_rx(items[j + 2][0])}")
            j += 3
        else:
            parts.append(_rx(ch))
            j += 1
    return "[" + ("^" if negate else "") + "".join(parts) + "]"


def to_lark(text: str) -> str:
    """Translate GBNF to an equivalent Lark grammar (Earley, character-exact: no ignored whitespace)."""
    import json

    tree = parse_gbnf(text)
    terminals: dict[str, str] = {}

    def term(pattern: str) -> str:
        if pattern not in terminals:
            terminals[pattern] = f"T{len(terminals)}"
        return terminals[pattern]

    def lname(name: str) -> str:
        return "r_" + name.replace("-", "_").lower()

    def emit_alts(node) -> str:
        return " | ".join(emit_seq(s) or "_empty" for s in node.children)

    def emit_seq(node) -> str:
        return " ".join(emit_item(i) for i in node.children)

    def emit_item(node) -> str:
        prim = node.children[0]
        if prim.data == "literal":
            chars = "".join(_decode(str(prim.children[0])[1:-1]))
            if not chars:
                base = "_empty"
            else:
                base = term("/" + "".join(_rx(c) for c in chars) + "/")
        elif prim.data == "charclass":
            base = term("/" + _class_regex(str(prim.children[0])) + "/")
        elif prim.data == "ref":
            base = lname(str(prim.children[0]))
        elif prim.data == "group":
            base = "(" + emit_alts(prim.children[0]) + ")"
        else:
            base = term("/(?s:.)/")
        if len(node.children) == 1:
            return base
        q = node.children[1]
        kind = q.data
        if kind == "quantifier":
            return f"{base}{q.children[0]}"
        nums = [int(x) for x in q.children]
        if kind == "exact":
            return f"({base} ~ {nums[0]})" if nums[0] else "_empty"
        if kind == "at_least":
            return f"({base} ~ {nums[0]}) {base}*" if nums[0] else f"{base}*"
        lo, hi = nums
        if hi == 0:
            return "_empty"
        if lo == 0:
            return f"({base} ~ 1..{hi})?"
        return f"({base} ~ {lo}..{hi})"

    lines = ["start: r_root", "_empty:"]
    for rule in tree.find_data("rule"):
        lines.append(f"{lname(str(rule.children[0]))}: {emit_alts(rule.children[1])}")
    for pattern, name in terminals.items():
        lines.append(f"{name}: {pattern}")
    del json
    return "\n".join(lines) + "\n"


def lark_acceptor(text: str):
    """A Lark Earley parser for the language of a GBNF grammar; .parse(s) raises on strings it rejects."""
    from lark import Lark

    return Lark(to_lark(text), parser="earley", lexer="dynamic")


def check_grammar(text: str) -> None:
    """Raise GrammarError unless the Lark grammar of GBNF parses text and every reference resolves."""
    parse_gbnf(text)
