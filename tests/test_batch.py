"""Batch review: `aegis index PATH... --out DIR` over mixed documents, in-process and against a real server
that is killed and restarted in the middle."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from docbuilder import write_docx, write_pdf

ROOT = Path(__file__).resolve().parents[1]
SMALL = (ROOT / "tests" / "docs" / "r_mileage_en.md").read_text(encoding="utf-8")


def aegis(*args, env=None, **kw):
    return subprocess.run([sys.executable, "-m", "aegis_tui", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=900, **kw)


@pytest.fixture
def mixed(tmp_path) -> Path:
    d = tmp_path / "docs"
    (d / "nested").mkdir(parents=True)
    (d / "mileage.md").write_text(SMALL, encoding="utf-8")
    write_docx(SMALL, d / "mileage.docx")
    write_pdf(SMALL, d / "nested" / "mileage.pdf")
    (d / "corrupt.docx").write_bytes(b"PK\x03\x04 not really a zip")
    (d / "empty.txt").write_text("", encoding="utf-8")
    (d / "notes.bin").write_bytes(b"\x00\x01")  # not a document suffix: not collected from a directory
    return d


def test_no_documents_and_bad_workers_are_one_line_errors(tmp_path):
    (tmp_path / "x.bin").write_bytes(b"\0")
    proc = aegis("index", str(tmp_path), "--out", str(tmp_path / "out"), "--no-audit")
    assert proc.returncode == 2 and proc.stderr.strip() == "aegis: no documents found (.txt, .md, .docx, .pdf)"
    proc = aegis("index", "sample:en", "--out", str(tmp_path / "out"), "--workers", "0", "--no-audit")
    assert proc.returncode == 2 and "--workers must be between 1 and" in proc.stderr
    proc = aegis("index", "sample:en", "sample:zh", "--no-audit")
    assert proc.returncode == 2 and "several documents need --out DIR" in proc.stderr


@pytest.mark.model
def test_a_directory_of_mixed_documents_is_indexed_and_a_rerun_resumes(embedded_model, mixed, tmp_path):
    out = tmp_path / "out"
    args = ("index", str(mixed), "--out", str(out), "--model", embedded_model, "--workers", "2", "--no-audit",
            "--format", "json")
    # (a cache of its own: another run of the suite indexing the same documents holds the user cache's lock on them)
    env = {"AEGIS_CACHE_DIR": str(tmp_path / "cache")}
    proc = aegis(*args, env=env)
    assert proc.returncode == 1, proc.stderr  # two documents could not be read
    summary = json.loads(proc.stdout)
    assert json.loads((out / "summary.json").read_text(encoding="utf-8")) == summary
    assert (summary["documents"], summary["indexed"], summary["failed"], summary["incomplete"]) == (5, 3, 2, 0)
    by_name = {Path(r["document"]).name: r for r in summary["results"]}
    assert set(by_name) == {"mileage.md", "mileage.docx", "mileage.pdf", "corrupt.docx", "empty.txt"}
    assert "corrupt.docx" in by_name["corrupt.docx"]["reason"] and by_name["empty.txt"]["reason"]
    for name in ("mileage.md", "mileage.docx", "mileage.pdf"):
        r = by_name[name]
        assert r["values"] == 7 and r["verified"] >= 3 and r["verified"] + r["rejected"] == 7
        rows = [json.loads(line) for line in (out / f"{r['name']}.facts.jsonl").read_text(encoding="utf-8")
                .splitlines()]
        assert len(rows) == r["verified"] and all(row["document"] == r["document"] for row in rows)
        assert {"subject", "predicate", "object_value", "source_text", "scope", "evidence"} <= set(rows[0])
        csv_lines = (out / f"{r['name']}.facts.csv").read_text(encoding="utf-8").splitlines()
        assert csv_lines[0].startswith("key,section,subject") and len(csv_lines) == r["verified"] + 1
    # the tables of one text in three formats quote the same canonical text: the same verified values
    values = {name: sorted(json.loads(x)["object_value"] for x in (out / f"{by_name[name]['name']}.facts.jsonl")
                           .read_text(encoding="utf-8").splitlines()) for name in ("mileage.md", "mileage.docx")}
    assert values["mileage.md"] and set(values["mileage.md"]) & set(values["mileage.docx"])

    again = aegis(*args, env=env)
    resumed = json.loads(again.stdout)
    for r in resumed["results"]:
        if r["status"] == "indexed":
            assert r["from_cache"] == r["values"]  # nothing labelled twice


@pytest.mark.model
def test_two_files_of_one_text_indexed_at_once_share_one_run(embedded_model, tmp_path):
    # two workers on one text hold one indexer: the second waits for the first's run, it does not fail on it
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("a.md", "b.md"):
        (docs / name).write_text(SMALL, encoding="utf-8")
    out = tmp_path / "out"
    proc = aegis("index", str(docs), "--out", str(out), "--model", embedded_model, "--workers", "2", "--no-audit",
                 "--format", "json", env={"AEGIS_CACHE_DIR": str(tmp_path / "cache")})
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert (summary["indexed"], summary["failed"]) == (2, 0)
    a, b = ((out / f"{r['name']}.facts.jsonl").read_text(encoding="utf-8") for r in summary["results"])
    assert a.replace("a.md", "b.md") == b


@pytest.mark.model
def test_a_server_restart_in_the_middle_loses_no_document(embedded_model, tmp_path):
    from test_remote import LlamaServer

    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("r_mileage_en.md", "q_freight_en.md", "expense_en.md"):
        (docs / name).write_text((ROOT / "tests" / "docs" / name).read_text(encoding="utf-8"), encoding="utf-8")
    cache = tmp_path / "cache"
    env = {"AEGIS_CACHE_DIR": str(cache)}
    server = LlamaServer(embedded_model).start()
    try:
        args = ("index", str(docs), "--out", str(tmp_path / "out"), "--backend", server.url, "--parallel", "2",
                "--no-audit", "--format", "json")
        proc = subprocess.Popen([sys.executable, "-m", "aegis_tui", *args], cwd=ROOT, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env={**os.environ, **env})
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            journals = list(cache.glob("*.jsonl"))
            if journals and sum(len(j.read_bytes().splitlines()) for j in journals) >= 3:
                break
            time.sleep(0.05)
        server.kill()          # mid-batch
        time.sleep(1.0)
        server.start()         # same port
        out, err = proc.communicate(timeout=900)
        assert "Traceback" not in err
        first = json.loads(out)
        assert first["failed"] == 0 and first["documents"] == 3
        if first["incomplete"]:  # requests that failed while the server was down are pending, not rejected
            proc2 = subprocess.run([sys.executable, "-m", "aegis_tui", *args], cwd=ROOT, capture_output=True,
                                   text=True, env={**os.environ, **env}, timeout=900)
            assert proc2.returncode == 0, proc2.stderr
            final = json.loads(proc2.stdout)
        else:
            assert proc.returncode == 0, err
            final = first
        assert (final["indexed"], final["incomplete"], final["failed"]) == (3, 0, 0)
        for journal in cache.glob("*.jsonl"):  # no value was rejected because the server was away
            for line in journal.read_text(encoding="utf-8").splitlines()[1:]:
                entry = json.loads(line)
                detail = (entry.get("rejected") or {}).get("detail", "")
                assert "request ended" not in detail and "connect" not in detail.lower()
    finally:
        server.kill()
