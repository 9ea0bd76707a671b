"""The deadline sweep and the watermarks, in this process on a real Redis (the first test,
marked `cluster`, runs again on a Redis Cluster): a deadline fires once with two schedulers;
a sweep plans its wake-up for the earliest deadline left and for one just committed, so
a slow poll loses nothing; a busy hub's watermark holds a deadline back, an idle hub's
does not, and a hub leaving idleness can stamp no move a sweep may already have judged;
a deadline inside an outage is extended, then fires.

Times are arranged with Redis's clock; none is asserted but by Redis's clock or against
another value read from it.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Callable
from typing import cast

import pytest
from redis.asyncio import Redis

from brandubh.hub import loops
from brandubh.hub.config import Settings
from brandubh.hub.live.changes import Change
from brandubh.hub.live.clock import IDLE, Marks, RedisClock
from brandubh.hub.live.games import GameService
from brandubh.hub.live.scheduler import Scheduler
from brandubh.hub.live.state import GameState, Player
from brandubh.hub.redis import UNREACHABLE, Scripts, keys
from brandubh.hub.redis import client as redis_client
from services import CLUSTER_URLS
from waiting import wait_for

A, B = Player("u_ann", "Ann"), Player("u_bob", "Bob")
NEVER_POLL_S = 600.0  # a poll that never comes within a test: only a planned wake-up fires
WAIT_S = 10.0  # the longest a test waits for something the code does at once


class Hub:
    """What one hub process runs of the deadlines: its clock, watermark and scheduler."""

    def __init__(self, url: str, hub_id: str, time_scale: float = 1.0) -> None:
        settings = Settings(redis_url=url, redis_cluster=url in CLUSTER_URLS)
        self.redis = redis_client.connect(settings)
        self.scripts = Scripts.register(self.redis)
        self.clock = RedisClock()
        # Each commit to the scheduler, as the hub wires it (built just below).
        self.games = GameService(self.redis, self.scripts, time_scale, on_commit=self.on_commit)
        cluster = redis_client.cluster_of(self.redis)
        self.marks = Marks(url, self.scripts, self.clock, hub_id, cluster)
        self.scheduler = Scheduler(
            self.redis, self.scripts, self.games, self.clock, self.marks, poll_s=NEVER_POLL_S
        )
        self.hub_id = hub_id

    def on_commit(self, change: Change, n: int, frame: bytes) -> None:
        self.scheduler.on_commit(change, n, frame)

    async def start(self) -> Hub:
        await self.scheduler.beat()  # measures the clock's offset, reads the outages
        await self.marks.write()
        return self

    async def close(self) -> None:
        await self.marks.close()
        await redis_client.close(self.redis)


@pytest.fixture
async def hubs(fresh_redis_url: str) -> AsyncIterator[Callable[..., Hub]]:
    """Start hubs on a Redis of the test's own (on the cluster: the cluster)."""
    made: list[Hub] = []

    async def make(hub_id: str, time_scale: float = 1.0) -> Hub:
        made.append(hub := Hub(fresh_redis_url, hub_id, time_scale))
        return await hub.start()

    yield cast(Callable[..., Hub], make)
    for hub in made:
        await hub.close()


async def redis_now(r: Redis) -> int:
    sec, usec = await r.time()
    return int(sec) * 1000 + int(usec) // 1000


async def started(games: GameService) -> GameState:
    state, _ = await games.create(A, "nielsen", 600, "friend", joiner=B)
    return state


async def due_at(r: Redis, game_id: str, at: int) -> None:
    """Move a running game's deadline to ``at`` (ms, Redis's clock), as bench/deadlines does."""
    await r.hset(keys.game(game_id), "deadline", at)
    await r.zadd(keys.deadlines(keys.bucket(game_id)), {game_id: at})


async def until_past(r: Redis, at: int) -> None:
    """Wait until Redis's clock is past ``at``."""

    async def past() -> bool:
        return await redis_now(r) > at

    await wait_for(past, f"Redis's clock past {at}", every=0.01)


