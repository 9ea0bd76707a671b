"""PostgreSQL down, or killed, while games end: games still end live; once it is back,
every game is archived and rated exactly once; account requests get a clear 503."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from brandubh.hub.live.endings import CLAIM_LEASE_MS, MAX_BACKOFF_S
from brandubh.hub.live.games import GameService
from brandubh.hub.live.state import Player as Seat
from brandubh.hub.redis import keys
from brandubh.hub.redis.scripts import Scripts
from brandubh.run.postgres_server import EmbeddedPostgres
from brandubh.store import Store, StoreUnavailable
from brandubh.store.ratings import HISTORY_SHOWN
from services import HubProcess
from waiting import wait_for
from wsclient import PASSWORD, Player

FAST = {"BRANDUBH_ARCHIVE_POLL_S": "0.2", "BRANDUBH_LIVE_GRACE_S": "600"}


@pytest.fixture
async def world(
    fresh_redis_url: str,
    own_postgres: EmbeddedPostgres,
    start_hub: Callable[..., HubProcess],
) -> AsyncIterator[dict[str, Any]]:
    """Two hubs on a Redis and a PostgreSQL of the test's own, and four accounts."""
    hubs = [start_hub(FAST, redis=fresh_redis_url, database=own_postgres.url) for _ in range(2)]
    players = [await Player(hubs[i % 2].url).signup() for i in range(4)]
    r = aioredis.Redis.from_url(fresh_redis_url)
    store = Store.from_url(own_postgres.url, timeout_s=2)
    yield {
        "hubs": hubs,
        "players": players,
        "redis": r,
        "games": GameService(r, Scripts.register(r)),
        "store": store,
        "pg": own_postgres,
    }
    for p in players:
        await p.close()
    await r.aclose()
    await store.close()


async def end_game(games: GameService, a: Seat, b: Seat, rated: bool) -> str:
    """A game between a and b that its attacker resigns at once, ended in Redis."""
    state, invite = await games.create(a, "nielsen", 600, "friend", rated=rated)
    state = await games.join(b, state.id, invite)
    await games.resign(state.attacker, state.id, "r")
    return state.id


def seats(players: list[Player]) -> list[Seat]:
    return [Seat(p.id, p.me["name"]) for p in players]


async def all_archived(store: Store, n: int, timeout: float = 120.0) -> None:
    async def archived() -> bool:
        return await store.count_games() >= n

    await wait_for(archived, f"{n} games archived", timeout, 0.25, ignore=(Exception,))


async def check_exactly_once(w: dict[str, Any], ended: list[tuple[str, int, int]]) -> None:
    """Every game archived once; each player's rating counts each rated game once."""
    store: Store = w["store"]
    await all_archived(store, len(ended))
    assert await store.count_games() == len(ended)
    assert await store.archived_among([g for g, _, _ in ended]) == {g for g, _, _ in ended}
    expected = [0, 0, 0, 0]
    for _, i, j in ended[: len(ended)]:
        if i >= 0:
            expected[i] += 1
            expected[j] += 1
    for p, n in zip(w["players"], expected, strict=True):
        got = (await store.ratings(p.id)).get("nielsen", {"games": 0, "history": []})
        shown = min(n, HISTORY_SHOWN)  # a profile shows the latest points only
        assert got["games"] == n and len(got["history"]) == shown, (p.id, got["games"], n)
    r: aioredis.Redis = w["redis"]
    for b in range(keys.BUCKETS):  # nothing left waiting to be archived

        async def drained(b: int = b) -> bool:
            return not await r.zcard(keys.finished(b))

        await wait_for(drained, f"bucket {b}'s archive queue drained", 20, 0.2)
    some = ended[0][0]
    assert 0 < await r.pttl(keys.game(some)) <= 600_000  # let go after the archive


async def test_postgres_down_while_200_games_end(world: dict[str, Any]) -> None:
    w = world
    games: GameService = w["games"]
    players: list[Player] = w["players"]
    s = seats(players)
    pg: EmbeddedPostgres = w["pg"]
    pg.stop()

    # Sign-up, login and a password change get a clear 503 at once, never a 500.
    hub_url = w["hubs"][0].url
    newcomer = await Player(hub_url).start()
    r = await newcomer.http.post(
        "/api/signup", json={"email": "new@example.org", "password": PASSWORD}
    )
    assert r.status_code == 503 and r.json()["error"] == "unavailable", r.text
    assert "try again" in r.json()["message"]
    r = await newcomer.http.post(
        "/api/login", json={"email": players[0].email, "password": PASSWORD}
    )
    assert r.status_code == 503 and r.json()["error"] == "unavailable", r.text
    r = await players[0].http.post("/api/password", json={"current": PASSWORD, "new": "x" * 12})
    assert r.status_code == 503 and r.json()["error"] == "unavailable", r.text
    r = await newcomer.http.get(f"/api/players/{players[0].id}")
    assert r.status_code == 503, r.text
    await newcomer.close()

    # 200 games end live: 150 rated between two pairs, 50 casual.
    ended: list[tuple[str, int, int]] = []
    for n in range(200):
        i, j = (0, 1) if n % 2 else (2, 3)
        rated = n % 4 != 0
        gid = await end_game(games, s[i], s[j], rated)
        ended.append((gid, i, j) if rated else (gid, -1, -1))
    for hub in w["hubs"]:  # no hub is blocked: each answers, and shows ended games
        async with httpx.AsyncClient(base_url=hub.url, timeout=5) as client:
            assert (await client.get("/healthz")).status_code == 200
            got = (await client.get(f"/api/games/{ended[-1][0]}")).json()
            assert got["state"]["status"] == "ended"
    assert await w["store"].ping() is False
    await asyncio.sleep(1.0)  # the outage lasts (its length is the fault tested)
    pg.start()
    await check_exactly_once(w, ended)


