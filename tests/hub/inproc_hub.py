"""A hub's app served by uvicorn in the test's own loop, on the protocols ``brandubh
serve`` uses (wire's GuardedHttp, so that a game stream's lines go direct), its
listening socket's send buffer fixed small: on loopback the kernel would grow it to some
MiB, more than a whole game's lines, and no line would ever wait in the hub. Not a test
module: tests import it."""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
from collections.abc import AsyncIterator

import pytest
import uvicorn

from brandubh.engine import Game
from brandubh.hub.app import create_app
from brandubh.hub.config import Settings
from brandubh.hub.wire import GuardedHttp
from waiting import wait_for


def next_move(game: Game, rng: random.Random) -> str:
    """A legal move that does not end the game, so that it goes on as long as needed."""
    texts = game.legal_texts()
    rng.shuffle(texts)
    for text in texts:
        game.play(text)
        if not game.is_over:
            return str(game.moves[-1])
        game.pop()
    raise AssertionError(f"every move ends the game at ply {game.ply}")


@contextlib.asynccontextmanager
async def hub_here(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[str]:
    """The hub's app on uvicorn in this loop, its socket's send buffer fixed at 16 KiB: its URL."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 16 * 1024)  # accepted ones inherit it
    sock.bind(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    for key, value in {**env, "BRANDUBH_PUBLIC_URL": url}.items():  # its mail's links
        monkeypatch.setenv(key, value)
    config = uvicorn.Config(
        create_app(Settings.from_env()),
        lifespan="on",
        log_level="warning",
        ws="none",
        http=GuardedHttp,
    )
    srv = uvicorn.Server(config)
    task = asyncio.create_task(srv.serve(sockets=[sock]))
    await wait_for(lambda: srv.started, "the hub started", every=0.05)
    try:
        yield url
    finally:
        srv.should_exit = True
        await task
