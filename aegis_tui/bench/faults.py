"""`aegis bench faults`: the audit log under real faults — kill -9 mid-append, concurrent writers, a full disk,
a read-only directory — with the invariants checked after every fault (the suite runs the same functions)."""

from __future__ import annotations

import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from ..cli import add_format_arg, print_json
from .report import Table, emit, write_json

# A writer process: appends records of random size in a loop; after each append returns it writes the
# acknowledged "seq hash writer i" to the ack file (a kill between the two only makes the ack list shorter).
WRITER = r"""
import os, random, sys
from aegis_tui.audit import AuditLog
log, ack, tag, n, seed, pad, wait = sys.argv[1:8]
rng = random.Random(int(seed))
audit = AuditLog(log)
fd = os.open(ack, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
os.write(1, b"ready\n")
if wait == "1":
    sys.stdin.readline()
for i in range(int(n)):
    rec = audit.append({"writer": tag, "i": i, "pad": "x" * rng.randrange(int(pad))})
    os.write(fd, f"{rec['seq']} {rec['hash']} {tag} {i}\n".encode())
"""


def child_env() -> dict:
    """The environment for child processes: this checkout importable, no bytecode written (the file-size limit)."""
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return env


def start_writer(log: Path, ack: Path, tag: str, n: int, seed: int, pad: int = 8000,
                 wait: bool = False) -> subprocess.Popen:
    """Start a writer process and return once it has imported the audit module (it printed 'ready')."""
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(log), str(ack), tag, str(n), str(seed), str(pad),
                             "1" if wait else "0"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=child_env())
    proc.stdout.readline()
    return proc


def read_acks(ack: Path) -> list[tuple[int, str, str, int]]:
    """(seq, hash, writer, i) for every acknowledged append; a line cut by a kill is ignored."""
    out = []
    for line in ack.read_text().splitlines() if ack.exists() else []:
        parts = line.split()
        if len(parts) == 4 and len(parts[1]) == 64:
            out.append((int(parts[0]), parts[1], parts[2], int(parts[3])))
    return out


def log_records(log: Path) -> list[dict]:
    """Every complete, parseable record of the log, in file order."""
    recs = []
    for line in log.read_bytes().split(b"\n")[:-1]:
        try:
            recs.append(json.loads(line))
        except ValueError:
            pass
    return recs


def check_log(log: Path, acks: list) -> tuple[list[str], dict]:
    """What is wrong with the log after a fault (empty when nothing is), and what the check saw.

    Allowed after a kill: an unfinished last line (truncated) and a last record whose append never returned;
    never a lost, altered or duplicated acknowledged record, never any other verify problem."""
    from ..audit import verify_log

    if not log.exists():  # killed before its first append: fine, as long as nothing was acknowledged
        return [f"{len(acks)} acknowledged record(s) but no log"] if acks else [], {
            "records": 0, "truncated": False, "head_behind": False}
    check = verify_log(log)
    errors = [p for p in check.problems if not (check.truncated and p.startswith("truncated after record"))]
    by_seq = {r.get("seq"): r for r in log_records(log)}
    for seq, digest, tag, i in acks:
        rec = by_seq.get(seq)
        if rec is None or rec.get("hash") != digest or (rec.get("writer"), rec.get("i")) != (tag, i):
            errors.append(f"acknowledged record seq {seq} ({tag} #{i}) is missing or altered")
    seen = [(r.get("writer"), r.get("i")) for r in by_seq.values() if "writer" in r]
    if len(seen) != len(set(seen)):
        errors.append("a record was written twice")
    return errors, {"records": check.records, "truncated": check.truncated,
                    "head_behind": any("never returned" in n for n in check.notes)}


