"""The remote engine against real servers: llama-cpp-python's server on the embedded model, and tiny local HTTP
servers for the faults a real deployment has (slow, busy, ignoring the grammar). No HTTP is mocked."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from test_pipeline import EN_QUESTION, QUESTION, STABLE_VALUES

from aegis_tui.audit import verify_log
from aegis_tui.engine.handle import FinishReason
from aegis_tui.engine.protocol import EngineProtocol
from aegis_tui.engine.remote import RemoteEngine, public_url
from aegis_tui.errors import InputError
from aegis_tui.text.quantity import find_quantities, parse_quantity

INVALID_JSON = '{"subject": "三级定'  # what a server that ignores the grammar might stream back
SECRET = "sk-test-5f3a9c"  # an API key that must never be printed or logged


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---- a real llama-cpp-python server on the embedded model -----------------------------------------------------
class LlamaServer:
    """`python -m llama_cpp.server` on one port: start(), kill(), and start() again on the same port."""

    def __init__(self, model: str, port: int | None = None) -> None:
        self.model, self.port, self.proc = model, port or free_port(), None
        self.url = f"http://127.0.0.1:{self.port}"

    def start(self, wait: bool = True) -> LlamaServer:
        cmd = [sys.executable, "-m", "llama_cpp.server", "--model", self.model, "--port", str(self.port),
               "--n_ctx", "4096", "--n_threads", "2", "--n_threads_batch", "2",
               "--interrupt_requests", "False"]  # else a second request cuts the first stream short
        env = {**os.environ, "OMP_WAIT_POLICY": "passive"}
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        if wait:
            self.wait_ready()
        return self

    def wait_ready(self, timeout: float = 120.0) -> None:
        t = time.monotonic() + timeout
        while time.monotonic() < t:
            assert self.proc.poll() is None, "llama_cpp.server exited"
            try:
                if httpx.get(self.url + "/v1/models", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise TimeoutError("llama_cpp.server did not come up")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


@pytest.fixture(scope="session")
def _remote_cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("remote-cache"))


@pytest.fixture(autouse=True)
def _shared_metadata_cache(_remote_cache, monkeypatch):
    """One cache for this module: the remote engine reads the served GGUF's metadata (its chat template) once,
    not once per test (parsing a 262k-token vocabulary takes tens of seconds on a busy machine)."""
    monkeypatch.setenv("AEGIS_CACHE_DIR", _remote_cache)


@pytest.fixture(scope="session")
def llama_server(embedded_model):
    server = LlamaServer(embedded_model).start()
    yield server
    server.kill()


@pytest.fixture
def own_server(embedded_model):
    """A server of the test's own, to kill and restart."""
    server = LlamaServer(embedded_model).start()
    yield server
    server.kill()


# ---- tiny real HTTP servers for the faults --------------------------------------------------------------------
class Fault(BaseHTTPRequestHandler):
    """Speaks just enough of the API: /v1/models, and /v1/completions per the server's `mode`."""

    def log_message(self, *args) -> None:  # quiet
        pass

    def _json(self, code: int, obj) -> None:
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        srv = self.server
        srv.seen.append((self.path, self.headers.get("Authorization")))
        if srv.mode == "slow":
            time.sleep(3)
        if self.path == "/v1/models":
            self._json(200, {"object": "list", "data": [{"id": "fixed", "object": "model", "owned_by": "llamacpp"}]})
        else:
            self._json(404, {"error": "not found"})

    def do_POST(self) -> None:
        srv = self.server
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        srv.seen.append((self.path, self.headers.get("Authorization")))
        srv.bodies.append(body)
        if srv.mode in ("slow", "slow-completions"):
            time.sleep(3)
        if srv.mode == "busy" and srv.busy > 0:
            srv.busy -= 1
            return self._json(503, {"error": {"message": "loading model"}})
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()  # HTTP/1.0: the stream ends when the connection closes
        try:
            for text, finish in [(INVALID_JSON, None), ("", "stop")]:
                chunk = {"choices": [{"index": 0, "text": text, "finish_reason": finish}]}
                self.wfile.write(f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
        except OSError:  # the client gave up (a timeout test): nothing to tell it
            pass


@contextmanager
def fault_server(mode: str, busy: int = 0):
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Fault)
    srv.mode, srv.busy, srv.seen, srv.bodies = mode, busy, [], []
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    srv.url = f"http://127.0.0.1:{srv.server_address[1]}"
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()


