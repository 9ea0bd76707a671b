"""A Bot API move's token check, on real hubs: a revoked token's move commits nothing and is
refused ``token_invalid``, a move past the token's window commits nothing and is not
counted, a move the commit refuses is still counted; on one Redis the move is one script
call (the check inside lua/commit.lua, seen with Redis's MONITOR), on a Redis Cluster the
check is its own call first and the same holds."""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import redis
from api_tokens import bearer, error_of, make_token

from brandubh.hub.redis import keys, lua_source
from services import HubProcess
from waiting import wait_for
from wsclient import Player, Socket, friend_game, seated

QUICK_ESCAPE = ["g4-g3", "d5-g5", "g3-g2", "Kd4-d5", "g2-g3", "Kd5-a5", "g3-g2", "Ka5-a7"]


async def bots_turn(hub: HubProcess) -> tuple[str, Player, Socket, int]:
    """A friend game whose joiner's token will play, at its turn: (game, the token's
    account, the person's socket, the ply the bot plays)."""
    game, alice, bob = await friend_game(hub.url)
    socks = await seated(game, alice)
    ((person_side, sock),) = socks.items()
    if person_side == "defenders":
        return game, bob, sock, 0
    await sock.move(game, 0, QUICK_ESCAPE[0])
    await sock.event(2)
    return game, bob, sock, 1


def seq_of(r: redis.Redis, game: str) -> int:
    return int(r.hget(keys.game(game), "seq") or 0)


def window_of(r: redis.Redis, token_id: str) -> int:
    return int(r.zcard(keys.api_requests(token_id)))


async def move(bot: httpx.AsyncClient, game: str, text: str, ply: int) -> httpx.Response:
    return await bot.post(f"/api/bot/game/{game}/move/{text}", params={"ply": ply})


@pytest.mark.cluster
async def test_a_revoked_token_s_move_commits_nothing(
    hub: HubProcess, redis_sync: redis.Redis
) -> None:
    game, bob, sock, ply = await bots_turn(hub)
    # Two tokens, each's holder kept by the hub (used once): one's move reaches the commit,
    # the other's is refused before it (an illegal move); both are revoked meanwhile.
    made = [await make_token(bob, name, ["bot:play"]) for name in ("one", "two")]
    clients = [bearer(hub, m["token"]) for m in made]
    for client in clients:
        assert (await client.get("/api/account")).status_code == 200
    for m in made:
        r = await bob.http.delete(f"/api/account/tokens/{m['id']}")
        assert r.status_code == 200, r.text
    before = seq_of(redis_sync, game)
    r = await move(clients[0], game, QUICK_ESCAPE[ply], ply)
    assert r.status_code == 401 and error_of(r) == "token_invalid", r.text
    assert "revoked" in r.json()["message"]
    r = await move(clients[1], game, "a1-a2", ply)
    assert r.status_code == 401 and error_of(r) == "token_invalid", r.text
    assert "revoked" in r.json()["message"]
    assert seq_of(redis_sync, game) == before
    # Dropped from the hub's holders: refused again, still committing nothing.
    r = await move(clients[0], game, QUICK_ESCAPE[ply], ply)
    assert r.status_code == 401 and error_of(r) == "token_invalid", r.text
    assert seq_of(redis_sync, game) == before
    # The game goes on: the account's live token plays the same move.
    fresh = await make_token(bob, "three", ["bot:play"])
    async with bearer(hub, fresh["token"]) as bot:
        r = await move(bot, game, QUICK_ESCAPE[ply], ply)
        assert r.status_code == 200 and r.json()["n"] == before + 1, r.text
    assert (await sock.event(before + 1))["move"] == QUICK_ESCAPE[ply]
    for client in clients:
        await client.aclose()
    await bob.close()


