"""Shared benchmark helpers: statistics, argument checks, sample prompts, tables, progress, output files."""

from __future__ import annotations

import json
import math
import os
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..errors import InputError

MAX_CONCURRENCY = 64
MAX_TOKENS_LIMIT = 4096


# -- statistics --------------------------------------------------------------------------------------

def mean(values) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def percentile(values, p: float) -> float | None:
    """Linear-interpolated percentile (numpy's default), p in [0, 100]; None for no values."""
    vals = sorted(v for v in values if v is not None)
    if not vals:
        return None
    k = (len(vals) - 1) * p / 100.0
    lo, hi = math.floor(k), math.ceil(k)
    return vals[lo] + (vals[hi] - vals[lo]) * (k - lo)


def ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 3) if a is not None and b else None


def rnd(x: float | None, nd: int = 4) -> float | None:
    return None if x is None else round(x, nd)


def loadavg() -> list[float] | None:
    """The 1/5/15-minute load averages, to tell whether numbers were taken on a busy machine."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        return None


# -- argument checks ---------------------------------------------------------------------------------

def parse_concurrency(text: str, limit: int = MAX_CONCURRENCY, name: str = "--concurrency") -> list[int]:
    """'1,2,4,8' -> [1, 2, 4, 8]; InputError for non-integers, values < 1 or > limit."""
    out: list[int] = []
    for part in str(text).split(","):
        part = part.strip()
        if not part:
            continue
        try:
            c = int(part)
        except ValueError:
            raise InputError(f"{name}: '{part}' is not an integer") from None
        if c < 1 or c > limit:
            raise InputError(f"{name}: {c} is outside 1..{limit}")
        if c not in out:
            out.append(c)
    if not out:
        raise InputError(f"{name}: give at least one level, e.g. 1,2,4,8")
    return out


def check_range(name: str, value: int, lo: int, hi: int) -> int:
    if value < lo or value > hi:
        raise InputError(f"{name}: {value} is outside {lo}..{hi}")
    return value


def resolve_checked_model(explicit: str | None) -> str:
    """--model (or its defaults) validated as a GGUF before anything loads; ModelError (exit 2) otherwise."""
    from ..models import inspect_model, resolve_model

    path = resolve_model(explicit)
    inspect_model(path)
    return str(path)


# -- sample document and questions -------------------------------------------------------------------

def load_document(name: str, max_chars: int | None = None):
    """A sample ('policy_zh', 'policy_en') or a file path, optionally cut at a line end before max_chars."""
    from ..samples import SAMPLES, sample_path
    from ..text.document import Document

    path = sample_path(name) if name in SAMPLES else Path(name)
    if not path.is_file():
        raise InputError(f"--doc: {name}: no such sample or file (samples: {', '.join(SAMPLES)})")
    doc = Document.load(path)
    if max_chars and len(doc.text) > max_chars:
        cut = doc.text.rfind("\n", 0, max_chars)
        doc = Document.from_text(doc.text[: cut if cut > 0 else max_chars], path=f"{doc.path} (first {max_chars} chars)")
    return doc


def bench_questions(name: str, n: int) -> list[str]:
    """n distinct questions: the sample's questions.json entries, then one per gold fact, numbered if reused."""
    from ..samples import SAMPLES, load_gold, load_questions

    qs: list[str] = []
    if name in SAMPLES:
        qs += [q["question"] for q in load_questions().get(name, [])]
        zh = name.endswith("_zh")
        for f in load_gold(name).atomic_facts:
            qs.append(f"{f.subject}的{f.predicate}是多少？" if zh else f"What is the {f.predicate} for {f.subject}?")
    if not qs:
        qs = ["请概括这份文件的要点。", "What does this document say about limits and amounts?"]
    qs = list(dict.fromkeys(qs))
    return [qs[i % len(qs)] + ("" if i < len(qs) else f" ({i // len(qs) + 1})") for i in range(n)]


# -- one batch of concurrent requests ----------------------------------------------------------------

@dataclass
class RequestResult:
    """One request as a benchmark sees it (seconds; tokens)."""

    ttft_s: float | None
    e2e_s: float
    queue_s: float
    generated_tokens: int
    prompt_tokens: int = 0
    cached_tokens: int = 0
    finish_reason: str = ""
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.finish_reason not in ("error", "closed", "cancelled")

    @property
    def tpot_s(self) -> float | None:
        if self.ttft_s is None or self.generated_tokens < 2:
            return None
        return (self.e2e_s - self.ttft_s) / (self.generated_tokens - 1)


