"""Benchmarks: statistics and argument helpers, the OpenAI-compatible peer client, bad input, and real runs."""

from __future__ import annotations

import io
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from rich.cells import cell_len

from aegis_tui.bench.ab import engine_seconds, parse_modes
from aegis_tui.bench.indexing import fit_line
from aegis_tui.bench.longtext import grow
from aegis_tui.bench.options import parse_concurrency
from aegis_tui.bench.peers import OpenAIPeer
from aegis_tui.bench.report import Table, emit
from aegis_tui.bench.stats import percentile, phases
from aegis_tui.bench.workload import bench_questions
from aegis_tui.errors import InputError

LADDER_KEYS = {"concurrency", "completed", "total", "avg_ttft_s", "max_ttft_s", "p50_ttft_s", "p99_ttft_s", "tpot_s",
               "throughput_tok_s", "wall_s", "avg_queue_s"}
AB_KEYS = {"avg_ttft_s", "avg_e2e_s", "wall_s", "verify_ms", "realize_ms", "overhead_share", "facts_verified",
           "unsupported_numbers"}


@pytest.mark.parametrize("text, expected", [
    ("1,2,4,8", [1, 2, 4, 8]),      # the default ladder
    (" 4 , 1 ", [4, 1]),            # spaces and order kept
    ("2,2,4", [2, 4]),              # duplicates dropped
    ("64", [64]),                   # the limit itself is allowed
])
def test_parse_concurrency(text, expected):
    assert parse_concurrency(text) == expected


@pytest.mark.parametrize("text, message", [
    ("1,65", "outside 1..64"),      # above the sane limit
    ("0", "outside 1..64"),         # zero requests
    ("1,x", "not an integer"),      # junk
    (",", "at least one"),          # nothing
])
def test_parse_concurrency_rejects(text, message):
    with pytest.raises(InputError, match=message):
        parse_concurrency(text)


@pytest.mark.parametrize("values, p, expected", [
    ([3.0], 99, 3.0),                       # one value is every percentile
    ([1.0, 2.0, 3.0, 4.0], 50, 2.5),        # even count: interpolated median
    ([4.0, 1.0, 3.0, 2.0], 100, 4.0),       # unsorted input, max
    ([1.0, 2.0, 3.0, 4.0], 99, 3.97),       # numpy's linear interpolation
    ([None, 2.0], 50, 2.0),                 # missing TTFTs are ignored
    ([], 50, None),                         # nothing measured
])
def test_percentile(values, p, expected):
    got = percentile(values, p)
    assert got == pytest.approx(expected) if expected is not None else got is None


@pytest.mark.parametrize("throughputs, slots, expected", [
    ([(1, 10), (2, 20), (4, 40)], 4, ["baseline", "linear", "linear"]),            # doubles with C
    ([(1, 10), (2, 15), (4, 16)], 4, ["baseline", "sublinear", "saturated"]),      # flattening
    ([(4, 40), (8, 39)], 4, ["baseline", "saturated (queued: C > slots)"]),       # more requests than slots
])
def test_phases(throughputs, slots, expected):
    rows = [{"concurrency": c, "throughput_tok_s": t} for c, t in throughputs]
    assert phases(rows, slots) == expected


class _Done:
    def __init__(self, e2e):
        self.stats = type("S", (), {"e2e_s": e2e})()


class _Handle:
    def __init__(self, e2e):
        self._c = _Done(e2e)

    def result(self):
        return self._c


@pytest.mark.parametrize("spans, expected", [
    ([(0.0, 1.0)], 1.0),                            # one request
    ([(0.0, 1.0), (0.5, 1.0)], 1.5),                # overlapping: the union
    ([(0.0, 1.0), (2.0, 0.5)], 1.5),                # a gap (Python work between attempts) is not engine time
    ([], 0.0),                                      # no request at all
])
def test_engine_seconds_is_the_union(spans, expected):
    assert engine_seconds([(t, _Handle(e), 0.0) for t, e in spans]) == pytest.approx(expected)


