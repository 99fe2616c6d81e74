"""Aegis: offline document QA where every number in an answer is verified against the document."""

__version__ = "0.1.0"
