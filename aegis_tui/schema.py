"""The stage-1 data contract: atomic facts the model must emit, as Pydantic v2 models."""

from __future__ import annotations

import re
from enum import Enum
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from .errors import SchemaError

MAX_SUBJECT = 80
MAX_PREDICATE = 80
MAX_VALUE = 40
MAX_SOURCE = 400
MAX_FACTS = 24

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _no_control(value: str) -> str:
    if _CONTROL.search(value):
        raise ValueError("control characters are not allowed")
    return value


def _text(max_length: int, min_length: int = 1):
    return Annotated[str, Field(min_length=min_length, max_length=max_length), AfterValidator(_no_control)]


class FactType(str, Enum):
    NUMERIC = "numeric"
    BOOLEAN = "boolean"
    TEXT = "text"


class AtomicFact(BaseModel):
    """One claim: subject, predicate, value, and the verbatim quote that supports it."""

    model_config = ConfigDict(extra="forbid")

    subject: _text(MAX_SUBJECT)
    predicate: _text(MAX_PREDICATE)
    object_value: _text(MAX_VALUE)
    fact_type: FactType = FactType.NUMERIC
    source_text: _text(MAX_SOURCE)


class ExtractionPayload(BaseModel):
    """What stage 1 emits: a bounded list of atomic facts."""

    model_config = ConfigDict(extra="forbid")

    atomic_facts: list[AtomicFact] = Field(max_length=MAX_FACTS)


def parse_payload(text: str) -> ExtractionPayload:
    """Validate JSON text as an ExtractionPayload, raising SchemaError with a one-line reason."""
    try:
        return ExtractionPayload.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "payload"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise SchemaError(f"invalid facts JSON at {where}: {first['msg']}{more}") from None
