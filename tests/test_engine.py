"""Engine: slots without cross-talk, grammar output that parses, cancellation, queueing, prefix reuse, errors."""

from __future__ import annotations

import json
import threading
from importlib import resources

import numpy as np
import pytest

from aegis_tui.engine import EngineConfig, Sampling
from aegis_tui.engine.prefix_cache import KvLedger
from aegis_tui.engine.slots import TextStream
from aegis_tui.errors import ContextOverflowError, EngineError, GrammarError, ModelError

# A small JSON-ish grammar: forced keys and punctuation (jump-forward material), free strings and digits.
# number: JSON has no leading zeros, so [0-9]{1,3} would admit "000", which json.loads refuses
PERSON_GBNF = r'''
root   ::= "{" ws "\"name\"" ws ":" ws string ws "," ws "\"age\"" ws ":" ws number ws "}"
string ::= "\"" [a-zA-Z ]{1,20} "\""
number ::= "0" | [1-9][0-9]{0,2}
ws     ::= [ ]?
'''

NEAR_TIE = 0.3  # logits within this of the best one count as a tie that rounding may break either way

PROMPTS = [
    "The history of the Roman Empire",
    "def fibonacci(n):",
    "Ingredients for pancakes:",
    "Water boils at",
    "My favourite football team",
]


def _document(chars: int = 600) -> str:
    return resources.files("aegis_tui.samples").joinpath("policy_zh.txt").read_text("utf-8")[:chars]


# -- pure parts ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs, message", [
    (dict(n_parallel=0), "n_parallel"),  # no slots
    (dict(n_ctx_per_slot=4), "n_ctx_per_slot"),  # too small a context to hold a prompt
    (dict(kv_type="q5_1"), "unknown KV cache type"),  # a type we do not offer
    (dict(kv_type="q8_0", flash_attn="off"), "needs flash attention"),  # quantised V without FA
    (dict(flash_attn="maybe"), "flash_attn"),  # not auto/on/off
    (dict(spare_prefix_seqs=-1), "spare_prefix_seqs"),  # negative spare sequences
])
def test_config_rejects(kwargs, message):
    with pytest.raises(EngineError, match=message):
        EngineConfig(model_path="m.gguf", **kwargs)


@pytest.mark.parametrize("kwargs, swa, expected", [
    (dict(), 512, dict(n_ctx=4 * 4096 + 4096, n_seq_max=8, swa_full=True)),  # SWA model + cache: full SWA
    (dict(), 0, dict(swa_full=False)),  # no sliding window: nothing to keep
    (dict(spare_prefix_seqs=0), 512, dict(n_ctx=4 * 4096, n_seq_max=4, swa_full=False)),  # cache off
    (dict(n_parallel=2, spare_prefix_seqs=1), 0, dict(n_outputs_max=3)),  # one logits row per sequence
    (dict(swa_full=False), 512, dict(swa_full=False)),  # explicit choice wins
    (dict(kv_type="q4_0"), 0, dict(type_v="q4_0", flash_attn="on")),  # quantised V turns FA on
    (dict(n_batch=64, n_ubatch=512), 0, dict(n_batch=64, n_ubatch=64)),  # ubatch never exceeds batch
])
def test_context_settings(kwargs, swa, expected):
    settings = EngineConfig(model_path="m.gguf", **kwargs).llama_context_settings(swa)
    assert {k: settings[k] for k in expected} == expected
    assert settings["kv_unified"] is True


@pytest.mark.parametrize("chunks, stop, shown, text, stopped", [
    ([b"Hel", b"lo"], [], ["Hel", "lo"], "Hello", False),  # plain text passes straight through
    ([b"\xe4\xb8", b"\xad"], [], ["", "中"], "中", False),  # a split UTF-8 character waits for its end
    ([b"ab", b"c\n", b"\nd"], ["\n\n"], ["ab", "c", ""], "abc", True),  # held-back stop prefix, then cut
    ([b"x EN", b"Dy"], ["END"], ["x ", ""], "x ", True),  # stop string split over two tokens
    ([b"x E", b"Fy"], ["END"], ["x ", "EFy"], "x EFy", False),  # a false start is released
])
def test_text_stream(chunks, stop, shown, text, stopped):
    s = TextStream(stop)
    assert [s.feed(c) for c in chunks] == shown
    assert s.text == text and s.stopped == stopped


