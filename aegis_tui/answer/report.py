"""Verification results: one rule's CheckResult, one fact's FactVerdict, and the payload's VerificationReport."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

from ..schema import AtomicFact
from ..text.document import Document


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one rule on one fact, with the evidence that decided it."""

    rule: str
    passed: bool
    detail: str
    evidence: dict | None = None

    def to_json(self) -> dict:
        return {"rule": self.rule, "passed": self.passed, "detail": self.detail, "evidence": self.evidence}


@dataclass
class FactVerdict:
    """One fact with every rule's result; it passes only when all rules pass."""

    index: int
    fact: AtomicFact
    checks: list[CheckResult]

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)

    @property
    def verdict(self) -> str:
        return "pass" if self.passed else "fail"

    @property
    def failed_rules(self) -> list[str]:
        return [c.rule for c in self.checks if not c.passed]

    def check(self, rule: str) -> CheckResult | None:
        return next((c for c in self.checks if c.rule == rule), None)

    @property
    def anchor(self) -> int | None:
        """The document offset the fact points at: its value in the quote, else the quote."""
        for rule in ("value_in_source", "source_verbatim"):
            check = self.check(rule)
            if check and check.passed and check.evidence and "offset" in check.evidence:
                return check.evidence["offset"]
        return None

    def to_json(self, document: Document | None = None) -> dict:
        body = {"index": self.index, "verdict": self.verdict, "fact": self.fact.model_dump(mode="json"),
                "checks": [c.to_json() for c in self.checks]}
        if document is not None:
            body.update(locate(document, self.anchor))
        return body


def locate(document: Document, offset: int | None) -> dict:
    """Where an offset stands in the source (page, line, table/row/column) and the heading path above it."""
    if offset is None:
        return {"location": None, "heading_path": []}
    loc = document.source.locate(offset)
    found = document.structure.cell_at(offset)
    if found is not None and loc.table is None:
        table, cell = found
        loc = replace(loc, table=table.index + 1, row=cell.row + 1, col=cell.col + 1)
    return {"location": asdict(loc) | {"describe": loc.describe()},
            "heading_path": list(document.structure.heading_path(offset))}


@dataclass
class VerificationReport:
    """Per-fact verdicts for one payload against one document (the `aegis verify --format json` contract)."""

    document: Document
    facts: list[FactVerdict]

    @property
    def verified_facts(self) -> list[AtomicFact]:
        return [f.fact for f in self.facts if f.passed]

    @property
    def verified(self) -> list[FactVerdict]:
        return [f for f in self.facts if f.passed]

    @property
    def rejected(self) -> list[FactVerdict]:
        return [f for f in self.facts if not f.passed]

    @property
    def all_passed(self) -> bool:
        return all(f.passed for f in self.facts)

    def to_json(self) -> dict:
        passed = sum(1 for f in self.facts if f.passed)
        return {
            "document": {"path": self.document.path, "sha256": self.document.sha256, "chars": len(self.document.text)},
            "facts": [f.to_json(self.document) for f in self.facts],
            "summary": {"total": len(self.facts), "passed": passed, "failed": len(self.facts) - passed},
        }
