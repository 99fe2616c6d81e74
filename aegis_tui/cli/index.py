"""`aegis index DOC`: the document's verified fact table — every value, what it applies to, where it stands."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

from . import add_engine_args, load_document, open_engine, print_json, show, table


def add_cache_args(p) -> None:
    """The fact-index cache options shared by `ask`, `index` and `tui`."""
    p.add_argument("--cache-dir", metavar="DIR",
                   help="fact-index cache (default: $AEGIS_CACHE_DIR or the user cache directory)")
    p.add_argument("--no-cache", action="store_true", help="index in memory only: neither read nor write the cache")


def model_id(engine) -> str:
    """What the cache is keyed by besides the document: the model file's fingerprint, else the served model."""
    from ..answer.indexcache import model_fingerprint

    path = Path(str(engine.config.model_path or ""))
    if path.is_file():
        return f"{path.name}:{model_fingerprint(path)}"
    return f"served:{engine.model_info.name}"


def index_store(args, engine, on_progress=None):
    """The IndexStore the cache options describe, for this engine."""
    from ..answer.factindex import IndexStore
    from ..answer.indexcache import default_cache_dir

    directory = None if args.no_cache else (args.cache_dir or default_cache_dir())
    return IndexStore(engine, model_id(engine), directory, max_attempts=getattr(args, "attempts", 2),
                      on_progress=on_progress)


def warn(store) -> None:
    """The cache's warnings (read-only or full cache directory), one line each on stderr."""
    for w in dict.fromkeys(store.warnings()):
        print(f"aegis: warning: {w}", file=sys.stderr)


def register(sub) -> None:
    p = sub.add_parser("index", help="the verified fact table of a document (every value, its labels, evidence); "
                                     "with --out, batch review of many documents")
    p.add_argument("docs", metavar="DOC", nargs="+",
                   help="document (.txt/.md/.docx/.pdf) or 'sample:zh'/'sample:en'; with --out, any number of "
                        "documents and directories (searched recursively)")
    p.add_argument("--out", metavar="DIR", help="batch review: one fact table per document in DIR (JSONL and CSV) "
                                                "and summary.json; resumable (indexed documents come from the cache)")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="batch review: documents indexed at once, sharing the engine's slots (default 1)")
    p.add_argument("--format", choices=["text", "json", "csv"], default="text", help="output format")
    p.add_argument("--attempts", type=int, default=2, help="labelling attempts per value incl. repairs (default 2)")
    p.add_argument("--audit-log", metavar="PATH", help="audit log (default: $AEGIS_AUDIT_LOG or the user data dir)")
    p.add_argument("--no-audit", action="store_true", help="do not write the audit log")
    add_cache_args(p)
    add_engine_args(p)
    p.set_defaults(func=run)


class Bar:
    """Indexing progress on a terminal's stderr (values done / total, rate, ETA); silent when not a TTY."""

    def __init__(self, total: int) -> None:
        self.progress = None
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

            self.progress = Progress(TextColumn("indexing"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                                     TextColumn("{task.fields[rate]}"), TimeRemainingColumn(),
                                     console=Console(stderr=True))
            self.task = self.progress.add_task("index", total=total, rate="")
            self.progress.start()

    def __call__(self, p) -> None:
        if self.progress is not None:
            self.progress.update(self.task, completed=p.done, total=p.total, rate=f"{p.rate:.1f} values/s")

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()


def run(args) -> int:
    from ..errors import InputError

    if args.attempts < 1 or args.attempts > 5:
        raise InputError("--attempts must be between 1 and 5")
    if args.out is not None:
        from .batch import run_batch

        return run_batch(args)
    if len(args.docs) > 1:
        raise InputError("several documents need --out DIR (batch review)")
    doc = load_document(args.docs[0])
    audit = None
    if not args.no_audit:
        from ..audit import AuditLog

        audit = AuditLog(args.audit_log)
    engine = open_engine(args)
    bar = None
    try:
        store = index_store(args, engine)
        indexer = store.indexer(doc)
        index = indexer.index
        cached = index.done
        bar = Bar(index.total)
        indexer.on_progress = bar
        t = time.perf_counter()
        indexer.run(threading.Event())
        build_s = time.perf_counter() - t
    finally:
        if bar is not None:
            bar.close()
        engine.close()
    warn(store)
    body = index.to_json()
    body["index"] = {"values": index.total, "from_cache": cached, "distrusted_cache_entries": index.distrusted,
                     "labelled_now": index.done - cached, "requests": indexer.requests,
                     "generated_tokens": indexer.tokens, "build_s": round(build_s, 3),
                     "cache": str(index.cache.path) if index.cache is not None and index.cache.enabled else None}
    if audit is not None:
        body["audit_head"] = audit_index(audit, body, index.model_id)
    if args.format == "json":
        print_json(body)
    elif args.format == "csv":
        from ..answer.factindex import write_csv

        write_csv(body, sys.stdout)
    else:
        print_text(body)
    return 0


def audit_index(audit, body: dict, model_id: str) -> dict | None:
    """One audit record for an indexed document (its verified facts); the head it left, to pin the output to."""
    record = {"kind": "index", "document": body["document"], "model": model_id,
              "facts": [{k: f[k] for k in ("subject", "predicate", "object_value", "source_text", "key")}
                        for f in body["facts"]],
              "summary": body["summary"]}
    audit.append(record)
    pin = audit.head()
    return {"log": str(audit.path), **pin} if pin else None


def print_text(body: dict) -> None:
    facts = table("#", "section", "subject", "predicate", "value", "where", right=("#",),
                  cut={"section": 24, "subject": 36, "predicate": 36, "value": 20})
    for i, f in enumerate(body["facts"], 1):
        loc = (f["evidence"].get("location") or {}).get("describe", "")
        facts.add_row(str(i), f["section"], f["subject"], f["predicate"], f["object_value"], loc)
    s, ix = body["summary"], body["index"]
    line = (f"{s['values']} values: {s['verified']} verified, {s['rejected']} rejected"
            + (f", {s['pending']} pending" if s["pending"] else "")
            + f" · {ix['from_cache']} from the cache, {ix['labelled_now']} labelled now in {ix['build_s']:.1f}s "
              f"({ix['requests']} requests, {ix['generated_tokens']} tokens)")
    show(facts, "", line)
