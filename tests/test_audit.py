"""Audit log: hash chain, sequence numbers and head file catch edits, insertions, deletions, reorders, crashes."""

import json

import pytest

from aegis_tui.answer.verify import Tier1CodeVerifier
from aegis_tui.audit import (
    GENESIS,
    AuditLog,
    build_record,
    canonical,
    default_log_path,
    record_hash,
    verify_log,
)
from aegis_tui.errors import AuditError
from aegis_tui.samples import load_gold, sample_path
from aegis_tui.text.document import Document


def _report():
    doc = Document.load(sample_path("policy_zh"))
    return Tier1CodeVerifier(doc).verify(load_gold("policy_zh"))


@pytest.fixture
def log(tmp_path):
    path = tmp_path / "audit.jsonl"
    audit = AuditLog(path)
    report = _report()
    for i in range(4):
        audit.append(build_record(report, question=f"问题 {i}", model="gemma-3-270m",
                                  transitions=[{"from": "extract", "to": "verify", "at": i}]))
    return path


def _lines(path):
    return path.read_bytes().split(b"\n")[:-1]


def _write(path, lines):
    path.write_bytes(b"".join(line + b"\n" for line in lines))


def test_records_are_chained_and_complete(log):
    records = [json.loads(line) for line in _lines(log)]
    assert [r["seq"] for r in records] == [0, 1, 2, 3]
    assert records[0]["prev_hash"] == GENESIS
    assert all(b["prev_hash"] == a["hash"] for a, b in zip(records, records[1:]))
    assert all(record_hash(r) == r["hash"] for r in records)
    first = records[0]
    assert first["document"]["sha256"] == _report().document.sha256
    assert first["question"] == "问题 0" and first["model"] == "gemma-3-270m"
    assert first["facts"][0]["checks"][0]["evidence"]["line"] == 23
    assert first["summary"]["passed"] == 7 and first["transitions"][0]["to"] == "verify"
    assert "问题" in log.read_text(encoding="utf-8")  # ensure_ascii off: readable Chinese
    check = verify_log(log)
    assert check.ok and check.records == 4 and not check.truncated and check.problems == []


def test_append_returns_what_was_stored(tmp_path):
    stored = AuditLog(tmp_path / "a.jsonl").append({"question": "q", "seq": 99, "hash": "forged"})
    assert stored["seq"] == 0 and stored["hash"] == record_hash(stored)
    assert json.loads((tmp_path / "a.jsonl").read_text()) == stored
    assert canonical(stored).startswith(b'{"hash"')  # keys sorted


FIELDS = [
    ("question", "另一个问题"),  # the question asked
    ("model", "other-model"),  # the model used
    ("ts", "2000-01-01T00:00:00+00:00"),  # the timestamp
    ("summary", {"total": 7, "passed": 0, "failed": 7}),  # the verdict summary
    ("document", {"path": "x", "sha256": "0" * 64, "chars": 1}),  # the document hash
    ("transitions", []),  # the pipeline's transitions
    ("prev_hash", "f" * 64),  # the chain link itself
    ("hash", "e" * 64),  # the record's own hash
]


@pytest.mark.parametrize("field,value", FIELDS, ids=[f for f, _ in FIELDS])
def test_editing_any_field_is_detected(log, field, value):
    lines = _lines(log)
    rec = json.loads(lines[1])
    rec[field] = value
    lines[1] = canonical(rec)
    _write(log, lines)
    check = verify_log(log)
    assert not check.ok and not check.truncated
    assert any("line 2" in p for p in check.problems), check.problems


def test_editing_a_fact_verdict_is_detected(log):
    lines = _lines(log)
    rec = json.loads(lines[2])
    rec["facts"][3]["verdict"] = "fail"
    rec["facts"][3]["checks"][1]["evidence"]["offset"] += 1
    lines[2] = canonical(rec)
    _write(log, lines)
    assert any("line 3" in p and "edited" in p for p in verify_log(log).problems)


def test_an_edit_with_a_recomputed_hash_breaks_the_next_link(log):
    lines = _lines(log)
    rec = json.loads(lines[1])
    rec["question"] = "rewritten"
    rec["hash"] = record_hash(rec)
    lines[1] = canonical(rec)
    _write(log, lines)
    problems = verify_log(log).problems
    assert problems and all("line 3" in p or "head" in p for p in problems)


