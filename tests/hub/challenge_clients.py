"""Helpers of the challenge tests: a program's client with a token of given scopes, a
bot account made with its own token, and an account event stream read by a task."""

from __future__ import annotations

import httpx
from api_tokens import bearer, make_token
from ndjson_streams import NdjsonReader

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


class EventReader(NdjsonReader):
    """An open ``GET /api/stream/event``: its lines read by a task into a queue (None: it
    ended); keep-alive lines counted."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        super().__init__(client, "/api/stream/event")

    async def open(self, expect: int = 200) -> EventReader:
        await self.start(15)
        assert self.status == expect, (self.status, self.body)
        return self

    async def take(self, count: int, timeout: float = 10.0) -> list[Msg]:
        out = []
        for _ in range(count):
            line = await self.next(timeout)
            assert line is not None, f"the stream ended after {out}"
            out.append(line)
        return out
