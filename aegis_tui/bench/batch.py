"""`aegis bench batch`: a batch index over N distinct small policies (.md, .txt, .docx), in-process vs a served
model on the same machine, side by side — documents, values, verified, rejected, wall time, values/s, requests.

The remote column is llama-cpp-python's server (`python -m llama_cpp.server`) that the benchmark starts on a
free local port with the same model and threads, after the in-process engine is closed, and stops at the end;
`--backend URL` measures an existing server instead. Each run indexes every document with an empty cache
directory, `--workers` documents at a time, the engine keeping `--parallel` requests in flight.
"""

from __future__ import annotations

import dataclasses
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..cli import add_engine_args, add_format_arg
from ..errors import InputError
from .options import check_out_dir, check_range
from .report import Block, Table, emit, write_json
from .stats import loadavg, ratio, rnd

FORMATS = (".md", ".txt", ".docx")
MAX_DOCS = 200
MAX_WORKERS = 16
SERVER_START_S = 300.0


def register(bsub) -> None:
    p = bsub.add_parser("batch", help="batch index of N small documents: in-process vs a served model "
                                      "(llama-cpp-python's server, started here) side by side")
    add_engine_args(p)
    p.add_argument("--docs", type=int, metavar="N", help="documents to generate and index (default 20; quick 4)")
    p.add_argument("--sections", type=int, default=1, metavar="N",
                   help="policy sections per document, ~8 values each (default 1)")
    p.add_argument("--workers", type=int, default=2, metavar="N",
                   help="documents indexed at once, sharing the engine's slots (default 2)")
    p.add_argument("--threads", type=int, help="CPU threads for the engine and the started server")
    p.add_argument("--only", choices=["both", "local", "remote"], default="both", help="columns to run (default both)")
    p.add_argument("--out", metavar="DIR", help="write batch.json and the generated documents there")
    p.add_argument("--quick", action="store_true", help="4 documents (unless --docs says otherwise)")
    add_format_arg(p)
    p.set_defaults(func=run)


# ---- the documents ---------------------------------------------------------------------------------------
def documents(n: int, sections: int, seed: int = 7) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """n distinct policies: (file stem, title, [(section heading, body)]); every member organisation and every
    money value appears in one document only (longtext's clause generator, one value pool for the batch)."""
    from .longtext import members, section

    names = members()
    if n * sections > len(names):
        raise InputError(f"--docs × --sections: at most {len(names)} distinct sections")
    rng = random.Random(seed)
    used: set[str] = set()
    out = []
    for k in range(n):
        parts = []
        for j in range(sections):
            member = names[k * sections + j]
            head, body = section(j + 1, member, rng, used).strip().split("\n", 1)
            parts.append((head, body))
        lead = names[k * sections]
        out.append((f"policy-{k + 1:02d}", f"Travel and Expense Policy {k + 1}: {lead} group", parts))
    return out


