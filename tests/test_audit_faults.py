"""Audit log under real faults: kill -9 mid-append, concurrent writers, a full disk, a read-only directory, and
a cut acknowledged record, which appends refuse until `aegis audit seal` records the loss."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from aegis_tui.answer.verify import Tier1CodeVerifier
from aegis_tui.audit import AuditLog, build_record, current_head, verify_log
from aegis_tui.bench.faults import child_env, concurrent, full_disk, kill_runs, read_only
from aegis_tui.samples import load_gold, sample_path
from aegis_tui.text.document import Document

ZH, ZH_FACTS = str(sample_path("policy_zh")), str(sample_path("policy_zh.facts.json"))


def aegis(*args):
    """`python -m aegis_tui ARGS` as a user runs it (no audit log unless asked for)."""
    env = {k: v for k, v in child_env().items() if k != "AEGIS_AUDIT_LOG"}
    return subprocess.run([sys.executable, "-m", "aegis_tui", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def test_kill_9_at_random_moments_never_loses_an_acknowledged_record(tmp_path):
    result = kill_runs(tmp_path, runs=12, seed=1, per_log=6)
    assert result["errors"] == []
    assert result["faults"] == 12  # every writer was still appending when it was killed
    assert result["acked_checked"] > 0


@pytest.mark.parametrize("kill_one", [False, True], ids=["all-finish", "one-killed"])
def test_concurrent_writers_keep_the_chain_and_every_record(tmp_path, kill_one):
    result = concurrent(tmp_path, procs=3, each=25, kill_one=kill_one, seed=3)
    assert result["errors"] == []
    assert result["records"] >= (50 if kill_one else 75)


def test_full_disk_fails_with_one_line_and_acknowledges_nothing(tmp_path):
    result = full_disk(tmp_path)
    assert result["errors"] == []
    assert "cannot write the audit log" in result["stderr"] and "nothing was appended" in result["stderr"]


def test_read_only_directory_fails_with_one_line(tmp_path):
    result = read_only(tmp_path)
    if result is None:
        pytest.skip("this machine cannot make a directory read-only")
    assert result["errors"] == []
    assert all("cannot write the audit log" in line for line in result["stderr"])


def _report():
    return Tier1CodeVerifier(Document.load(sample_path("policy_zh"))).verify(load_gold("policy_zh"))


def _cut_last_record(log, keep_of_last: int = 40) -> bytes:
    data = log.read_bytes()
    start = data.rstrip(b"\n").rfind(b"\n") + 1
    log.write_bytes(data[: start + keep_of_last])
    return log.read_bytes()


def test_a_cut_acknowledged_record_is_refused_reported_and_sealed(tmp_path):
    # the sequence: three records written, the tail of the last (acknowledged) one cut, then an append
    log = tmp_path / "audit.jsonl"
    for i in range(3):
        AuditLog(log).append(build_record(_report(), question=f"q{i}", command="verify"))
    lost = json.loads(log.with_name("audit.jsonl.head").read_text())
    cut = _cut_last_record(log)

    append = aegis("verify", ZH, ZH_FACTS, "--audit-log", str(log))
    assert append.returncode == 2 and append.stderr.count("\n") == 1 and "Traceback" not in append.stderr
    assert "acknowledged record(s) were lost" in append.stderr and "aegis audit verify" in append.stderr
    assert log.read_bytes() == cut  # the evidence is untouched

    before = aegis("audit", "verify", str(log))
    assert before.returncode == 1
    assert "the head file records seq 2 but the log ends at seq 1" in before.stdout

    seal = aegis("audit", "seal", str(log))
    assert seal.returncode == 0 and "sealed at seq 3" in seal.stdout and "seq 2" in seal.stdout

    after = aegis("audit", "verify", str(log), "--format", "json")
    check = json.loads(after.stdout)
    assert after.returncode == 0 and check["ok"] and check["records"] == 3
    assert len(check["gaps"]) == 1 and "acknowledged record seq 2 lost" in check["gaps"][0]
    gap = json.loads(log.read_bytes().splitlines()[-1])["gap"]
    assert gap["lost_seqs"] == [2, 2] and gap["head"] == lost
    assert gap["removed"]["length"] == 40 and gap["removed"]["offset"] == len(cut) - 40  # the cut bytes, kept

    # appends continue; the gap stays listed, and a report pinned to the lost head fails
    AuditLog(log).append(build_record(_report(), question="after the seal", command="verify"))
    text = aegis("audit", "verify", str(log))
    assert text.returncode == 0 and "intact, 4 good record(s), 1 recorded gap(s)" in text.stdout
    assert "gap: seq 3" in text.stdout
    pinned = aegis("audit", "verify", str(log), "--expect-head", f"{lost['seq']}:{lost['hash']}")
    assert pinned.returncode == 1 and "it was lost (gap sealed at seq 3)" in pinned.stdout
    head = current_head(log)
    assert aegis("audit", "verify", str(log), "--expect-head", f"{head['seq']}:{head['hash'][:16]}").returncode == 0


def test_a_rewritten_log_fails_its_pinned_head(tmp_path):
    log = tmp_path / "audit.jsonl"
    audit = AuditLog(log)
    for i in range(3):
        audit.append({"question": f"q{i}"})
    pin = audit.head()
    assert pin == current_head(log) and pin["seq"] == 2
    log.unlink()
    log.with_name("audit.jsonl.head").unlink()
    rewritten = AuditLog(log)
    for i in range(3):  # the whole log and its head rewritten together: only the pin can tell
        rewritten.append({"question": f"other {i}"})
    assert verify_log(log).ok
    check = verify_log(log, expect_head=pin)
    assert not check.ok and "rewritten after the report was pinned" in check.problems[0]


def test_a_corrupt_last_record_is_refused_then_sealed(tmp_path):
    log = tmp_path / "audit.jsonl"
    audit = AuditLog(log)
    for i in range(3):
        audit.append({"question": f"q{i}"})
    lines = log.read_bytes().splitlines(keepends=True)
    lines[-1] = lines[-1].replace(b"q2", b"q9")  # an edited last record: its hash no longer matches
    log.write_bytes(b"".join(lines))
    with pytest.raises(Exception, match="last record .* is corrupt"):
        audit.append({"question": "hides it?"})
    sealed = audit.seal()
    assert sealed["gap"]["removed"]["length"] == len(lines[-1])
    assert sealed["gap"]["log_ended_at"]["seq"] == 1 and sealed["seq"] == 3
    check = verify_log(log)
    assert check.ok and len(check.gaps) == 1
    assert audit.append({"question": "after the seal"})["seq"] == 4
    assert audit.seal() is None  # nothing more to seal


def test_seal_with_nothing_lost_appends_nothing(tmp_path):
    log = tmp_path / "audit.jsonl"
    AuditLog(log).append({"question": "q"})
    before = log.read_bytes()
    proc = aegis("audit", "seal", str(log))
    assert proc.returncode == 0 and "nothing to seal" in proc.stdout and log.read_bytes() == before
    assert aegis("audit", "seal", str(tmp_path / "missing.jsonl")).returncode == 2


def test_a_deleted_head_file_is_refused_not_restarted(tmp_path):
    log = tmp_path / "audit.jsonl"
    audit = AuditLog(log)
    for i in range(2):
        audit.append({"question": f"q{i}"})
    log.with_name("audit.jsonl.head").unlink()
    with pytest.raises(Exception, match="head file is missing"):
        audit.append({"question": "q2"})
    assert audit.seal()["gap"]["head"] == "missing"
    assert verify_log(log).ok


@pytest.mark.model
def test_ask_json_is_pinned_to_the_audit_head_it_wrote(tmp_path, embedded_model):
    log = tmp_path / "audit.jsonl"
    AuditLog(log).append({"question": "an earlier run"})
    proc = aegis("ask", "sample:en", "What is the lodging cap?", "--model", embedded_model, "--format", "json",
                 "--audit-log", str(log))
    assert proc.returncode in (0, 1), proc.stderr
    pin = json.loads(proc.stdout)["audit_head"]
    assert pin == {"log": str(log), **current_head(log)} and pin["seq"] == 1
    assert aegis("audit", "verify", str(log), "--expect-head", f"{pin['seq']}:{pin['hash']}").returncode == 0
