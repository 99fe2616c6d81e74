"""Formats: .docx and .pdf become canonical Markdown with a source map; text files stay as they are."""

from __future__ import annotations

from pathlib import Path

from .source import SegmentMap, SourceLocation, SourceMap

__all__ = ["BINARY_FORMATS", "SegmentMap", "SourceLocation", "SourceMap", "read_binary"]

# suffix -> format name of the documents that are converted rather than decoded as text
BINARY_FORMATS = {".docx": "docx", ".pdf": "pdf"}


def read_binary(path: Path, name: str) -> tuple[str, SourceMap, str]:
    """Convert a .docx or .pdf file: (canonical Markdown, its source map, the format name)."""
    fmt = BINARY_FORMATS[path.suffix.lower()]
    if fmt == "docx":
        from .docx_reader import read_docx

        text, source = read_docx(path, name)
    else:
        from .pdf_reader import read_pdf

        text, source = read_pdf(path, name)
    return text, source, fmt
