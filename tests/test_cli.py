"""The `aegis` command line: contracts, exit codes and plain-text output, through main() and a real subprocess."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from aegis_tui.__main__ import main
from aegis_tui.cli import MIN_CTX
from aegis_tui.memory.ledger import GiB
from aegis_tui.samples import load_tampered, sample_path

ZH, ZH_FACTS = str(sample_path("policy_zh")), str(sample_path("policy_zh.facts.json"))
EN, EN_FACTS = str(sample_path("policy_en")), str(sample_path("policy_en.facts.json"))


def aegis(*args, env=None):
    """`python -m aegis_tui ARGS` with stdout a pipe, as in CI (and no audit log unless asked for)."""
    full_env = {k: v for k, v in os.environ.items() if k != "AEGIS_AUDIT_LOG"} | (env or {})
    return subprocess.run([sys.executable, "-m", "aegis_tui", *args], capture_output=True, text=True,
                          env=full_env, timeout=300)


# -- aegis --version ------------------------------------------------------------------------------------

def test_version_names_the_offload_backend(capsys):
    from aegis_tui.engine.native import offload_support

    assert main(["--version"]) == 0
    first, second = capsys.readouterr().out.splitlines()
    assert first == "aegis 0.1.0"
    gpu, backends, _ = offload_support()
    assert second.startswith("llama.cpp: ") and f"ggml backends: {', '.join(backends)}" in second
    assert ("GPU offload available via" in second) == gpu
    if not gpu and backends == ["CPU"]:  # this machine's build
        assert "CPU only: this build cannot offload to a GPU" in second


# -- one --ctx floor, one sample resolver ---------------------------------------------------------------

@pytest.mark.parametrize("args", [
    ["ledger"],
    ["ask", "sample:en", "What is the lodging cap?", "--no-audit"],
    ["tui", "--no-audit"],
])
def test_every_command_has_the_same_ctx_floor(capsys, args):
    assert MIN_CTX == 256  # llama.cpp pads n_ctx to 256 and the fit search steps in 256s
    assert main([*args, "--ctx", str(MIN_CTX - 1)]) == 2
    assert capsys.readouterr().err.strip() == f"aegis: --ctx must be at least {MIN_CTX} tokens"


def test_ledger_accepts_the_floor(capsys):
    assert main(["ledger", "--ctx", str(MIN_CTX), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["ctx_per_slot"] == MIN_CTX


class FakeApp:
    """Stands in for AegisApp: records what the CLI opened instead of taking over the terminal."""

    opened: list = []
    return_code = 0

    def __init__(self, doc_path=None, **_kw) -> None:
        FakeApp.opened.append(doc_path)

    def run(self) -> None:
        pass


@pytest.mark.parametrize("argv", [["sample:en"], ["tui", "sample:en", "--no-audit"]])
def test_tui_opens_a_sample(monkeypatch, argv):
    import aegis_tui.tui

    monkeypatch.setattr(aegis_tui.tui, "AegisApp", FakeApp)
    FakeApp.opened = []
    assert main(argv) == 0
    assert FakeApp.opened == [EN]


@pytest.mark.parametrize("argv", [
    ["tui", "sample:fr"],
    ["ask", "sample:fr", "What?", "--no-audit"],
    ["verify", "sample:fr", EN_FACTS],
    ["grammar", "--doc", "sample:fr"],
])
def test_unknown_sample_exits_2(capsys, argv):
    assert main(argv) == 2
    assert "unknown sample 'sample:fr' (use sample:zh or sample:en)" in capsys.readouterr().err


def test_verify_and_grammar_take_a_sample(capsys):
    assert main(["verify", "sample:en", EN_FACTS, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["document"]["path"] == EN
    assert main(["grammar", "--doc", "sample:zh", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["document"] == ZH


# -- aegis verify and aegis audit verify ----------------------------------------------------------------

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


def test_text_output_is_plain_and_unwrapped(tmp_path):
    # CI's stdout is a pipe: no colour codes, and a long failing-rule detail stays on its row however
    # narrow $COLUMNS says the terminal is
    case = next(c for c in load_tampered("policy_en") if c["rule"] == "entity_binding")
    facts = tmp_path / "facts.json"
    facts.write_text(json.dumps({"atomic_facts": [case["fact"]]}), encoding="utf-8")
    detail = json.loads(aegis("verify", EN, str(facts), "--format", "json").stdout)["facts"][0]["checks"]
    detail = next(c["detail"] for c in detail if c["rule"] == "entity_binding")
    proc = aegis("verify", EN, str(facts), env={"COLUMNS": "40", "FORCE_COLOR": "1"})
    assert "\x1b" not in proc.stdout
    row = next(line for line in proc.stdout.splitlines() if "FAIL" in line)
    assert f"entity_binding: {detail}" in row
    assert all(line == line.rstrip() for line in proc.stdout.splitlines())


def test_cjk_columns_line_up(capsys):
    # the table measures CJK characters as two cells, as a terminal draws them
    from rich.cells import cell_len

    assert main(["verify", ZH, ZH_FACTS]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if " pass " in line]
    assert len(rows) == 7
    starts = {cell_len(row[:row.index("line ")]) for row in rows}
    assert len(starts) == 1  # the evidence column starts at the same cell on every row


def test_ask_text_layout(capsys):
    # the answer, a blank line, the status line, the fact table, then the dropped facts: each on its own line
    from types import SimpleNamespace

    from aegis_tui.answer.verify import Tier1CodeVerifier
    from aegis_tui.cli.ask import print_text
    from aegis_tui.samples import load_gold
    from aegis_tui.text.document import Document

    report = Tier1CodeVerifier(Document.load(ZH)).verify(load_gold("policy_zh"))
    dropped = {"fact": {"subject": "大病保险", "object_value": "1000元"}, "rule": "value_role", "detail": "a change"}
    ans = SimpleNamespace(answer="根据文件：…", state="done", mode="two-stage", strategy="fan-out", attempts=1,
                          timings={"ttft_s": None, "e2e_s": 1.5, "verify_ms": 0.4, "realize_ms": 0.1},
                          report=report, rejected=[dropped], unsupported_numbers=[])
    print_text(ans)
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["根据文件：…", ""] and lines[2].startswith("state DONE · mode two-stage (fan-out)")
    assert lines[3].split() == ["#", "verdict", "subject", "predicate", "value", "where", "section"]
    # where the value stands (line 23, col 31: the 300 of 300元) and the section it sits in
    assert lines[5].split()[:8] == ["0", "pass", "一级及以下医疗机构", "起付线", "300元", "line", "23,", "col"]
    assert lines[5].split()[8] == "31" and lines[5].rstrip().endswith("第三章　住院待遇 › 第八条")  # not the title
    assert lines[-1] == "  dropped 大病保险 / 1000元: value_role — a change"


def test_eval_summary_table(capsys):
    from aegis_tui.cli import show
    from aegis_tui.cli.eval import summary_table

    row = dict(recovered=7, gold=8, recall=0.875, verified_facts=9, unsupported_numbers=0, fallbacks=1,
               avg_ttft_s=None, avg_e2e_s=14.2, rejected_by_rule={"label": 3})
    show(summary_table({"two-stage (fan-out)": row}))
    header, _, line = capsys.readouterr().out.splitlines()
    assert header.split()[:3] == ["mode", "recall", "verified"]
    assert line.split() == ["two-stage", "(fan-out)", "7/8", "88%", "9", "0", "1", "n/a", "14.20s", "label=3"]


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


# -- aegis ledger ---------------------------------------------------------------------------------------

def test_ledger_json(embedded_model):
    proc = aegis("ledger", "--model", embedded_model, "--format", "json", "--vram-budget", "8")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    for key in ("kv_bytes_per_token", "kv_bytes", "weights_bytes", "overhead_bytes", "total_bytes", "budget_bytes",
                "fits", "n_ctx", "n_seq_max", "kv_unified", "swa_full", "type_k", "type_v"):
        assert key in data, key
    assert data["fits"] is True and data["budget_bytes"] == 8 * GiB
    assert data["total_bytes"] == data["weights_bytes"] + data["kv_bytes"] + data["overhead_bytes"]
    assert data["kv_bytes_per_token_all_layers"] == 18 * 256 * 2 * 2  # gemma3 270m: 18 layers, 1 × 256, f16


def test_ledger_text_and_exit_1_when_it_does_not_fit(embedded_model):
    proc = aegis("ledger", "--model", embedded_model, "--vram-budget", "0.25", "--ctx", "8192")
    assert proc.returncode == 1
    assert "2 × L × H_kv × d_head × B = 2 × 18 × 1 × 256 × 2 B = 18,432 B/token" in proc.stdout
    assert "DOES NOT FIT" in proc.stdout and "does not fit" in proc.stderr


def test_ledger_cpu_plan_uses_ram(embedded_model):
    proc = aegis("ledger", "--model", embedded_model, "--device", "cpu", "--kv-type", "q8_0")
    assert proc.returncode == 0, proc.stderr
    assert "host memory" in proc.stdout and "type_k q8_0" in proc.stdout
    assert "\x1b" not in proc.stdout


# -- aegis models ---------------------------------------------------------------------------------------

def test_models_command_lists_embedded_and_local(tmp_path, smollm2_model):
    models = tmp_path / "models"
    models.mkdir()
    shutil.copy(smollm2_model, models / "smollm2.gguf")
    proc = aegis("models", "--format", "json", "--models-dir", str(models))
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert [(r["source"], r["architecture"]) for r in rows] == [("embedded", "gemma3"), ("local", "llama")]
    for r in rows:
        assert {"quantization", "file_size", "n_layers", "kv_heads", "head_dim_k", "context_length"} <= set(r)
    text = aegis("models", "--models-dir", str(models))
    assert "gemma3" in text.stdout and "Q4_K_M" in text.stdout and "llama" in text.stdout


MILEAGE = Path(__file__).parent / "docs" / "r_mileage_en.md"
SUBSIDY = Path(__file__).parent / "docs" / "r_subsidy_zh.md"


@pytest.mark.parametrize("doc, form, fact, where, section", [
    # a table cell: table, row (header row counts as 1) and column, under its section
    (MILEAGE, "md", {"subject": "Motorcycle", "predicate": "rate", "object_value": "0.21",
                     "source_text": "| Motorcycle | 0.21 | 1200 |"},
     "table 1, row 3, column 2", "2. Reimbursement rates"),
    # a paragraph: line and column of the value
    (MILEAGE, "md", {"subject": "Parking at airports", "predicate": "refund", "object_value": "$18",
                     "source_text": "Parking at airports is refunded up to $18 per day with a receipt."},
     "line 15, col 39", "3. Parking"),
    # the same cell in a PDF names the page too
    (MILEAGE, "pdf", {"subject": "Electric van", "predicate": "monthly limit", "object_value": "3000",
                      "source_text": "Electric van 0.35 3000"},
     "page 1, table 1, row 4, column 3", "2. Reimbursement rates"),
    # a Chinese table from DOCX: the cell, under 第三条
    (SUBSIDY, "docx", {"subject": "客户经理", "predicate": "跨市", "object_value": "760",
                       "source_text": "| 客户经理 | 520 | 760 |"},
     "table 1, row 3, column 3", "第三条 补贴标准"),
])
def test_verify_shows_where_a_value_stands(tmp_path, doc, form, fact, where, section):
    from docbuilder import write_docx, write_pdf

    path = doc if form == "md" else {"docx": write_docx, "pdf": write_pdf}[form](
        doc.read_text(encoding="utf-8"), tmp_path / f"doc.{form}")
    if form != "md":  # quote the row as the canonical text writes it
        from aegis_tui.text.document import Document

        text = Document.load(path).text
        row = next(line for line in text.splitlines() if fact["object_value"] in line and "|" in line)
        fact = {**fact, "source_text": row}
    facts = tmp_path / "facts.json"
    facts.write_text(json.dumps({"atomic_facts": [fact]}, ensure_ascii=False), encoding="utf-8")
    proc = aegis("verify", str(path), str(facts))
    row = next(line for line in proc.stdout.splitlines() if line.startswith("0 "))
    assert where in row and section in row
    body = json.loads(aegis("verify", str(path), str(facts), "--format", "json").stdout)["facts"][0]
    assert body["location"]["describe"] == where


@pytest.mark.parametrize("quote, at", [
    ("| 物流配送员 | 880 | 1150 |", " (quote at line 11, col 1)"),  # a dropped table row: where it stands
    ("这句话不在文件里。", ""),                                       # a quote the document lacks: no place
])
def test_ask_text_says_where_a_dropped_quote_stands(capsys, quote, at):
    from types import SimpleNamespace

    from aegis_tui.cli.ask import print_text
    from aegis_tui.text.document import Document

    dropped = {"fact": {"subject": "物流配送员", "object_value": "880元", "source_text": quote},
               "rule": "table_binding", "detail": "column 市内"}
    ans = SimpleNamespace(answer="…", state="fallback", mode="two-stage", strategy="fan-out", attempts=2,
                          timings={"ttft_s": None, "e2e_s": 1.0, "verify_ms": 0.1, "realize_ms": 0.0},
                          report=None, rejected=[dropped], unsupported_numbers=[])
    print_text(ans, Document.load(SUBSIDY))
    assert capsys.readouterr().out.splitlines()[-1] == f"  dropped 物流配送员 / 880元: table_binding — column 市内{at}"


@pytest.mark.parametrize("content, message", [
    (None, "no questions*.json there"),
    ('[{"document": "nowhere.md", "question": "q?", "gold": []}]', "is not in"),
    ('{"not": "a list"}', "not a list of"),
])
def test_eval_set_that_cannot_be_read_is_one_line_and_exit_2(cli, tmp_path, content, message):
    if content is not None:
        (tmp_path / "questions_x.json").write_text(content, encoding="utf-8")
    proc = cli("eval", "--set", str(tmp_path))
    assert proc.returncode == 2 and message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_heldout_scoring_counts_binding_off_question_and_declines():
    from types import SimpleNamespace

    from aegis_tui.answer.evaluation import score_heldout, summarize_heldout
    from aegis_tui.answer.states import Outcome
    from aegis_tui.answer.verify import Tier1CodeVerifier
    from aegis_tui.schema import AtomicFact, ExtractionPayload, FactType
    from aegis_tui.text.document import Document

    doc = Document.load(str(Path(__file__).parent / "docs" / "s_plan_en.md"))
    row = "| Family | In-network | $2,300 | 15% | $7,900 |"

    def answer(*facts):
        report = Tier1CodeVerifier(doc).verify(ExtractionPayload(atomic_facts=[
            AtomicFact(subject=s, predicate=p, object_value=v, fact_type=FactType.NUMERIC, source_text=row)
            for s, p, v in facts]))
        assert all(fv.passed for fv in report.facts)
        return SimpleNamespace(mode="two-stage", report=report, answer=" ".join(v for *_, v in facts),
                               state=Outcome.DONE, timings={"e2e_s": 1.0})

    gold = [{"subject": "Family, In-network, Out-of-pocket maximum", "value": "$7,900"}]
    right = score_heldout("d", doc, "q", gold, answer(("Family In-network", "Out-of-pocket maximum", "$7,900")))
    extra = score_heldout("d", doc, "q", gold, answer(("Family In-network", "Out-of-pocket maximum", "$7,900"),
                                                      ("Family In-network", "Coinsurance", "15%")))
    declined = score_heldout("d", doc, "q", [], SimpleNamespace(mode="two-stage", report=None, answer="",
                                                                state=Outcome.FALLBACK, timings={}))
    assert (right.recovered, right.off_question, right.misbound) == (1, [], [])
    assert extra.recovered == 1 and extra.off_question == ["Family In-network / Coinsurance / 15%"]
    s = summarize_heldout([right, extra, declined])
    assert (s["answers_fully_right"], s["answerable"], s["answers_with_off_question"]) == (1, 2, 1)
    assert (s["unanswerable_declined"], s["unanswerable"]) == (1, 1)