@dataclass
class BatchResult:
    """C requests sent together: their results and the wall time from the first send to the last finish."""

    concurrency: int
    wall_s: float
    requests: list[RequestResult] = field(default_factory=list)

    def row(self) -> dict:
        ok = [r for r in self.requests if r.ok]
        ttfts = [r.ttft_s for r in ok]
        gen = sum(r.generated_tokens for r in ok)
        return {
            "concurrency": self.concurrency, "completed": len(ok), "total": len(self.requests),
            "avg_ttft_s": rnd(mean(ttfts)), "max_ttft_s": rnd(max((t for t in ttfts if t is not None), default=None)),
            "p50_ttft_s": rnd(percentile(ttfts, 50)), "p99_ttft_s": rnd(percentile(ttfts, 99)),
            "tpot_s": rnd(mean(r.tpot_s for r in ok), 5),
            "throughput_tok_s": rnd(gen / self.wall_s if self.wall_s > 0 else None, 2),
            "wall_s": rnd(self.wall_s), "avg_queue_s": rnd(mean(r.queue_s for r in ok)),
            "generated_tokens": gen, "min_generated": min((r.generated_tokens for r in ok), default=0),
            "max_generated": max((r.generated_tokens for r in ok), default=0),
            "cached_tokens": sum(r.cached_tokens for r in ok),
            "errors": [r.error for r in self.requests if not r.ok][:3],
        }

    def to_json(self) -> dict:
        return {"concurrency": self.concurrency, "wall_s": self.wall_s, "requests": [asdict(r) for r in self.requests]}


def engine_batch(engine, prompts: list[str], max_tokens: int, progress: Progress | None = None) -> BatchResult:
    """Submit every prompt at once to our engine (stop=None, greedy) and wait for all of them."""
    on_piece = progress.piece if progress is not None else None
    t0 = time.perf_counter()
    handles = [engine.submit(p, max_tokens=max_tokens, stop=None, on_piece=on_piece) for p in prompts]
    results = []
    for h in handles:
        c = h.result()
        s = c.stats
        results.append(RequestResult(s.ttft_s, s.e2e_s, s.queue_s, s.generated_tokens, s.prompt_tokens,
                                     s.cached_tokens, c.finish_reason, c.error))
        if progress is not None:
            progress.done_one()
    return BatchResult(len(prompts), time.perf_counter() - t0, results)


def phases(rows: list[dict], n_parallel: int) -> list[str]:
    """Name each row's phase from throughput growth vs the previous row: linear, sublinear or saturated.

    Scaling efficiency e = log(throughput gain) / log(concurrency gain): 1 when throughput doubles with C,
    0 when it stays flat. e >= 0.7 is linear, e < 0.25 (or a loss) is saturated, in between sublinear.
    """
    out = []
    prev = None
    for r in rows:
        c, thr = r["concurrency"], r.get("throughput_tok_s")
        if prev is None or not thr or not prev[1] or c <= prev[0]:
            name = "baseline"
        else:
            e = math.log(thr / prev[1]) / math.log(c / prev[0])
            r["scaling_efficiency"] = round(e, 3)
            name = "linear" if e >= 0.7 else "saturated" if e < 0.25 else "sublinear"
        if c > n_parallel:
            name += " (queued: C > slots)"
        out.append(name)
        prev = (c, thr)
    return out


# -- text output -------------------------------------------------------------------------------------

def fmt(v, nd: int = 3) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{nd}f}"
    return str(v)


