"""The client's type check (tsc) and unit tests (vitest), run from pytest so one command
runs everything."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

CLIENT = Path(__file__).resolve().parents[2] / "client"


@pytest.fixture(scope="module")
def node_modules(npm: str) -> Path:
    """The client's packages, installed by ``npm ci`` if missing."""
    if not (CLIENT / "node_modules").is_dir():
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"],
            cwd=CLIENT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, f"npm ci failed:\n{done.stdout}\n{done.stderr}"
    return CLIENT / "node_modules"


def test_client_type_checks(node_modules: Path) -> None:
    """``tsc --noEmit`` (strict, client/tsconfig.json) finds nothing."""
    done = subprocess.run(
        [str(node_modules / ".bin" / "tsc"), "--noEmit"],
        cwd=CLIENT,
        capture_output=True,
        text=True,
        timeout=110,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert done.returncode == 0, f"tsc failed:\n{done.stdout}\n{done.stderr}"


def test_client_unit_tests_pass(npm: str, node_modules: Path) -> None:
    done = subprocess.run(
        [npm, "test", "--", "--reporter=dot"],
        cwd=CLIENT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NO_COLOR": "1", "CI": "1"},
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0, f"vitest failed:\n{out}"
    assert "passed" in out and "failed" not in out, out