@pytest.mark.parametrize("text, expected", [
    ("baseline,index-warm", ["baseline", "index_warm"]),           # dashes or underscores
    ("index_warm,baseline", ["baseline", "index_warm"]),           # the table's order, whatever was asked
    ("fan_out,fan-out", ["fan_out"]),                              # duplicates dropped
])
def test_parse_modes(text, expected):
    assert parse_modes(text) == expected


@pytest.mark.parametrize("xs, ys, slope, r2", [
    ([1, 2, 3], [2, 4, 6], 2.0, 1.0),                 # a line through the origin
    ([1, 2, 3, 4], [1, 3, 2, 4], 0.8, 0.64),          # noisy
    ([5], [1], None, None),                           # one point: no fit
])
def test_fit_line(xs, ys, slope, r2):
    fit = fit_line(xs, ys)
    assert fit["slope"] == (pytest.approx(slope) if slope is not None else None)
    assert fit["r2"] == (pytest.approx(r2) if r2 is not None else None)


@pytest.mark.parametrize("chars", [3_000, 60_000])
def test_long_document_is_distinct_sections_with_one_planted_fact(chars):
    text, planted = grow(chars)
    assert abs(len(text) - chars) < 1_000                               # whole sections, about that long
    sections = [s for s in text.split("\n") if s.strip()]
    assert len(sections) == len(set(sections))                        # never the same text repeated
    assert text.count(f"${planted.value}") == 1                       # the asked value is stated once
    assert planted.member in planted.question
    assert 0.5 < planted.offset / len(text) < 0.8                     # about two-thirds of the way in
    assert grow(chars) == (text, planted)                             # the same document every time


def test_bench_questions_are_distinct():
    qs = bench_questions("policy_zh", 12)
    assert len(qs) == 12 and len(set(qs)) == 12


def test_table_is_markdown():
    text = Table(["C", "tok/s"], [[1, 2.5], [2, None]]).markdown()
    assert text.splitlines()[1] == "|---|------:|"
    assert "| 2 |     - |" in text


def test_table_pads_by_display_width():
    # a CJK character takes two terminal columns: every line of the Markdown table is equally wide on screen
    text = Table(["问题", "tok/s"], [["起付线是多少", 2.5], ["cap", 10.0]]).markdown()
    assert len({cell_len(line) for line in text.splitlines()}) == 1
    assert "| 起付线是多少 |  2.500 |" in text


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_report_is_markdown_when_piped_and_a_rich_table_on_a_terminal():
    blocks = ["Ratios:", Table(["C", "tok/s"], [[1, 2.5]])]
    piped, tty = io.StringIO(), _Terminal()
    emit(blocks, piped)
    emit(blocks, tty)
    assert piped.getvalue() == "Ratios:\n| C | tok/s |\n|---|------:|\n| 1 | 2.500 |\n"
    assert "Ratios:" in tty.getvalue() and "2.500" in tty.getvalue() and "|---" not in tty.getvalue()


# -- the OpenAI-compatible peer, against a small local SSE server -------------------------------------

