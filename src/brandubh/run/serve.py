"""``brandubh serve``: the hub under uvicorn, on an embedded Redis unless REDIS_URL is set
and an embedded PostgreSQL unless DATABASE_URL is set; the schema is migrated at start."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import uvicorn
from uvicorn.supervisors import Multiprocess

from brandubh.hub.config import Settings
from brandubh.hub.wire import GuardedHttp, GuardedWebSocket
from brandubh.run.client_build import ClientBuildError, ensure_client_built
from brandubh.run.embedded import die_with_parent, parent_death_signal
from brandubh.run.postgres_server import EmbeddedPostgres, PostgresNotFound
from brandubh.run.redis_server import EmbeddedRedis, RedisNotFound


@contextlib.contextmanager
def redis_url(data_dir: Path) -> Iterator[str]:
    """REDIS_URL if set; otherwise an embedded Redis for as long as the service runs."""
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    try:
        server = EmbeddedRedis(data_dir, service=True)
    except RedisNotFound as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"brandubh: no REDIS_URL; starting an embedded Redis with data in {data_dir}")
    try:
        server.start()
    except RuntimeError as exc:  # FolderInUse too: another service runs on this folder
        raise click.ClickException(str(exc)) from None
    click.echo(f"brandubh: the embedded Redis is at {server.url}")
    try:
        yield server.url
    finally:
        server.stop()


@contextlib.contextmanager
def database_url(data_dir: Path) -> Iterator[str]:
    """DATABASE_URL if set; otherwise an embedded PostgreSQL for as long as the service runs."""
    url = os.environ.get("DATABASE_URL")
    if url:
        yield url
        return
    try:
        server = EmbeddedPostgres(data_dir, service=True)
    except PostgresNotFound as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(
        f"brandubh: no DATABASE_URL; starting an embedded PostgreSQL with data in {data_dir}"
    )
    try:
        server.start()
    except RuntimeError as exc:  # FolderInUse too: another service runs on this folder
        server.close()
        raise click.ClickException(str(exc)) from None
    click.echo(f"brandubh: the embedded PostgreSQL is at {server.url}")
    try:
        yield server.url
    finally:
        server.close()


class DatabaseUnreachable(click.ClickException):
    """The PostgreSQL of DATABASE_URL does not answer."""


def migrate(url: str) -> str:
    """Bring the database's schema up to date; its revision. A clear error if unreachable."""
    from brandubh.store import BadDatabaseURL, sqlstate, unreachable, upgrade_url

    try:
        return upgrade_url(url)
    except BadDatabaseURL as exc:
        raise click.ClickException(str(exc)) from None
    except Exception as exc:
        if unreachable(exc):
            raise DatabaseUnreachable(
                f"cannot reach the PostgreSQL of DATABASE_URL: {exc}"
            ) from None
        if sqlstate(exc) == "3D000":  # invalid_catalog_name: no such database
            raise click.ClickException(
                f"{_first_line(exc)}: create that database, or, for the embedded "
                "PostgreSQL, its data folder was left half-made by an interrupted first "
                "start: move it away (or remove it, if it holds nothing you need) and start "
                "again"
            ) from None
        raise


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc)
    return text.splitlines()[0] if text else type(exc).__name__


def migrate_at_start(url: str, tries: int = 10) -> None:
    """Migrate before serving; with PostgreSQL unreachable for ``tries`` seconds, serve
    anyway: games are live in Redis, and the archive waits (docs/storage.md)."""
    for attempt in range(tries):
        try:
            migrate(url)
            return
        except DatabaseUnreachable as exc:
            if attempt == tries - 1:
                click.echo(
                    f"brandubh: {exc.message}; serving without it: games go on, accounts "
                    "answer 503 and archiving waits until it is back (run `brandubh db "
                    "upgrade` then if the schema is new)",
                    err=True,
                )
                return
            time.sleep(1)


