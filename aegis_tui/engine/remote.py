"""The remote engine: EngineProtocol over an OpenAI-compatible /v1/completions server (llama-server, vLLM, …).

The model work goes to the server; prompts, grammars, verification and the audit log stay here. Requests stream
(SSE), up to n_parallel at once; 429/503 and dropped connections are retried with exponential backoff until the
first piece arrives, after which a failure ends the request with FinishReason.ERROR (its pieces are already out).
The API key comes from $AEGIS_API_KEY and appears in no message, log or record.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable
from urllib.parse import urlsplit, urlunsplit

from ..errors import InputError
from ..models import ModelInfo
from .config import EngineConfig, Sampling
from .handle import Completion, EngineStats, FinishReason, Piece, RequestHandle, RequestStats, SlotState

if TYPE_CHECKING:
    import httpx

ENV_BACKEND = "AEGIS_BACKEND"
ENV_API_KEY = "AEGIS_API_KEY"
KINDS = ("auto", "llama", "vllm")  # request dialects: llama.cpp's `grammar` field, or vLLM's structured outputs
RETRY_STATUS = {429, 502, 503, 504}  # busy, restarting or behind a proxy that lost it: worth another try
VLLM_STRUCTURED_OUTPUTS = (0, 10, 2)  # first vLLM with `structured_outputs`; `guided_grammar` went in 0.12


class _Retry(Exception):
    """A failure worth another try (busy server, dropped connection) while nothing was delivered yet."""


class _Failed(Exception):
    """A failure that ends the request with FinishReason.ERROR."""


def public_url(url: str) -> str:
    """The URL without user:password, query or fragment: what messages and the audit record may show."""
    u = urlsplit(url)
    host = u.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{u.port}" if u.port else "")
    return urlunsplit((u.scheme, netloc, u.path.rstrip("/"), "", ""))


def _version(text: str) -> tuple[int, ...]:
    parts = []
    for p in text.split("+")[0].split("."):
        digits = "".join(ch for ch in p if ch.isdigit())
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


def estimate_tokens(text: str) -> int:
    """A rough token count when the server has no tokenize endpoint: one per CJK character, one per 4 others."""
    wide = sum(1 for ch in text if ord(ch) >= 0x2E80)
    return wide + (len(text) - wide + 3) // 4


@dataclass
class _Request:
    """One submitted request as the worker sees it."""

    handle: RequestHandle
    body: dict
    grammar: bool
    stop: bool
    t_submit: float
    started: bool = False
    response: object = None  # the open streaming response, closed by cancel() or close()
    generated: int = 0
    last_piece: float = 0.0
    parts: list[str] = field(default_factory=list)  # the text streamed so far
    ended: bool = False  # set (under the engine's lock) by the first _end(): cancel, close, or the worker
    stats: RequestStats = field(default_factory=RequestStats)


class RemoteEngine:
    """An engine whose model runs on an OpenAI-compatible server; the same submit()/handle interface as Engine."""

    bos_text = ""          # the server tokenizes prompts with BOS, as the in-process engine does
    eos_text = ""
    n_gpu_layers = 0       # none here: the server's GPU is the server's business

    def __init__(self, url: str, *, model: str | None = None, kind: str = "auto", n_parallel: int = 4,
                 n_ctx_per_slot: int = 4096, timeout: float = 120.0, retries: int = 4, backoff_s: float = 0.5,
                 api_key: str | None = None, local_model: str | None = None) -> None:
        import httpx

        if kind not in KINDS:
            raise InputError(f"unknown backend kind {kind!r} (choose from {', '.join(KINDS)})")
        u = urlsplit(url)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise InputError(f"--backend {public_url(url) if u.hostname else url!r}: not an http(s) URL")
        self.url = public_url(url).removesuffix("/v1")  # http://host:8080 and http://host:8080/v1 are one backend
        self._api_key = api_key if api_key is not None else os.environ.get(ENV_API_KEY) or None
        self._secrets = [s for s in (self._api_key, u.password) if s]
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        auth = (u.username or "", u.password or "") if u.username else None
        self.timeout = timeout
        self.retries = max(0, retries)
        self.backoff_s = backoff_s
        self._client = httpx.Client(
            base_url=self.url, headers=headers, auth=auth, timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
            limits=httpx.Limits(max_connections=n_parallel + 4, max_keepalive_connections=n_parallel),
        )
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._requests: dict[int, _Request] = {}
        self._recent: deque[tuple[float, int]] = deque(maxlen=256)  # (time, tokens) of recent pieces
        self._bos: int | None = None
        try:
            self._discover(model, kind, local_model)
        except BaseException:
            self._client.close()
            raise
        self.config = EngineConfig(model_path=self.url, n_parallel=n_parallel, n_ctx_per_slot=n_ctx_per_slot,
                                   spare_prefix_seqs=0)
        self._pool = ThreadPoolExecutor(max_workers=n_parallel, thread_name_prefix="aegis-remote")

    # ---- discovery ---------------------------------------------------------------------------------
    def _probe(self, path: str) -> dict | None:
        """GET path as JSON; None for a 404/405 or a non-JSON answer (the endpoint is not there)."""
        try:
            r = self._client.get(path)
        except Exception:
            return None
        if r.status_code != 200:
            return None
        try:
            data = r.json()
        except ValueError:
            return None
        return data if isinstance(data, dict) else None

    def _models(self) -> list[dict]:
        """GET /v1/models, retrying a busy or loading server; InputError with one line for anything else."""
        import httpx

        for attempt in range(self.retries + 1):
            try:
                r = self._client.get("/v1/models")
            except httpx.TimeoutException:
                raise InputError(f"backend {self.url}: no answer within {self.timeout:g} s") from None
            except httpx.HTTPError as exc:
                raise InputError(f"backend {self.url}: cannot connect ({self._scrub(_reason(exc))})") from None
            if r.status_code in RETRY_STATUS and attempt < self.retries:
                time.sleep(self.backoff_s * 2 ** attempt)
                continue
            if r.status_code in (401, 403):
                raise InputError(f"backend {self.url}: the API key was refused (HTTP {r.status_code}); "
                                 f"set ${ENV_API_KEY}")
            if r.status_code != 200:
                raise InputError(f"backend {self.url}: no OpenAI-compatible API there "
                                 f"(GET /v1/models: HTTP {r.status_code})")
            try:
                data = r.json().get("data")
            except (ValueError, AttributeError):
                data = None
            if not isinstance(data, list):
                raise InputError(f"backend {self.url}: GET /v1/models did not return a model list")
            return [m for m in data if isinstance(m, dict) and m.get("id")]
        raise AssertionError("unreachable")

    def _discover(self, model: str | None, kind: str, local_model: str | None) -> None:
        models = self._models()
        ids = [str(m["id"]) for m in models]
        if not ids:
            raise InputError(f"backend {self.url} serves no model")
        if model is None:
            entry = models[0]
        elif model in ids:
            entry = models[ids.index(model)]
        else:
            raise InputError(f"backend {self.url} does not serve model {model!r} (it serves: {', '.join(ids)})")
        self.model_id = str(entry["id"])
        owner = str(entry.get("owned_by") or "")
        props = self._probe("/props") if owner != "vllm" else None
        if owner == "vllm":
            self.server = "vllm"
        elif owner == "llamacpp" or props is not None:
            self.server = "llama-server"
        elif owner == "me":  # what llama-cpp-python's server says
            self.server = "llama-cpp-python"
        else:
            self.server = "openai-compatible"
        self.dialect = kind if kind != "auto" else ("vllm" if self.server == "vllm" else "llama")
        self.grammar_field = "grammar"
        if self.dialect == "vllm":
            ver = (self._probe("/version") or {}).get("version")
            old = ver is not None and _version(str(ver)) < VLLM_STRUCTURED_OUTPUTS
            self.grammar_field = "guided_grammar" if old else "structured_outputs"
        # The chat template: llama-server says it; otherwise a local copy of the served GGUF (--model PATH, or the
        # path llama-cpp-python's server reports, when readable here) has it; else prompts are completion-style.
        local = self._local_info(local_model)
        self.chat_template: str | None = (props or {}).get("chat_template") or (local.chat_template if local else None)
        ctx = ((props or {}).get("default_generation_settings") or {}).get("n_ctx") or entry.get("max_model_len")
        short = self.model_id.rsplit("/", 1)[-1] if self.model_id.endswith(".gguf") else self.model_id
        name = f"remote:{short}@{self.url}"
        extra = {"backend": self.url, "server": self.server, "served_model": self.model_id,
                 "server_slots": (props or {}).get("total_slots"), "grammar_field": self.grammar_field}
        if local is not None:
            self.model_info = replace(local, name=name, chat_template=self.chat_template,
                                      extra={**local.extra, **extra})
        else:
            self.model_info = ModelInfo(path=self.url, file_size=0, architecture="unknown", name=name,
                                        quantization="unknown", n_layers=0, n_embd=0, n_head=0, n_head_kv=[],
                                        head_dim_k=0, head_dim_v=0, context_length=int(ctx or 0),
                                        chat_template=self.chat_template, extra=extra)

    def _local_info(self, local_model: str | None) -> ModelInfo | None:
        from ..errors import ModelError
        from ..models import inspect_model

        for path in (local_model, self.model_id if self.model_id.endswith(".gguf") else None):
            if path and os.path.isfile(path):
                try:
                    return inspect_model(path)
                except ModelError:
                    continue
        return None

    # ---- EngineProtocol ----------------------------------------------------------------------------
    def submit(self, prompt: str | list[int], *, grammar: str | None = None, max_tokens: int = 256,
               sampling: Sampling = Sampling(), stop: list[str] | None = None,
               on_piece: Callable[[Piece], None] | None = None) -> RequestHandle:
        """Queue one request; a worker streams it from the server (at most n_parallel at once)."""
        handle = RequestHandle(on_piece, cancel_fn=self._cancel)
        req = _Request(handle, self._body(prompt, grammar, max_tokens, sampling, stop), bool(grammar), bool(stop),
                       time.perf_counter())
        with self._lock:
            if self._closed.is_set():
                handle._finish(Completion("", FinishReason.CLOSED, "the engine is closed", [], req.stats))
                return handle
            self._requests[handle.id] = req
            self._pool.submit(self._run, req)  # under the lock: close() cannot shut the pool down in between
        return handle

    def tokenize(self, text: str, add_special: bool = True) -> list[int]:
        """The server's tokens for text; where the server has no tokenize endpoint, placeholder zeros in the
        number estimate_tokens() gives (a count, not ids)."""
        tokens = None
        if self.server == "llama-server":
            tokens = self._tokens("/tokenize", {"content": text, "add_special": add_special})
        elif self.server == "vllm":
            tokens = self._tokens("/tokenize", {"model": self.model_id, "prompt": text,
                                                "add_special_tokens": add_special})
        elif self.server == "llama-cpp-python":  # always adds BOS: learn it from "" and drop it when asked
            tokens = self._tokens("/extras/tokenize", {"model": self.model_id, "input": text})
            if tokens is not None and not add_special:
                if self._bos is None:
                    empty = self._tokens("/extras/tokenize", {"model": self.model_id, "input": ""}) or [-1]
                    self._bos = empty[0]
                if tokens and tokens[0] == self._bos:
                    tokens = tokens[1:]
        if tokens is None:
            return [0] * (estimate_tokens(text) + int(add_special))
        return tokens

    def _tokens(self, path: str, body: dict) -> list[int] | None:
        try:
            r = self._client.post(path, json=body)
            tokens = r.json().get("tokens") if r.status_code == 200 else None
        except Exception:
            return None
        if isinstance(tokens, list) and all(isinstance(t, int) for t in tokens):
            return tokens
        return None

    def stats(self) -> EngineStats:
        """Slots are the requests this client keeps in flight (--parallel); the server's KV cache is not visible."""
        with self._lock:
            reqs = list(self._requests.values())
        running = [r for r in reqs if r.started]
        now = time.perf_counter()
        recent = [(t, n) for t, n in list(self._recent) if now - t <= 5.0]
        tps = sum(n for _, n in recent) / 5.0 if recent else 0.0
        n = self.config.n_parallel
        slots = [SlotState(i, i < len(running), running[i].handle.id if i < len(running) else None,
                           running[i].generated if i < len(running) else 0,
                           running[i].stats.prompt_tokens if i < len(running) else 0) for i in range(n)]
        return EngineStats(n_slots=n, busy_slots=min(len(running), n), queue_len=len(reqs) - len(running),
                           kv_used=0, kv_total=0, tokens_per_s=tps, slots=slots, prefix_cache_entries=0)

    def close(self) -> None:
        """End every request (CLOSED), stop the workers and the connection pool; safe to call twice."""
        with self._lock:
            if self._closed.is_set():
                return
            self._closed.set()
            reqs = list(self._requests.values())
        for req in reqs:
            self._end(req, FinishReason.CLOSED, "the engine was closed")
        # a worker blocked on a read sees its stream closed (or its request ended) and exits on its own
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._client.close()

    # ---- requests ----------------------------------------------------------------------------------
    def _body(self, prompt, grammar, max_tokens, s: Sampling, stop) -> dict:
        body = {"model": self.model_id, "prompt": prompt, "max_tokens": max_tokens, "stream": True,
                "temperature": s.temperature, "top_p": s.top_p, "seed": s.seed, "min_p": 0.0,
                "presence_penalty": 0.0, "frequency_penalty": 0.0, "stream_options": {"include_usage": True}}
        if stop:
            body["stop"] = list(stop)
        if self.dialect == "vllm":
            body["repetition_penalty"] = 1.0
            if s.top_k > 0:
                body["top_k"] = s.top_k
            if grammar:
                body[self.grammar_field] = {"grammar": grammar} if self.grammar_field == "structured_outputs" \
                    else grammar
        else:
            body.update(top_k=s.top_k, repeat_penalty=1.0, cache_prompt=True)
            if grammar:
                body["grammar"] = grammar
        return body

    def _cancel(self, handle: RequestHandle) -> None:
        with self._lock:
            req = self._requests.get(handle.id)
        if req is not None:
            self._end(req, FinishReason.CANCELLED, None)

    def _end(self, req: _Request, reason: FinishReason, error: str | None) -> None:
        """Finish the handle once and close its stream (a worker blocked on it wakes with an error)."""
        with self._lock:
            if req.ended:
                return
            req.ended = True
            self._requests.pop(req.handle.id, None)
            resp, req.response = req.response, None
        if resp is not None:
            _hang_up(resp)
        req.stats.e2e_s = time.perf_counter() - req.t_submit
        req.stats.generated_tokens = req.stats.generated_tokens or req.generated
        req.handle._finish(Completion("".join(req.parts), reason, error, [], req.stats))

    def _run(self, req: _Request) -> None:
        h = req.handle
        with self._lock:
            if req.ended or h.cancel_requested or self._closed.is_set():
                return
            req.started = True
        req.stats.queue_s = time.perf_counter() - req.t_submit
        parts = req.parts
        for attempt in range(self.retries + 1):
            if req.ended:  # cancelled while backing off
                return
            try:
                reason = self._stream(req)
                self._end(req, reason, None)
                return
            except _Retry as exc:
                if req.ended:
                    return
                if parts or attempt == self.retries:
                    what = f"after {req.generated} token(s)" if parts else f"after {attempt + 1} tries"
                    self._end(req, FinishReason.ERROR, f"backend {self.url}: {exc} {what}")
                    return
                if self._closed.wait(self.backoff_s * 2 ** attempt):
                    return
            except _Failed as exc:
                if not req.ended:
                    self._end(req, FinishReason.ERROR, f"backend {self.url}: {exc}")
                return
            except Exception as exc:  # never let a worker die with the handle open
                if not req.ended:
                    self._end(req, FinishReason.ERROR, f"backend {self.url}: {self._scrub(_reason(exc))}")
                return

    def _stream(self, req: _Request) -> FinishReason:
        """One POST /v1/completions, streamed into req.parts and the handle; raises _Retry or _Failed."""
        import json

        import httpx

        t0 = time.perf_counter()
        finish = None
        try:
            with self._client.stream("POST", "/v1/completions", json=req.body) as resp:
                with self._lock:
                    if req.ended:
                        return FinishReason.CANCELLED
                    req.response = resp
                if resp.status_code in RETRY_STATUS:
                    raise _Retry(f"HTTP {resp.status_code}")
                if resp.status_code != 200:
                    resp.read()
                    raise _Failed(f"HTTP {resp.status_code}: {self._scrub(_error_text(resp))}")
                done = False
                for line in resp.iter_lines():
                    if not line.startswith("data:"):
                        continue  # SSE comments (pings), event names, blank separators
                    data = line[5:].strip()
                    if data == "[DONE]":
                        done = True
                        break
                    try:
                        obj = json.loads(data)
                    except ValueError:
                        raise _Failed(f"unreadable stream event {data[:60]!r}") from None
                    if obj.get("error"):
                        raise _Failed(self._scrub(_message(obj["error"])))
                    self._usage(req, obj)
                    if req.ended:  # cancelled or closed while this read was under way
                        return FinishReason.CANCELLED
                    for ch in obj.get("choices") or []:
                        text = ch.get("text") or ""
                        if text:
                            now = time.perf_counter()
                            if req.stats.ttft_s is None:
                                req.stats.ttft_s = now - t0
                            else:
                                req.stats.itl_s.append(now - req.last_piece)
                            req.last_piece = now
                            req.parts.append(text)
                            req.generated += 1
                            self._recent.append((now, 1))
                            req.handle._emit(Piece(text, now, 1))
                        finish = ch.get("finish_reason") or finish
                if finish is None and not done:
                    raise _Retry("the stream broke off")
                if finish is None:
                    # llama-cpp-python's server ends a stream early with [DONE] when another request arrives,
                    # unless started with --interrupt_requests False; a cut stream is no answer
                    raise _Failed("the server ended the stream unfinished (llama-cpp-python's server needs "
                                  "--interrupt_requests False)")
        except (_Retry, _Failed):
            raise
        except httpx.TimeoutException:
            if req.ended:
                return FinishReason.CANCELLED
            raise _Failed(f"no data within {self.timeout:g} s") from None
        except httpx.HTTPError as exc:
            if req.ended:  # cancel() or close() closed the stream under us
                return FinishReason.CANCELLED
            raise _Retry(f"connection lost ({self._scrub(_reason(exc))})") from None
        finally:
            with self._lock:
                req.response = None
        if finish == "length":
            return FinishReason.LENGTH
        if req.grammar:
            return FinishReason.GRAMMAR
        return FinishReason.STOP if req.stop and finish == "stop" else FinishReason.EOG

    def _usage(self, req: _Request, obj: dict) -> None:
        usage = obj.get("usage") or {}
        timings = obj.get("timings") or {}  # llama-server's own counts
        prompt = usage.get("prompt_tokens") or timings.get("prompt_n")
        if prompt:
            req.stats.prompt_tokens = int(prompt)
        gen = usage.get("completion_tokens") or timings.get("predicted_n")
        if gen:
            req.stats.generated_tokens = int(gen)
        cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or timings.get("cache_n")
        if cached:
            req.stats.cached_tokens = int(cached)

    def _scrub(self, text: str) -> str:
        for s in self._secrets:
            text = text.replace(s, "***")
        return " ".join(text.split())[:200]


def _hang_up(resp) -> None:
    """Close a streaming response now, from any thread: shutting the socket down wakes a worker blocked reading
    it (a plain close would wait for the next chunk) and tells the server to stop generating."""
    import socket

    try:
        sock = resp.extensions["network_stream"].get_extra_info("socket")
        if sock is not None:
            sock.shutdown(socket.SHUT_RDWR)
    except Exception:
        pass  # no socket to reach (a proxy transport): closing below still ends the stream
    try:
        resp.close()
    except Exception:
        pass


def _reason(exc: BaseException) -> str:
    """The innermost cause of an httpx error in a few words (a refused connection, a reset …)."""
    while exc.__cause__ is not None or exc.__context__ is not None:
        exc = exc.__cause__ or exc.__context__
    return str(exc) or type(exc).__name__


def _message(err) -> str:
    if isinstance(err, dict):
        return str(err.get("message") or err)
    return str(err)


def _error_text(resp: httpx.Response) -> str:
    try:
        obj = resp.json()
    except ValueError:
        return resp.text.strip().splitlines()[0] if resp.text.strip() else "no detail"
    if isinstance(obj, dict):
        return _message(obj.get("error") or obj.get("detail") or obj.get("message") or obj)
    return str(obj)
