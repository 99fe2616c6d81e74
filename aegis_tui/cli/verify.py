"""`aegis verify DOC FACTS.json`: Tier-1 verification of an ExtractionPayload file, no model needed."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

from ..errors import InputError
from . import add_format_arg, print_json


def register(sub) -> None:
    p = sub.add_parser("verify", help="verify a facts JSON file against a document (exit 1 if a fact fails)")
    p.add_argument("document", metavar="DOC", help="the document (.txt/.md, UTF-8 or GB18030)")
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


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _cell(text: str, width: int) -> str:
    out, used = "", 0
    for c in text:
        w = _width(c)
        if used + w > width:
            out, used = out[:-1] + "…", used
            break
        out += c
        used += w
    return out + " " * max(0, width - _width(out))


def format_table(report) -> str:
    """A readable table: one row per fact, with the first failing rule and why."""
    doc = report.document
    lines = [f"document: {doc.path}  ({len(doc.text)} chars, sha256 {doc.sha256[:12]}…)",
             f"{'#':>3}  {_cell('verdict', 7)}  {_cell('subject', 22)}  {_cell('predicate', 18)}  "
             f"{_cell('value', 14)}  evidence / failing rule"]
    for fv in report.facts:
        f = fv.fact
        if fv.passed:
            ev = (fv.check("source_verbatim") or None)
            where = ev.evidence if ev and ev.evidence else {}
            why = f"line {where.get('line', '?')}, col {where.get('column', '?')}" if where else ""
        else:
            bad = [c for c in fv.checks if not c.passed]
            why = f"{bad[0].rule}: {bad[0].detail}"
            if len(bad) > 1:
                why += f"  (+{', '.join(c.rule for c in bad[1:])})"
        lines.append(f"{fv.index:>3}  {_cell('pass' if fv.passed else 'FAIL', 7)}  {_cell(f.subject, 22)}  "
                     f"{_cell(f.predicate, 18)}  {_cell(f.object_value, 14)}  {why}")
    s = report.to_json()["summary"]
    lines.append(f"summary: {s['passed']}/{s['total']} passed, {s['failed']} failed")
    return "\n".join(lines)


def run(args) -> int:
    from ..answer.verify import Tier1CodeVerifier
    from ..schema import parse_payload
    from ..text.document import Document

    document = Document.load(args.document)
    payload = parse_payload(_read_facts(args.facts))
    report = Tier1CodeVerifier(document).verify(payload)
    if args.audit_log is not None or os.environ.get("AEGIS_AUDIT_LOG"):
        from ..audit import AuditLog, build_record

        AuditLog(args.audit_log or None).append(build_record(report, command="verify", facts_path=args.facts))
    if args.format == "json":
        print_json(report.to_json())
    else:
        print(format_table(report))
    return 0 if report.all_passed else 1
