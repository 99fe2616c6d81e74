"""`aegis bench soak`: many engine requests with random lengths, grammars, sampling and cancellations through the
slots — no result lost or duplicated, grammar output well-formed, KV cells and llama.cpp state back to idle,
resident memory growth per 1,000 requests after warm-up."""

from __future__ import annotations

import os
import random
import re
import threading
import time
from importlib import resources

from ..cli import add_format_arg, add_model_arg, print_json
from .report import Table, emit, write_json

STUCK_S = 120.0  # no request finishing for this long means one is stuck


def random_grammar(rng: random.Random) -> tuple[str, re.Pattern]:
    """A small GBNF grammar and the regular expression its complete outputs match."""
    kind = rng.randrange(4)
    if kind == 0:
        n = rng.randint(1, 6)
        return f"root ::= [0-9]{{1,{n}}}", re.compile(rf"[0-9]{{1,{n}}}")
    if kind == 1:
        words = rng.sample(["yes", "no", "maybe", "unknown", "是", "否", "元", "per night"], rng.randint(2, 4))
        return ("root ::= " + " | ".join(f'"{w}"' for w in words),
                re.compile("|".join(re.escape(w) for w in words)))
    if kind == 2:
        n = rng.randint(1, 12)
        return f"root ::= [a-z ]{{1,{n}}}", re.compile(rf"[a-z ]{{1,{n}}}")
    n = rng.randint(1, 3)
    gbnf = (f'root ::= "{{\\"value\\": " num ", \\"unit\\": \\"" unit "\\"}}"\n'
            f'num ::= "0" | [1-9][0-9]{{0,{n}}}\nunit ::= "元" | "%" | "USD"')
    return gbnf, re.compile(rf'\{{"value": (0|[1-9][0-9]{{0,{n}}}), "unit": "(元|%|USD)"\}}')


