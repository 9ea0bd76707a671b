"""Fixtures that start real services: Redis, hub processes under uvicorn, the browser.

Nothing here is faked: a redis-server the tests start (on a Unix socket in a temporary
folder, so no port is ever fixed), hubs as separate `brandubh serve --port 0` processes
that report the port the OS gave them, and Debian's Chromium driven by Playwright.
Where a service is missing the tests that need it are skipped saying why, except in CI
(BRANDUBH_REQUIRE_SERVICES=1), where that is a failure.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import httpx
import pytest
import redis
import redis.asyncio as aioredis

from brandubh.redis_server import EmbeddedRedis, RedisNotFound

REQUIRE = os.environ.get("BRANDUBH_REQUIRE_SERVICES") == "1"
ROOT = Path(__file__).resolve().parents[1]


def missing(reason: str) -> None:
    """Skip for want of a service, or fail where every service is required (CI)."""
    if REQUIRE:
        pytest.fail(f"required service missing: {reason}")
    pytest.skip(reason)


# -- Redis ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One real redis-server for the session."""
    try:
        server = EmbeddedRedis(tmp_path_factory.mktemp("redis"), appendonly=False)
    except RedisNotFound as exc:
        missing(str(exc))
    with server:
        yield server.url


@pytest.fixture
def redis_sync(redis_url: str) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_url)
    yield client
    client.close()


@pytest.fixture
async def redis_async(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(redis_url)
    yield client
    await client.aclose()


# -- hub processes ----------------------------------------------------------------------

# Short heartbeats and polls keep the tests quick; limits stay at their defaults.
TEST_ENV = {
    "BRANDUBH_BOT_POLL_S": "0.2",
    "BRANDUBH_LOG_LEVEL": "warning",
}


class HubProcess:
    """A `brandubh serve --port 0` child process on the shared Redis."""

    def __init__(self, redis_url: str, env: dict[str, str] | None = None, workers: int = 1):
        self.env = {**os.environ, **TEST_ENV, "REDIS_URL": redis_url, **(env or {})}
        self.workers = workers
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""
        self.log: list[str] = []

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://") + "/ws"

    def start(self, timeout: float = 20.0) -> HubProcess:
        cmd = [
            sys.executable,
            "-m",
            "brandubh",
            "serve",
            "--port",
            "0",
            "--no-build",
            "--workers",
            str(self.workers),
        ]
        self.proc = subprocess.Popen(
            cmd,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while not self.url:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"hub exited at start:\n{''.join(self.log)}")
            self.log.append(line)
            m = re.search(r"listening on (http://\S+)", line)
            if m:
                self.url = m.group(1)
            if time.monotonic() > deadline:
                raise RuntimeError("hub did not start in time")
        while time.monotonic() < deadline:  # the socket is bound; wait for the app itself
            try:
                if httpx.get(self.url + "/healthz", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise RuntimeError("hub did not become healthy in time")

    def kill(self) -> None:
        """SIGKILL the whole process group: no goodbye to anyone."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()


@pytest.fixture(scope="session")
def hub(redis_url: str) -> Iterator[HubProcess]:
    """A hub process shared by the tests that do not stop it."""
    proc = HubProcess(redis_url).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="session")
def hub2(redis_url: str) -> Iterator[HubProcess]:
    """A second, separate hub process on the same Redis."""
    proc = HubProcess(redis_url).start()
    yield proc
    proc.stop()


@pytest.fixture
def start_hub(redis_url: str) -> Iterator[Callable[..., HubProcess]]:
    """Start hubs of the test's own (to kill or configure); all are stopped afterwards."""
    started: list[HubProcess] = []

    def start(env: dict[str, str] | None = None, workers: int = 1) -> HubProcess:
        proc = HubProcess(redis_url, env, workers).start()
        started.append(proc)
        return proc

    yield start
    for proc in started:
        proc.stop()
