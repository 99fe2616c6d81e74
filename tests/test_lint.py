"""The code base passes ruff (pyflakes, pycodestyle, isort, debugger checks) as configured in pyproject."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("ruff") is None and sys.executable is None, reason="ruff not installed")
def test_ruff_clean():
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", str(ROOT)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