@pytest.mark.cluster
async def test_the_window_counts_moves_the_commit_refuses_and_no_refused_request(
    start_hub: Any, redis_sync: redis.Redis
) -> None:
    h = start_hub({"BRANDUBH_TOKEN_REQUESTS": "3"})
    game, bob, sock, ply = await bots_turn(h)
    made = await make_token(bob, "bot", ["bot:play"])
    token_id = made["id"]
    async with bearer(h, made["token"]) as bot:
        # Refused by the game, each counted: a move at a ply not yet reached, an illegal one.
        r = await move(bot, game, QUICK_ESCAPE[ply], ply + 2)
        assert r.status_code == 400 and error_of(r) == "stale_ply", r.text
        assert window_of(redis_sync, token_id) == 1
        r = await move(bot, game, "a1-a2", ply)
        assert r.status_code == 400 and error_of(r) == "illegal_move", r.text
        assert window_of(redis_sync, token_id) == 2
        r = await move(bot, game, QUICK_ESCAPE[ply], ply)
        assert r.status_code == 200, r.text
        n = r.json()["n"]
        assert window_of(redis_sync, token_id) == 3
        await sock.event(n)
        await sock.move(game, ply + 1, QUICK_ESCAPE[ply + 1])
        await sock.event(n + 1)
        # The window is full: the bot's next move is refused, not counted, not committed.
        r = await move(bot, game, QUICK_ESCAPE[ply + 2], ply + 2)
        assert r.status_code == 429 and error_of(r) == "rate_limited", r.text
        assert 1 <= int(r.headers["retry-after"]) <= 60
        assert window_of(redis_sync, token_id) == 3
        assert seq_of(redis_sync, game) == n + 1
        r = await move(bot, game, "a1-a2", ply + 2)  # refused by the window before the game
        assert error_of(r) == "rate_limited", r.text
        assert window_of(redis_sync, token_id) == 3
    await bob.close()


class Monitor:
    """Redis's MONITOR on a connection of its own: each command Redis runs, a line."""

    def __init__(self, url: str) -> None:
        self.url = urlsplit(url)
        self.lines: list[str] = []
        self._task: asyncio.Task[None] | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def start(self) -> None:
        if self.url.scheme == "unix":
            reader, writer = await asyncio.open_unix_connection(self.url.path)
        else:
            reader, writer = await asyncio.open_connection(self.url.hostname, self.url.port)
        self._writer = writer
        if self.url.password:
            writer.write(f"AUTH {self.url.password}\r\n".encode())
        writer.write(b"MONITOR\r\n")
        await writer.drain()
        while (await reader.readline()).strip() != b"+OK":
            pass  # AUTH's and MONITOR's own answers
        self._task = asyncio.create_task(self._read(reader))

    async def _read(self, reader: asyncio.StreamReader) -> None:
        while line := await reader.readline():
            self.lines.append(line.decode(errors="replace"))

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
        if self._writer is not None:
            self._writer.close()

    def scripts(self, sha: str, naming: str = "") -> list[str]:
        """The EVALSHA calls of the script ``sha`` seen so far (those naming ``naming``)."""
        return [line for line in self.lines if f'"EVALSHA" "{sha}"' in line and naming in line]


def sha_of(script: str) -> str:
    return hashlib.sha1(lua_source(script).encode()).hexdigest()


async def test_a_bot_api_move_is_one_script_call_on_one_redis(
    start_hub: Any, redis_url: str, redis_sync: redis.Redis
) -> None:
    h = start_hub()
    game, bob, sock, ply = await bots_turn(h)
    made = await make_token(bob, "bot", ["bot:play"])
    window = keys.api_requests(made["id"])
    commit, api_request = sha_of("commit"), sha_of("api_request")
    monitor = Monitor(redis_url)
    async with bearer(h, made["token"]) as bot:
        # The first move loads what a hub loads once (the holder, the scripts).
        r = await move(bot, game, QUICK_ESCAPE[ply], ply)
        assert r.status_code == 200, r.text
        await sock.event(r.json()["n"])
        await sock.move(game, ply + 1, QUICK_ESCAPE[ply + 1])
        await sock.event(r.json()["n"] + 1)
        await monitor.start()
        try:
            r = await move(bot, game, QUICK_ESCAPE[ply + 2], ply + 2)
            assert r.status_code == 200, r.text
            marker = f"after-the-move-{made['id']}"
            redis_sync.echo(marker)
            await wait_for(
                lambda: any(marker in line for line in monitor.lines), "MONITOR to catch up"
            )
            calls = monitor.scripts(commit, keys.game(game))
            assert len(calls) == 1, calls
            assert window in calls[0]  # the token's check, inside the commit's call
            assert monitor.scripts(api_request) == []
            # No other command of a client names the token's window (a script's own
            # commands are shown too, as "[0 lua]").
            sent = [line for line in monitor.lines if window in line and " lua] " not in line]
            assert sent == calls
        finally:
            await monitor.close()
    assert window_of(redis_sync, made["id"]) == 2
    await bob.close()