def test_kv_ledger_counts_shared_cells_once():
    led = KvLedger()
    a = led.new(None, 0, 100)  # a slot that decoded 100 cells
    e = led.new(a, 90)  # a cached prefix: the slot's first 90 cells, shared
    assert led.cells() == 100
    b = led.new(e, 80, 95)  # a new slot reuses 80 of them and decodes 15 more
    assert led.cells() == 115
    led.kill(a)  # the first slot ends: its last 10 cells go, the prefix stays
    assert led.cells() == 90 + 15
    led.kill(e)  # the cache entry is dropped: only what b references remains
    assert led.cells() == 95
    led.kill(b)
    assert led.cells() == 0 and led.nodes == []


def test_kv_ledger_stays_small_over_thousands_of_requests_extending_the_cache():
    # each request extends the cached prompt and is cached in turn, superseding it: the dead entries and slots
    # between the live entry and the first root had made a chain two nodes longer per request, walked at every
    # step until the walk overflowed Python's stack (RecursionError in the scheduler thread)
    led = KvLedger()
    entry = led.new(None, 0, 50)
    entry.is_entry = True
    for i in range(3000):
        slot = led.new(entry, entry.length, entry.length + 10)  # reuses the whole entry, decodes 10 more
        cached = led.new(slot, slot.length)  # the prefilled prompt is cached
        cached.is_entry = True
        led.kill(entry)  # … and supersedes the entry it extends
        led.kill(slot)
        entry = cached
        if i % 500 == 0:
            assert led.cells() == entry.length and led.cells(lambda n: n.alive and not n.is_entry) == 0
    assert led.cells() == 50 + 3000 * 10 and len(led.nodes) <= 2
    led.new(entry, 30, 40)  # a slot sharing part of it: only its own 10 cells more
    assert led.cells() == entry.length + 10
    led.kill(entry)
    assert led.cells() == 40 and len(led.nodes) == 1


def test_a_request_whose_engine_is_gone_ends_with_an_error_instead_of_hanging():
    from aegis_tui.engine.handle import Piece, RequestHandle

    alive = [True]
    h = RequestHandle(alive_fn=lambda: alive[0])
    h._emit(Piece("{", 0.0, 1))
    assert not h.done
    with pytest.raises(TimeoutError):
        h.result(timeout=0.2)
    alive[0] = False  # the thread that owed the request ended without ending it
    c = h.result(timeout=10)
    assert c.finish_reason == "error" and "stopped" in c.error and h.done
    assert [p.text for p in h] == ["{"]  # the stream ends too
    quiet = RequestHandle(alive_fn=lambda: False)
    assert [p.text for p in quiet] == [] and quiet.result(timeout=10).finish_reason == "error"


# -- real model ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def engine(embedded_model):
    from aegis_tui.engine import Engine

    eng = Engine(EngineConfig(model_path=embedded_model, n_parallel=4, n_ctx_per_slot=768, n_threads=2))
    yield eng
    eng.close()


def _first_divergence(a: list[int], b: list[int]) -> int:
    n = min(len(a), len(b))
    return next((i for i in range(n) if a[i] != b[i]), n)