def write_documents(docs, folder: Path) -> list[Path]:
    """Each document in turn as Markdown, plain text or Word (python-docx, a runtime dependency)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for k, (stem, title, parts) in enumerate(docs):
        suffix = FORMATS[k % len(FORMATS)]
        path = folder / f"{stem}{suffix}"
        if suffix == ".md":
            path.write_text(f"# {title}\n\n" + "".join(f"## {h}\n\n{b}\n\n" for h, b in parts), encoding="utf-8")
        elif suffix == ".txt":
            path.write_text(f"{title}\n\n" + "".join(f"{h}\n{b}\n\n" for h, b in parts), encoding="utf-8")
        else:
            import docx

            d = docx.Document()
            d.add_heading(title, 0)
            for h, b in parts:
                d.add_heading(h, 1)
                d.add_paragraph(b)
            d.save(str(path))
        paths.append(path)
    return paths


# ---- the server ------------------------------------------------------------------------------------------
def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class LocalServer:
    """`python -m llama_cpp.server` with the model on a free local port: start() waits until /v1/models answers;
    stop() ends that process (and only it)."""

    def __init__(self, model: str, threads: int, n_gpu_layers: int, log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.cmd = [sys.executable, "-m", "llama_cpp.server", "--model", model, "--host", "127.0.0.1",
                    "--port", str(self.port), "--n_ctx", "4096", "--n_threads", str(threads),
                    "--n_threads_batch", str(threads), "--n_gpu_layers", str(n_gpu_layers),
                    "--interrupt_requests", "False"]  # else a second request cuts the first stream short
        self.log = log
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = SERVER_START_S) -> float:
        import httpx

        t0 = time.perf_counter()
        env = {**os.environ, "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "passive")}
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(self.cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
        while time.perf_counter() - t0 < timeout:
            if self.proc.poll() is not None:
                tail = self.log.read_text(errors="replace").strip().splitlines()[-1:] or ["no output"]
                raise InputError(f"llama_cpp.server exited with {self.proc.returncode}: {tail[0][:200]}")
            try:
                if httpx.get(self.url + "/v1/models", timeout=2).status_code == 200:
                    return time.perf_counter() - t0
            except httpx.HTTPError:
                pass
            time.sleep(0.25)
        self.stop()
        raise InputError(f"llama_cpp.server did not answer within {timeout:.0f} s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


def check_backend(url: str) -> None:
    """An existing --backend answers GET /v1/models: else one line and exit 2, before anything loads."""
    from urllib.parse import urlsplit

    import httpx

    from ..engine.remote import ENV_API_KEY, public_url

    u = urlsplit(url)
    if u.scheme not in ("http", "https") or not u.hostname:
        raise InputError(f"--backend {url!r}: not an http(s) URL")
    base = public_url(url).removesuffix("/v1").rstrip("/")
    key = os.environ.get(ENV_API_KEY)
    try:
        httpx.get(base + "/v1/models", timeout=5, headers={"Authorization": f"Bearer {key}"} if key else {})
    except httpx.HTTPError as exc:
        raise InputError(f"--backend {base}: unreachable ({type(exc).__name__})") from None


# ---- the runs --------------------------------------------------------------------------------------------
def index_all(engine, paths: list[Path], workers: int, cache_dir: Path) -> dict:
    """Index every document through one engine with an empty cache directory, `workers` at a time: totals,
    the wall time from the first document read to the last value labelled, the engine's requests and tokens."""
    from ..answer.factindex import IndexStore
    from ..cli.index import model_id
    from ..text.document import Document
    from .indexing import Recorder, Sampler, request_stats

    rec = Recorder(engine)
    store = IndexStore(rec, model_id(engine), cache_dir)
    cancel = threading.Event()
    rows: dict[Path, dict] = {}

    def one(path: Path) -> None:
        t = time.perf_counter()
        doc = Document.load(path)
        indexer = store.indexer(doc)
        indexer.run(cancel)
        s = indexer.index.to_json()["summary"]
        rows[path] = {"document": path.name, "chars": len(doc.text), "values": s["values"],
                      "verified": s["verified"], "rejected": s["rejected"], "pending": s["pending"],
                      "seconds": rnd(time.perf_counter() - t, 3),
                      "failures": list(dict.fromkeys(indexer.failures))[:3]}

    with Sampler(engine) as sampler:
        t0 = time.perf_counter()
        try:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                list(pool.map(one, paths))
        except KeyboardInterrupt:
            cancel.set()
            raise
        wall = time.perf_counter() - t0
    req = request_stats(rec.handles)
    docs = [rows[p] for p in paths]
    total = {k: sum(r[k] for r in docs) for k in ("values", "verified", "rejected", "pending")}
    done = total["values"] - total["pending"]
    return {"documents": len(docs), "indexed": sum(1 for r in docs if not r["pending"]), **total,
            "wall_s": rnd(wall, 3), "values_per_s": rnd(done / wall if wall > 0 else None, 3), **req,
            "requests_per_value": rnd(req["requests"] / total["values"], 3) if total["values"] else None,
            "model_id": store.model_id, **sampler.summary(), "per_document": docs}


def _local_engine(args, model: str):
    from ..cli import engine_config
    from ..engine import Engine

    config = engine_config(args, model)
    if args.threads:
        config = dataclasses.replace(config, n_threads=args.threads)
    return Engine(config)


def _remote_engine(args, url: str, model: str):
    from ..engine.remote import RemoteEngine

    return RemoteEngine(url, model=args.backend_model, kind=args.backend_kind, n_parallel=args.parallel,
                        n_ctx_per_slot=args.ctx, timeout=args.backend_timeout, local_model=model)


def measure(args, model: str, paths: list[Path], workers: int, tmp: Path) -> dict:
    """In-process first (then closed, so the server has the machine to itself), then the served model."""
    out: dict = {"local": None, "remote": None}
    threads, gpu_layers = args.threads, 0
    if args.only in ("both", "local"):
        t = time.perf_counter()
        engine = _local_engine(args, model)
        open_s = time.perf_counter() - t
        threads, gpu_layers = engine.config.n_threads, engine.n_gpu_layers
        try:
            out["local"] = {"engine": "in-process", "open_s": rnd(open_s, 3), "n_threads": threads,
                            "n_gpu_layers": gpu_layers, **index_all(engine, paths, workers, tmp / "cache-local")}
        finally:
            engine.close()
    if args.only in ("both", "remote"):
        if threads is None:
            from ..engine.config import EngineConfig

            threads = EngineConfig(model_path=model).n_threads
        server = None
        url = args.backend
        start_s = None
        try:
            if url is None:
                server = LocalServer(model, threads, gpu_layers if args.gpu_layers is None else args.gpu_layers,
                                     tmp / "server.log")
                start_s = server.start()
                url = server.url
            t = time.perf_counter()
            engine = _remote_engine(args, url, model)
            open_s = time.perf_counter() - t
            try:
                out["remote"] = {"engine": "remote", "url": engine.url, "server": engine.server,
                                 "started_here": server is not None,
                                 "server_command": " ".join(Path(c).name if c == sys.executable else c
                                                            for c in server.cmd) if server else None,
                                 "server_start_s": rnd(start_s, 3), "open_s": rnd(open_s, 3),
                                 "n_threads": threads if server else None,
                                 **index_all(engine, paths, workers, tmp / "cache-remote")}
            finally:
                engine.close()
        finally:
            if server is not None:
                server.stop()
    return out


