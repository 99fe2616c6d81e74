"""`aegis audit verify|seal [LOG]`: re-check a hash-chained audit log (exit 0 intact, 1 tampered or truncated),
or record a loss in it as a chained gap record."""

from __future__ import annotations

from . import add_format_arg, print_json

LOG_HELP = "the log (default: $AEGIS_AUDIT_LOG or the user data dir)"


def register(sub) -> None:
    p = sub.add_parser("audit", help="check the tamper-evident audit log, or seal a loss into it")
    asub = p.add_subparsers(dest="audit_command", metavar="ACTION", required=True)
    v = asub.add_parser("verify", help="re-check every record's hash, sequence and chain link")
    v.add_argument("log", metavar="LOG", nargs="?", help=LOG_HELP)
    v.add_argument("--expect-head", metavar="SEQ:HASH",
                   help="also require the record SEQ to have this hash (the head a report was pinned to)")
    add_format_arg(v)
    v.set_defaults(func=run_verify)
    s = asub.add_parser("seal", help="append a chained gap record stating what a damaged log lost, so appends "
                                     "may continue and the loss stays visible")
    s.add_argument("log", metavar="LOG", nargs="?", help=LOG_HELP)
    add_format_arg(s)
    s.set_defaults(func=run_seal)


def run_verify(args) -> int:
    from ..audit import default_log_path, parse_head, verify_log

    expect = parse_head(args.expect_head) if args.expect_head else None
    path = args.log or default_log_path()
    check = verify_log(path, expect_head=expect)
    if args.format == "json":
        print_json({"log": str(path), **check.to_json()})
    else:
        state = "intact" if check.ok else ("truncated" if check.truncated and len(check.problems) == 1
                                           else "TAMPERED")
        gaps = f", {len(check.gaps)} recorded gap(s)" if check.gaps else ""
        print(f"{path}: {state}, {check.records} good record(s){gaps}")
        for problem in check.problems:
            print(f"  - {problem}")
        for gap in check.gaps:
            print(f"  gap: {gap}")
        for note in check.notes:
            print(f"  note: {note}")
        if expect is not None and check.ok:
            print(f"  head seq {expect['seq']} matches {expect['hash']}")
    return 0 if check.ok else 1


def run_seal(args) -> int:
    from ..audit import AuditLog, verify_log

    log = AuditLog(args.log or None)
    if not log.path.exists():
        verify_log(log.path)  # the one-line "no such audit log"
    stored = log.seal()
    if args.format == "json":
        print_json({"log": str(log.path), "sealed": stored is not None, "record": stored})
    elif stored is None:
        print(f"{log.path}: nothing to seal, the log's tail agrees with its head file")
    else:
        gap = stored["gap"]
        lost = gap["lost_seqs"]
        print(f"{log.path}: sealed at seq {stored['seq']} (hash {stored['hash']})")
        print(f"  reason: {gap['reason']}")
        if lost:
            print(f"  lost acknowledged record(s): seq {lost[0]}" + (f"–{lost[1]}" if lost[1] != lost[0] else ""))
        if gap["removed"]:
            print(f"  damaged bytes kept in the gap record: {gap['removed']['length']} at offset "
                  f"{gap['removed']['offset']}")
    return 0
