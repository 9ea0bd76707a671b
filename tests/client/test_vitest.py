"""The client's unit tests (vitest), run from pytest so one command runs everything."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

CLIENT = Path(__file__).resolve().parents[2] / "client"


def test_client_unit_tests_pass(npm: str) -> None:
    if not (CLIENT / "node_modules").is_dir():
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"],
            cwd=CLIENT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, f"npm ci failed:\n{done.stdout}\n{done.stderr}"
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