def one_line_error(proc) -> str:
    """The CLI's stderr for an error: exactly one line, no traceback."""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


# ---- pure helpers -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("url, shown", [
    ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
    ("http://127.0.0.1:8080/v1/", "http://127.0.0.1:8080/v1"),  # the engine drops /v1 itself
    ("https://alice:hunter2@gpu-node:8000/llm?key=abc#x", "https://gpu-node:8000/llm"),  # no credentials, no query
    ("http://[::1]:9000", "http://[::1]:9000"),
])
def test_public_url_drops_credentials(url, shown):
    assert public_url(url) == shown


# ---- faults on tiny local servers (no model) -----------------------------------------------------------------
@pytest.mark.parametrize("backend, says", [
    ("http://127.0.0.1:{free}", "cannot connect"),                 # nothing listens there
    ("ftp://127.0.0.1:21", "not an http(s) URL"),
    ("{fixed}/not-the-api", "no OpenAI-compatible API there"),      # a server, but not this path
])
def test_wrong_url_is_one_line_exit_2(cli, backend, says):
    with fault_server("fixed") as srv:
        url = backend.format(free=free_port(), fixed=srv.url)
        proc = cli("ask", "sample:en", "What are the caps?", "--backend", url, "--no-audit")
    assert proc.returncode == 2 and says in one_line_error(proc)


def test_wrong_model_name_is_one_line_exit_2(cli):
    with fault_server("fixed") as srv:
        proc = cli("ask", "sample:en", "What are the caps?", "--no-audit", "--backend-model", "llama-70b",
                   env={"AEGIS_BACKEND": srv.url})  # $AEGIS_BACKEND is the default for --backend
    line = one_line_error(proc)
    assert proc.returncode == 2 and "does not serve model 'llama-70b'" in line and "fixed" in line


def test_slow_server_past_the_timeout(cli):
    with fault_server("slow") as srv:
        t = time.monotonic()
        proc = cli("ask", "sample:en", "What are the caps?", "--backend", srv.url, "--backend-timeout", "0.5",
                   "--no-audit")
        assert time.monotonic() - t < 30
    assert proc.returncode == 2 and "no answer within 0.5 s" in one_line_error(proc)
    with fault_server("slow-completions") as srv:  # the model list comes at once, completions never do
        engine = RemoteEngine(srv.url, timeout=0.5)
        c = engine.submit("hello", max_tokens=4).result(timeout=30)
        engine.close()
    assert c.finish_reason == FinishReason.ERROR and "no data within 0.5 s" in c.error


def test_busy_server_is_retried_with_backoff():
    with fault_server("busy", busy=2) as srv:
        engine = RemoteEngine(srv.url, backoff_s=0.05)
        c = engine.submit("hello", max_tokens=8).result(timeout=30)
        engine.close()
        posts = [p for p, _ in srv.seen if p == "/v1/completions"]
    assert len(posts) == 3 and c.finish_reason == FinishReason.EOG and c.text == INVALID_JSON


def test_server_ignoring_the_grammar_goes_to_repair_and_keeps_the_key_secret(cli, tmp_path):
    log = tmp_path / "audit.jsonl"
    with fault_server("fixed") as srv:
        proc = cli("ask", "sample:en", EN_QUESTION, "--backend", srv.url, "--format",
                   "json", "--audit-log", str(log), env={"AEGIS_API_KEY": SECRET})
        seen, bodies = srv.seen, srv.bodies
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr  # not a crash
    out = json.loads(proc.stdout)
    # every model label is invalid: a value is stated only where its clause's own grammar labels it ("Lodging is
    # reimbursed up to $250 …"), verified like any label; the others are dropped with the model's error
    assert any("invalid JSON" in r["detail"] for r in out["rejected"])
    assert out["state"] == ("done" if out["facts"] else "fallback")
    assert all(f["verdict"] == "pass" for f in out["facts"])
    assert any("invalid JSON" in b["prompt"] for b in bodies[1:])  # REPAIR: re-asked with what was wrong
    assert all(b.get("grammar") for b in bodies)  # the grammar was sent (llama.cpp's field); the server ignored it
    assert {auth for _, auth in seen} == {f"Bearer {SECRET}"}
    record = json.loads(log.read_text().splitlines()[-1])
    assert record["model"] == f"remote:fixed@{srv.url}"
    assert SECRET not in proc.stdout + proc.stderr + log.read_text()


# ---- the real server ----------------------------------------------------------------------------------------
YES_NO = 'root ::= "{\\"answer\\": \\"" ("yes" | "no") "\\"}"'