class Soak:
    """Drives one engine through `requests` random requests, at most `window` in flight, and checks each one."""

    def __init__(self, engine, requests: int, seed: int = 0, window: int | None = None,
                 cancel_rate: float = 0.25, max_chars: int = 160, max_tokens: int = 16):
        self.engine, self.n, self.rng = engine, requests, random.Random(seed)
        self.window = window or 2 * engine.config.n_parallel
        self.cancel_rate, self.max_chars, self.max_tokens = cancel_rate, max_chars, max_tokens
        files = resources.files("aegis_tui.samples")
        self.texts = [files.joinpath(f).read_text("utf-8") for f in ("policy_zh.txt", "policy_en.txt")]
        self.errors: list[str] = []
        self.counts = {"completed": 0, "cancelled": 0, "cancel_requested": 0, "grammar": 0, "finish": {}}
        self.rss: list[tuple[int, int]] = []  # (requests finished, bytes)

    def _prompt(self) -> str:
        text = self.rng.choice(self.texts)
        n = self.rng.randint(1, self.max_chars)
        start = self.rng.randrange(max(1, len(text) - n))
        return text[start:start + n] + "\nAnswer:"

    def _submit(self, i: int) -> dict:
        rng = self.rng
        grammar = pattern = None
        if rng.random() < 0.5:
            grammar, pattern = random_grammar(rng)
        from ..engine import Sampling

        sampling = Sampling() if rng.random() < 0.5 else Sampling(temperature=rng.uniform(0.3, 1.2),
                                                                  top_k=rng.choice([0, 40]), seed=rng.randrange(1000))
        job = {"i": i, "pieces": [], "pattern": pattern, "lock": threading.Lock(), "after_done": 0}

        def on_piece(p, job=job):
            with job["lock"]:
                if job.get("handle") is not None and job["handle"].done:
                    job["after_done"] += 1
                job["pieces"].append(p.text)

        job["handle"] = self.engine.submit(self._prompt(), grammar=grammar, max_tokens=rng.randint(1, self.max_tokens),
                                           sampling=sampling, on_piece=on_piece)
        if rng.random() < self.cancel_rate:
            job["cancel_at"] = time.perf_counter() + rng.choice([0.0, rng.uniform(0, 0.3)])
        return job

    def _check(self, job: dict) -> None:
        from ..engine.handle import FinishReason

        c = job["handle"].result(timeout=0)
        reason = FinishReason(c.finish_reason)
        self.counts["finish"][reason.value] = self.counts["finish"].get(reason.value, 0) + 1
        self.counts["completed"] += 1
        self.counts["cancelled"] += reason == FinishReason.CANCELLED
        where = f"request {job['i']}"
        if reason in (FinishReason.ERROR, FinishReason.CLOSED):
            self.errors.append(f"{where}: ended {reason.value}: {c.error}")
        if reason == FinishReason.CANCELLED and not job["handle"].cancel_requested:
            self.errors.append(f"{where}: cancelled without being asked")
        if "".join(job["pieces"]) != c.text:
            self.errors.append(f"{where}: streamed pieces differ from the result text")
        if job["after_done"]:
            self.errors.append(f"{where}: pieces arrived after the result")
        if job["pattern"] is not None and reason == FinishReason.GRAMMAR:
            self.counts["grammar"] += 1
            if not job["pattern"].fullmatch(c.text):
                self.errors.append(f"{where}: {c.text!r} does not match its grammar")

    def _rss(self) -> int:
        import psutil

        return psutil.Process(os.getpid()).memory_info().rss

    def run(self, progress=None) -> dict:
        engine = self.engine
        engine.clear_prefix_cache()
        base_kv, base_state = engine.stats().kv_used, engine.state_bytes()
        inflight: list[dict] = []
        submitted = done = 0
        t0 = last = time.perf_counter()
        seen: set[int] = set()
        every = max(1, self.n // 20)
        while done < self.n:
            while submitted < self.n and len(inflight) < self.window:
                inflight.append(self._submit(submitted))
                submitted += 1
            now = time.perf_counter()
            for job in inflight:
                if "cancel_at" in job and now >= job["cancel_at"] and not job["handle"].cancel_requested:
                    self.counts["cancel_requested"] += 1
                    job["handle"].cancel()
            finished = [j for j in inflight if j["handle"].done]
            if not finished:
                if now - last > STUCK_S:
                    self.errors.append(f"{len(inflight)} request(s) made no progress for {STUCK_S} s")
                    break
                try:
                    inflight[0]["handle"].result(timeout=0.005)
                except TimeoutError:
                    pass
                continue
            last = now
            for job in finished:
                inflight.remove(job)
                hid = job["handle"].id
                if hid in seen:
                    self.errors.append(f"request {job['i']}: completed twice")
                seen.add(hid)
                self._check(job)
                done += 1
                if done % every == 0 or done == self.n:
                    self.rss.append((done, self._rss()))
                    if progress:
                        progress(done, self.n)
        seconds = time.perf_counter() - t0
        stats = engine.stats()
        if stats.busy_slots or stats.queue_len:
            self.errors.append(f"after the soak: {stats.busy_slots} busy slot(s), {stats.queue_len} queued")
        leaked = set(range(engine.config.n_parallel)) & set(engine.seq_positions())
        if leaked:
            self.errors.append(f"after the soak: llama.cpp still holds cells for slot(s) {sorted(leaked)}")
        engine.clear_prefix_cache()
        kv, state = engine.stats().kv_used, engine.state_bytes()
        if kv != base_kv or state != base_state:
            self.errors.append(f"after the soak: KV cells {kv} (idle {base_kv}), state {state} B (idle {base_state})")
        lost = self.n - len(seen) if done == self.n else self.n - done
        return {"requests": self.n, "completed": self.counts["completed"], "lost": lost,
                "duplicated": self.counts["completed"] - len(seen), "cancel_requested": self.counts["cancel_requested"],
                "cancelled": self.counts["cancelled"], "grammar_checked": self.counts["grammar"],
                "finish": self.counts["finish"], "seconds": round(seconds, 1),
                "requests_per_s": round(self.n / seconds, 2) if seconds else None,
                "kv_idle": base_kv, "kv_after": kv, "state_bytes_idle": base_state, "state_bytes_after": state,
                "rss_mb": [(n, round(b / 2 ** 20, 1)) for n, b in self.rss],
                "rss_growth_mb_per_1000": rss_growth(self.rss), "errors": self.errors}


def rss_growth(samples: list[tuple[int, int]], warm_fraction: float = 0.25) -> float | None:
    """MB per 1,000 requests: the least-squares slope of RSS over requests, after the first quarter (warm-up)."""
    pts = [(n, b) for n, b in samples if n > samples[-1][0] * warm_fraction] if samples else []
    if len(pts) < 2:
        return None
    mx = sum(n for n, _ in pts) / len(pts)
    my = sum(b for _, b in pts) / len(pts)
    var = sum((n - mx) ** 2 for n, _ in pts)
    slope = sum((n - mx) * (b - my) for n, b in pts) / var if var else 0.0
    return round(slope * 1000 / 2 ** 20, 2)


# -- aegis bench soak -------------------------------------------------------------------------------------------

def register(bsub) -> None:
    p = bsub.add_parser("soak", help="many random requests (lengths, grammars, cancellations) through the slots: "
                                     "nothing lost, KV back to idle, memory growth per 1,000 requests")
    add_model_arg(p)
    p.add_argument("--requests", type=int, default=1000, help="requests (default: %(default)s)")
    p.add_argument("--parallel", type=int, default=4, help="slots (default: %(default)s)")
    p.add_argument("--cancel-rate", type=float, default=0.25, help="share of requests cancelled (default: 0.25)")
    p.add_argument("--max-chars", type=int, default=160, help="longest prompt, in document characters (default: %(default)s)")
    p.add_argument("--max-tokens", type=int, default=16, help="most tokens a request generates (default: %(default)s)")
    p.add_argument("--threads", type=int, default=None, help="llama.cpp threads (default: engine default)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", metavar="DIR", help="also write bench_soak.json there")
    add_format_arg(p)
    p.set_defaults(func=run)


def run(args) -> int:
    import sys

    from ..engine import Engine, EngineConfig
    from ..models import resolve_model

    kw = {} if args.threads is None else {"n_threads": args.threads}
    config = EngineConfig(model_path=str(resolve_model(args.model)), n_parallel=args.parallel, n_ctx_per_slot=768,
                          **kw)

    def progress(done, total):
        if sys.stderr.isatty():
            print(f"\r{done}/{total} requests", end="", file=sys.stderr, flush=True)

    with Engine(config) as engine:
        result = Soak(engine, args.requests, seed=args.seed, cancel_rate=args.cancel_rate,
                      max_chars=args.max_chars, max_tokens=args.max_tokens).run(progress)
        result["settings"] = {"n_parallel": args.parallel, "n_ctx_per_slot": 768, "n_threads": engine.config.n_threads,
                              "n_gpu_layers": engine.n_gpu_layers}
    if sys.stderr.isatty():
        print(file=sys.stderr)
    write_json(args.out, "bench_soak.json", result)
    if args.format == "json":
        print_json(result)
    else:
        r = result
        emit([f"aegis bench soak: {'PASS' if not r['errors'] else 'FAIL'} — {r['requests']} requests in "
              f"{r['seconds']} s ({r['requests_per_s']}/s), {r['settings']['n_parallel']} slots",
              Table(["requests", "lost", "duplicated", "cancel asked", "cancelled", "grammar outputs checked",
                     "KV idle → after", "state bytes idle → after", "RSS growth MB/1,000 req"],
                    [[r["requests"], r["lost"], r["duplicated"], r["cancel_requested"], r["cancelled"],
                      r["grammar_checked"], f"{r['kv_idle']} → {r['kv_after']}",
                      f"{r['state_bytes_idle']} → {r['state_bytes_after']}", r["rss_growth_mb_per_1000"]]]),
              f"finish reasons: {', '.join(f'{k} {v}' for k, v in sorted(r['finish'].items()))}",
              f"RSS (MB) by requests done: {', '.join(f'{n}: {mb}' for n, mb in r['rss_mb'])}",
              *[f"  ! {e}" for e in r["errors"][:20]]])
    return 1 if result["errors"] else 0