def table(headers: list[str], rows: list[list], align: str | None = None) -> str:
    """A Markdown table (readable in a terminal, pasteable into BENCHMARKS.md)."""
    cells = [[str(h) for h in headers]] + [[fmt(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    align = align or "l" + "r" * (len(headers) - 1)

    def line(r):
        return "| " + " | ".join(c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(r, widths, align)) + " |"

    sep = "|" + "|".join(("-" * (w + 1) + ":") if a == "r" else ("-" * (w + 2)) for w, a in zip(widths, align)) + "|"
    return "\n".join([line(cells[0]), sep] + [line(r) for r in cells[1:]])


def write_json(out_dir: str | None, name: str, obj) -> Path | None:
    if not out_dir:
        return None
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
        path = out / name
        path.write_text(json.dumps(obj, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"--out {out_dir}: cannot write {name} ({exc.strerror})") from None
    return path


def check_out_dir(out_dir: str | None) -> None:
    """Fail before a long run, not after it, when --out cannot be created."""
    if not out_dir:
        return
    p = Path(out_dir)
    if p.exists() and not p.is_dir():
        raise InputError(f"--out {out_dir}: exists and is not a directory")
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--out {out_dir}: cannot create it ({exc.strerror})") from None


# -- progress ----------------------------------------------------------------------------------------

class Progress:
    """Requests done out of a total, on stderr: a redrawn bar on a TTY, else a counter line per stage."""

    def __init__(self, total: int, stream=None, enabled: bool = True) -> None:
        self.total = max(1, total)
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.done = 0
        self.tokens = 0
        self.label = ""
        self._lock = threading.Lock()
        self._last = 0.0
        self._t0 = time.perf_counter()

    def stage(self, label: str) -> None:
        with self._lock:
            self.label = label
            if self.enabled and not self.tty:
                self.stream.write(f"[{self.done}/{self.total}] {label}\n")
                self.stream.flush()
        self._draw(force=True)

    def piece(self, piece) -> None:
        with self._lock:
            self.tokens += piece.n_tokens
        self._draw()

    def add_tokens(self, n: int) -> None:
        with self._lock:
            self.tokens += n
        self._draw()

    def done_one(self, n: int = 1) -> None:
        with self._lock:
            self.done += n
        self._draw(force=True)

    def _draw(self, force: bool = False) -> None:
        if not self.tty:
            return
        now = time.perf_counter()
        if not force and now - self._last < 0.2:
            return
        self._last = now
        with self._lock:
            frac = min(1.0, self.done / self.total)
            bar = "#" * int(frac * 24)
            self.stream.write(f"\r[{bar:<24}] {self.done}/{self.total} requests  {self.tokens} tok  "
                              f"{now - self._t0:5.0f}s  {self.label[:40]:<40}")
            self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\r" + " " * 110 + "\r")
            self.stream.flush()
        elif self.enabled:
            self.stream.write(f"[{self.done}/{self.total}] done in {time.perf_counter() - self._t0:.1f} s\n")
            self.stream.flush()


# -- our engine ---------------------------------------------------------------------------------------

def open_engine(model: str, make_prompts, max_tokens: int, n_parallel: int, n_threads: int | None = None,
                n_gpu_layers: int | None = None, guess_ctx: int = 2048):
    """(engine, prompts): prompts = make_prompts(engine) (they need its chat template); slots hold the longest
    prompt plus max_tokens, so the engine is reopened once when the guessed slot size was too small."""
    from ..engine import EngineConfig
    from ..engine.engine import Engine

    def build(ctx: int):
        kw = {} if n_threads is None else {"n_threads": n_threads}
        return Engine(EngineConfig(model_path=model, n_parallel=n_parallel, n_ctx_per_slot=ctx,
                                   n_gpu_layers=n_gpu_layers, **kw))

    engine = build(guess_ctx)
    prompts = make_prompts(engine)
    need = -(-(max(len(engine.tokenize(p)) for p in prompts) + max_tokens + 64) // 256) * 256
    if need > engine.n_ctx_per_slot:
        engine.close()
        engine = build(need)
    return engine, prompts


# -- peers --------------------------------------------------------------------------------------------

def llama_sequential(model: str, prompts: list[str], max_tokens: int, n_ctx: int, n_threads: int = 2,
                     n_gpu_layers: int = 0, progress: Progress | None = None,
                     prime: str | None = None) -> tuple[BatchResult, float]:
    """llama-cpp-python's high-level Llama serving the prompts one by one (its own prompt-prefix reuse on).

    With prime, one untimed 1-token request over it runs first, so the document prefix is in Llama's context
    as in our warm rows. Returns the batch and the seconds spent loading and priming.
    """
    try:
        from llama_cpp import Llama
    except ImportError as exc:
        raise InputError(f"the Llama peer needs llama-cpp-python ({exc})") from None
    t_load = time.perf_counter()
    llm = Llama(model_path=model, n_ctx=n_ctx, n_threads=n_threads, n_gpu_layers=n_gpu_layers, verbose=False, seed=0)
    try:
        if prime is not None:
            llm(prime, max_tokens=1, temperature=0.0)
            if progress is not None:
                progress.done_one()
        load_s = time.perf_counter() - t_load
        results = []
        t0 = time.perf_counter()
        for p in prompts:
            sampled = [0]

            def count(_ids, scores):
                sampled[0] += 1  # called once per sampled token
                return scores

            ts = time.perf_counter()
            first, finish = None, ""
            for chunk in llm(p, max_tokens=max_tokens, temperature=0.0, stream=True, stop=[],
                             logits_processor=[count]):
                choice = chunk["choices"][0]
                if first is None and choice.get("text"):
                    first = time.perf_counter() - ts
                finish = choice.get("finish_reason") or finish
            if progress is not None:
                progress.add_tokens(sampled[0])
                progress.done_one()
            results.append(RequestResult(first, time.perf_counter() - ts, 0.0, min(sampled[0], max_tokens),
                                         finish_reason=finish or "length"))
        return BatchResult(len(prompts), time.perf_counter() - t0, results), load_s
    finally:
        if hasattr(llm, "close"):
            llm.close()


class OpenAIPeer:
    """An OpenAI-compatible server (llama-server, Ollama, ...): /v1/completions with stream=true, urllib only."""

    def __init__(self, url: str, timeout: float = 600.0) -> None:
        from urllib.parse import urlparse

        u = urlparse(url)
        if u.scheme not in ("http", "https") or not u.netloc:
            raise InputError(f"--peer-url {url}: not an http(s) URL")
        self.url = url
        self.base = url.rstrip("/").removesuffix("/v1")
        self.timeout = timeout
        self.model = "default"

    def check(self) -> str:
        """GET /v1/models: the server's model name; InputError when the server does not answer."""
        import urllib.error
        import urllib.request

        try:
            with urllib.request.urlopen(self.base + "/v1/models", timeout=5) as resp:
                data = json.loads(resp.read().decode("utf-8") or "{}")
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            raise InputError(f"--peer-url {self.url}: unreachable ({reason})") from None
        models = data.get("data") or data.get("models") or []
        if models and isinstance(models[0], dict):
            self.model = models[0].get("id") or models[0].get("name") or self.model
        return self.model

    def one(self, prompt: str, max_tokens: int) -> RequestResult:
        import urllib.request

        body = json.dumps({"model": self.model, "prompt": prompt, "max_tokens": max_tokens, "temperature": 0,
                           "stream": True, "stream_options": {"include_usage": True}}).encode()
        req = urllib.request.Request(self.base + "/v1/completions", data=body,
                                     headers={"Content-Type": "application/json"})
        ts = time.perf_counter()
        first, chunks, usage, finish = None, 0, None, ""
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                for raw in resp:
                    line = raw.decode("utf-8", "replace").strip()
                    if not line.startswith("data:"):
                        continue
                    data = line[5:].strip()
                    if data == "[DONE]":
                        break
                    obj = json.loads(data)
                    usage = obj.get("usage") or usage
                    timings = obj.get("timings") or {}
                    if timings.get("predicted_n"):
                        usage = {"completion_tokens": timings["predicted_n"]}
                    for ch in obj.get("choices") or []:
                        if ch.get("text"):
                            chunks += 1
                            if first is None:
                                first = time.perf_counter() - ts
                        finish = ch.get("finish_reason") or finish
        except (OSError, ValueError) as exc:
            return RequestResult(first, time.perf_counter() - ts, 0.0, chunks, finish_reason="error", error=str(exc))
        n = int((usage or {}).get("completion_tokens") or chunks)
        return RequestResult(first, time.perf_counter() - ts, 0.0, n, finish_reason=finish or "stop")

    def batch(self, prompts: list[str], max_tokens: int, progress: Progress | None = None) -> BatchResult:
        """Send every prompt at once (one thread each) and wait for all."""
        results: list[RequestResult | None] = [None] * len(prompts)

        def work(i: int) -> None:
            results[i] = self.one(prompts[i], max_tokens)
            if progress is not None:
                progress.add_tokens(results[i].generated_tokens)
                progress.done_one()

        wall = run_threads(work, len(prompts))
        return BatchResult(len(prompts), wall, [r for r in results if r is not None])


def run_threads(work, n: int) -> float:
    """Run work(i) for i in range(n) on n threads at once; the wall time in seconds."""
    t0 = time.perf_counter()
    threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return time.perf_counter() - t0


def finish(args, result: dict, name: str, plot_name: str, format_text) -> int:
    """Write NAME.json and NAME.png under --out, then print the result as text or JSON (the exit code: 0)."""
    from ..cli import print_json

    if args.out:
        write_json(args.out, f"{name}.json", result)
        from . import plots

        result["plot"] = str(getattr(plots, plot_name)(result, os.path.join(args.out, f"{name}.png")))
    if args.format == "json":
        print_json(result)
    else:
        print(format_text(result))
        if args.out:
            print(f"\nWrote {os.path.join(args.out, name + '.json')} and {result['plot']}")
    return 0


def add_run_args(p, name: str) -> None:
    """Options every engine benchmark shares: the document, threads, GPU layers, output folder, progress."""
    from ..cli import add_format_arg

    p.add_argument("--doc", default="policy_zh", help="sample name or document path (default policy_zh)")
    p.add_argument("--doc-chars", type=int, help="cut the document at a line end before N chars (quick: 1200)")
    p.add_argument("--threads", type=int, help="CPU threads for the engine")
    p.add_argument("--n-gpu-layers", type=int, help="layers to offload (default: all when a GPU is available)")
    p.add_argument("--out", metavar="DIR", help=f"write {name}.json and {name}.png there")
    p.add_argument("--no-progress", action="store_true", help="no progress output on stderr")
    add_format_arg(p)
