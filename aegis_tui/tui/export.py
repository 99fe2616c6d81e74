"""Export one answered question as JSON (the `aegis ask --format json` shape) and as a Markdown report."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..errors import InputError
from .report_pane import fact_rows

_NAME = re.compile(r"^aegis-report-(\d+)\.(?:json|md)$")


def report_json(run, audit=None) -> dict:
    """The two-stage answer as `aegis ask` prints it, with the document and the baseline answer if asked, pinned
    to the audit head it was written under (`aegis audit verify --expect-head SEQ:HASH` checks it later)."""
    ans = run.answer
    doc = run.document
    out = {**ans.to_json(), "document": {"path": doc.path, "sha256": doc.sha256, "chars": len(doc.text)}}
    head = audit.head() if audit is not None else None
    out["audit_head"] = {"log": str(audit.path), **head} if head else None
    if ans.report is not None:
        out["summary"] = ans.report.to_json()["summary"]
    base = run.answers.get("baseline")
    if base is not None and run.main_mode != "baseline":
        out["baseline"] = base.to_json()
    return out


def _cell(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def report_markdown(run) -> str:
    """A human-readable report: question, answer with state and timings, the fact table and its evidence."""
    ans, doc = run.answer, run.document
    tm = ans.timings
    lines = [f"# Aegis report {run.qid}", "", f"- document: `{doc.path}` (sha256 `{doc.sha256[:16]}…`)",
             f"- question: {run.question}", f"- mode: {ans.mode} ({ans.strategy})",
             f"- state: **{ans.state.upper()}**, attempts {ans.attempts}, TTFT {tm.get('ttft_s')} s, "
             f"E2E {tm.get('e2e_s')} s, verify {tm.get('verify_ms')} ms, realize {tm.get('realize_ms')} ms",
             "", "## Answer", "", ans.answer or "(no answer)", "", "## Facts", ""]
    rows = fact_rows(ans, doc)
    if rows:
        lines += ["| # | subject | predicate | value | verdict | failing rule |", "|---|---|---|---|---|---|"]
        lines += [f"| {i} | {_cell(r.subject)} | {_cell(r.predicate)} | {_cell(r.value)} | {r.verdict} | "
                  f"{_cell(r.failing_rule or '—')} |" for i, r in enumerate(rows, 1)]
        lines += ["", "## Evidence", ""]
        for i, r in enumerate(rows, 1):
            lines.append(f"### {i}. {r.subject} · {r.predicate} · {r.value} ({r.verdict})")
            lines += [f"- {d.strip()}" for d in r.details]
            lines.append("")
    else:
        lines += ["No facts were verified.", ""]
    base = run.answers.get("baseline")
    if base is not None and run.main_mode != "baseline":
        lines += ["## Baseline (prose, not verified)", "", base.answer or "(no answer)", ""]
        if base.unsupported_numbers:
            lines += [f"Numbers not in the document: {', '.join(base.unsupported_numbers)}", ""]
    return "\n".join(lines)


def next_number(folder: Path) -> int:
    used = [int(m.group(1)) for p in folder.iterdir() if (m := _NAME.match(p.name))] if folder.is_dir() else []
    return max(used, default=0) + 1


def write_report(run, folder: str | Path, audit=None) -> list[Path]:
    """Write aegis-report-<n>.json and .md into folder (created if missing); the paths written."""
    if run is None or run.answer is None:
        raise InputError("no answered question to export")
    root = Path(folder).expanduser()
    try:
        root.mkdir(parents=True, exist_ok=True)
        n = next_number(root)
        json_path, md_path = root / f"aegis-report-{n}.json", root / f"aegis-report-{n}.md"
        json_path.write_text(json.dumps(report_json(run, audit), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        md_path.write_text(report_markdown(run) + "\n", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{root}: cannot write the report ({exc.strerror or exc})") from None
    return [json_path, md_path]
