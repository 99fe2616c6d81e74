"""`aegis verify DOC FACTS.json`: Tier-1 verification of an ExtractionPayload file, no model needed."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import InputError
from . import add_format_arg, document_path, print_json, show, table


def register(sub) -> None:
    p = sub.add_parser("verify", help="verify a facts JSON file against a document (exit 1 if a fact fails)")
    p.add_argument("document", metavar="DOC",
                   help="the document (.txt/.md, UTF-8 or GB18030); 'sample:zh' or 'sample:en'")
    p.add_argument("facts", metavar="FACTS.json", help="an ExtractionPayload: {\"atomic_facts\": [...]}")
    add_format_arg(p)
    p.add_argument("--audit-log", nargs="?", const="", metavar="PATH",
                   help="append this run to a hash-chained audit log (no PATH: $AEGIS_AUDIT_LOG or the user "
                        "data directory); without the flag a log is written only when $AEGIS_AUDIT_LOG is set")
    p.set_defaults(func=run)


def _read_facts(path: str) -> str:
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: no such facts file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a facts file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the facts file ({exc})") from None


def where(document, fv) -> tuple[str, str]:
    """Where a fact's value stands: its source location ("page 2, table 1, row 3, column 2") and heading path."""
    from ..answer.report import locate

    found = locate(document, fv.anchor)
    loc = found["location"]
    if loc is None:  # neither the value nor the quote was found: the quote's own evidence, if any
        ev = (fv.check("source_verbatim") or None)
        ev = ev.evidence if ev is not None and ev.evidence else {}
        return (f"line {ev['line']}, col {ev['column']}" if "line" in ev else "—"), ""
    path = found["heading_path"][1:] or found["heading_path"]  # the outermost heading is the document's title
    return loc["describe"], " › ".join((["…"] if len(path) > 2 else []) + path[-2:])  # the innermost sections


def report_table(report):
    """A rich table: one row per fact, where its value stands (location, section), or the first failing rule."""
    t = table("#", "verdict", "subject", "predicate", "value", "where", "section", "failing rule", right=("#",),
              cut={"subject": 22, "predicate": 18, "value": 14, "section": 32})
    for fv in report.facts:
        f = fv.fact
        place, section = where(report.document, fv)
        if fv.passed:
            why = ""
        else:
            bad = [c for c in fv.checks if not c.passed]
            why = f"{bad[0].rule}: {bad[0].detail}"
            if len(bad) > 1:
                why += f"  (+{', '.join(c.rule for c in bad[1:])})"
        t.add_row(str(fv.index), "pass" if fv.passed else "FAIL", f.subject, f.predicate, f.object_value, place,
                  section, why)
    return t


def print_report(report) -> None:
    doc, s = report.document, report.to_json()["summary"]
    show(f"document: {doc.path}  ({len(doc.text)} chars, sha256 {doc.sha256[:12]}…)", report_table(report),
         f"summary: {s['passed']}/{s['total']} passed, {s['failed']} failed")


def run(args) -> int:
    from ..answer.verify import Tier1CodeVerifier
    from ..schema import parse_payload
    from ..text.document import Document

    document = Document.load(document_path(args.document))
    payload = parse_payload(_read_facts(args.facts))
    report = Tier1CodeVerifier(document).verify(payload)
    if args.audit_log is not None or os.environ.get("AEGIS_AUDIT_LOG"):
        from ..audit import AuditLog, build_record

        AuditLog(args.audit_log or None).append(build_record(report, command="verify", facts_path=args.facts))
    if args.format == "json":
        print_json(report.to_json())
    else:
        print_report(report)
    return 0 if report.all_passed else 1