def kill_runs(workdir: Path, runs: int, seed: int = 0, max_delay: float = 0.05, per_log: int = 25) -> dict:
    """kill -9 a writer at a random moment, `runs` times; after each kill the log must pass check_log.

    A fresh log every `per_log` runs keeps each check's re-read short."""
    rng = random.Random(seed)
    out = {"runs": 0, "faults": 0, "torn_lines": 0, "head_behind": 0, "dropped_on_append": 0,
           "acked_checked": 0, "records_checked": 0, "errors": []}
    log = ack = None
    for run in range(runs):
        if run % per_log == 0:
            if log is not None and log.exists():
                out["dropped_on_append"] += sum(1 for r in log_records(log) if "dropped" in r)
            log, ack = workdir / f"kill-{run // per_log}.jsonl", workdir / f"kill-{run // per_log}.ack"
        proc = start_writer(log, ack, f"w{run}", 10 ** 6, rng.randrange(1 << 30))
        time.sleep(rng.uniform(0, max_delay))
        proc.kill()
        _, err = proc.communicate()
        out["runs"] += 1
        if proc.returncode == -signal.SIGKILL:
            out["faults"] += 1
        else:
            out["errors"].append(f"run {run}: the writer ended before the kill (exit {proc.returncode}): "
                                 f"{err.decode(errors='replace').strip().splitlines()[-1:]}")
        acks = read_acks(ack)
        errors, seen = check_log(log, acks)
        if not errors and seen["head_behind"] and rng.random() < 0.5:
            # a kill -9 cannot tear a single write; a power cut can: cut the unacknowledged last record short
            data = log.read_bytes()
            start = data.rstrip(b"\n").rfind(b"\n") + 1
            os.truncate(log, rng.randrange(start + 1, len(data)))
            errors, seen = check_log(log, acks)
        out["errors"] += [f"run {run}: {e}" for e in errors]
        out["torn_lines"] += seen["truncated"]
        out["head_behind"] += seen["head_behind"]
        out["acked_checked"] += len(acks)
        out["records_checked"] += seen["records"]
    if log is not None and log.exists():
        out["dropped_on_append"] += sum(1 for r in log_records(log) if "dropped" in r)
    return out


def concurrent(workdir: Path, procs: int = 4, each: int = 50, kill_one: bool = False, seed: int = 0) -> dict:
    """`procs` writers append `each` records at once (optionally one is killed midway): the chain stays intact
    and every acknowledged record is there once; the writers that were not killed have all their records."""
    rng = random.Random(seed)
    log, ack = workdir / f"concurrent-{seed}.jsonl", workdir / f"concurrent-{seed}.ack"
    writers = [start_writer(log, ack, f"p{k}", each, rng.randrange(1 << 30), pad=2000, wait=True)
               for k in range(procs)]
    for w in writers:
        w.stdin.write(b"go\n")
        w.stdin.flush()
    victim = rng.randrange(procs) if kill_one else None
    if victim is not None:
        time.sleep(rng.uniform(0, 0.3))
        writers[victim].kill()
    for w in writers:
        w.communicate()
    acks = read_acks(ack)
    errors, seen = check_log(log, acks)
    recs = log_records(log)
    for k, w in enumerate(writers):
        if k != victim:
            mine = sorted(r["i"] for r in recs if r.get("writer") == f"p{k}")
            if mine != list(range(each)) or w.returncode != 0:
                errors.append(f"writer p{k}: {len(mine)} of {each} records, exit {w.returncode}")
    seqs = [r["seq"] for r in recs]
    if seqs != list(range(len(seqs))):
        errors.append("sequence numbers are not 0..n-1 in file order")
    return {"procs": procs, "each": each, "killed": victim is not None, "records": len(recs),
            "records_checked": seen["records"], "acked_checked": len(acks), "errors": errors}


def _aegis_verify(log: Path, preexec=None) -> subprocess.CompletedProcess:
    """`aegis verify` on the zh sample, appending to log: the real command a user runs."""
    from ..samples import sample_path

    doc = sample_path("policy_zh")
    facts = doc.with_name("policy_zh.facts.json")
    return subprocess.run([sys.executable, "-m", "aegis_tui", "verify", str(doc), str(facts), "--audit-log",
                           str(log)], capture_output=True, text=True, env=child_env(), preexec_fn=preexec)


def _snapshot(log: Path) -> tuple[bytes, bytes]:
    head = log.with_name(log.name + ".head")
    return log.read_bytes(), head.read_bytes() if head.exists() else b""


def _one_line_refusal(proc, log: Path, before, errors: list[str], what: str) -> None:
    lines = proc.stderr.splitlines()
    if proc.returncode != 2 or len(lines) != 1 or not lines[0].startswith("aegis: "):
        errors.append(f"{what}: expected exit 2 and one line, got {proc.returncode}: {proc.stderr!r}")
    if before is not None and _snapshot(log) != before:
        errors.append(f"{what}: the log or its head file changed")


def full_disk(workdir: Path) -> dict:
    """A file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored) just above the log: `aegis verify --audit-log` fails
    with one line, the log and its head are as before, and the next append without the limit succeeds."""
    from ..audit import AuditLog, verify_log

    log = workdir / "full.jsonl"
    AuditLog(log).append({"note": "before the disk filled"})
    before = _snapshot(log)
    limit = len(before[0]) + 1000  # the next record (the zh sample's verification, ~14 kB) cannot fit

    def cap():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    errors: list[str] = []
    proc = _aegis_verify(log, preexec=cap)
    _one_line_refusal(proc, log, before, errors, "full disk")
    if not verify_log(log).ok:
        errors.append("full disk: the log no longer verifies")
    after = _aegis_verify(log)
    if after.returncode != 0 or not verify_log(log).ok or verify_log(log).records != 2:
        errors.append(f"full disk: the next append failed: {after.stderr!r}")
    return {"stderr": proc.stderr.strip(), "errors": errors}