class _SSE(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        body = json.dumps({"data": [{"id": "tiny"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        req = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for i in range(req["max_tokens"]):
            chunk = {"choices": [{"text": f"t{i}", "finish_reason": None}]}
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        final = {"choices": [{"text": "", "finish_reason": "length"}], "usage": {"completion_tokens": req["max_tokens"]}}
        self.wfile.write(f"data: {json.dumps(final)}\n\ndata: [DONE]\n\n".encode())


@pytest.fixture
def sse_server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _SSE)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}"
    srv.shutdown()
    srv.server_close()


def test_openai_peer_streams_and_counts(sse_server):
    peer = OpenAIPeer(sse_server + "/v1")
    assert peer.check() == "tiny"
    row = peer.batch(["a", "b", "c"], 5).row()
    assert row["completed"] == row["total"] == 3
    assert row["generated_tokens"] == 15
    assert 0 < row["p50_ttft_s"] <= row["max_ttft_s"]


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# -- bad input: one line on stderr, exit 2, nothing loaded ---------------------------------------------

@pytest.mark.parametrize("args, message", [
    (["ladder", "--concurrency", "1,128"], "outside 1..64"),                      # C above the sane limit
    (["ab", "--concurrency", "100"], "outside 1..64"),                            # A/B C above the limit
    (["ab", "--modes", "baseline,nope"], "--modes: nope"),                        # an unknown A/B mode
    (["longdoc", "--lengths", "3000,100"], "at least 500"),                       # a document too short to grow
    (["longdoc", "--model", "/nonexistent/model.gguf"], "model file not found"), # missing model (long documents)
    (["ladder", "--cold", "1,100"], "--cold: 100 is outside"),                    # cold levels checked too
    (["ladder", "--max-tokens", "0"], "--max-tokens"),                            # nothing to generate
    (["ladder", "--model", "/nonexistent/model.gguf"], "model file not found"),  # missing model
    (["ab", "--model", "/nonexistent/model.gguf"], "model file not found"),      # missing model (A/B)
    (["ladder", "--peer-url", "ftp://127.0.0.1/"], "not an http"),                # not an HTTP peer
    (["ladder", "--doc", "no_such_sample"], "no such sample"),                    # unknown document
])
def test_bad_input_exits_2(cli, args, message):
    r = cli("bench", *args, timeout=120)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert r.stdout == ""


def test_unreachable_peer_exits_2_before_loading(cli):
    r = cli("bench", "ladder", "--peer-url", f"http://127.0.0.1:{_closed_port()}", timeout=120)
    assert r.returncode == 2
    assert "unreachable" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_verify_bench_json(cli, tmp_path):
    # the pure-text steps and verify + realize, small: the numbers are timings, so only their presence is checked
    r = cli("bench", "verify", "--repeat", "3", "--facts", "40", "--size-mb", "0.02", "--no-scaling",
            "--format", "json", "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert {"scan_ms", "scan_first_ms", "grammar_ms", "grammar_first_ms", "table_1000_rows_ms"} <= data["text"].keys()
    assert all(v > 0 for v in data["text"].values())
    assert data["sample"]["passed"] == data["sample"]["facts"] == 7
    assert data["large"]["main"]["facts"] == 40 and 0 < data["large"]["main"]["passed"] < 40  # a swapped fact fails
    assert json.loads((tmp_path / "bench_verify.json").read_text())["text"].keys() == data["text"].keys()


# -- real runs on the embedded model -------------------------------------------------------------------

@pytest.mark.model
def test_ladder_quick_json(cli, tmp_path, embedded_model):
    r = cli("bench", "ladder", "--quick", "--format", "json", "--model", embedded_model, "--out", str(tmp_path),
            timeout=900)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert [row["concurrency"] for row in data["rows"]] == [1, 2, 4]
    for row in data["rows"] + data["cold_rows"]:
        assert LADDER_KEYS <= row.keys()
        assert row["completed"] == row["total"] == row["concurrency"]
        assert row["throughput_tok_s"] > 0
        assert row["p50_ttft_s"] <= row["max_ttft_s"] and row["avg_ttft_s"] <= row["max_ttft_s"]
        assert row["generated_tokens"] > 0 and row["phase"]
    assert data["cold_rows"][0]["cached_tokens"] == 0           # cold: the document was prefilled
    assert data["rows"][0]["cached_tokens"] > 0                 # warm: it came from the prefix cache
    lq = data["peers"]["llama_sequential"]
    assert lq["completed"] == lq["total"] == 4 and lq["throughput_tok_s"] > 0
    assert data["ratios"]["throughput_c4_over_c1"] > 0
    assert json.loads((tmp_path / "ladder.json").read_text())["rows"] == data["rows"]
    assert (tmp_path / "ladder.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.model
def test_ab_quick_json(cli, tmp_path, embedded_model):
    r = cli("bench", "ab", "--quick", "--format", "json", "--model", embedded_model, "--out", str(tmp_path),
            timeout=900)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    [level] = data["levels"]
    assert level["concurrency"] == 4
    modes = level["modes"]
    assert list(modes) == ["baseline", "fan_out", "index_cold", "index_warm"]
    for key, m in modes.items():
        assert AB_KEYS <= m.keys()
        errors = m["failures"] + [r["error"] for r in level["answers"][key] if r["error"]]
        assert m["completed"] == m["total"] == 4, (key, errors)
        assert m["avg_e2e_s"] > 0 and 0 <= m["overhead_share"] <= 1   # 1: warm answers that sent no request
        if key != "baseline":
            assert m["unsupported_numbers"] == 0               # by construction: only verified numbers are said
            assert m["verify_ms"] > 0
    assert modes["baseline"]["facts_verified"] == 0              # the baseline verifies nothing
    build = data["index_build"]
    assert build["values"] == build["verified"] + build["rejected"] > 0 and build["pending"] == 0
    assert build["requests"] > 0 and build["peak_rss_mib"] > 0   # tables and item heads need no request
    assert modes["index_warm"]["avg_index_s"] == 0               # warm: nothing left to label
    assert modes["index_cold"]["engine_requests"] > modes["index_warm"]["engine_requests"]
    assert level["ratios"]["e2e_index_warm_over_baseline"] > 0
    assert len(level["ratios"]["cold_over_fan_out"]) == 4
    assert set(data["goals"]) == {"warm_c4", "cold_c4"}
    assert (tmp_path / "ab.png").read_bytes()[:4] == b"\x89PNG"


# -- aegis bench batch: in-process vs a served model over generated documents ----------------------------

def test_batch_documents_are_distinct(tmp_path):
    from aegis_tui.bench.batch import documents, write_documents

    docs = documents(6, 2)
    bodies = [b for _, _, parts in docs for _, b in parts]
    assert len(set(bodies)) == len(bodies) == 12                       # no section repeated anywhere
    paths = write_documents(docs, tmp_path)
    assert sorted({p.suffix for p in paths}) == [".docx", ".md", ".txt"]
    assert all(p.stat().st_size > 0 for p in paths)


@pytest.mark.parametrize("args, message", [
    (["--docs", "0"], "--docs: 0 is outside"),                             # nothing to index
    (["--workers", "99"], "--workers: 99 is outside"),                     # too many documents at once
    (["--backend", "ftp://127.0.0.1/"], "not an http"),                    # not an HTTP server
    (["--model", "/nonexistent/model.gguf"], "model file not found"),      # missing model
])
def test_batch_bad_input_exits_2(cli, args, message):
    r = cli("bench", "batch", *args, timeout=120)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert r.stdout == ""


def test_batch_unreachable_backend_exits_2_before_loading(cli):
    r = cli("bench", "batch", "--backend", f"http://127.0.0.1:{_closed_port()}", timeout=120)
    assert r.returncode == 2
    assert "unreachable" in r.stderr and len(r.stderr.strip().splitlines()) == 1


@pytest.mark.model
def test_batch_quick_in_process_and_remote_side_by_side(cli, tmp_path, embedded_model):
    r = cli("bench", "batch", "--quick", "--docs", "2", "--format", "json", "--model", embedded_model,
            "--out", str(tmp_path), env={"OMP_WAIT_POLICY": "passive"}, timeout=1200)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    local, remote = data["local"], data["remote"]
    assert local["documents"] == remote["documents"] == 2
    assert local["values"] == remote["values"] > 0                     # the same documents, the same values
    for run in (local, remote):
        assert run["pending"] == 0 and run["values"] == run["verified"] + run["rejected"]
        assert run["requests"] > 0 and run["wall_s"] > 0 and run["values_per_s"] > 0  # structure labels need none
    assert remote["started_here"] and remote["server"] == "llama-cpp-python"
    assert data["ratios_remote_over_local"]["wall_s"] > 0
    assert json.loads((tmp_path / "batch.json").read_text())["remote"]["values"] == remote["values"]
    assert len(list((tmp_path / "documents").iterdir())) == 2
