"""Tamper-evident audit log: append-only JSONL, each record hash-chained to the previous one and fsynced.

What is detectable: an edited record (its hash no longer matches), an inserted, deleted or reordered record
(sequence numbers and the chain of previous-record hashes break), and a tail cut by a crash (reported as
truncated after the last good record). Deleting the *last* record(s) leaves a valid shorter chain; that is
caught only through the side file `<log>.head`, which holds the sequence number and hash of the newest
acknowledged record. An attacker who rewrites the whole log and the head file together is not detectable
without an external anchor: reports pin the head they were written under (`current_head`), and
`verify_log(..., expect_head=...)` checks a log against such a pin.

Appends never erase evidence. Before each append the log's tail is compared with the head file: an unfinished
last line whose record was never acknowledged (the head agrees with the last complete record) is overwritten
and the new record says so (`dropped`: byte offset, length, sha256); a log that lost acknowledged records, or
whose last record is corrupt, is refused with AuditError until `seal` appends a chained *gap* record that
states what was lost and keeps the removed bytes.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from .errors import AuditError

GENESIS = "0" * 64
ENV_VAR = "AEGIS_AUDIT_LOG"
KEEP_REMOVED_BYTES = 64 << 10  # a sealed tail up to this size is kept verbatim (base64) in the gap record
_OWN_FIELDS = ("seq", "ts", "prev_hash", "hash")


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


def _lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


def _parse(line: bytes) -> dict | None:
    """The record a line holds, or None when it is not a well-formed record with a matching hash."""
    try:
        rec = json.loads(line)
    except ValueError:  # also UnicodeDecodeError
        return None
    if not isinstance(rec, dict) or not isinstance(rec.get("seq"), int) or not isinstance(rec.get("hash"), str):
        return None
    return rec if record_hash(rec) == rec["hash"] else None


_MISSING, _UNREADABLE = "missing", "unreadable"


def _read_head(path: Path) -> dict | str:
    """The head file as {"seq", "hash"}, or "missing" / "unreadable"."""
    try:
        h = json.loads(_head_path(path).read_bytes())
    except FileNotFoundError:
        return _MISSING
    except (OSError, ValueError):
        return _UNREADABLE
    if not isinstance(h, dict) or not isinstance(h.get("seq"), int) or not isinstance(h.get("hash"), str):
        return _UNREADABLE
    return {"seq": h["seq"], "hash": h["hash"]}


def current_head(path: str | Path | None = None) -> dict | None:
    """The head a report written now is pinned to: {"seq", "hash"} of the newest acknowledged record, or None."""
    head = _read_head(Path(path) if path is not None else default_log_path())
    return head if isinstance(head, dict) else None


def parse_head(text: str) -> dict:
    """'SEQ:HASH' (as `aegis audit verify --expect-head` takes it) as {"seq", "hash"}; AuditError if malformed."""
    seq, _, digest = text.strip().partition(":")
    digest = digest.strip().lower()
    if not seq.strip().isdigit() or len(digest) < 8 or any(c not in "0123456789abcdef" for c in digest):
        raise AuditError(f"expected head {text!r} is not SEQ:HASH (a sequence number and at least 8 hex digits)")
    return {"seq": int(seq), "hash": digest}


@dataclass
class _Tail:
    """The end of a log: its last complete record (None if none or corrupt), where that line ends, the size."""

    last: dict | None
    end: int
    size: int
    corrupt: bool = False

    @property
    def unfinished(self) -> int:
        return self.size - self.end


def _read_tail(fd: int) -> _Tail:
    """Read backwards from the end of the file until the last complete line is in view."""
    size = os.fstat(fd).st_size
    block = min(size, 1 << 16)
    while True:
        data = os.pread(fd, block, size - block)
        nl = data.rfind(b"\n")
        if block == size or (nl >= 0 and data.rfind(b"\n", 0, nl) >= 0):
            break
        block = min(size, block * 4)
    if nl < 0:
        return _Tail(None, 0, size)  # empty, or only an unfinished first line
    line = data[data.rfind(b"\n", 0, nl) + 1:nl]
    rec = _parse(line)
    return _Tail(rec, size - block + nl + 1, size, corrupt=rec is None)


def _problem(tail: _Tail, head: dict | str) -> str | None:
    """Why appending to this log would hide a loss, or None when the tail agrees with the head file."""
    last = tail.last
    if tail.corrupt:
        return f"the last record (ending at byte {tail.end}) is corrupt"
    if head == _UNREADABLE:
        return "the head file is unreadable"
    if head == _MISSING:
        if last is None or (last["seq"] == 0 and last.get("prev_hash") == GENESIS):
            return None  # a new log, or the first append died before its head file was written
        return f"the head file is missing but the log ends at seq {last['seq']}"
    if last is None:
        return f"the head file records seq {head['seq']} but the log holds no complete record"
    if head == {"seq": last["seq"], "hash": last["hash"]}:
        return None
    if head == {"seq": last["seq"] - 1, "hash": last.get("prev_hash")}:
        return None  # the last record was written, but its append died before the head file was updated
    if isinstance(last.get("gap"), dict) and last["gap"].get("head") == head:
        return None  # a seal died before the head file was updated
    if head["seq"] > last["seq"]:
        return (f"the head file records seq {head['seq']} but the log ends at seq {last['seq']}: "
                "acknowledged record(s) were lost")
    return f"the head file (seq {head['seq']}) does not match the last record (seq {last['seq']})"


def _refusal(path: Path, problem: str) -> AuditError:
    return AuditError(f"{path}: {problem}; nothing was appended (run `aegis audit verify` on this log, then "
                      "`aegis audit seal` to record the loss in it)")


class AuditLog:
    """Appends hash-chained records to a JSONL file; each append is flushed and fsynced before returning."""

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path is not None else default_log_path()
        self.last_head: dict | None = None  # {"seq", "hash"} of this writer's last acknowledged append

    def head(self) -> dict | None:
        """The head to pin a report to: this writer's last append, else the head file's."""
        return dict(self.last_head) if self.last_head else current_head(self.path)

    def append(self, record: dict) -> dict:
        """Add seq, ts, prev_hash and hash to a copy of record, write it durably, and return it.

        AuditError when the log cannot be written or when appending would hide a loss (see module docstring);
        a failed append leaves the log as it found it, or at most an unfinished line the next append drops.
        """
        body = {k: v for k, v in record.items() if k not in _OWN_FIELDS}
        with self._open() as fd:
            tail = _read_tail(fd)
            problem = _problem(tail, _read_head(self.path))
            if problem:
                raise _refusal(self.path, problem)
            cut = os.pread(fd, tail.unfinished, tail.end) if tail.unfinished else b""
            if cut:
                body["dropped"] = {"offset": tail.end, "length": len(cut), "sha256": hashlib.sha256(cut).hexdigest(),
                                   "why": "an unfinished record that was never acknowledged (a crash mid-write)"}
            last = tail.last
            self._adopt(tail)
            seq = 0 if last is None else last["seq"] + 1
            return self._write(fd, tail.end, cut, body, seq, GENESIS if last is None else last["hash"])

    def seal(self) -> dict | None:
        """Append a chained gap record stating what the log lost; None when nothing was lost.

        The gap record names the last good record, the acknowledged sequence numbers that are gone (from the head
        file), and the damaged bytes after the last good record, which it removes from the log and keeps
        (offset, length, sha256, and the bytes themselves up to KEEP_REMOVED_BYTES).
        """
        with self._open() as fd:
            head = _read_head(self.path)
            tail = _read_tail(fd)
            if not _problem(tail, head):
                self._adopt(tail)
                return None
            size = os.fstat(fd).st_size
            data = os.pread(fd, size, 0)
            last, end, offset = None, 0, 0
            for line in data.split(b"\n")[:-1]:
                offset += len(line) + 1
                rec = _parse(line)
                if rec is not None:
                    last, end = rec, offset
            removed = data[end:]
            gap: dict = {"reason": _problem(tail, head), "log_ended_at": None, "head": head, "lost_seqs": None,
                         "removed": None}
            if last is not None:
                gap["log_ended_at"] = {"seq": last["seq"], "hash": last["hash"]}
            if isinstance(head, dict) and head["seq"] > (last["seq"] if last else -1):
                gap["lost_seqs"] = [last["seq"] + 1 if last else 0, head["seq"]]
            if removed:
                gap["removed"] = {"offset": end, "length": len(removed), "sha256": hashlib.sha256(removed).hexdigest()}
                if len(removed) <= KEEP_REMOVED_BYTES:
                    gap["removed"]["base64"] = base64.b64encode(removed).decode("ascii")
            seq = max(last["seq"] if last else -1, head["seq"] if isinstance(head, dict) else -1) + 1
            return self._write(fd, end, removed, {"command": "seal", "gap": gap}, seq,
                               GENESIS if last is None else last["hash"])

    def _adopt(self, tail: _Tail) -> None:
        """Point the head file at a complete last record whose own append died before updating it, so that a
        second crash cannot leave the head two records behind (which would read as a loss)."""
        last = tail.last
        if last is not None and _read_head(self.path) != {"seq": last["seq"], "hash": last["hash"]}:
            try:
                self._write_head(last["seq"], last["hash"])
            except OSError as exc:
                raise AuditError(f"{self.path}: cannot write the audit log ({exc.strerror or exc})") from None

    def _write(self, fd: int, end: int, after: bytes, body: dict, seq: int, prev: str) -> dict:
        """Write the record at `end` (over the bytes `after` it), cut what followed, fsync, then the head file.

        On failure the bytes after `end` are put back as they were, so a failed append acknowledges nothing and
        a failed seal destroys no evidence."""
        stored = dict(body, seq=seq, ts=datetime.now(timezone.utc).isoformat(timespec="microseconds"),
                      prev_hash=prev)
        stored["hash"] = record_hash(stored)
        line = canonical(stored) + b"\n"
        try:
            _pwrite_all(fd, line, end)  # a crash from here on leaves at most an unacknowledged line
            os.ftruncate(fd, end + len(line))
            os.fsync(fd)
            self._write_head(seq, stored["hash"])
        except OSError as exc:
            try:
                _pwrite_all(fd, after, end)
                os.ftruncate(fd, end + len(after))
                os.fsync(fd)
            except OSError:
                pass
            raise AuditError(f"{self.path}: cannot write the audit log ({exc.strerror or exc}); "
                             "nothing was appended") from None
        self.last_head = {"seq": seq, "hash": stored["hash"]}
        return stored

    @contextmanager
    def _open(self):
        """The log open for reading and writing, under an exclusive lock (<log>.lock) held across processes."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            lock = os.open(_lock_path(self.path), os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise AuditError(f"{self.path}: cannot write the audit log ({exc.strerror or exc})") from None
        try:
            _flock(lock)
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:
                raise AuditError(f"{self.path}: cannot write the audit log ({exc.strerror or exc})") from None
            try:
                yield fd
            finally:
                os.close(fd)
        finally:
            os.close(lock)  # closing the descriptor releases the lock

    def _write_head(self, seq: int, digest: str) -> None:
        head = _head_path(self.path)
        tmp = head.with_name(f"{head.name}.{os.getpid()}.tmp")
        try:
            with open(tmp, "wb") as fh:
                fh.write(canonical({"seq": seq, "hash": digest}) + b"\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, head)
        except OSError:
            try:
                tmp.unlink()
            except OSError:
                pass
            raise
        try:  # make the rename itself durable
            dfd = os.open(head.parent, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
        except OSError:
            pass


def _pwrite_all(fd: int, data: bytes, offset: int) -> None:
    done = 0
    while done < len(data):
        done += os.pwrite(fd, data[done:], offset + done)


def _flock(fd: int, shared: bool = False) -> None:
    try:
        import fcntl
    except ImportError:  # Windows: single-writer assumption
        return
    fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)


@contextmanager
def _shared_lock(path: Path):
    """Hold the writers' lock shared while reading, when there is a lock file to hold (none: no writer yet)."""
    try:
        fd = os.open(_lock_path(path), os.O_RDONLY)
    except OSError:
        yield
        return
    try:
        _flock(fd, shared=True)
        yield
    finally:
        os.close(fd)


@dataclass
class AuditCheck:
    """The result of re-checking a log: ok, how many good records, what is wrong, whether the tail was cut,
    the losses sealed into the log as gap records, and notes on crashes that lost nothing acknowledged."""

    ok: bool
    records: int
    problems: list[str] = field(default_factory=list)
    truncated: bool = False
    gaps: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    head: dict | None = None

    def to_json(self) -> dict:
        return {"ok": self.ok, "records": self.records, "problems": self.problems, "truncated": self.truncated,
                "gaps": self.gaps, "notes": self.notes, "head": self.head}


def _describe_gap(seq: int, ts, gap: dict) -> str:
    lost = gap.get("lost_seqs")
    what = (f"acknowledged record(s) seq {lost[0]}–{lost[1]} lost" if lost and lost[0] != lost[1]
            else f"acknowledged record seq {lost[0]} lost" if lost else "no acknowledged record lost")
    removed = gap.get("removed")
    if isinstance(removed, dict):
        what += f"; {removed.get('length')} damaged byte(s) at offset {removed.get('offset')} kept in the record"
    return f"seq {seq} (sealed {ts}): {what} — {gap.get('reason')}"


def verify_log(path: str | Path, expect_head: dict | None = None) -> AuditCheck:
    """Re-check every record's hash, sequence and chain link, and the head file when there is one.

    Gap records written by `AuditLog.seal` account for the sequence numbers they say were lost; they are listed
    in `gaps` and do not by themselves make the log fail. expect_head ({"seq", "hash"}, the hash possibly a
    prefix) additionally requires the record with that seq to be in the log with that hash.
    """
    path = Path(path)
    try:
        with _shared_lock(path):  # a writer mid-append would otherwise read as a truncated tail
            data = path.read_bytes()
            head = _read_head(path)
    except FileNotFoundError:
        raise AuditError(f"{path}: no such audit log") from None
    except IsADirectoryError:
        raise AuditError(f"{path}: is a directory, not an audit log") from None
    except OSError as exc:
        raise AuditError(f"{path}: cannot read ({exc.strerror})") from None
    problems: list[str] = []
    gaps: list[str] = []
    notes: list[str] = []
    hashes: dict[int, str] = {}
    lost: dict[int, int] = {}  # lost seq -> the gap record's seq
    truncated = False
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline
    prev, expected, good, last_link = GENESIS, 0, 0, None
    for n, raw in enumerate(lines, start=1):
        try:
            rec = json.loads(raw)
            seq, digest, link = rec["seq"], rec["hash"], rec["prev_hash"]
        except (ValueError, KeyError, TypeError):
            problems.append(f"line {n}: not a valid record (corrupt or edited)")
            continue
        if record_hash(rec) != digest:
            problems.append(f"line {n} (seq {seq}): content edited, its hash does not match")
        gap = rec.get("gap") if isinstance(rec.get("gap"), dict) else None
        span = gap.get("lost_seqs") if gap else None
        if (isinstance(span, list) and len(span) == 2 and span[0] == expected and isinstance(span[1], int)
                and seq == span[1] + 1):
            lost.update((s, seq) for s in range(span[0], span[1] + 1))
            expected = seq  # the seal accounts for the missing sequence numbers
        if seq != expected:
            kind = "reordered or inserted" if isinstance(seq, int) and seq < expected else "deleted before it"
            problems.append(f"line {n} (seq {seq}): expected seq {expected}, records {kind}")
        if link != prev:
            problems.append(f"line {n} (seq {seq}): previous-record hash does not match line {n - 1} "
                            "(a record before it was edited, inserted, deleted or moved)")
        if gap is not None:
            gaps.append(_describe_gap(seq, rec.get("ts"), gap))
        d = rec.get("dropped")
        if isinstance(d, dict):
            notes.append(f"seq {seq}: an unfinished, unacknowledged record of {d.get('length')} byte(s) at "
                           f"offset {d.get('offset')} was dropped before it")
        if isinstance(seq, int):
            hashes[seq] = digest
        prev, expected, last_link = digest, (seq + 1 if isinstance(seq, int) else expected + 1), link
        good += 1
    if tail.strip():
        try:
            json.loads(tail)
            problems.append(f"line {len(lines) + 1}: record not terminated by a newline")
        except ValueError:
            truncated = True
            problems.append(f"truncated after record {good} (line {len(lines)}): an unfinished record at the end")
    if head == _UNREADABLE:
        problems.append("the head file is unreadable")
    elif head == {"seq": expected - 2, "hash": last_link}:
        notes.append(f"seq {expected - 1}: written, but its append never returned (the process ended before the "
                     "head file was updated); nothing acknowledged is missing")
    elif isinstance(head, dict) and (head["seq"] != expected - 1 or head["hash"] != prev):
        if head["seq"] > expected - 1:
            problems.append(f"the head file records seq {head['seq']} but the log ends at seq {expected - 1}: "
                            "the last record(s) were deleted")
        else:
            problems.append("the head file does not match the last record")
    if expect_head is not None:
        want, digest = expect_head["seq"], expect_head["hash"]
        have = hashes.get(want)
        if want in lost:
            problems.append(f"expected head seq {want} is not in the log: it was lost (gap sealed at seq {lost[want]})")
        elif have is None:
            problems.append(f"expected head seq {want} is not in the log")
        elif not have.startswith(digest):
            problems.append(f"expected head seq {want} has hash {digest[:16]}… but the log's seq {want} has "
                            f"{have[:16]}…: the log was rewritten after the report was pinned")
    return AuditCheck(ok=not problems, records=good, problems=problems, truncated=truncated, gaps=gaps,
                      notes=notes, head=head if isinstance(head, dict) else None)