def bind(host: str, port: int) -> socket.socket:
    """Bind the listening socket here, so port 0 means a free port the OS picks."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


class WorkerConfig(uvicorn.Config):
    """uvicorn's configuration, which each worker process loads first thing (``--workers``
    over 1): a worker then asks to be sent SIGTERM when the service dies, however it dies,
    instead of serving on without it (embedded.py)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.service_pid = os.getpid()

    def load(self) -> None:
        if os.getpid() != self.service_pid:
            die_with_parent(self.service_pid, signal.SIGTERM)
        super().load()


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def raise_descriptor_limit() -> tuple[int, int]:
    """Raise the soft limit on open files to the hard limit (each socket is one): the
    default 1,024 is reached by a few idle connections too many. Returns (soft, hard)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)


@contextlib.contextmanager
def analysis_workers(n: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``n`` analysis worker processes (``brandubh analyse-worker``, on the environment's
    REDIS_URL and DATABASE_URL) for as long as the service runs: each is sent SIGTERM when
    the service ends, and dies with it even when the service is killed outright (Linux)."""
    started = [
        subprocess.Popen(
            [sys.executable, "-m", "brandubh", "analyse-worker"],
            preexec_fn=parent_death_signal(signal.SIGTERM),
            # Out of the terminal's group: Ctrl-C reaches the service, which stops each
            # worker (SIGTERM: its job given back) before the servers they use.
            start_new_session=True,
        )
        for _ in range(n)
    ]
    if n:
        click.echo(f"brandubh: {n} analysis worker process{'es' if n > 1 else ''} started")
    try:
        yield started
    finally:
        for process in started:
            process.terminate()
        for process in started:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def run(
    host: str,
    port: int,
    workers: int,
    data_dir: Path,
    build_client: bool,
    proxy_headers: bool = True,
    forwarded_allow_ips: str = "127.0.0.1",
    analysis: int = 1,
) -> None:
    """Serve; ``proxy_headers``: take the client's address and scheme (https: Secure
    cookies) from X-Forwarded-For/-Proto sent by ``forwarded_allow_ips`` (comma-separated
    addresses or networks, or "*"); ``analysis``: analysis worker processes to start."""
    # SIGTERM unwinds like Ctrl-C, so the embedded servers stop with the service: at any
    # moment of the start, and after uvicorn's shutdown, which raises the signal again.
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    raise_descriptor_limit()
    if build_client:
        try:
            ensure_client_built(echo=lambda line: click.echo(f"brandubh: {line}"))
        except ClientBuildError as exc:
            raise click.ClickException(str(exc)) from None
    with redis_url(data_dir / "redis") as url, database_url(data_dir / "postgres") as db_url:
        # The workers read their settings from the environment.
        os.environ["REDIS_URL"] = url
        os.environ["DATABASE_URL"] = db_url
        migrate_at_start(db_url)
        settings = Settings.from_env()
        sock = bind(host, port)
        actual = sock.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        # Links in mail point here unless the operator names the public address.
        os.environ.setdefault("BRANDUBH_PUBLIC_URL", f"http://{shown}:{actual}")
        os.environ.setdefault("BRANDUBH_MAIL_DIR", str(data_dir.parent / "mail"))
        config = WorkerConfig(
            "brandubh.hub.app:create_app",
            factory=True,
            host=host,
            port=actual,
            workers=workers,
            ws=GuardedWebSocket,
            loop="uvloop",
            http=GuardedHttp,
            proxy_headers=proxy_headers,
            forwarded_allow_ips=forwarded_allow_ips,
            timeout_keep_alive=max(1, round(settings.keep_alive_s)),
            ws_max_size=settings.hard_frame_bytes,
            # The hub pings every socket itself (a frame the client answers, protocol.md);
            # uvicorn's own pings would add a timer a socket and tell us nothing more.
            ws_ping_interval=None,
            ws_per_message_deflate=False,
            lifespan="on",
            log_level=os.environ.get("BRANDUBH_LOG_LEVEL", "warning"),
            timeout_graceful_shutdown=5,
        )
        # The workers first: Popen returns once each has exec'd, so a signal sent to the
        # whole group after "listening" never lands in a child still between fork and exec
        # (where the service's own SIGTERM handler would print an ignored exception).
        with analysis_workers(analysis):
            click.echo(f"brandubh: listening on http://{shown}:{actual}")
            sys.stdout.flush()
            if workers > 1:
                Multiprocess(config, sockets=[sock]).run()
            else:
                uvicorn.Server(config).run(sockets=[sock])
