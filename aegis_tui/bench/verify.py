"""`aegis bench verify`: time verify + realize for the 7 zh sample facts and for 1,000 facts over a 1 MB document;
and the pure-text steps before them: the quantity scan, the grounded grammar, a 1,000-row table's structure."""

from __future__ import annotations

import math
import random
import statistics
import time

from ..cli import add_format_arg, print_json
from .report import Block, Table, emit, write_json

GOAL_SAMPLE_MS = 2.0
GOAL_LARGE_S = 1.0
MB = 1 << 20


def register(bsub) -> None:
    p = bsub.add_parser("verify", help="verify + realize: the 7 zh sample facts, and 1,000 facts over 1 MB")
    p.add_argument("--repeat", type=int, default=200, help="timed runs of the sample case (median reported)")
    p.add_argument("--facts", type=int, default=1000, help="facts in the large case")
    p.add_argument("--size-mb", type=float, default=1.0, help="document size of the large case (UTF-8 MB)")
    p.add_argument("--no-scaling", action="store_true", help="skip the growth measurements")
    p.add_argument("--out", metavar="DIR", help="also write bench_verify.json there")
    add_format_arg(p)
    p.set_defaults(func=run)


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def bench_sample(repeat: int = 200) -> dict:
    """Verify + realize the 7 gold facts of policy_zh: first call (cold index) and the warm median."""
    from ..answer.realize import EntityAwareRealizer
    from ..answer.verify import Tier1CodeVerifier
    from ..samples import load_gold, sample_path
    from ..text.document import Document

    text = sample_path("policy_zh").read_text(encoding="utf-8")
    payload = load_gold("policy_zh")
    realizer = EntityAwareRealizer()
    t0 = time.perf_counter()
    doc = Document.from_text(text + "\n", path="policy_zh (cold copy)")  # a text no cache has seen
    report = Tier1CodeVerifier(doc).verify(payload)
    realizer.realize(report, doc)
    cold = time.perf_counter() - t0
    doc = Document.from_text(text, path="policy_zh")
    verifier = Tier1CodeVerifier(doc)
    verify_t, realize_t, total_t = [], [], []
    for _ in range(max(1, repeat)):
        a = time.perf_counter()
        report = verifier.verify(payload)
        b = time.perf_counter()
        realizer.realize(report, doc)
        c = time.perf_counter()
        verify_t.append(b - a)
        realize_t.append(c - b)
        total_t.append(c - a)
    total = statistics.median(total_t)
    return {"facts": len(payload.atomic_facts), "chars": len(text), "passed": len(report.verified_facts),
            "cold_ms": _ms(cold), "verify_ms": _ms(statistics.median(verify_t)),
            "realize_ms": _ms(statistics.median(realize_t)), "total_ms": _ms(total),
            "p90_total_ms": _ms(sorted(total_t)[int(0.9 * (len(total_t) - 1))]),
            "goal_ms": GOAL_SAMPLE_MS, "meets_goal": total * 1000 <= GOAL_SAMPLE_MS}


def bench_text(repeat: int = 20) -> dict:
    """Median ms of the quantity scan and the grounded grammar over policy_zh, each on a text no cache has seen
    (the first call of the process, which builds the parsers, is reported apart), and of reading a 1,000-row table."""
    from ..grammar.grounded import grounded_grammar
    from ..samples import sample_path
    from ..text.document import Document
    from ..text.quantity import find_quantities
    from ..text.structure import build_structure

    text = sample_path("policy_zh").read_text(encoding="utf-8")

    def timed(fn, i: int) -> float:
        t = time.perf_counter()
        fn(text + " " * i)
        return time.perf_counter() - t

    grammar = lambda t: grounded_grammar(Document.from_text(t))  # noqa: E731
    first_scan, first_grammar = timed(find_quantities, 0), timed(grammar, 1)
    n = max(1, repeat)
    scan = statistics.median(timed(find_quantities, 2 + i) for i in range(n))
    gram = statistics.median(timed(grammar, 2 + n + i) for i in range(n))
    rows = "\n".join(f"| item {i} | {i * 3} | {i * 7}元 |" for i in range(1000))
    table = "Prices:\n\n| Item | A | B |\n| --- | --- | --- |\n" + rows + "\n"
    t = time.perf_counter()
    build_structure(table)
    return {"chars": len(text), "scan_first_ms": _ms(first_scan), "scan_ms": _ms(scan),
            "grammar_first_ms": _ms(first_grammar), "grammar_ms": _ms(gram),
            "table_1000_rows_ms": _ms(time.perf_counter() - t)}


