"""Engine soak, short: random lengths, grammars, sampling and cancellations through the slots lose and duplicate
nothing, and leave the KV cells and llama.cpp's state at their idle size (`aegis bench soak` runs thousands)."""

from __future__ import annotations

import re

import pytest

from aegis_tui.bench.soak import Soak, random_grammar, rss_growth


@pytest.mark.parametrize("seed", range(8))
def test_random_grammars_come_with_a_pattern_for_their_outputs(seed):
    import random

    gbnf, pattern = random_grammar(random.Random(seed))
    assert gbnf.startswith("root ::= ") and isinstance(pattern, re.Pattern)


def test_rss_growth_is_the_slope_after_warm_up():
    mb = 2 ** 20
    flat_after_warm_up = [(100, 500 * mb), (200, 600 * mb), (300, 600 * mb), (400, 600 * mb), (500, 600 * mb)]
    assert rss_growth(flat_after_warm_up) == 0.0
    assert rss_growth([(n, n * mb) for n in range(100, 1001, 100)]) == 1000.0
    assert rss_growth([]) is None


@pytest.mark.model
def test_a_short_soak_loses_nothing_and_returns_to_idle(embedded_model):
    from aegis_tui.engine import Engine, EngineConfig

    with Engine(EngineConfig(model_path=embedded_model, n_parallel=3, n_ctx_per_slot=512, n_threads=2)) as engine:
        result = Soak(engine, requests=30, seed=5, cancel_rate=0.3, max_chars=80, max_tokens=8).run()
    assert result["errors"] == []
    assert result["completed"] == 30 and result["lost"] == 0 and result["duplicated"] == 0
    assert result["cancel_requested"] > 0 and result["grammar_checked"] > 0
    assert result["kv_after"] == result["kv_idle"] and result["state_bytes_after"] == result["state_bytes_idle"]