RATIO_KEYS = ("wall_s", "values_per_s", "requests", "generated_tokens", "verified", "rejected")


def run(args) -> int:
    n = check_range("--docs", args.docs if args.docs is not None else 4 if args.quick else 20, 1, MAX_DOCS)
    sections = check_range("--sections", args.sections, 1, 20)
    workers = check_range("--workers", args.workers, 1, MAX_WORKERS)
    check_range("--parallel", args.parallel, 1, 64)
    if args.threads is not None:
        check_range("--threads", args.threads, 1, 256)
    check_out_dir(args.out)
    if args.only != "local":
        if args.backend:
            check_backend(args.backend)
        else:
            try:
                import llama_cpp.server  # noqa: F401
            except ImportError as exc:
                raise InputError(f"starting a server needs llama-cpp-python[server] ({exc}); "
                                 "or give --backend URL") from None
    from .options import resolve_checked_model

    model = resolve_checked_model(args.model)
    docs = documents(n, sections)
    load_before = loadavg()
    with tempfile.TemporaryDirectory(prefix="aegis-bench-batch-") as tmp:
        folder = Path(args.out) / "documents" if args.out else Path(tmp) / "documents"
        paths = write_documents(docs, folder)
        runs = measure(args, model, paths, workers, Path(tmp))
    result = {
        "model": model, "quick": args.quick, "documents": n, "sections_per_document": sections,
        "formats": sorted({p.suffix for p in paths}),
        "workers": workers, "n_parallel": args.parallel, "n_ctx_per_slot": args.ctx,
        **runs, "machine": {"cpus": os.cpu_count()},
        "load_avg": {"before": load_before, "after": loadavg()},
    }
    loc, rem = runs["local"], runs["remote"]
    result["ratios_remote_over_local"] = (
        {k: ratio(rem[k], loc[k]) for k in RATIO_KEYS} if loc and rem else {})
    if args.out:
        write_json(args.out, "batch.json", result)
    if args.format == "json":
        from ..cli import print_json

        print_json(result)
    else:
        emit(text_report(result))
        if args.out:
            print(f"\nWrote {os.path.join(args.out, 'batch.json')}")
    return 0


ROWS = [("documents", "documents"), ("indexed (nothing pending)", "indexed"), ("values", "values"),
        ("verified", "verified"), ("rejected", "rejected"), ("pending", "pending"), ("wall time (s)", "wall_s"),
        ("values/s", "values_per_s"), ("requests", "requests"), ("requests/value", "requests_per_value"),
        ("generated tokens", "generated_tokens"), ("engine open (s)", "open_s"), ("peak RSS here (MiB)", "peak_rss_mib")]


def text_report(r: dict) -> list[Block]:
    loc, rem = r.get("local"), r.get("remote")
    cols = [c for c in (loc, rem) if c]
    head = ["measure"] + [("in-process" if c is loc else "remote") for c in cols]
    if loc and rem:
        head.append("remote ÷ in-process")
    rows = []
    for label, key in ROWS:
        row = [label] + [c.get(key) for c in cols]
        if loc and rem:
            row.append(ratio(rem.get(key), loc.get(key)) if key not in ("documents", "indexed", "pending") else None)
        rows.append(row)
    lines: list[Block] = [
        f"Batch index: {r['documents']} documents ({', '.join(r['formats'])}, {r['sections_per_document']} "
        f"section(s) each), {r['workers']} at a time, {r['n_parallel']} requests in flight; "
        f"{os.path.basename(r['model'])}; empty cache each run",
    ]
    if loc:
        lines.append(f"  in-process: {loc['n_threads']} threads, {loc['n_gpu_layers']} GPU layers")
    if rem:
        how = (f"started here ({rem['server_start_s']:.1f} s to answer): {rem['server_command']}"
               if rem["started_here"] else "an existing server")
        lines.append(f"  remote: {rem['server']} at {rem['url']}, {how}")
    lines += ["", Table(head, rows)]
    for c in cols:
        bad = [d for d in c["per_document"] if d["pending"]]
        for d in bad[:5]:
            lines.append(f"  {'remote' if c is rem else 'in-process'} {d['document']}: {d['pending']} pending "
                         f"({'; '.join(d['failures']) or 'no reason'})")
    la = r.get("load_avg") or {}
    if la.get("before"):
        lines.append(f"Load average before/after: {la['before']} / {la.get('after')} on {r['machine']['cpus']} CPUs")
    return lines

