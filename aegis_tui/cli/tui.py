"""`aegis tui [DOC]` (and a bare `aegis`): the terminal UI on a document, the bundled Chinese sample by default."""

from __future__ import annotations

from typing import Callable

from ..engine.config import EngineConfig
from ..engine.protocol import EngineProtocol
from . import add_engine_args, document_path, engine_config, open_remote
from .index import add_cache_args, index_store


def register(sub) -> None:
    p = sub.add_parser("tui", help="the terminal UI: ask questions about a document and see every fact verified",
                       description="Open the terminal UI on DOC (default: the bundled Chinese policy sample).")
    p.add_argument("doc", nargs="?", metavar="DOC",
                   help="document to open (.txt/.md, UTF-8 or GB18030); 'sample:zh' or 'sample:en'")
    add_engine_args(p)
    p.add_argument("--strategy", choices=["index", "fan-out", "single-pass"], default="index",
                   help="answering strategy (default: %(default)s: index the document in the background and "
                        "answer from its verified facts)")
    p.add_argument("--export-dir", default=".", metavar="DIR", help="where reports are exported (default: .)")
    p.add_argument("--audit-log", metavar="PATH", help="audit log (default: $AEGIS_AUDIT_LOG or the user data dir)")
    p.add_argument("--no-audit", action="store_true", help="do not write the audit log")
    add_cache_args(p)
    p.set_defaults(func=run)


def engine_factory(config: EngineConfig) -> Callable[[], EngineProtocol]:
    """A callable that loads the real engine for an EngineConfig (called in the UI's loader thread)."""
    def load() -> EngineProtocol:
        from ..engine import Engine

        return Engine(config)

    return load


def run(args) -> int:
    from ..answer.pipeline import PipelineConfig
    from ..models import check_gguf_file, resolve_model
    from ..text.document import Document

    doc = document_path(args.doc) if args.doc else None
    if doc:
        Document.load(doc)  # a bad DOC is a one-line error and exit 2, before the screen is taken over
    if args.backend:  # connect before the screen is taken over: a wrong URL is a one-line error and exit 2
        engine = open_remote(args)
        factory, label = (lambda: engine), engine.model_info.name
    else:
        path = check_gguf_file(resolve_model(args.model))
        factory, label = engine_factory(engine_config(args, path)), path.name
    from ..tui import AegisApp

    audit = None
    if not args.no_audit:
        from ..audit import AuditLog

        audit = AuditLog(args.audit_log)  # every answer's verification and state trail, hash-chained
    app = AegisApp(doc_path=doc, engine_factory=factory,
                   pipeline_config=PipelineConfig(strategy=args.strategy, model_name=label),
                   export_dir=args.export_dir, model_label=label, audit=audit,
                   index_store=lambda engine: index_store(args, engine))
    app.run()
    return int(app.return_code or 0)