async def until_ended(games: GameService, game_id: str) -> tuple[GameState, int]:
    """The game once ended, and when its ending was committed (ms, Redis's clock)."""

    async def ended() -> GameState | None:
        state = await games.load(game_id)
        return state if state.status == "ended" else None

    state = await wait_for(ended, f"game {game_id} ended", WAIT_S, 0.02)
    return state, int(await games.redis.hget(keys.game(game_id), "updated") or 0)


@contextlib.asynccontextmanager
async def scheduling(hub: Hub) -> AsyncIterator[None]:
    """The hub's scheduler loop as app.py runs it, with a poll that never comes."""
    loop = loops.Loop(
        "scheduler", hub.scheduler.tick, NEVER_POLL_S, wake=hub.scheduler.wake, cadence=True
    )
    task = asyncio.create_task(loops.run(loop))
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@pytest.mark.cluster
async def test_two_schedulers_fire_each_deadline_once(hubs: Callable[..., Hub]) -> None:
    one, two = await hubs("hub-one"), await hubs("hub-two")
    games = [await started(one.games) for _ in range(24)]
    events = {g.id: await one.redis.llen(keys.events(g.id)) for g in games}
    now = await redis_now(one.redis)
    for g in games:
        await due_at(one.redis, g.id, now - 1)
    fired = 0
    async with asyncio.timeout(WAIT_S):
        while any([(await one.games.load(g.id)).status != "ended" for g in games]):
            fired += sum(await asyncio.gather(one.scheduler.sweep(), two.scheduler.sweep()))
    # Each game ended by one commit, whoever claimed it (the cluster's hubs may sweep too).
    for g in games:
        assert await one.redis.llen(keys.events(g.id)) == events[g.id] + 1
    assert fired <= len(games)


async def test_a_slow_poll_loses_nothing_the_sweep_wakes_for_the_earliest_deadline(
    hubs: Callable[..., Hub],
) -> None:
    one = await hubs("hub-one")
    game = await started(one.games)
    due = await redis_now(one.redis) + 300
    await due_at(one.redis, game.id, due)
    await one.scheduler.sweep()  # nothing due yet; it learns when the deadline is
    async with scheduling(one):
        _, ended_at = await until_ended(one.games, game.id)
    assert ended_at >= due  # by Redis's clock, not before its deadline
    assert one.scheduler.fired == 1


async def test_a_deadline_committed_here_is_planned_for_as_it_is_set(
    hubs: Callable[..., Hub],
) -> None:
    # 600 s a move at this scale: 0.6 s, under the poll of app.py's default.
    one = await hubs("hub-one", time_scale=0.001)
    two = await hubs("hub-two", time_scale=0.001)
    game = await started(two.games)  # (its first deadline is hub two's to plan)
    async with scheduling(one):  # never swept: only what hub one commits can wake it
        text = game.game().legal_texts()[0]
        await one.games.move(game.turn, game.id, game.ply, text, "m1")
        committed = await one.games.load(game.id)
        ended, ended_at = await until_ended(one.games, game.id)
    assert ended.ply == committed.ply == 1  # the deadline the move set, not the first one
    assert ended_at >= committed.deadline
    assert one.scheduler.fired == 1


async def test_a_busy_hubs_watermark_holds_a_deadline_back_until_its_move_is_in(
    hubs: Callable[..., Hub],
) -> None:
    one, two = await hubs("hub-one"), await hubs("hub-two")
    game = await started(one.games)
    async with two.marks.in_use():
        stamp = two.clock.stamp()  # a move reaches hub two ...
        with two.clock.hold(stamp):
            await two.marks.write()
            await due_at(one.redis, game.id, stamp + 1)  # ... just before its deadline
            await until_past(one.redis, stamp + 100)  # and waits past it (Redis froze, say)
            assert await one.marks.safe(one.redis) <= stamp
            assert await one.scheduler.sweep() == 0  # held back by hub two's watermark
            state = await two.games.load(game.id)
            text = state.game().legal_texts()[0]
            await two.games.move(state.turn, state.id, state.ply, text, "m1", stamp)
        await two.marks.write()
    assert await one.scheduler.sweep() == 0  # the move set a new deadline, far off
    after = await one.games.load(game.id)
    assert (after.status, after.ply) == ("active", 1)