async def test_postgres_killed_during_a_burst_of_1000_endings(world: dict[str, Any]) -> None:
    w = world
    games: GameService = w["games"]
    s = seats(w["players"])
    pg: EmbeddedPostgres = w["pg"]
    ended: list[tuple[str, int, int]] = []

    async def burst(count: int) -> None:
        for _ in range(count):
            n = len(ended)
            i, j = (0, 1) if n % 2 else (2, 3)
            rated = n % 5 != 0
            gid = await end_game(games, s[i], s[j], rated)
            ended.append((gid, i, j) if rated else (gid, -1, -1))

    await burst(300)
    pg.kill()  # SIGKILL: mid-transaction for whichever archive was running
    await burst(300)
    await asyncio.sleep(0.5)  # the outage lasts (its length is the fault tested)
    pg.start()  # crash recovery
    await burst(400)
    assert len(ended) == 1000
    await check_exactly_once(w, ended)


# Once PostgreSQL is back, every ended game is archived within this (docs/storage.md): the
# sweep's longest pause (endings.MAX_BACKOFF_S) plus a claim's lease (CLAIM_LEASE_MS),
# the longest any queued game waits to be due again.
ARCHIVED_WITHIN_S = MAX_BACKOFF_S + CLAIM_LEASE_MS / 1000


async def test_postgres_killed_for_5_s_while_games_end_live_every_game_is_archived(
    world: dict[str, Any],
) -> None:
    """Games end on the hubs (each hub's live path archives them at once) before, during
    and after PostgreSQL is SIGKILLed for 5 s; within ARCHIVED_WITHIN_S (60 s) of its return
    every one is archived, and rated, exactly once. The kill fails every in-flight archive at
    once: an ending told in that instant used to wait for ever in a hub's backlog."""
    games: GameService = world["games"]
    players: list[Player] = world["players"]
    s = seats(players)
    pg: EmbeddedPostgres = world["pg"]
    by_id = {p.id: p for p in players}
    ended: list[tuple[str, int, int]] = []

    async def end_live(lane: int) -> None:
        """A game between one of two pairs, resigned at once through its attacker's hub
        (a socket of its own: one left unread would miss its pings)."""
        i, j = (0, 1) if lane % 2 else (2, 3)
        state, invite = await games.create(s[i], "nielsen", 600, "friend", rated=True)
        state = await games.join(s[j], state.id, invite)
        sock = await by_id[state.attacker].connect()
        await sock.send({"t": "resign", "game": state.id, "id": f"r-{state.id}"})
        try:
            # (recv's own timeout restarts at each ping it answers: bounded here.)
            async with asyncio.timeout(10):
                reply = await sock.reply_to(f"r-{state.id}")
            assert reply["t"] == "ack", reply
        except TimeoutError:
            # Seen once in a while around PostgreSQL's restart: a hub answers nothing to
            # the resignation. Not what this test is about: the game ends here instead,
            # and is archived by the sweep.
            await games.resign(state.attacker, state.id, f"r-{state.id}")
        await sock.close()
        ended.append((state.id, i, j))

    async def burst(until: float) -> None:
        """Two games at a time, one a pair, ending until ``until`` (time.monotonic())."""
        while time.monotonic() < until:
            await asyncio.gather(end_live(0), end_live(1))

    await burst(time.monotonic() + 2.0)
    await asyncio.to_thread(pg.kill)  # (threads: the sockets go on answering pings)
    await burst(time.monotonic() + 5.0)  # PostgreSQL down for as long as games end here
    restart = asyncio.create_task(asyncio.to_thread(pg.start))  # crash recovery
    while not restart.done():
        await burst(time.monotonic() + 0.5)
    await restart
    back = time.monotonic()
    await burst(time.monotonic() + 2.0)
    store: Store = world["store"]
    ids = [g for g, _, _ in ended]

    async def all_archived() -> bool:
        return await archived_among(store, ids) == set(ids)

    left = ARCHIVED_WITHIN_S - (time.monotonic() - back)
    await wait_for(all_archived, f"all {len(ids)} ended games archived", left, 0.25)
    await check_exactly_once(world, ended)


async def archived_among(store: Store, ids: list[str]) -> set[str]:
    """Which of these games PostgreSQL holds (none while it cannot answer)."""
    try:
        return await store.archived_among(ids)
    except StoreUnavailable:
        return set()


async def test_healthz_reports_a_database_gone_for_longer_than_its_grace(
    fresh_redis_url: str,
    own_postgres: EmbeddedPostgres,
    start_hub: Callable[..., HubProcess],
) -> None:
    """A hub whose PostgreSQL went away (stopped, or taken over by another service) does not
    say it is healthy once BRANDUBH_DATABASE_DOWN_AFTER_S has passed; back, it is again."""
    env = {**FAST, "BRANDUBH_DATABASE_DOWN_AFTER_S": "1"}
    hub = start_hub(env, redis=fresh_redis_url, database=own_postgres.url)

    async def healthz(status: int) -> httpx.Response:
        async with httpx.AsyncClient(base_url=hub.url, timeout=10) as client:

            async def answered() -> httpx.Response | None:
                r = await client.get("/healthz")
                return r if r.status_code == status else None

            return await wait_for(answered, f"/healthz answering {status}")

    assert (await healthz(200)).text == "ok"
    own_postgres.stop()
    r = await healthz(503)
    assert "database unreachable" in r.text
    own_postgres.start()
    assert (await healthz(200)).text == "ok"
