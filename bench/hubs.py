"""Hub processes for the benchmarks: real ``brandubh serve --port 0`` children."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx


def start_hub(
    redis_url: str, log: Path, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[str], str]:
    """Start a hub on ``redis_url`` (output to ``log``) and wait until it is healthy;
    the process, in a session of its own, and its base URL."""
    full_env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "BRANDUBH_LOG_LEVEL": "warning",
        **(env or {}),
    }
    # Output goes to a file: an unread pipe would fill and stall the hub.
    proc = subprocess.Popen(
        [sys.executable, "-m", "brandubh", "serve", "--port", "0", "--no-build"],
        env=full_env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    url = ""
    for _ in range(400):
        m = re.search(r"listening on (http://\S+)", log.read_text())
        if m:
            url = m.group(1)
            break
        time.sleep(0.05)
    if not url:
        raise RuntimeError(f"hub did not start: {log.read_text()}")
    for _ in range(200):
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise RuntimeError("hub did not become healthy")
