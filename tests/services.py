"""Service processes the fixtures in conftest.py start: a hub is a real
``brandubh serve --port 0`` child process that reports the port the OS gave it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time

import httpx
import redis

# Short heartbeats and polls keep the tests quick; limits stay at their defaults.
TEST_ENV = {
    "BRANDUBH_BOT_POLL_S": "0.2",
    "BRANDUBH_LOG_LEVEL": "warning",
}


# The URLs of the Redis Clusters the fixtures started: a client of one must be a cluster
# client (a test written for one Redis then runs unchanged on a cluster).
CLUSTER_URLS: set[str] = set()


def sync_client(url: str) -> redis.Redis:
    """A synchronous client of the Redis (or Redis Cluster) at ``url``."""
    if url in CLUSTER_URLS:
        cluster: object = redis.RedisCluster.from_url(url)
        return cluster  # type: ignore[return-value]  # the same commands, for the tests
    return redis.Redis.from_url(url)


class HubProcess:
    """A `brandubh serve --port 0` child process on the shared Redis."""

    def __init__(self, redis_url: str, env: dict[str, str] | None = None, workers: int = 1):
        self.env = {**os.environ, **TEST_ENV, "REDIS_URL": redis_url, **(env or {})}
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
        while time.monotonic() < deadline:  # the socket is bound; wait for the app itself
            try:
                if httpx.get(self.url + "/healthz", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise RuntimeError("hub did not become healthy in time")

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