async def test_an_idle_hub_holds_no_deadline_back(hubs: Callable[..., Hub]) -> None:
    one, two = await hubs("hub-one"), await hubs("hub-two")
    await two.marks.write()  # no socket, no bot turn: idle
    raw = await one.redis.hget(keys.hub_marks(), "hub-two")
    assert raw is not None and raw.decode().startswith(f"{IDLE}:")
    game = await started(one.games)
    due = await redis_now(one.redis)  # after hub two's last mark was written
    await due_at(one.redis, game.id, due)
    await until_past(one.redis, due + 5)
    assert await one.marks.safe(one.redis) > due
    assert await one.scheduler.sweep() == 1


async def test_a_hub_leaving_idleness_stamps_nothing_a_sweep_may_have_judged(
    hubs: Callable[..., Hub],
) -> None:
    one, two = await hubs("hub-one"), await hubs("hub-two")
    # Hub two's estimate of Redis's clock lags by 5 s (as far as a bad reading could):
    # its stamps must still come after whatever a sweep judged while it was idle.
    assert two.clock.offset_ms is not None
    two.clock.offset_ms -= 5_000
    await two.marks.write()
    judged = await one.marks.safe(one.redis)  # a sweep reads hub two as idle
    idle_write = asyncio.create_task(two.marks.write())  # an idle mark on its way, too
    async with two.marks.in_use():  # a socket arrives at hub two
        raw = await one.redis.hget(keys.hub_marks(), "hub-two")
        assert raw is not None and not raw.decode().startswith(f"{IDLE}:")
        stamp = two.clock.stamp()  # its first move
        assert stamp > judged
        with two.clock.hold(stamp):
            await two.marks.write()
            assert await one.marks.safe(one.redis) <= stamp
    await idle_write
    raw = await one.redis.hget(keys.hub_marks(), "hub-two")
    assert raw is not None and not raw.decode().startswith(f"{IDLE}:")  # the last word
    await two.marks.write()
    raw = await one.redis.hget(keys.hub_marks(), "hub-two")
    assert raw is not None and raw.decode().startswith(f"{IDLE}:")  # idle again


async def test_a_deadline_inside_an_outage_is_extended_then_fires(
    hubs: Callable[..., Hub],
) -> None:
    one = await hubs("hub-one")
    game = await started(one.games)
    now = await redis_now(one.redis)
    await one.redis.hset(keys.game(game.id), "deadline_set", now - 2_000)
    await due_at(one.redis, game.id, now - 10)
    # Down from 500 ms before the deadline until now: the 510 ms down are given back.
    await one.redis.rpush(keys.outages(), f"{now - 510}:{now}")
    await one.scheduler.beat()  # (the heartbeat script brings the outages recorded)
    assert one.scheduler.outages == [(now - 510, now)]
    async with scheduling(one):
        assert await one.scheduler.sweep() == 1
        extended = await one.games.load(game.id)
        assert (extended.status, extended.deadline) == ("active", now - 10 + 510)
        ended, ended_at = await until_ended(one.games, game.id)  # the extension planned it
    assert ended_at >= extended.deadline
    assert ended.ply == 0 and ended.result is not None  # (no move came: aborted)
    assert one.scheduler.fired == 2


async def test_a_hub_that_cannot_mark_takes_no_user(hubs: Callable[..., Hub]) -> None:
    one = await hubs("hub-one")
    with socket.socket() as s:  # a port nothing listens on: Redis is out of reach
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cut_off = Marks(f"redis://127.0.0.1:{port}/0", one.scripts, RedisClock(), "hub-cut")
    with pytest.raises(UNREACHABLE):
        async with cut_off.in_use():
            pytest.fail("a socket was let in with no watermark in Redis")
    assert cut_off.idle()  # and nothing counts as in use
