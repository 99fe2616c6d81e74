"""Sample documents with gold facts, tampered payloads and questions; read through importlib.resources."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from ..schema import ExtractionPayload, parse_payload

SAMPLES = ("policy_zh", "policy_en")


def _file(name: str):
    return resources.files(__name__).joinpath(name)


def sample_path(name: str) -> Path:
    """Path of a sample file: 'policy_zh' means policy_zh.txt; other names are taken as file names."""
    filename = name if "." in name else f"{name}.txt"
    with resources.as_file(_file(filename)) as path:
        return Path(path)


def load_gold(name: str) -> ExtractionPayload:
    """The gold ExtractionPayload of a sample (policy_zh.facts.json)."""
    return parse_payload(_file(f"{name}.facts.json").read_text(encoding="utf-8"))


def load_tampered(name: str) -> list[dict]:
    """Tampered cases: {comment, verdict, rule, and 'fact' or 'payload'}."""
    return json.loads(_file(f"{name}.tampered.json").read_text(encoding="utf-8"))


def load_questions() -> dict[str, list[dict]]:
    """Questions per sample, each with the indexes of the gold facts that answer it."""
    return json.loads(_file("questions.json").read_text(encoding="utf-8"))
