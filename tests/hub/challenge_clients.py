"""Helpers of the challenge tests: a program's client with a token of given scopes, a
bot account made with its own token, and an account event stream read by a task."""

from __future__ import annotations

import asyncio
import contextlib
import json

import httpx
from api_tokens import bearer, make_token

from services import HubProcess
from wsclient import Msg, Player


async def token_client(hub: HubProcess, p: Player, scopes: list[str]) -> httpx.AsyncClient:
    """A program's client for ``p`` with a new token of ``scopes`` (no cookie, no Origin)."""
    made = await make_token(p, "engine", scopes)
    return bearer(hub, str(made["token"]))


async def bot_account(hub: HubProcess, name: str | None = None) -> tuple[Player, httpx.AsyncClient]:
    """A new confirmed account made a bot account; its client holds a token with
    ``bot:play`` and ``challenge:write``."""
    p = await Player(hub.url).signup(name=name)
    client = await token_client(hub, p, ["bot:play", "challenge:write"])
    r = await client.post("/api/bot/account/upgrade")
    assert r.status_code == 200, r.text
    return p, client


class EventReader:
    """An open ``GET /api/stream/event``: its lines read by a task into a queue (None: it
    ended); keep-alive lines counted."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client
        self.lines: asyncio.Queue[Msg | None] = asyncio.Queue()
        self.keepalives = 0
        self.status = 0
        self.body = b""
        self.headers: httpx.Headers | None = None
        self._opened = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def _read(self) -> None:
        try:
            async with self.client.stream("GET", "/api/stream/event", timeout=30) as r:
                self.status, self.headers = r.status_code, r.headers
                if r.status_code != 200:
                    self.body = await r.aread()
                self._opened.set()
                async for raw in r.aiter_lines():
                    if raw == "":
                        self.keepalives += 1
                    else:
                        await self.lines.put(json.loads(raw))
        except httpx.RemoteProtocolError:
            pass  # cut: the hub went away
        finally:
            self._opened.set()
            await self.lines.put(None)

    async def open(self, expect: int = 200) -> EventReader:
        self._task = asyncio.create_task(self._read())
        await asyncio.wait_for(self._opened.wait(), 15)
        assert self.status == expect, (self.status, self.body)
        return self

    async def next(self, timeout: float = 10.0) -> Msg | None:
        return await asyncio.wait_for(self.lines.get(), timeout)

    async def take(self, count: int, timeout: float = 10.0) -> list[Msg]:
        out = []
        for _ in range(count):
            line = await self.next(timeout)
            assert line is not None, f"the stream ended after {out}"
            out.append(line)
        return out

    async def until(self, kind: str, timeout: float = 10.0) -> Msg:
        while True:
            line = await self.next(timeout)
            assert line is not None, f"the stream ended before a {kind} line"
            if line["type"] == kind:
                return line

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