@pytest.mark.model
def test_no_cross_talk_between_slots(engine):
    engine.clear_prefix_cache()
    alone = []
    for p in PROMPTS:
        engine.clear_prefix_cache()
        alone.append(engine.submit(p, max_tokens=24).result())
    engine.clear_prefix_cache()
    together = [h.result() for h in [engine.submit(p, max_tokens=24) for p in PROMPTS]]
    for p, a, c in zip(PROMPTS, alone, together):
        assert c.finish_reason in ("eog", "length")
        if a.tokens == c.tokens:
            continue
        # Another batch shape changes the last bits of every activation, so logits move by hundredths and
        # only tokens within a fraction of a logit of the best can swap places (seen here: a three-way tie
        # at 19.96 / 19.82 / 19.81). A token taken from another sequence's row would not sit at the top.
        k = _first_divergence(a.tokens, c.tokens)
        logits = engine.next_token_logits(engine.tokenize(p) + a.tokens[:k])
        best = float(logits.max())
        gaps = [best - float(logits[t]) for t in (a.tokens[k], c.tokens[k])]
        assert max(gaps) < NEAR_TIE, f"{p!r}: diverged at token {k}, logit gaps to the best {gaps}"


@pytest.mark.model
@pytest.mark.parametrize("fallback, jump_forward", [
    (False, True),  # llguidance masks with jump-forward (the default)
    (False, False),  # llguidance masks only
    (True, False),  # llama.cpp's GBNF sampler (fallback path), rejection-first
])
def test_grammar_output_parses(engine, fallback, jump_forward):
    engine.set_grammar_fallback(fallback)
    engine.set_jump_forward(jump_forward)
    try:
        prompts = ["A person record in JSON: ", "Employee: ", "{\"people\": [", "Name and age of the pilot:"]
        hs = [engine.submit(p, grammar=PERSON_GBNF, max_tokens=48) for p in prompts]
        hs.append(engine.submit("Random: ", grammar=PERSON_GBNF, max_tokens=48,
                                sampling=Sampling(temperature=1.0, top_p=0.9, seed=3)))
        for h in hs:
            c = h.result(timeout=120)
            assert c.finish_reason in ("grammar", "eog"), (c.finish_reason, c.error, c.text)
            obj = json.loads(c.text)
            assert set(obj) == {"name", "age"} and 0 <= obj["age"] <= 999
            if not jump_forward:
                assert c.stats.forced_tokens == 0
    finally:
        engine.set_grammar_fallback(False)
        engine.set_jump_forward(True)


@pytest.mark.model
def test_jump_forward_forces_tokens(engine):
    c = engine.submit("Employee: ", grammar=PERSON_GBNF, max_tokens=48).result()
    assert c.stats.forced_tokens > 0 and json.loads(c.text)


@pytest.mark.model
def test_cancel_frees_slot_and_kv(engine):
    engine.clear_prefix_cache()
    base_bytes, base_kv = engine.state_bytes(), engine.stats().kv_used
    started = threading.Event()
    h = engine.submit(_document(300), max_tokens=500, on_piece=lambda p: started.set())
    assert started.wait(60)
    assert engine.stats().kv_used > base_kv
    h.cancel()
    c = h.result(timeout=30)
    assert c.finish_reason == "cancelled" and h.done
    assert 0 < c.stats.generated_tokens < 500
    slots = set(range(engine.n_parallel))
    assert not slots & set(engine.seq_positions())  # llama.cpp holds no cells for any slot
    engine.clear_prefix_cache()
    assert engine.stats().kv_used == base_kv
    assert engine.state_bytes() == base_bytes  # llama.cpp's own state is back to its size before


@pytest.mark.model
def test_queue_beyond_slots_loses_nothing(engine):
    results: list = []
    lock = threading.Lock()

    def worker(k):
        for i in range(25):
            h = engine.submit(f"Item {k * 25 + i}:", max_tokens=3)
            with lock:
                results.append(h)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    done = [h.result(timeout=300) for h in results]
    assert len(done) == 100 and len({h.id for h in results}) == 100
    assert all(c.finish_reason in ("eog", "length") for c in done)
    assert all(1 <= c.stats.generated_tokens <= 3 for c in done if c.finish_reason == "length")
    assert max(c.stats.queue_s for c in done) > 0.05  # most of them waited for a slot
    assert engine.stats().busy_slots == 0 and engine.stats().queue_len == 0


