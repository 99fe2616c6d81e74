"""Grammars: schema→GBNF compiler, document-grounded grammars, and a Lark-based GBNF validator."""

from .compiler import compile_schema, extraction_grammar
from .gbnf import escape_literal, json_string_literal
from .grounded import grounded_grammar

__all__ = ["compile_schema", "extraction_grammar", "grounded_grammar", "escape_literal", "json_string_literal"]