_ZH_ITEM = "第{b}号片区：一级及以下定点医疗机构{a}元；二级定点医疗机构{c}元；三级定点医疗机构{d}元。\n"
_EN_ITEM = ("Region {b} lodging is reimbursed up to ${a} per night in standard cities and ${c} per night in "
            "high-cost cities.\n")


def synthetic(size_bytes: int, n_facts: int, seed: int = 7):
    """A document of about size_bytes (the two samples as filler, plus numbered enumerations) and facts over it."""
    from ..samples import sample_path
    from ..schema import AtomicFact

    rng = random.Random(seed)
    filler = [sample_path(n).read_text(encoding="utf-8") for n in ("policy_zh", "policy_en")]
    parts, facts, size, b = [], [], 0, 0
    while size < size_bytes:
        block = filler[b % 2] + "\n"
        a, c, d = 300 + b, 600 + b, 1200 + b
        zh, en = _ZH_ITEM.format(b=b, a=a, c=c, d=d), _EN_ITEM.format(b=b, a=a, c=c)
        block += zh + en
        parts.append(block)
        size += len(block.encode("utf-8"))
        facts.append(AtomicFact(subject="一级及以下医疗机构", predicate=f"第{b}号片区起付线", object_value=f"{a}元",
                                source_text=f"一级及以下定点医疗机构{a}元"))
        facts.append(AtomicFact(subject="三级医疗机构", predicate=f"第{b}号片区起付线", object_value=f"{d}元",
                                source_text=f"三级定点医疗机构{d}元"))
        facts.append(AtomicFact(subject="high-cost cities", predicate=f"region {b} nightly lodging cap",
                                object_value=f"${c} per night", source_text=f"${c} per night in high-cost cities"))
        facts.append(AtomicFact(subject="standard cities", predicate=f"region {b} nightly lodging cap",  # swapped
                                object_value=f"${c} per night", source_text=f"${a} per night in standard cities and "
                                f"${c} per night in high-cost cities"))
        b += 1
    rng.shuffle(facts)
    while len(facts) < n_facts:
        facts += facts[: n_facts - len(facts)]
    return "".join(parts), facts[:n_facts]


def _time_large(text: str, facts, chunk: int = 24) -> dict:
    from ..answer.realize import EntityAwareRealizer
    from ..answer.verify import Tier1CodeVerifier
    from ..schema import ExtractionPayload
    from ..text.document import Document

    t0 = time.perf_counter()
    doc = Document.from_text(text, path="synthetic")
    # the per-document indexes, once per document as when it is opened: the folded text, its structure and the
    # roles of its numbers (the binding rules read them)
    doc.find("index")
    doc.roles
    t1 = time.perf_counter()
    verifier, realizer = Tier1CodeVerifier(doc), EntityAwareRealizer()
    passed = 0
    for i in range(0, len(facts), chunk):
        report = verifier.verify(ExtractionPayload(atomic_facts=facts[i:i + chunk]))
        realizer.realize(report, doc)
        passed += len(report.verified_facts)
    t2 = time.perf_counter()
    return {"bytes": len(text.encode("utf-8")), "chars": len(text), "facts": len(facts), "passed": passed,
            "index_s": round(t1 - t0, 4), "verify_realize_s": round(t2 - t1, 4), "total_s": round(t2 - t0, 4)}


