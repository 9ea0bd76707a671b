"""``brandubh serve``: the hub under uvicorn, on an embedded Redis unless REDIS_URL is set."""

from __future__ import annotations

import contextlib
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import uvicorn
from uvicorn.supervisors import Multiprocess

from brandubh.client_build import ClientBuildError, ensure_client_built
from brandubh.hub.config import Settings
from brandubh.redis_server import EmbeddedRedis, RedisNotFound


@contextlib.contextmanager
def redis_url(data_dir: Path) -> Iterator[str]:
    """REDIS_URL if set; otherwise an embedded Redis for as long as the service runs."""
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    try:
        server = EmbeddedRedis(data_dir)
    except RedisNotFound as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"brandubh: no REDIS_URL; starting an embedded Redis with data in {data_dir}")
    with server:
        yield server.url


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


def run(host: str, port: int, workers: int, data_dir: Path, build_client: bool) -> None:
    if build_client:
        try:
            ensure_client_built(echo=lambda line: click.echo(f"brandubh: {line}"))
        except ClientBuildError as exc:
            raise click.ClickException(str(exc)) from None
    with redis_url(data_dir) as url:
        os.environ["REDIS_URL"] = url  # the workers read their settings from the environment
        settings = Settings.from_env()
        sock = bind(host, port)
        actual = sock.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        # Links in mail point here unless the operator names the public address.
        os.environ.setdefault("BRANDUBH_PUBLIC_URL", f"http://{shown}:{actual}")
        os.environ.setdefault("BRANDUBH_MAIL_DIR", str(data_dir.parent / "mail"))
        click.echo(f"brandubh: listening on http://{shown}:{actual}")
        sys.stdout.flush()
        config = uvicorn.Config(
            "brandubh.hub.app:create_app",
            factory=True,
            host=host,
            port=actual,
            workers=workers,
            ws="websockets-sansio",
            loop="uvloop",
            http="httptools",
            ws_max_size=settings.hard_frame_bytes,
            ws_per_message_deflate=False,
            lifespan="on",
            log_level=os.environ.get("BRANDUBH_LOG_LEVEL", "warning"),
            timeout_graceful_shutdown=5,
        )
        if workers > 1:
            Multiprocess(config, sockets=[sock]).run()
        else:
            uvicorn.Server(config).run(sockets=[sock])