@pytest.mark.model
def test_prefix_reuse_is_used_and_exact(engine):
    doc = _document(500)
    q1, q2 = doc + "\n问题：起付标准是多少？\n回答：", doc + "\n问题：报销比例是多少？\n回答："
    n_doc = len(engine.tokenize(doc))
    engine.clear_prefix_cache()
    cold = engine.submit(q2, max_tokens=12).result()
    engine.clear_prefix_cache()
    engine.submit(q1, max_tokens=4).result()
    warm = engine.submit(q2, max_tokens=12).result()
    assert cold.stats.cached_tokens == 0
    assert warm.stats.cached_tokens >= n_doc - 2  # the document's cells were shared, not prefilled
    assert warm.stats.prompt_tokens == cold.stats.prompt_tokens
    assert warm.tokens[:4] == cold.tokens[:4]
    assert engine.stats().prefix_cache_entries >= 1


@pytest.mark.model
def test_stop_string(engine):
    c = engine.submit("Count: 1, 2, 3,", max_tokens=30, stop=[" 6"]).result()
    assert c.finish_reason == "stop" and " 6" not in c.text and c.text.strip().startswith("4")


@pytest.mark.model
@pytest.mark.parametrize("kwargs, error", [
    (dict(prompt="word " * 900), ContextOverflowError),  # longer than the slot's 768 tokens
    (dict(prompt="hi", grammar="root ::= undefined-rule"), GrammarError),  # neither engine compiles it
    (dict(prompt="hi", grammar='root ::= "unterminated'), GrammarError),  # syntax error
    (dict(prompt=[]), EngineError),  # nothing to decode
    (dict(prompt="hi", max_tokens=0), EngineError),  # nothing to generate
    (dict(prompt=[10**9]), EngineError),  # token id outside the vocabulary
])
def test_bad_input_fails_before_decoding(engine, kwargs, error, capfd):
    before = engine.stats().queue_len
    with pytest.raises(error):
        engine.submit(**kwargs)
    assert engine.stats().queue_len == before
    out, err = capfd.readouterr()
    assert out == "" and err == ""  # llama.cpp's grammar parser prints its errors; none may reach the terminal


@pytest.mark.model
def test_bad_model_path(tmp_path):
    from aegis_tui.engine import Engine

    bad = tmp_path / "x.gguf"
    bad.write_bytes(b"NOPE" + b"\0" * 64)
    with pytest.raises(ModelError):
        Engine(EngineConfig(model_path=bad))


@pytest.mark.model
def test_close_mid_stream_ends_every_handle(embedded_model):
    from aegis_tui.engine import Engine

    eng = Engine(EngineConfig(model_path=embedded_model, n_parallel=2, n_ctx_per_slot=256, n_threads=2,
                              spare_prefix_seqs=0))
    started = threading.Event()
    hs = [eng.submit(f"Story {i}:", max_tokens=200, on_piece=lambda p: started.set()) for i in range(5)]
    assert started.wait(60)
    eng.close()
    reasons = [h.result(timeout=30).finish_reason for h in hs]
    assert all(h.done for h in hs) and "closed" in reasons
    assert set(reasons) <= {"closed", "eog", "length"}
    assert [p.text for p in hs[-1]] == [] or hs[-1].result().finish_reason != "closed"
    with pytest.raises(EngineError):
        eng.submit("after close")


@pytest.mark.model
def test_an_engine_failure_ends_every_request_even_when_ending_one_fails(embedded_model, monkeypatch):
    from aegis_tui.engine import Engine

    eng = Engine(EngineConfig(model_path=embedded_model, n_parallel=2, n_ctx_per_slot=256, n_threads=2,
                              spare_prefix_seqs=0))
    try:
        sched = eng._sched
        started = threading.Event()
        hs = [eng.submit(f"Story {i}:", max_tokens=200, on_piece=lambda p: started.set()) for i in range(4)]
        assert started.wait(60)

        def broken(*a, **k):
            raise RuntimeError("step broke")

        monkeypatch.setattr(sched, "_step", broken)  # the failure, and a slot that cannot be torn down after it
        monkeypatch.setattr(sched, "_finish", broken)
        done = [h.result(timeout=30) for h in hs]  # (hung before: the first slot's failed end stopped the rest)
        assert {c.finish_reason for c in done} <= {"error", "eog", "length"}
        assert any("engine failure" in (c.error or "") and "step broke" in c.error for c in done)
        with pytest.raises(EngineError, match="stopped"):
            eng.submit("after the failure")
    finally:
        eng.close()


