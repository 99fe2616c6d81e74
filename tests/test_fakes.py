"""The replay fake itself: it speaks the engine protocol, refuses what was never recorded, streams and cancels."""

from __future__ import annotations

import time

import pytest
from fakes import FakeEngine, Reply, UnrecordedRequest, request_key

from aegis_tui.engine.config import Sampling
from aegis_tui.engine.protocol import EngineProtocol


@pytest.fixture
def engine():
    eng = FakeEngine(script=lambda req: Reply("scripted", "eog") if req.prompt == "scripted" else None)
    yield eng
    eng.close()


def test_speaks_the_protocol(engine):
    assert isinstance(engine, EngineProtocol)
    assert engine.chat_template == engine.model_info.chat_template  # prompts render as with the real engine
    assert engine.tokenize("起付线")[0] == engine.tokenize("")[0]  # the real vocabulary: BOS first


def test_refuses_unrecorded_requests(engine):
    with pytest.raises(UnrecordedRequest, match="python tests/record_replies.py"):
        engine.submit("a prompt nobody recorded", max_tokens=8)
    assert engine.missing and request_key("a prompt nobody recorded", None, 8, None, None) in engine.missing[0]


def test_script_reply_streams(engine):
    pieces = []
    c = engine.submit("scripted", on_piece=pieces.append).result(timeout=5)
    assert (c.text, c.finish_reason) == ("scripted", "eog")
    assert "".join(p.text for p in pieces) == "scripted" and c.stats.generated_tokens == 4


@pytest.mark.parametrize("end", ["cancel", "close"])
def test_slow_reply_ends_at_once(end):
    eng = FakeEngine(delay_s=30, script=lambda req: Reply("a long reply"))
    h = eng.submit("anything")
    time.sleep(0.1)
    t = time.perf_counter()
    h.cancel() if end == "cancel" else eng.close()
    c = h.result(timeout=5)
    assert c.finish_reason == ("cancelled" if end == "cancel" else "closed") and time.perf_counter() - t < 15  # not the 30 s
    eng.close()


@pytest.mark.parametrize("end", ["cancel", "close", "release"])
def test_held_reply_waits_in_its_slot_until_released_cancelled_or_closed(end):
    eng = FakeEngine(n_parallel=1, script=lambda req: Reply("held"))
    eng.hold()
    first, queued = eng.submit("first"), eng.submit("queued")
    time.sleep(0.2)
    stats = eng.stats()
    assert not first.done and stats.busy_slots == 1 and stats.queue_len == 1  # in its slot, and the next waits
    {"cancel": first.cancel, "close": eng.close, "release": eng.release}[end]()
    c = first.result(timeout=5)
    assert (c.text, c.finish_reason) == {"cancel": ("", "cancelled"), "close": ("", "closed"),
                                         "release": ("held", "eog")}[end]
    if end != "close":
        eng.release()
        assert queued.result(timeout=5).text == "held"
    eng.close()


@pytest.mark.parametrize("change", [
    {"prompt": "other"},                      # another prompt
    {"grammar": 'root ::= "x"'},              # a grammar
    {"max_tokens": 65},                       # another budget (a cut-off happens elsewhere)
    {"sampling": Sampling(temperature=0.6, top_p=0.95, seed=2)},  # a repair's sampling
    {"sampling": Sampling(temperature=0.6, top_p=0.95, seed=3)},  # same, another seed
    {"stop": ["\n\n"]},                       # stop strings
])
def test_key_covers_everything_that_decides_the_output(change):
    base = {"prompt": "p", "grammar": None, "max_tokens": 64, "sampling": Sampling(), "stop": None}
    assert request_key(**base) != request_key(**{**base, **change})
    assert request_key(**base) == request_key(**{**base, "sampling": None, "stop": []})  # the defaults