@contextmanager
def read_only_dir(path: Path):
    """Make a directory read-only for the duration: chmod for a normal user; root ignores modes, so the
    immutable attribute (chattr +i) there. Yields False when the directory stays writable (then skip)."""
    mode = path.stat().st_mode
    immutable = False
    if os.geteuid() == 0:
        immutable = shutil.which("chattr") is not None and subprocess.run(
            ["chattr", "+i", str(path)], capture_output=True).returncode == 0
    else:
        path.chmod(0o555)
    try:
        probe = path / ".probe"
        try:
            probe.touch()
            probe.unlink()
            yield False
        except OSError:
            yield True
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(path)], capture_output=True)
        path.chmod(mode)


def read_only(workdir: Path) -> dict | None:
    """An existing log and a new one in a read-only directory: one-line error, the log unchanged. None when
    this machine cannot make a directory read-only."""
    from ..audit import AuditLog, verify_log

    folder = workdir / "ro"
    folder.mkdir()
    log = folder / "audit.jsonl"
    AuditLog(log).append({"note": "before the directory became read-only"})
    before = _snapshot(log)
    errors: list[str] = []
    with read_only_dir(folder) as ok:
        if not ok:
            return None
        existing = _aegis_verify(log)
        _one_line_refusal(existing, log, before, errors, "read-only, existing log")
        new = _aegis_verify(folder / "new.jsonl")
        _one_line_refusal(new, log, None, errors, "read-only, new log")
    if not verify_log(log).ok:
        errors.append("read-only: the log no longer verifies")
    return {"stderr": [existing.stderr.strip(), new.stderr.strip()], "errors": errors}


# -- aegis bench faults ------------------------------------------------------------------------------------

def register(bsub) -> None:
    p = bsub.add_parser("faults", help="the audit log under kill -9, concurrent writers, a full disk, a "
                                       "read-only directory; exit 1 if any invariant broke")
    p.add_argument("--kills", type=int, default=200, help="kill -9 runs (default: %(default)s)")
    p.add_argument("--concurrent", type=int, default=10, help="concurrent-writer rounds (default: %(default)s)")
    p.add_argument("--procs", type=int, default=4, help="writers per concurrent round (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", metavar="DIR", help="also write bench_faults.json there")
    add_format_arg(p)
    p.set_defaults(func=run)


def run(args) -> int:
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="aegis-faults-") as tmp:
        work = Path(tmp)
        kills = kill_runs(work, args.kills, seed=args.seed)
        rounds = [concurrent(work, procs=args.procs, each=50, kill_one=k % 2 == 1, seed=args.seed * 1000 + k)
                  for k in range(args.concurrent)]
        disk = full_disk(work)
        ro = read_only(work)
    errors = kills["errors"] + [e for r in rounds for e in r["errors"]] + disk["errors"] + (ro or {}).get(
        "errors", [])
    result = {"kill": kills, "concurrent": {
        "rounds": len(rounds), "procs": args.procs, "rounds_with_a_kill": sum(r["killed"] for r in rounds),
        "records_checked": sum(r["records_checked"] for r in rounds),
        "acked_checked": sum(r["acked_checked"] for r in rounds)},
        "full_disk": disk, "read_only": ro, "errors": errors, "seconds": round(time.perf_counter() - t0, 1)}
    write_json(args.out, "bench_faults.json", result)
    if args.format == "json":
        print_json(result)
        return 1 if errors else 0
    c = result["concurrent"]
    emit([
        f"aegis bench faults: {'PASS' if not errors else 'FAIL'} in {result['seconds']} s",
        Table(["fault", "runs", "faults injected", "records checked", "acknowledged checked", "observed"], [
            ["kill -9 mid-append", kills["runs"], kills["faults"], kills["records_checked"], kills["acked_checked"],
             f"{kills['torn_lines']} unacknowledged tails torn (power cut), {kills['head_behind']} head one behind, "
             f"{kills['dropped_on_append']} tails dropped on append"],
            [f"{args.procs} concurrent writers", c["rounds"], c["rounds_with_a_kill"], c["records_checked"],
             c["acked_checked"], "chain intact, every record once"],
            ["full disk (RLIMIT_FSIZE)", 1, 1, 2, 2, disk["stderr"][:80]],
            ["read-only directory", 1 if ro else 0, 2 if ro else 0, 1 if ro else 0, 1 if ro else 0,
             (ro["stderr"][0][:80] if ro else "skipped: the directory could not be made read-only")],
        ]),
        *[f"  ! {e}" for e in errors[:20]],
    ])
    return 1 if errors else 0
