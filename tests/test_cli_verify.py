"""`aegis verify` and `aegis audit verify` through the real command line (subprocess)."""

import json
import os
import subprocess
import sys

import pytest

from aegis_tui.samples import load_tampered, sample_path

ZH, ZH_FACTS = str(sample_path("policy_zh")), str(sample_path("policy_zh.facts.json"))
EN, EN_FACTS = str(sample_path("policy_en")), str(sample_path("policy_en.facts.json"))


def aegis(*args, env=None):
    full_env = {k: v for k, v in os.environ.items() if k != "AEGIS_AUDIT_LOG"} | (env or {})
    return subprocess.run([sys.executable, "-m", "aegis_tui", *args], capture_output=True, text=True,
                          env=full_env, timeout=120)


def test_gold_passes_with_json_contract():
    proc = aegis("verify", ZH, ZH_FACTS, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    body = json.loads(proc.stdout)
    assert set(body) == {"document", "facts", "summary"}
    assert body["summary"] == {"total": 7, "passed": 7, "failed": 0}
    assert body["document"]["path"] == ZH and len(body["document"]["sha256"]) == 64
    assert [f["verdict"] for f in body["facts"]] == ["pass"] * 7
    text = sample_path("policy_zh").read_text(encoding="utf-8")
    offset = text.index("一级及以下定点医疗机构300元")
    line = text.count("\n", 0, offset) + 1
    column = offset - text.rfind("\n", 0, offset)
    assert body["facts"][0]["checks"][0]["evidence"] == {"line": line, "column": column, "offset": offset,
                                                         "length": 15}


def test_text_table_names_the_failing_rule(tmp_path):
    case = next(c for c in load_tampered("policy_en") if c["rule"] == "entity_binding")
    facts = tmp_path / "facts.json"
    facts.write_text(json.dumps({"atomic_facts": [case["fact"]]}), encoding="utf-8")
    proc = aegis("verify", EN, str(facts))
    assert proc.returncode == 1
    assert "FAIL" in proc.stdout and "entity_binding:" in proc.stdout
    assert "summary: 0/1 passed, 1 failed" in proc.stdout


@pytest.mark.parametrize("doc,facts,code,stderr", [
    ("missing.txt", ZH_FACTS, 2, "no such file"),  # no document
    (ZH, "missing.json", 2, "no such facts file"),  # no facts file
    (ZH, "BAD_JSON", 2, "invalid facts JSON"),  # not JSON
    (ZH, "BAD_SCHEMA", 2, "invalid facts JSON at atomic_facts"),  # JSON of the wrong shape
    ("EMPTY_DOC", ZH_FACTS, 2, "empty"),  # empty document
])
def test_unusable_input_exits_2(tmp_path, doc, facts, code, stderr):
    files = {"BAD_JSON": "{not json", "BAD_SCHEMA": json.dumps({"atomic_facts": [{"subject": "x"}]}),
             "EMPTY_DOC": "   \n"}
    paths = []
    for name in (doc, facts):
        if name in files:
            p = tmp_path / name
            p.write_text(files[name], encoding="utf-8")
            name = str(p)
        paths.append(name)
    proc = aegis("verify", *paths)
    assert proc.returncode == code
    assert stderr in proc.stderr and proc.stderr.count("\n") == 1


def test_audit_log_written_and_verified(tmp_path):
    log = tmp_path / "audit.jsonl"
    assert aegis("verify", ZH, ZH_FACTS, "--audit-log", str(log)).returncode == 0
    assert aegis("verify", EN, EN_FACTS, "--format", "json", env={"AEGIS_AUDIT_LOG": str(log)}).returncode == 0
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [r["seq"] for r in records] == [0, 1] and records[1]["summary"]["total"] == 8
    ok = aegis("audit", "verify", str(log))
    assert ok.returncode == 0 and "intact, 2 good record(s)" in ok.stdout
    lines = log.read_text(encoding="utf-8").splitlines()
    log.write_text(lines[0].replace('"passed":7', '"passed":6') + "\n" + lines[1] + "\n", encoding="utf-8")
    bad = aegis("audit", "verify", str(log), "--format", "json")
    assert bad.returncode == 1
    assert not json.loads(bad.stdout)["ok"]
    with open(log, "a", encoding="utf-8") as fh:
        fh.write('{"seq": 2, "trunc')
    assert aegis("audit", "verify", str(log)).returncode == 1
    assert aegis("audit", "verify", str(tmp_path / "nope.jsonl")).returncode == 2


def test_truncated_log_reports_truncated(tmp_path):
    log = tmp_path / "audit.jsonl"
    aegis("verify", ZH, ZH_FACTS, "--format", "json", "--audit-log", str(log))
    with open(log, "a", encoding="utf-8") as fh:
        fh.write('{"seq": 1, "quest')
    proc = aegis("audit", "verify", str(log))
    assert proc.returncode == 1 and "truncated, 1 good record(s)" in proc.stdout
