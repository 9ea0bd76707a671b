"""The gates a change must pass, run by the README's test command so that none can be
skipped: ruff's lint and format check of src, tests and bench, and mypy --strict (its files
and strictness in pyproject.toml). The client's tsc and vitest: tests/client/test_vitest.py."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from services import missing

ROOT = Path(__file__).resolve().parents[1]
CHECKED = ["src", "tests", "bench"]


def _run(tool: str, *args: str, timeout: float) -> str:
    """``python -m tool args`` from the repository's root; its output, asserted clean."""
    if importlib.util.find_spec(tool) is None:
        missing(f"{tool} is not installed (pip install -e '.[test]' installs it)")
    done = subprocess.run(
        [sys.executable, "-m", tool, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0, f"{tool} {' '.join(args)} failed:\n{out}"
    return out


def test_ruff_finds_nothing() -> None:
    _run("ruff", "check", *CHECKED, timeout=120)


def test_ruff_would_reformat_nothing() -> None:
    _run("ruff", "format", "--check", *CHECKED, timeout=120)


@pytest.mark.timeout(600)
def test_mypy_strict_finds_nothing() -> None:
    """A run from scratch takes a minute or two (its cache, .mypy_cache, speeds the next)."""
    out = _run("mypy", timeout=590)
    assert "Success: no issues found" in out, out
