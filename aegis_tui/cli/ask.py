"""`aegis ask DOC QUESTION`: one answer, headless, two-stage (verified) or the prose baseline."""

from __future__ import annotations

import sys

from ..answer.pipeline import MODES, STRATEGIES, Pipeline, PipelineConfig
from ..answer.states import Outcome
from ..errors import InputError
from . import add_engine_args, add_format_arg, load_document, open_engine, print_json, show, table
from .index import add_cache_args, index_store, warn
from .verify import where


def register(sub) -> None:
    p = sub.add_parser("ask", help="answer one question about a document")
    p.add_argument("doc", metavar="DOC", help="document (.txt/.md, UTF-8 or GB18030); 'sample:zh' or 'sample:en'")
    p.add_argument("question", metavar="QUESTION")
    p.add_argument("--mode", choices=MODES, default="two-stage")
    p.add_argument("--strategy", choices=STRATEGIES, default="index",
                   help="two-stage strategy: index (choose among the document's verified facts, labelling what the "
                        "question needs first; default), fan-out or single-pass (re-read the document per question)")
    p.add_argument("--attempts", type=int, default=2, help="extraction attempts incl. repairs (default 2)")
    p.add_argument("--audit-log", metavar="PATH", help="audit log (default: $AEGIS_AUDIT_LOG or the user data dir)")
    p.add_argument("--no-audit", action="store_true", help="do not write the audit log")
    add_cache_args(p)
    add_engine_args(p)
    add_format_arg(p)
    p.set_defaults(func=run)


class Progress:
    """The pipeline's state as a rich status line on a terminal's stderr; silent when stderr is not a TTY."""

    def __init__(self) -> None:
        self.status = None
        if sys.stderr.isatty():
            from rich.console import Console

            self.status = Console(stderr=True, highlight=False, markup=False).status("starting …")
            self.status.start()

    def __call__(self, ev) -> None:
        if self.status is not None:
            self.status.update(f"[{ev.state:<8}] {ev.t:6.1f}s  {ev.tokens:5d} tokens  {ev.detail}")

    def close(self) -> None:
        if self.status is not None:
            self.status.stop()


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
    from ..text.entities import load_segmenter

    load_segmenter(args.question, background=True)  # (while the model loads)
    engine = open_engine(args)
    progress = Progress()
    store = None
    try:
        cfg = PipelineConfig(strategy=args.strategy, max_attempts=args.attempts,
                             model_name=engine.model_info.name)
        store = index_store(args, engine) if args.strategy == "index" and args.mode == "two-stage" else None
        ans = Pipeline(engine, cfg, audit=audit, indexes=store).answer(doc, args.question, args.mode,
                                                                      on_event=progress)
    finally:
        progress.close()
        engine.close()
    if store is not None:
        warn(store)
    if args.format == "json":
        # pinned to the audit head it was written under: `aegis audit verify --expect-head SEQ:HASH` checks it later
        pin = audit.head() if audit is not None else None
        print_json({**ans.to_json(), "audit_head": {"log": str(audit.path), **pin} if pin else None})
    else:
        print_text(ans, doc)
    return 0 if ans.state == Outcome.DONE else 1


def print_text(ans, document=None) -> None:
    t = ans.timings
    ttft = f"{t['ttft_s']:.2f}s" if t.get("ttft_s") is not None else "n/a"
    items = [ans.answer, "",
             f"state {ans.state.upper()} · mode {ans.mode} ({ans.strategy}) · attempts {ans.attempts} · "
             f"TTFT {ttft} · E2E {t.get('e2e_s', 0):.2f}s · verify {t.get('verify_ms', 0):.2f} ms · "
             f"realize {t.get('realize_ms', 0):.2f} ms"]
    if ans.report is not None:
        facts = table("#", "verdict", "subject", "predicate", "value", "where", "section", right=("#",),
                      cut={"subject": 44, "predicate": 36, "value": 20, "section": 32})  # 22/18/10/16 CJK chars
        for fv in ans.report.facts:
            f = fv.fact
            facts.add_row(str(fv.index), fv.verdict, f.subject, f.predicate, f.object_value,
                          *where(ans.report.document, fv))
        items.append(facts)
    for r in ans.rejected:
        fact = r.get("fact") or {}
        quote = fact.get("source_text") or ""
        span = document.find(quote) if quote and document is not None else None
        at = f" (quote at {document.source.locate(span.start).describe()})" if span is not None else ""
        items.append(f"  dropped {fact.get('subject', '?')} / {fact.get('object_value', '?')}: {r['rule']} — "
                     f"{r['detail']}{at}")
    if ans.mode == "baseline":
        items.append(f"numbers not found in the document: {', '.join(ans.unsupported_numbers) or 'none'}")
    show(*items)
