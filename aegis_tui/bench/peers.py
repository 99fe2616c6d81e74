"""The engines our numbers are compared with: llama-cpp-python's Llama one request at a time, OpenAI servers."""

from __future__ import annotations

import json
import os
import time

from ..errors import InputError
from .progress import Progress
from .stats import BatchResult, RequestResult
from .workload import run_threads


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
        key = os.environ.get("AEGIS_API_KEY")  # as the remote engine sends it; never printed
        self.headers = {"Authorization": f"Bearer {key}"} if key else {}

    def check(self) -> str:
        """GET /v1/models: the server's model name; InputError when the server does not answer."""
        import urllib.error
        import urllib.request

        try:
            with urllib.request.urlopen(urllib.request.Request(self.base + "/v1/models", headers=self.headers),
                                        timeout=5) as resp:
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
                                     headers={"Content-Type": "application/json", **self.headers})
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
