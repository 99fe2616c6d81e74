"""`aegis ask DOC QUESTION`: one answer, headless, two-stage (verified) or the prose baseline."""

from __future__ import annotations

import sys

from ..answer.pipeline import MODES, STRATEGIES, Pipeline, PipelineConfig
from ..answer.states import Outcome
from ..errors import InputError
from ..text.document import Document
from . import add_engine_args, add_format_arg, open_engine, print_json


def register(sub) -> None:
    p = sub.add_parser("ask", help="answer one question about a document")
    p.add_argument("doc", metavar="DOC", help="document (.txt/.md, UTF-8 or GB18030); 'sample:zh' or 'sample:en'")
    p.add_argument("question", metavar="QUESTION")
    p.add_argument("--mode", choices=MODES, default="two-stage")
    p.add_argument("--strategy", choices=STRATEGIES, default="fan-out", help="two-stage extraction strategy")
    p.add_argument("--attempts", type=int, default=2, help="extraction attempts incl. repairs (default 2)")
    p.add_argument("--audit-log", metavar="PATH", help="audit log (default: $AEGIS_AUDIT_LOG or the user data dir)")
    p.add_argument("--no-audit", action="store_true", help="do not write the audit log")
    add_engine_args(p)
    add_format_arg(p)
    p.set_defaults(func=run)


def load_document(spec: str) -> Document:
    """A document path, or sample:zh / sample:en for the bundled samples."""
    if spec.startswith("sample:"):
        from ..samples import sample_path

        name = {"zh": "policy_zh", "en": "policy_en"}.get(spec.split(":", 1)[1])
        if name is None:
            raise InputError(f"unknown sample {spec!r} (use sample:zh or sample:en)")
        return Document.load(sample_path(name))
    return Document.load(spec)


class Progress:
    """One status line on a terminal's stderr while the pipeline runs; silent when stderr is not a TTY."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.last = ""

    def __call__(self, ev) -> None:
        if not self.tty:
            return
        line = f"[{ev.state:<8}] {ev.t:6.1f}s  {ev.tokens:5d} tokens  {ev.detail}"[:110]
        if line != self.last:
            sys.stderr.write("\r\033[K" + line)
            sys.stderr.flush()
            self.last = line

    def close(self) -> None:
        if self.tty and self.last:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def run(args) -> int:
    if not args.question.strip():
        raise InputError("the question is empty")
    if args.attempts < 1 or args.attempts > 5:
        raise InputError("--attempts must be between 1 and 5")
    doc = load_document(args.doc)
    audit = None
    if not args.no_audit:
        from ..audit import AuditLog

        audit = AuditLog(args.audit_log)
    engine = open_engine(args)
    progress = Progress()
    try:
        cfg = PipelineConfig(strategy=args.strategy, max_attempts=args.attempts,
                             model_name=engine.model_info.name)
        ans = Pipeline(engine, cfg, audit=audit).answer(doc, args.question, args.mode, on_event=progress)
    finally:
        progress.close()
        engine.close()
    if args.format == "json":
        print_json(ans.to_json())
    else:
        print_text(ans)
    return 0 if ans.state == Outcome.DONE else 1


def print_text(ans) -> None:
    t = ans.timings
    print(ans.answer)
    print()
    ttft = f"{t['ttft_s']:.2f}s" if t.get("ttft_s") is not None else "n/a"
    print(f"state {ans.state.upper()} · mode {ans.mode} ({ans.strategy}) · attempts {ans.attempts} · "
          f"TTFT {ttft} · E2E {t.get('e2e_s', 0):.2f}s · verify {t.get('verify_ms', 0):.2f} ms · "
          f"realize {t.get('realize_ms', 0):.2f} ms")
    if ans.report is not None:
        print(f"{'#':>2}  {'verdict':<7} {'subject':<22} {'predicate':<18} {'value':<10} evidence")
        for fv in ans.report.facts:
            ev = next((c.evidence for c in fv.checks if c.rule == "source_verbatim" and c.evidence), None)
            where = f"line {ev['line']} col {ev['column']}" if ev else ""
            f = fv.fact
            print(f"{fv.index:>2}  {fv.verdict:<7} {f.subject[:22]:<22} {f.predicate[:18]:<18} "
                  f"{f.object_value[:10]:<10} {where}")
    for r in ans.rejected:
        fact = r.get("fact") or {}
        print(f"  dropped {fact.get('subject', '?')} / {fact.get('object_value', '?')}: {r['rule']} — {r['detail']}")
    if ans.mode == "baseline":
        nums = ", ".join(ans.unsupported_numbers) or "none"
        print(f"numbers not found in the document: {nums}")
