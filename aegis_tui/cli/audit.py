"""`aegis audit verify LOG`: re-check a hash-chained audit log (exit 0 intact, 1 tampered or truncated)."""

from __future__ import annotations

from . import add_format_arg, print_json


def register(sub) -> None:
    p = sub.add_parser("audit", help="check the tamper-evident audit log")
    asub = p.add_subparsers(dest="audit_command", metavar="ACTION", required=True)
    v = asub.add_parser("verify", help="re-check every record's hash, sequence and chain link")
    v.add_argument("log", metavar="LOG", nargs="?", help="the log (default: $AEGIS_AUDIT_LOG or the user data dir)")
    add_format_arg(v)
    v.set_defaults(func=run_verify)


def run_verify(args) -> int:
    from ..audit import default_log_path, verify_log

    path = args.log or default_log_path()
    check = verify_log(path)
    if args.format == "json":
        print_json({"log": str(path), **check.to_json()})
    else:
        state = "intact" if check.ok else ("truncated" if check.truncated and len(check.problems) == 1
                                           else "TAMPERED")
        print(f"{path}: {state}, {check.records} good record(s)")
        for problem in check.problems:
            print(f"  - {problem}")
    return 0 if check.ok else 1
