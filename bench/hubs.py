"""Hub processes for the benchmarks: real ``brandubh serve --port 0`` children."""

from __future__ import annotations

import atexit
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from brandubh.postgres_server import EmbeddedPostgres
from brandubh.store import upgrade_url

_shared: EmbeddedPostgres | None = None


def bench_database() -> str:
    """DATABASE_URL if set, else one embedded PostgreSQL (migrated) for this benchmark run,
    stopped when it ends; so that the hubs started here share one, as in production."""
    global _shared
    if os.environ.get("DATABASE_URL"):
        return os.environ["DATABASE_URL"]
    if _shared is None:
        folder = Path(tempfile.mkdtemp(prefix="brandubh-bench-pg-"))
        _shared = EmbeddedPostgres(folder / "data")
        _shared.start()
        upgrade_url(_shared.url)

        def stop(server: EmbeddedPostgres = _shared) -> None:
            server.close()
            shutil.rmtree(folder, ignore_errors=True)

        atexit.register(stop)
    return _shared.url


def start_hub(
    redis_url: str,
    log: Path,
    env: dict[str, str] | None = None,
    database_url: str | None = None,
) -> tuple[subprocess.Popen[str], str]:
    """Start a hub on ``redis_url`` and a PostgreSQL (``bench_database()`` unless given),
    output to ``log``, and wait until it is healthy; the process, in a session of its own,
    and its base URL."""
    full_env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "DATABASE_URL": database_url or bench_database(),
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