def _slope(xs: list[float], ys: list[float]) -> float:
    """Log-log slope: 1.0 means linear growth."""
    lx, ly = [math.log(x) for x in xs], [math.log(max(y, 1e-9)) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return round(sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx), 2)


def bench_large(size_mb: float = 1.0, n_facts: int = 1000, scaling: bool = True) -> dict:
    """1,000 facts over a 1 MB document, and how the time grows with facts and with document size."""
    size = int(size_mb * MB)
    text, facts = synthetic(size, n_facts)
    main = _time_large(text, facts)
    main |= {"goal_s": GOAL_LARGE_S, "meets_goal": main["verify_realize_s"] <= GOAL_LARGE_S}
    out = {"main": main}
    if scaling:
        by_facts = [_time_large(text, facts[:n]) for n in (n_facts // 8, n_facts // 4, n_facts // 2, n_facts)]
        by_size = []
        for frac in (0.125, 0.25, 0.5, 1.0):
            t, f = synthetic(int(size * frac), n_facts)
            by_size.append(_time_large(t, f))
        out["by_facts"] = by_facts
        out["by_size"] = by_size
        out["growth"] = {
            "verify_vs_facts_exponent": _slope([r["facts"] for r in by_facts],
                                               [r["verify_realize_s"] for r in by_facts]),
            "verify_vs_size_exponent": _slope([r["bytes"] for r in by_size],
                                              [r["verify_realize_s"] for r in by_size]),
            "index_vs_size_exponent": _slope([r["bytes"] for r in by_size], [r["index_s"] for r in by_size]),
        }
    return out


def run(args) -> int:
    result = {"text": bench_text(),
              "sample": bench_sample(args.repeat),
              "large": bench_large(args.size_mb, args.facts, scaling=not args.no_scaling)}
    if args.out:
        write_json(args.out, "bench_verify.json", result)
    if args.format == "json":
        print_json(result)
        return 0
    emit(text_report(result))
    return 0


def text_report(result: dict) -> list[Block]:
    s, m, t = result["sample"], result["large"]["main"], result["text"]
    lines: list[Block] = [
        f"text policy_zh ({t['chars']} chars), median of new texts: quantity scan {t['scan_ms']} ms "
        f"(first in the process {t['scan_first_ms']} ms), grounded grammar {t['grammar_ms']} ms "
        f"(first {t['grammar_first_ms']} ms); a 1,000-row table's structure {t['table_1000_rows_ms']} ms",
        f"sample policy_zh: {s['facts']} facts, {s['chars']} chars, {s['passed']} passed",
        f"  verify {s['verify_ms']} ms + realize {s['realize_ms']} ms = {s['total_ms']} ms median "
        f"(p90 {s['p90_total_ms']} ms; goal <= {GOAL_SAMPLE_MS} ms: {'met' if s['meets_goal'] else 'MISSED'}); "
        f"cold first call {s['cold_ms']} ms",
        f"large: {m['facts']} facts over {m['bytes'] / MB:.2f} MB ({m['chars']} chars), {m['passed']} passed",
        f"  document index {m['index_s']} s (once per document); verify + realize {m['verify_realize_s']} s "
        f"(goal < {GOAL_LARGE_S} s: {'met' if m['meets_goal'] else 'MISSED'})",
    ]
    if "growth" in result["large"]:
        runs = result["large"]["by_facts"] + result["large"]["by_size"]
        lines.append(Table(["facts", "MB", "index s", "verify+realize s"],
                           [[r["facts"], f"{r['bytes'] / MB:.2f}", str(r["index_s"]), str(r["verify_realize_s"])]
                            for r in runs],
                           "rrrr"))
        g = result["large"]["growth"]
        lines.append(f"growth exponents (1.0 = linear): verify vs facts {g['verify_vs_facts_exponent']}, "
                     f"verify vs document size {g['verify_vs_size_exponent']}, index vs size {g['index_vs_size_exponent']}")
    return lines
