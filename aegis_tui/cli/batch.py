"""`aegis index PATH... --out DIR`: batch review — one verified fact table per document, and a summary.

Every document of every format the document model reads is indexed through one engine (in-process or a
served model with --backend), `--workers` documents at a time. Tables go to DIR as `<name>.facts.jsonl` and
`<name>.facts.csv`; `summary.json` is rewritten after every document, so an interrupted batch shows where it
stood. A re-run resumes: values already in the cache are not labelled again. A document that cannot be read
is reported with its reason and skipped; a document whose model requests failed (a server restarting) is
reported as incomplete and finished by the next run.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..answer.factindex import write_csv
from ..errors import AegisError, InputError
from . import document_path, open_engine, show, table
from .index import audit_index, index_store, warn

SUFFIXES = (".txt", ".md", ".markdown", ".docx", ".pdf")
MAX_WORKERS = 16


def collect(specs: list[str]) -> list[Path]:
    """The documents named: files as given (any suffix), directories searched recursively for known suffixes."""
    out: list[Path] = []
    for spec in specs:
        p = Path(document_path(spec))
        if p.is_dir():
            out += sorted(q for q in p.rglob("*") if q.is_file() and q.suffix.lower() in SUFFIXES
                          and not q.name.startswith("."))
        elif p.exists():
            out.append(p)
        else:
            raise InputError(f"{spec}: no such file or directory")
    return list(dict.fromkeys(out))


def _name(path: Path, taken: set[str]) -> str:
    """A file name for a document's tables: its stem, made unique within the batch."""
    base = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in path.stem) or "document"
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}-{n}"
    taken.add(name)
    return name


class BatchBar:
    """One progress line over documents and values on a terminal's stderr; silent when stderr is not a TTY."""

    def __init__(self, documents: int) -> None:
        self.lock = threading.Lock()
        self.docs_done, self.documents = 0, documents
        self.values: dict[str, tuple[int, int]] = {}
        self.status = None
        if sys.stderr.isatty():
            from rich.console import Console

            self.status = Console(stderr=True, highlight=False, markup=False).status("indexing …")
            self.status.start()

    def update(self, name: str, done: int, total: int) -> None:
        with self.lock:
            self.values[name] = (done, total)
            if self.status is not None:
                d = sum(v[0] for v in self.values.values())
                t = sum(v[1] for v in self.values.values())
                self.status.update(f"documents {self.docs_done}/{self.documents} · values {d}/{t}")

    def document_done(self) -> None:
        with self.lock:
            self.docs_done += 1

    def close(self) -> None:
        if self.status is not None:
            self.status.stop()


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def run_batch(args) -> int:
    from ..text.document import Document

    if not 1 <= args.workers <= MAX_WORKERS:
        raise InputError(f"--workers must be between 1 and {MAX_WORKERS}")
    paths = collect(args.docs)
    if not paths:
        raise InputError("no documents found (.txt, .md, .docx, .pdf)")
    out_dir = Path(args.out)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"{out_dir}: cannot create the output directory ({exc.strerror or exc})") from None
    audit = None
    if not args.no_audit:
        from ..audit import AuditLog

        audit = AuditLog(args.audit_log)
    engine = open_engine(args)
    store = index_store(args, engine)
    bar = BatchBar(len(paths))
    taken: set[str] = set()
    names = {p: _name(p, taken) for p in paths}
    results: dict[Path, dict] = {}
    lock = threading.Lock()
    cancel = threading.Event()
    t0 = time.perf_counter()

    def summary() -> dict:
        rows = [results[p] for p in paths if p in results]
        heads = [r["audit_head"] for r in rows if r.get("audit_head")]
        return {"documents": len(paths), "done": len(rows), "audit_head": max(heads, key=lambda h: h["seq"],
                                                                               default=None),
                "indexed": sum(1 for r in rows if r["status"] == "indexed"),
                "incomplete": sum(1 for r in rows if r["status"] == "incomplete"),
                "failed": sum(1 for r in rows if r["status"] == "failed"),
                "values": sum(r.get("values", 0) for r in rows), "verified": sum(r.get("verified", 0) for r in rows),
                "rejected": sum(r.get("rejected", 0) for r in rows),
                "model": store.model_id, "elapsed_s": round(time.perf_counter() - t0, 3), "results": rows}

    def one(path: Path) -> None:
        name = names[path]
        entry: dict = {"document": str(path), "name": name}
        try:
            doc = Document.load(path)
        except AegisError as exc:
            entry.update(status="failed", reason=str(exc))
        else:
            indexer = store.indexer(doc)
            index = indexer.index
            cached = index.done
            indexer.on_progress = lambda p: bar.update(name, p.done, p.total)
            t = time.perf_counter()
            # (two files of one text share one indexer: the second waits for the first's run, rather than failing
            # on it, "the index is already being built")
            indexer.ensure(list(index.candidates), cancel)
            body = index.to_json()
            s = body["summary"]
            with (out_dir / f"{name}.facts.jsonl").open("w", encoding="utf-8") as f:
                for fact in body["facts"]:
                    f.write(json.dumps({"document": str(path), "sha256": doc.sha256, **fact}, ensure_ascii=False)
                            + "\n")
            with (out_dir / f"{name}.facts.csv").open("w", encoding="utf-8", newline="") as f:
                write_csv(body, f)
            entry.update(status="indexed" if not s["pending"] else "incomplete", sha256=doc.sha256,
                         values=s["values"], verified=s["verified"], rejected=s["rejected"], pending=s["pending"],
                         from_cache=cached, build_s=round(time.perf_counter() - t, 3))
            if audit is not None:
                with lock:  # one record per document, appended in turn; the summary is pinned to the last head
                    entry["audit_head"] = audit_index(audit, body, index.model_id)
            if s["pending"]:
                reasons = list(dict.fromkeys(indexer.failures))[:3]
                entry["reason"] = (f"{s['pending']} value(s) not labelled: " + "; ".join(reasons or ["cancelled"])
                                   + " (run again to finish)")
        bar.document_done()
        with lock:
            results[path] = entry
            _write_atomic(out_dir / "summary.json", json.dumps(summary(), ensure_ascii=False, indent=2) + "\n")

    try:
        with ThreadPoolExecutor(max_workers=args.workers) as pool:
            list(pool.map(one, paths))
    except KeyboardInterrupt:
        cancel.set()
        raise
    finally:
        bar.close()
        engine.close()
    warn(store)
    final = summary()
    _write_atomic(out_dir / "summary.json", json.dumps(final, ensure_ascii=False, indent=2) + "\n")
    if args.format == "json":
        from . import print_json

        print_json(final)
    else:
        t = table("document", "status", "values", "verified", "rejected", "from cache", "seconds",
                  right=("values", "verified", "rejected", "from cache", "seconds"), cut={"document": 48})
        for r in final["results"]:
            t.add_row(r["name"], r["status"], str(r.get("values", "-")), str(r.get("verified", "-")),
                      str(r.get("rejected", "-")), str(r.get("from_cache", "-")), f"{r.get('build_s', 0):.1f}")
        lines = [f"  {r['name']}: {r['reason']}" for r in final["results"] if r.get("reason")]
        show(t, "", f"{final['documents']} documents: {final['indexed']} indexed, {final['incomplete']} incomplete, "
                    f"{final['failed']} failed · {final['values']} values, {final['verified']} verified, "
                    f"{final['rejected']} rejected · {final['elapsed_s']:.1f}s · tables and summary.json in {out_dir}",
             *lines)
    return 0 if final["failed"] == 0 and final["incomplete"] == 0 else 1
