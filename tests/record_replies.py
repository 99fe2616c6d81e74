"""Re-record the replies the test fake serves: `python tests/record_replies.py` (a few minutes on a CPU).

Runs every scenario the pipeline and TUI tests list in their RECORDED tables through the real pipeline on the
embedded GGUF (`aegis_tui.engine.Engine`, one slot, otherwise the defaults): first attempts decode greedily, repairs
sample seeded exactly as the pipeline asks, and a scenario's script injects the same bad outputs its test does,
so the model's real answers to the repair prompts are recorded too. Every request the real engine served is
written to tests/data/replies.json, keyed by fakes.request_key; entries no scenario asks for are dropped.
Run it after changing a prompt, a grammar, sampling, the few-shot examples or a test's question, then review
the diff of the JSON (each entry shows the end of its prompt) and the tests that assert what the model did.
`python tests/record_replies.py --missing` keeps the recorded replies and asks the model only for requests they
lack (a new scenario), dropping entries no scenario asks for any more.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]  # the tests' helpers, and this checkout's aegis_tui over an installed one

import test_pipeline  # noqa: E402  (tests/ is not a package: its modules are imported by path)
import test_tui  # noqa: E402
import test_tui_index  # noqa: E402
from fakes import RECORDING, FakeEngine, Recording  # noqa: E402

from aegis_tui.engine import Engine, EngineConfig  # noqa: E402
from aegis_tui.models import embedded_model_path  # noqa: E402

SCENARIOS = [*test_pipeline.RECORDED, *test_tui.RECORDED, *test_tui_index.RECORDED]


def main(argv: list[str]) -> int:
    """`--missing`: keep the recorded replies, ask the model only what they lack (same model file), then drop
    the entries no scenario asked for; without it every reply is recorded afresh."""
    path = embedded_model_path()
    replies = Recording(RECORDING, model=path.name)
    if "--missing" in argv:
        old = Recording.load(RECORDING)
        if old.model != path.name:
            raise SystemExit(f"the replies were recorded with {old.model}: re-record them all")
        replies.replies = dict(old.replies)
    asked: set[str] = set()
    # One slot: a reply then depends only on its request. With several slots, which requests share a batch
    # depends on timing, and batch-dependent float rounding flips a few near-tie tokens from run to run.
    with Engine(EngineConfig(model_path=str(path), n_parallel=1)) as engine:
        for s in dict.fromkeys(SCENARIOS):  # a scenario listed by two test modules runs once
            t = time.perf_counter()
            fake = FakeEngine(script=s.script, replies=replies, record_from=engine)
            try:
                ans = s.ask(fake)
                kept = fake.keep_forwarded()
                asked.update(r.key for r in fake.calls)
            finally:
                fake.close()
            verified = [f"{fv.fact.subject}·{fv.fact.predicate}·{fv.fact.object_value}"
                        for fv in (ans.report.verified if ans.report is not None else [])]
            print(f"{s.sample} {s.mode}/{s.strategy} {getattr(s.script, '__name__', '-')}: {ans.state} "
                  f"after {ans.attempts} attempt(s), {kept} new replies, {time.perf_counter() - t:.0f} s; "
                  f"verified {verified}", flush=True)
    replies.replies = {k: v for k, v in replies.replies.items() if k in asked}
    replies.save()
    print(f"{len(replies.replies)} replies written to {RECORDING}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