@pytest.mark.model
def test_requests_sharing_a_cached_prefix_leave_no_trail_in_the_kv_ledger(engine):
    # label prompts share an instruction and differ after it: each reuses a cached prompt and is cached in turn; the
    # ledger keeps one node per live sequence, not the dead ones before them (a chain that grew per request)
    prefix = "Label each value with who it applies to and what it is.\n" * 3
    for i in range(120):
        engine.submit(prefix + f"Block {i}: the fee is {i} dollars.", max_tokens=1).result(timeout=60)
    sched = engine._sched
    assert len(sched.ledger.nodes) <= len(sched.cache.entries) + engine.n_parallel, len(sched.ledger.nodes)


@pytest.mark.model
def test_concurrent_cold_requests_share_one_prefill(engine):
    doc = _document(500)
    n_doc = len(engine.tokenize(doc))
    engine.clear_prefix_cache()
    hs = [engine.submit(doc + f"\n问题{i}：", max_tokens=2) for i in range(4)]
    done = [h.result(timeout=120) for h in hs]
    prefilled = sum(c.stats.prompt_tokens - c.stats.cached_tokens for c in done)
    assert sorted(c.stats.cached_tokens >= n_doc - 2 for c in done) == [False, True, True, True]
    assert prefilled < 2 * n_doc  # the document was decoded once, not four times


@pytest.mark.model
def test_short_swa_cache_never_reuses_missing_cells(embedded_model):
    """swa_full off: a cached prefix is reused only where llama.cpp still holds the window's SWA cells."""
    from aegis_tui.engine import Engine

    doc = _document(1000)  # longer than Gemma 3's 512-token window
    q1, q2 = doc + "\n问题：起付标准？\n回答：", doc + "\n问题：报销比例？\n回答："
    cfg = EngineConfig(model_path=embedded_model, n_parallel=2, n_ctx_per_slot=1024, n_threads=2,
                       swa_full=False, spare_prefix_seqs=2)
    with Engine(cfg) as eng:
        assert eng.n_swa == 512 and eng.settings["swa_full"] is False
        cold = {}
        for q in (q1, q2):
            eng.clear_prefix_cache()
            cold[q] = eng.submit(q, max_tokens=6).result().tokens
        eng.clear_prefix_cache()
        cached = []
        for q in (q1, q1, q2):
            c = eng.submit(q, max_tokens=6).result()
            assert c.finish_reason in ("eog", "length") and c.tokens == cold[q]
            cached.append(c.stats.cached_tokens)
    # a quiet SWA cache still holds the window, so the cells were shared (and gave the cold tokens)
    assert cached[0] == 0 and cached[1] > 700 and cached[2] > 700


class _FakeMem:
    def __init__(self, pos_min):
        self.pos_min = pos_min

    def seq_pos_min(self, seq):
        return self.pos_min


@pytest.mark.parametrize("swa_full, pos_min, n, usable", [
    (False, 0, 1000, True),  # nothing overwritten yet: any prefix is usable
    (False, 489, 1000, True),  # the window for position 1000 starts at 489: still all there
    (False, 490, 1000, False),  # position 489 was overwritten: continuing at 1000 would miss it
    (False, 600, 300, False),  # a short prefix of a long entry whose early SWA cells are gone
    (True, 600, 300, True),  # a full-size SWA cache never drops cells
    (False, -1, 10, False),  # the entry holds nothing any more
])
def test_prefix_cache_swa_check(swa_full, pos_min, n, usable):
    from aegis_tui.engine.prefix_cache import Entry, PrefixCache

    ledger = KvLedger()
    cache = PrefixCache([4], 1000, ledger, _FakeMem(pos_min), n_swa=512, swa_full=swa_full)
    entry = Entry(4, np.arange(2000, dtype=np.int32), ledger.new(None, 0, 2000))
    assert cache._swa_ok(entry, n) is usable