@pytest.mark.model
def test_grammar_streaming_and_parallel_requests(llama_server):
    engine = RemoteEngine(llama_server.url, n_parallel=2)
    assert isinstance(engine, EngineProtocol) and engine.server == "llama-cpp-python"
    assert engine.model_info.name.startswith("remote:gemma-3-270m") and engine.chat_template is None
    pieces = []
    prompts = ["Is the sky blue? Answer in JSON.", "Is fire cold? Answer in JSON.", "Is water wet? Answer in JSON."]
    handles = [engine.submit(p, grammar=YES_NO, max_tokens=16, on_piece=pieces.append) for p in prompts]
    busy = engine.stats().busy_slots
    done = [h.result(timeout=120) for h in handles]
    assert busy <= 2 and engine.stats().busy_slots == 0
    for h, c in zip(handles, done):
        assert c.finish_reason == FinishReason.GRAMMAR
        assert json.loads(c.text)["answer"] in ("yes", "no")
        assert "".join(p.text for p in h) == c.text and c.stats.ttft_s is not None
    assert len(pieces) == sum(c.stats.generated_tokens for c in done)
    assert engine.tokenize("hello")[1:] == engine.tokenize("hello", add_special=False)
    engine.close()
    engine.close()


@pytest.mark.model
def test_cancel_closes_the_stream(llama_server):
    engine = RemoteEngine(llama_server.url, n_parallel=1)
    first = threading.Event()
    h = engine.submit("Once upon a time", max_tokens=400, on_piece=lambda p: first.set())
    assert first.wait(60)
    h.cancel()
    c = h.result(timeout=10)
    assert c.finish_reason == FinishReason.CANCELLED and c.text  # what streamed before the cancel is kept
    after = engine.submit("The capital of France is", max_tokens=4).result(timeout=60)  # the server serves on
    assert after.finish_reason == FinishReason.LENGTH
    engine.close()


@pytest.mark.model
def test_server_killed_mid_stream_is_reported(own_server):
    engine = RemoteEngine(own_server.url, n_parallel=1)
    first = threading.Event()
    h = engine.submit("Once upon a time", max_tokens=400, on_piece=lambda p: first.set())
    assert first.wait(60)
    own_server.kill()
    c = h.result(timeout=30)
    assert c.finish_reason == FinishReason.ERROR and c.text  # what arrived is kept; the pieces were delivered
    assert "\n" not in c.error and "after" in c.error and own_server.url in c.error
    engine.close()


@pytest.mark.model
def test_server_restart_before_the_first_piece_is_retried(own_server):
    engine = RemoteEngine(own_server.url, n_parallel=1, retries=7, backoff_s=0.25)
    own_server.kill()
    h = engine.submit("The capital of France is", max_tokens=4)
    time.sleep(0.3)
    own_server.start()  # same port; the request's retries find it back
    c = h.result(timeout=120)
    assert c.finish_reason == FinishReason.LENGTH and c.error is None and c.text
    engine.close()


@pytest.mark.model
def test_ask_remote_verifies_what_in_process_verifies(cli, llama_server, tmp_path):
    """`aegis ask --backend` on the reference question: the values the in-process engine always verifies.

    Fan-out, greedy only (one attempt): the strategy the in-process values were recorded with, and no sampled
    repair, whose random draws differ between llama.cpp's server sampler and the in-process one.
    """
    log = tmp_path / "a.jsonl"
    proc = cli("ask", "sample:zh", QUESTION, "--backend", llama_server.url, "--parallel", "2", "--format", "json",
               "--strategy", "fan-out", "--attempts", "1", "--audit-log", str(log))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["state"] == "done" and out["mode"] == "two-stage"
    passed = {f["fact"]["object_value"] for f in out["facts"] if f["verdict"] == "pass"}
    assert STABLE_VALUES <= passed
    for m in find_quantities(out["answer"]):
        assert m.quantity in {parse_quantity(v) for v in passed}, (m.text, out["answer"])
    assert verify_log(log).ok
    record = json.loads(log.read_text().splitlines()[-1])
    assert record["model"] == f"remote:gemma-3-270m-q4_k_m.gguf@{llama_server.url}"


def test_bad_backend_kind_and_url_raise_input_error():
    with pytest.raises(InputError):
        RemoteEngine("http://127.0.0.1:1", kind="tgi")
    with pytest.raises(InputError):
        RemoteEngine("not a url")