def test_deleted_record_is_detected(log):
    lines = _lines(log)
    del lines[1]
    _write(log, lines)
    problems = verify_log(log).problems
    assert any("expected seq 1" in p and "deleted" in p for p in problems), problems


def test_reordered_records_are_detected(log):
    lines = _lines(log)
    lines[1], lines[2] = lines[2], lines[1]
    _write(log, lines)
    problems = verify_log(log).problems
    assert any("line 2" in p for p in problems) and any("reordered" in p for p in problems), problems


def test_inserted_record_is_detected(log):
    lines = _lines(log)
    lines.insert(2, lines[0])
    _write(log, lines)
    problems = verify_log(log).problems
    assert any("line 3" in p and "reordered or inserted" in p for p in problems), problems


def test_deleting_the_last_record_is_caught_by_the_head_file(log):
    _write(log, _lines(log)[:-1])
    check = verify_log(log)
    assert not check.ok and any("last record(s) were deleted" in p for p in check.problems)


def test_without_the_head_file_deleting_the_last_record_is_undetectable(log):
    # documented limit: a chain alone cannot see a shortened tail
    _write(log, _lines(log)[:-1])
    (log.parent / (log.name + ".head")).unlink()
    assert verify_log(log).ok


def test_crash_mid_record_is_truncated_not_corrupt(log):
    data = log.read_bytes()
    last_start = data.rstrip(b"\n").rfind(b"\n") + 1
    log.write_bytes(data[: last_start + 40])  # the 4th record was cut by a crash before its head update
    head = log.parent / (log.name + ".head")
    head.write_text(json.dumps({"seq": 2, "hash": json.loads(_lines(log)[2])["hash"]}))
    check = verify_log(log)
    assert check.truncated and not check.ok and check.records == 3
    assert check.problems == ["truncated after record 3 (line 3): an unfinished record at the end"]


def test_append_after_a_crash_drops_the_unfinished_record(log):
    data = log.read_bytes()
    log.write_bytes(data[:-25])  # the 4th record was cut by a crash before its head update: never acknowledged
    head = log.parent / (log.name + ".head")
    head.write_text(json.dumps({"seq": 2, "hash": json.loads(_lines(log)[2])["hash"]}))
    stored = AuditLog(log).append({"question": "after crash"})
    assert stored["seq"] == 3
    assert stored["dropped"]["offset"] == len(b"".join(line + b"\n" for line in _lines(log)[:3]))
    assert stored["dropped"]["length"] == len(data) - 25 - stored["dropped"]["offset"]
    check = verify_log(log)
    assert check.ok and check.records == 4 and len(check.notes) == 1


def test_append_after_losing_an_acknowledged_record_is_refused(log):
    data = log.read_bytes()
    log.write_bytes(data[:-25])  # the 4th record was acknowledged (the head file names it), then cut
    with pytest.raises(AuditError, match="acknowledged record.*aegis audit verify"):
        AuditLog(log).append({"question": "after the cut"})
    assert log.read_bytes() == data[:-25]


@pytest.mark.parametrize("make,message", [
    (lambda p: None, "no such audit log"),  # missing
    (lambda p: p.mkdir(), "is a directory"),  # a directory
])
def test_unreadable_logs_raise_audit_error(tmp_path, make, message):
    path = tmp_path / "missing.jsonl"
    make(path)
    with pytest.raises(AuditError, match=message):
        verify_log(path)


def test_corrupt_middle_line_is_reported(log):
    lines = _lines(log)
    lines[1] = b"{not json"
    _write(log, lines)
    check = verify_log(log)
    assert not check.truncated and any("line 2: not a valid record" in p for p in check.problems)


def test_default_location(monkeypatch, tmp_path):
    monkeypatch.setenv("AEGIS_AUDIT_LOG", str(tmp_path / "env.jsonl"))
    assert default_log_path() == tmp_path / "env.jsonl"
    monkeypatch.delenv("AEGIS_AUDIT_LOG")
    path = default_log_path()
    assert path.name == "audit.jsonl" and "aegis" in str(path.parent)