@pytest.mark.model
@pytest.mark.parametrize("kv_type", [
    "q8_0",  # quantised K and V: flash attention is switched on for it
    "q4_0",  # the smallest cache type offered
])
def test_quantised_kv_cache_and_silent_llama_log(embedded_model, kv_type, capfd):
    from aegis_tui.engine import Engine, native

    mark = native.log_capture().mark()
    with Engine(EngineConfig(model_path=embedded_model, n_parallel=2, n_ctx_per_slot=256, n_threads=2,
                             kv_type=kv_type, spare_prefix_seqs=0)) as eng:
        assert eng.settings["flash_attn"] == "on" and eng.settings["type_v"] == kv_type
        c = eng.submit("The capital of France is", max_tokens=4).result()
    assert c.finish_reason in ("eog", "length") and c.stats.generated_tokens >= 1
    out, err = capfd.readouterr()
    assert out == "" and err == ""  # llama.cpp's log went to the capture buffer, not over the UI
    assert any("KV buffer size" in line for line in native.log_capture().since(mark))


@pytest.mark.model
def test_engine_refuses_config_predicted_not_to_fit(embedded_model):
    # 64 slots × 131,072 tokens of KV cannot fit this machine's memory: refused before llama.cpp allocates it
    from aegis_tui.engine import Engine
    from aegis_tui.errors import BudgetError

    with pytest.raises(BudgetError, match="largest that fit"):
        Engine(EngineConfig(model_path=embedded_model, n_parallel=64, n_ctx_per_slot=131072))


def test_cli_refuses_config_predicted_not_to_fit(cli):
    proc = cli("ask", "sample:en", "What is the lodging cap?", "--parallel", "64", "--ctx", "131072", "--no-audit")
    assert proc.returncode == 1
    assert "largest that fit" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


REOPEN = """
from aegis_tui.engine import Engine, EngineConfig
from aegis_tui.models import embedded_model_path, smollm2_path
p = str(embedded_model_path())
G = 'root ::= "{\\\\"a\\\\": " [0-9]{1,3} "}"'
e = Engine(EngineConfig(model_path=p, n_parallel=2, n_ctx_per_slot=512)); e.submit("x", grammar=G, max_tokens=4).result()
e.close()
s = Engine(EngineConfig(model_path=str(smollm2_path()), n_parallel=2, n_ctx_per_slot=512))
s.submit("x", grammar=G, max_tokens=4).result()
junk = [bytearray(1 << 20) for _ in range(300)]
for i in range(3):
    e = Engine(EngineConfig(model_path=p, n_parallel=2, n_ctx_per_slot=512))
    print(e.submit("x", grammar=G + f"\\n# {i}" + ' x ::= "hello world"', max_tokens=8).result().text)
    e.close()
"""


@pytest.mark.model
def test_grammar_after_reopening_the_same_model_does_not_crash(smollm2_model):
    # The llguidance tokenizer keeps a pointer to the vocabulary it was built from; built from a closed
    # engine's model it crashed the next engine on the same file (segfault). Run in a subprocess so a crash
    # fails this test instead of killing the test run.
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", REOPEN], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.count('{"a": ') == 3


@pytest.mark.model
def test_the_grammar_tokenizer_is_built_in_the_background_and_an_engine_closes_after_it(embedded_model, monkeypatch):
    # the first grammar request must not wait seconds for llguidance's tokenizer: the engine starts building it
    # when it loads, and closing the engine waits for that build (no native work left running at exit)
    from aegis_tui.engine import Engine, grammar_matcher

    monkeypatch.setattr(grammar_matcher, "_tokenizers", {})  # as in a fresh process
    eng = Engine(EngineConfig(model_path=embedded_model, n_parallel=1, n_ctx_per_slot=256, n_threads=2))
    builder = eng.compiler._preparing
    assert builder is not None
    eng.close()
    assert not builder.is_alive() and embedded_model in grammar_matcher._tokenizers
