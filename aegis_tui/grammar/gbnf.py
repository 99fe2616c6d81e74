"""GBNF building blocks shared by the schema compiler and the grounded grammar."""

from __future__ import annotations

import json

# A JSON string character: anything but the quote, the backslash and control characters
# (C0, DEL, C1, U+2028/2029), or one of the escapes \" \\ \/ — never \n, \t or \u0000-style control escapes,
# so every string the grammar admits is valid JSON *and* passes the schema's no-control-character rule.
JSON_CHAR_RULE = r'''json-char ::= [^"\\\x00-\x1F\x7F-\x9F\u2028\u2029] | "\\" ["\\/]'''
# Whitespace between tokens is bounded: at most one newline and eight spaces.
WS_RULE = r'''ws ::= [ ]? | "\n" [ ]{0,8}'''


def escape_literal(text: str) -> str:
    """Escape text for a GBNF double-quoted literal (the result excludes the surrounding quotes)."""
    out = []
    for ch in text:
        o = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ch in "[]":
            out.append(ch)
        elif o < 0x20 or 0x7F <= o <= 0x9F or ch in "\u2028\u2029":
            out.append(f"\\x{o:02X}" if o <= 0xFF else f"\\u{o:04X}")
        else:
            out.append(ch)
    return "".join(out)


def literal(text: str) -> str:
    """A GBNF literal matching text exactly."""
    return f'"{escape_literal(text)}"'


def json_string_literal(value: str) -> str:
    """A GBNF literal matching the JSON encoding of value (quotes included), e.g. for a verbatim span."""
    return literal(json.dumps(value, ensure_ascii=False))


def json_key(name: str) -> str:
    return literal(json.dumps(name, ensure_ascii=False))


def bounded_string(min_len: int, max_len: int) -> str:
    """Right-hand side of a JSON string with between min_len and max_len characters."""
    if max_len == min_len:
        rep = f"{{{min_len}}}"
    else:
        rep = f"{{{min_len},{max_len}}}"
    return f'"\\"" json-char{rep} "\\""'


def rule_name(*parts: str) -> str:
    """A GBNF rule name (letters, digits, hyphens) built from parts."""
    import re

    name = "-".join(re.sub(r"[^A-Za-z0-9]+", "-", p).strip("-").lower() for p in parts if p)
    return re.sub(r"-+", "-", name) or "rule"
