"""Tamper-evident audit log: append-only JSONL, each record hash-chained to the previous one and fsynced.

What is detectable: an edited record (its hash no longer matches), an inserted, deleted or reordered record
(sequence numbers and the chain of previous-record hashes break), and a tail cut by a crash (reported as
truncated after the last good record). Deleting the *last* record(s) leaves a valid shorter chain; that is
caught only through the side file `<log>.head`, which holds the sequence number and hash of the newest
record. An attacker who rewrites the whole log and the head file together is not detectable without an
external anchor (e.g. publishing head hashes elsewhere).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from .errors import AuditError

GENESIS = "0" * 64
ENV_VAR = "AEGIS_AUDIT_LOG"


def canonical(obj) -> bytes:
    """Canonical JSON bytes: sorted keys, compact separators, UTF-8 (ensure_ascii off)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def record_hash(record: dict) -> str:
    """sha256 of the canonical JSON of a record without its own 'hash' field."""
    return hashlib.sha256(canonical({k: v for k, v in record.items() if k != "hash"})).hexdigest()


def default_log_path() -> Path:
    """$AEGIS_AUDIT_LOG, else audit.jsonl in the user's data directory for 'aegis'."""
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    from platformdirs import user_data_dir

    return Path(user_data_dir("aegis")) / "audit.jsonl"


def build_record(report, question: str | None = None, model: str | None = None,
                 transitions: list | None = None, **extra) -> dict:
    """The body of one audit record for a verification run (a VerificationReport and its context)."""
    body = report.to_json()
    record = {"document": body["document"], "question": question, "model": model, "facts": body["facts"],
              "summary": body["summary"]}
    if transitions is not None:
        record["transitions"] = transitions
    record.update(extra)
    return record


def _head_path(path: Path) -> Path:
    return path.with_name(path.name + ".head")


class AuditLog:
    """Appends hash-chained records to a JSONL file; each append is flushed and fsynced before returning."""

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path is not None else default_log_path()

    def append(self, record: dict) -> dict:
        """Add seq, ts, prev_hash and hash to a copy of record, write it durably, and return it."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a+b") as fh:
                self._lock(fh)
                seq, prev = self._tail(fh)
                stored = {k: v for k, v in record.items() if k not in ("seq", "ts", "prev_hash", "hash")}
                stored.update(seq=seq, ts=datetime.now(timezone.utc).isoformat(timespec="microseconds"),
                              prev_hash=prev)
                stored["hash"] = record_hash(stored)
                fh.seek(0, os.SEEK_END)
                fh.write(canonical(stored) + b"\n")
                fh.flush()
                os.fsync(fh.fileno())
                self._write_head(seq, stored["hash"])
        except OSError as exc:
            raise AuditError(f"{self.path}: cannot write the audit log ({exc.strerror})") from None
        return stored

    @staticmethod
    def _lock(fh) -> None:
        try:
            import fcntl
        except ImportError:  # Windows: single-writer assumption
            return
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)

    def _tail(self, fh) -> tuple[int, str]:
        """(next seq, hash of the last complete record); a partial last line from a crash is cut off first."""
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        if size == 0:
            return 0, GENESIS
        block = min(size, 1 << 16)
        while True:
            fh.seek(size - block)
            data = fh.read(block)
            cut = data.rstrip(b"\n").rfind(b"\n")
            if cut >= 0 or block == size:
                break
            block = min(size, block * 4)
        if not data.endswith(b"\n"):
            # an unfinished record from a crash: it was never acknowledged, so it is dropped
            keep = size - block + cut + 1 if cut >= 0 else 0
            fh.truncate(keep)
            return self._tail(fh)
        last = data[cut + 1:].strip() if cut >= 0 else data.strip()
        try:
            rec = json.loads(last)
            return int(rec["seq"]) + 1, rec["hash"]
        except (ValueError, KeyError, TypeError):
            raise AuditError(f"{self.path}: the last record is corrupt; run `aegis audit verify`") from None

    def _write_head(self, seq: int, digest: str) -> None:
        head = _head_path(self.path)
        tmp = head.with_name(head.name + ".tmp")
        with open(tmp, "wb") as fh:
            fh.write(canonical({"seq": seq, "hash": digest}) + b"\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, head)


@dataclass
class AuditCheck:
    """The result of re-checking a log: ok, how many good records, what is wrong, whether the tail was cut."""

    ok: bool
    records: int
    problems: list[str] = field(default_factory=list)
    truncated: bool = False

    def to_json(self) -> dict:
        return {"ok": self.ok, "records": self.records, "problems": self.problems, "truncated": self.truncated}


def verify_log(path: str | Path) -> AuditCheck:
    """Re-check every record's hash, sequence and chain link, and the head file when there is one."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise AuditError(f"{path}: no such audit log") from None
    except IsADirectoryError:
        raise AuditError(f"{path}: is a directory, not an audit log") from None
    except OSError as exc:
        raise AuditError(f"{path}: cannot read ({exc.strerror})") from None
    problems: list[str] = []
    truncated = False
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline
    prev, expected, good = GENESIS, 0, 0
    for n, raw in enumerate(lines, start=1):
        try:
            rec = json.loads(raw)
            seq, digest, link = rec["seq"], rec["hash"], rec["prev_hash"]
        except (ValueError, KeyError, TypeError):
            problems.append(f"line {n}: not a valid record (corrupt or edited)")
            continue
        if record_hash(rec) != digest:
            problems.append(f"line {n} (seq {seq}): content edited, its hash does not match")
        if seq != expected:
            kind = "reordered or inserted" if isinstance(seq, int) and seq < expected else "deleted before it"
            problems.append(f"line {n} (seq {seq}): expected seq {expected}, records {kind}")
        if link != prev:
            problems.append(f"line {n} (seq {seq}): previous-record hash does not match line {n - 1} "
                            "(a record before it was edited, inserted, deleted or moved)")
        prev, expected = digest, (seq + 1 if isinstance(seq, int) else expected + 1)
        good += 1
    if tail.strip():
        try:
            json.loads(tail)
            problems.append(f"line {len(lines) + 1}: record not terminated by a newline")
        except ValueError:
            truncated = True
            problems.append(f"truncated after record {good} (line {len(lines)}): an unfinished record at the end")
    head = _head_path(path)
    if head.exists():
        try:
            h = json.loads(head.read_text(encoding="utf-8"))
            if h.get("seq") != expected - 1 or h.get("hash") != prev:
                if isinstance(h.get("seq"), int) and h["seq"] > expected - 1:
                    problems.append(f"the head file records seq {h['seq']} but the log ends at seq {expected - 1}: "
                                    "the last record(s) were deleted")
                else:
                    problems.append("the head file does not match the last record")
        except (ValueError, OSError, AttributeError):
            problems.append("the head file is unreadable")
    return AuditCheck(ok=not problems, records=good, problems=problems, truncated=truncated)
