"""Formats: .docx and .pdf become canonical Markdown with a source map; text files stay as they are."""

from __future__ import annotations

from .source import SegmentMap, SourceLocation, SourceMap

__all__ = ["SegmentMap", "SourceLocation", "SourceMap"]
