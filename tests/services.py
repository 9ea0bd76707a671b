"""Service processes the fixtures in conftest.py start: a hub is a real
``brandubh serve --port 0`` child process that reports the port the OS gave it."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import redis

from waiting import wait_for_sync

if TYPE_CHECKING:
    from brandubh.run.postgres_server import EmbeddedPostgres

REQUIRE = os.environ.get("BRANDUBH_REQUIRE_SERVICES") == "1"


def missing(reason: str) -> None:
    """Skip for want of a service, or fail where every service is required (CI)."""
    import pytest

    if REQUIRE:
        pytest.fail(f"required service missing: {reason}")
    pytest.skip(reason)


# Short heartbeats and polls keep the tests quick; limits stay at their defaults, but for
# those on sign-ups, new guest sessions, the analysis board's walks and bot games per
# address, which every browser
# context (all 127.0.0.1) and the whole run share in the session's Redis (tests of those
# limits set their own).
TEST_ENV = {
    "BRANDUBH_BOT_POLL_S": "0.2",
    "BRANDUBH_LOG_LEVEL": "warning",
    "BRANDUBH_SIGNUP_PER_ADDRESS": "100000",
    "BRANDUBH_SIGNUP_OVERALL": "100000",
    "BRANDUBH_GUESTS_PER_ADDRESS": "100000",
    "BRANDUBH_WALKS_PER_ADDRESS": "100000",  # the analysis board's, per minute
    "BRANDUBH_BOT_GAMES_PER_ADDRESS": "0",  # unfinished bot games of one address: any
    # No analysis worker beside each test hub: the analysis tests start their own.
    "BRANDUBH_ANALYSIS_WORKERS": "0",
}


# The URLs of the Redis Clusters the fixtures started: a client of one must be a cluster
# client (a test written for one Redis then runs unchanged on a cluster).
CLUSTER_URLS: set[str] = set()
CLUSTER_ENV = {"BRANDUBH_REDIS_CLUSTER": "1"}  # a hub's, on a cluster


def sync_client(url: str) -> redis.Redis:
    """A synchronous client of the Redis (or Redis Cluster) at ``url``."""
    if url in CLUSTER_URLS:
        cluster: object = redis.RedisCluster.from_url(url)
        return cluster  # type: ignore[return-value]  # the same commands, for the tests
    return redis.Redis.from_url(url)


def redis_ms(client: redis.Redis) -> int:
    """Redis's clock (ms): the one deadlines and presence are stamped with."""
    sec, usec = client.time()
    return int(sec) * 1000 + int(usec) // 1000


class HubProcess:
    """A `brandubh serve --port 0` child process on the shared Redis and PostgreSQL."""

    def __init__(
        self,
        redis_url: str,
        env: dict[str, str] | None = None,
        workers: int = 1,
        *,
        database_url: str,
    ):
        self.env = {
            **os.environ,
            **TEST_ENV,
            "REDIS_URL": redis_url,
            "DATABASE_URL": database_url,
            **(env or {}),
        }
        self.workers = workers
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""
        self.log: list[str] = []

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://") + "/ws"

    def start(self, timeout: float = 60.0) -> HubProcess:
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
        # Keep reading its output: a pipe nobody reads fills up and stalls the hub.
        threading.Thread(target=self._drain, daemon=True).start()
        # The socket is bound; wait for the app itself.
        wait_for_sync(
            lambda: httpx.get(self.url + "/healthz", timeout=2).status_code == 200,
            f"the hub at {self.url} to be healthy",
            max(0.0, deadline - time.monotonic()),
            ignore=(httpx.HTTPError,),
        )
        return self

    def _drain(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for line in self.proc.stdout:
            self.log.append(line)

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


def run_async(coro: Any) -> Any:
    """Run a coroutine to its end from synchronous code (a fixture), on a thread of its
    own so that no event loop of the test session is disturbed."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


async def create_database(admin_url: str, name: str, template: str = "template1") -> None:
    import asyncpg

    conn = await asyncpg.connect(admin_url)
    try:
        await conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    finally:
        await conn.close()


TEMPLATE_DB = "brandubh_template"  # migrated once a session, copied for each database


def new_database(server: EmbeddedPostgres) -> str:
    """A new, migrated database on the session's server (a copy of the template): its URL."""
    name = f"t_{secrets.token_hex(6)}"
    run_async(create_database(server.url, name, TEMPLATE_DB))
    return server.url_for(name)


_shared_database: Any = None


def shared_database() -> str:
    """For the benchmarks: DATABASE_URL if set, else one embedded PostgreSQL (migrated) for
    this run, stopped when it ends, so that the hubs started share one, as in production."""
    global _shared_database
    if os.environ.get("DATABASE_URL"):
        return os.environ["DATABASE_URL"]
    if _shared_database is None:
        import atexit
        import shutil
        import tempfile
        from pathlib import Path

        from brandubh.run.postgres_server import EmbeddedPostgres
        from brandubh.store import upgrade_url

        folder = Path(tempfile.mkdtemp(prefix="brandubh-bench-pg-"))
        server = EmbeddedPostgres(folder / "data")
        server.start()
        upgrade_url(server.url)

        def stop() -> None:
            server.close()
            shutil.rmtree(folder, ignore_errors=True)

        atexit.register(stop)
        _shared_database = server
    return str(_shared_database.url)


class DurableRedis:
    """A redis-server of a test's own, persisting as production does (AOF, fsync every
    second), that the test may SIGKILL and restart on the same data, or SIGSTOP and SIGCONT."""

    def __init__(self, data_dir: Path) -> None:
        from brandubh.run.redis_server import find_redis_server

        self.binary = find_redis_server()
        self.data_dir = data_dir
        self.sock_dir = Path(tempfile.mkdtemp(prefix="bd-redis-"))  # short: a socket path
        self.socket_path = self.sock_dir / "redis.sock"
        self.url = f"unix://{self.socket_path}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> DurableRedis:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [
                self.binary,
                "--port", "0",
                "--unixsocket", str(self.socket_path),
                "--unixsocketperm", "700",
                "--dir", str(self.data_dir),
                "--appendonly", "yes",
                "--appendfsync", "everysec",
                "--save", "",
                "--loglevel", "warning",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        client = redis.Redis(unix_socket_path=str(self.socket_path))
        proc = self.proc

        def answers() -> bool:
            if proc.poll() is not None:
                raise RuntimeError("redis-server exited before it answered PING")
            return bool(client.ping())

        starting = (redis.ConnectionError, redis.BusyLoadingError, FileNotFoundError)
        wait_for_sync(answers, "redis-server to answer PING", 20, 0.02, ignore=starting)
        client.close()
        return self

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def kill(self) -> None:
        """SIGKILL: no shutdown, no final fsync; the AOF has what was written to it."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()

    def restart(self) -> None:
        self.start()

    def freeze(self) -> None:
        os.kill(self.pid, signal.SIGSTOP)

    def thaw(self) -> None:
        os.kill(self.pid, signal.SIGCONT)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGCONT)
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.sock_dir, ignore_errors=True)


def mail_env(box: Any) -> dict[str, str]:
    """A hub's settings to send its mail to a test's SMTP server (tests/mailbox_smtp.py)."""
    return {"BRANDUBH_SMTP_URL": box.url, "BRANDUBH_MAIL_RETRY_S": "0.2"}
