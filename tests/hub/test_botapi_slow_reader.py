"""A Bot API game stream whose client stops reading, on a real hub: while the game goes on
the hub holds at most its bound of lines for it (BRANDUBH_OUTBOUND_QUEUE, read from
/healthz/stats), then drops them for one last ``too_slow`` line and stops following; the
client reads what reached it, in order, and resumes with ``since`` to the game's last move
(docs/protocol.md §2.9).

The hub runs in this process (the app ``brandubh serve`` runs, on uvicorn with its
protocols, real Redis and PostgreSQL) only so that its listening socket's send buffer can be
fixed small (inproc_hub.py): the lines go direct until the connection's writes pause, then
wait in the hub's queue."""

from __future__ import annotations

import json
import random
import socket
from typing import Any

import httpx
import pytest
from api_tokens import make_token
from inproc_hub import hub_here, next_move

from brandubh.engine import Game
from services import TEST_ENV, mail_env
from waiting import wait_for
from wsclient import Msg, friend_game

QUEUE = 8  # the hub's outbound queue in this test (BRANDUBH_OUTBOUND_QUEUE)
BOUND = QUEUE + 20  # a stream's: the queue plus the replay window a catch-up sends at once
MAX_PLIES = 360  # under every rule set's move limit


async def test_a_stream_whose_reader_stops_is_bounded_ended_and_resumed(
    redis_url: str, database_url: str, mailbox: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {
        **TEST_ENV,
        **mail_env(mailbox),
        "REDIS_URL": redis_url,
        "DATABASE_URL": database_url,
        "BRANDUBH_OUTBOUND_QUEUE": str(QUEUE),
    }
    async with hub_here(env, monkeypatch) as url:
        await play_while_one_reader_stops(url)


async def play_while_one_reader_stops(base: str) -> None:
    game_id, alice, bob = await friend_game(base, "nielsen")
    state = (await alice.http.get(f"/api/games/{game_id}")).json()["state"]
    seats = {side: seat["id"] for side, seat in state["players"].items()}
    clients: dict[str, httpx.AsyncClient] = {}
    for p in (alice, bob):
        token = (await make_token(p, scopes=["bot:play"]))["token"]
        side = next(s for s, pid in seats.items() if pid == p.id)
        clients[side] = httpx.AsyncClient(
            base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=30
        )
    # The slow reader: a receive buffer as small as the kernel allows, so that the hub's
    # writes wait for it soon (the lines then wait in the hub's queue).
    slow = httpx.AsyncClient(
        base_url=base,
        headers=clients["attackers"].headers,
        timeout=60,
        transport=httpx.AsyncHTTPTransport(
            socket_options=[(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)]
        ),
    )

    async def stats() -> Msg:
        got: Msg = (await clients["defenders"].get("/healthz/stats")).json()
        return got

    async def streams_open(n: int) -> bool:
        return bool((await stats())["bot_streams"] == n)

    url = f"/api/bot/game/stream/{game_id}"
    engine, rng = Game("nielsen"), random.Random(39)
    most = 0
    async with slow.stream("GET", url) as r:
        assert r.status_code == 200
        await wait_for(lambda: streams_open(1), "the stream open", every=0.05)
        while engine.ply < MAX_PLIES:
            side = engine.side_to_move
            move = next_move(engine, rng)
            ply = engine.ply - 1
            done = await clients[side].post(f"/api/bot/game/{game_id}/move/{move}?ply={ply}")
            assert done.status_code == 200, done.text
            now = await stats()
            most = max(most, now["bot_stream_queued_most"])
            assert now["bot_stream_queued_most"] <= BOUND + 1, now  # the bound, plus one last
            if now["bot_streams_too_slow"]:
                break
        assert now["bot_streams_too_slow"] == 1, f"never too slow in {engine.ply} plies: {now}"
        # It stopped following the game: no more lines wait for it however the game goes.
        assert now["bot_stream_queued_most"] <= 1 and most >= BOUND // 2, (now, most)
        # Now it reads: what reached it, in order with no gap, then the line that says why.
        lines = [json.loads(x) async for x in r.aiter_lines() if x]
    assert lines[0]["type"] == "gameFull" and lines[0]["n"] >= 1
    ns = [line["n"] for line in lines[1:-1]]
    assert [line["type"] for line in lines[1:-1]] == ["gameState"] * len(ns)
    assert ns == list(range(lines[0]["n"] + 1, lines[0]["n"] + 1 + len(ns)))
    assert lines[-1]["type"] == "error" and lines[-1]["code"] == "too_slow", lines[-1]
    assert f"fell {BOUND} lines behind" in lines[-1]["message"]
    last = ns[-1] if ns else lines[0]["n"]
    await wait_for(lambda: streams_open(0), "the slow stream forgotten by the hub", every=0.05)

    # Resumed with since: it fell further behind than the replay window, so the game
    # comes whole again, to the last move, then live lines.
    async with clients["attackers"].stream("GET", url, params={"since": last}) as again:
        assert again.status_code == 200
        lines = again.aiter_lines()
        full = json.loads(await anext(lines))
        assert full["type"] == "gameFull" and full["moves"] == [str(m) for m in engine.moves]
        assert full["n"] > last
        move = next_move(engine, rng)
        side = "attackers" if engine.ply % 2 == 1 else "defenders"
        done = await clients[side].post(f"/api/bot/game/{game_id}/move/{move}?ply={engine.ply - 1}")
        assert done.status_code == 200, done.text
        after = json.loads(await anext(x async for x in lines if x))
        assert after["n"] == full["n"] + 1 and after["event"]["move"] == move
    for c in (*clients.values(), slow):
        await c.aclose()
    for p in (alice, bob):
        await p.close()
