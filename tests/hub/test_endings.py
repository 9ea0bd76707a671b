"""What follows an ending runs durably: a match moves on exactly once however often its step
runs, a step that failed is finished by the sweep, and a dead worker's bot turn is taken
over within one short lease."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import pytest
import redis.asyncio as aioredis

from brandubh.hub.live import bot_turns as bot_worker
from brandubh.hub.live import endings as endings_module
from brandubh.hub.live.endings import MAX_LIVE, Endings
from brandubh.hub.live.games import GameService
from brandubh.hub.live.matches import MatchService
from brandubh.hub.live.reconcile import Reconciler
from brandubh.hub.live.state import BOT_ID, Player
from brandubh.hub.redis import keys
from brandubh.hub.redis.scripts import Scripts
from brandubh.store import Store, StoreUnavailable
from services import HubProcess
from waiting import wait_for
from wsclient import Socket

A, B = Player("u_ann", "Ann"), Player("u_bob", "Bob")


@pytest.fixture
async def services(fresh_redis_url: str) -> AsyncIterator[dict[str, Any]]:
    """The services in this process on a Redis of the test's own, with no hub listening."""
    r = aioredis.Redis.from_url(fresh_redis_url)
    scripts = Scripts.register(r)
    games = GameService(r, scripts)
    matches = MatchService(r, games)
    yield {"redis": r, "scripts": scripts, "games": games, "matches": matches}
    await r.aclose()


async def resign(games: GameService, game_id: str, side: str) -> None:
    state = await games.load(game_id)
    await games.resign(state.player_of(side), game_id, f"r-{game_id}")


async def test_a_match_step_run_many_times_at_once_moves_the_match_on_once(
    services: dict[str, Any],
) -> None:
    games, matches = services["games"], services["matches"]
    match_id, game1 = await matches.start(A, B, "nielsen", 600, None)
    first = await games.load(game1)
    await resign(games, game1, "defenders")
    await asyncio.gather(*(matches.advance(game1) for _ in range(5)))
    await matches.advance(game1)  # and once more, after the others
    summary = await matches.summary(match_id)
    assert len(summary["games"]) == 2 and summary["status"] == "playing"
    assert summary["score"] == {first.attacker: 1.0, first.defender: 0.0}
    second = await games.load(summary["games"][1])
    assert second.status == "active" and second.attacker == first.defender


async def test_a_match_whose_step_never_ran_is_finished_by_the_sweep(
    services: dict[str, Any],
) -> None:
    r, games, matches = services["redis"], services["games"], services["matches"]
    failing = {"left": 1}

    async def flaky(game_id: str) -> None:
        if failing["left"]:
            failing["left"] -= 1
            raise ConnectionError("the hub lost Redis half-way")

    endings = Endings(r, services["scripts"], steps=(flaky, matches.advance))
    match_id, game1 = await matches.start(A, B, "nielsen", 600, None)
    await resign(games, game1, "attackers")
    assert await endings.finish(game1) is False  # the first step failed: still queued
    assert await r.zscore(keys.finished(keys.bucket(game1)), game1) is not None
    assert len((await matches.summary(match_id))["games"]) == 1
    # Once commit.py's ARCHIVE_GRACE_MS has passed, the sweep takes it.
    assert await wait_for(endings.sweep, "the sweep taking the game", 15, 0.1) == 1
    summary = await matches.summary(match_id)
    assert len(summary["games"]) == 2
    assert await r.zscore(keys.finished(keys.bucket(game1)), game1) is None


async def test_a_dead_workers_bot_turn_is_taken_over_within_a_short_lease(
    fresh_redis_url: str, database_url: str, services: dict[str, Any]
) -> None:
    games: GameService = services["games"]
    state, _ = await games.create(A, "nielsen", 600, "bot", 1)
    if state.turn != BOT_ID:  # the human attacks: play a first move so the bot is on turn
        move = str(state.game().legal_moves()[0])
        await games.move(A.id, state.id, 0, move, "m0")
    ply = (await games.load(state.id)).ply
    # A worker claims the turn and dies without renewing its claim.
    claimed = await services["scripts"].claim(
        keys=[keys.bot_jobs(keys.bucket(state.id))], args=[bot_worker.LEASE_MS, 4]
    )
    assert [c.decode() for c in claimed] == [state.id]
    hub = HubProcess(
        fresh_redis_url, {"BRANDUBH_BOT_POLL_S": "0.2"}, database_url=database_url
    ).start()
    try:
        sock = await Socket.open(hub.url)
        await sock.watch(state.id)
        # The old 30 s lease would keep this turn from every hub for half a minute.
        moved = await sock.recv_until(
            lambda m: m["t"] in ("event", "snapshot") and m["state"]["ply"] > ply, timeout=15
        )
        assert moved["state"]["turn"] != (await games.load(state.id)).side_of(BOT_ID)
        await sock.close()
    finally:
        hub.stop()


async def test_a_burst_beyond_the_live_slots_waits_in_the_hub_not_for_the_sweep(
    services: dict[str, Any],
) -> None:
    """More endings at once than MAX_LIVE: each is followed up once, live, without any
    sweep (which would add its queue grace and poll to every one of them)."""
    done: list[str] = []

    async def slow(game_id: str) -> None:
        await asyncio.sleep(0.02)
        done.append(game_id)

    endings = Endings(services["redis"], services["scripts"], steps=(slow,))
    ids = [f"burst{i:03d}" for i in range(5 * MAX_LIVE)]
    for game_id in ids:
        ended: Any = SimpleNamespace(new=SimpleNamespace(id=game_id, status="ended"))
        endings.on_commit(ended, 0, b"")
        endings.on_commit(ended, 0, b"")  # told twice
    assert len(endings._live) == MAX_LIVE
    await wait_for(lambda: len(done) == len(ids), "every ending followed up", 10, 0.02)
    assert sorted(done) == ids  # every one, once, and no sweep ran


async def test_a_finished_match_let_go_is_not_written_again(
    services: dict[str, Any], store: Store
) -> None:
    """A step run again after the match was kept in PostgreSQL and its hash expired (a
    long outage) leaves no stub hash behind: the match still reads from PostgreSQL."""
    r, games = services["redis"], services["games"]
    matches = MatchService(r, games, store)
    match_id, game1 = await matches.start(A, B, "nielsen", 600, None)
    await resign(games, game1, "defenders")
    await matches.advance(game1)
    game2 = (await matches.summary(match_id))["games"][1]
    await resign(games, game2, "defenders")
    await matches.advance(game2)
    kept = await store.match(match_id)
    assert kept is not None and kept["status"] == "finished"
    assert await r.pttl(keys.match(match_id)) > 0  # let go after the grace
    await r.delete(keys.match(match_id))  # the grace has passed
    await matches.advance(game2)
    assert not await r.exists(keys.match(match_id))
    assert await matches.summary(match_id) == kept


async def test_follow_ups_wait_while_the_scheduler_fires_and_never_for_ever(
    services: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """While deadlines are being fired (``defer`` true) an ending's follow-up waits; once
    the wave is over it runs; and under a defer that never ends it still runs, after
    DEFER_MAX_S."""
    monkeypatch.setattr(endings_module, "DEFER_STEP_S", 0.01)
    monkeypatch.setattr(endings_module, "DEFER_MAX_S", 0.2)
    asked: list[str] = []
    busy = {"left": 5}  # the scheduler is busy for this many more looks

    def defer() -> bool:
        busy["left"] -= 1
        return busy["left"] >= 0

    async def step(game_id: str) -> None:
        asked.append(f"{game_id} after {max(0, -busy['left'])} idle looks")

    endings = Endings(services["redis"], services["scripts"], steps=(step,), defer=defer)
    assert await endings._held_finish("wave1") is True
    assert asked == ["wave1 after 1 idle looks"]  # it ran once defer said no, not before
    stuck = Endings(services["redis"], services["scripts"], steps=(step,), defer=lambda: True)
    assert await stuck._held_finish("wave2") is True
    assert asked[-1].startswith("wave2")  # ran despite a scheduler that never rests


def ended(game_id: str) -> Any:
    """What the commit hook is told of a change that ended a game."""
    return SimpleNamespace(new=SimpleNamespace(id=game_id, status="ended"))


async def test_an_ending_told_as_every_live_follow_up_fails_at_once_is_archived(
    services: dict[str, Any],
) -> None:
    """PostgreSQL killed under MAX_LIVE live follow-ups fails them all in one loop turn. An
    ending committed in that same turn found them still counted as running (a task that has
    returned leaves ``Tasks`` a turn later) and waited in a backlog that no follow-up read
    again; this hub's sweep, leaving it alone as its own, renewed its lease at every turn,
    so no hub ever archived it. Now the follow-ups count themselves, and it is archived by
    the first sweep once PostgreSQL is back."""
    r = services["redis"]
    gate = asyncio.Event()
    down = {"now": True}
    archived: list[str] = []

    async def archive(game_id: str) -> None:
        await gate.wait()
        if down["now"]:
            raise StoreUnavailable("PostgreSQL killed")
        archived.append(game_id)

    here = Endings(r, services["scripts"], steps=(archive,))
    other_hub = Endings(r, services["scripts"], steps=(archive,))
    for i in range(MAX_LIVE):
        here.on_commit(ended(f"inflight{i}"), 0, b"")
    await asyncio.sleep(0)  # each follow-up waits in its archive step
    gate.set()  # the kill: every one fails in the next turn...
    await asyncio.sleep(0)
    here.on_commit(ended("last"), 0, b"")  # ...and this ending is told in that same turn
    await wait_for(lambda: not here._live, "the follow-ups finished", 5, 0.01)
    down["now"] = False  # PostgreSQL is back; the game is due in its queue
    await r.zadd(keys.finished(keys.bucket("last")), {"last": 0})
    assert await here.sweep() + await other_hub.sweep() == 1
    assert archived == ["last"]
    assert await r.zscore(keys.finished(keys.bucket("last")), "last") is None


async def test_a_game_held_by_a_follow_up_that_never_ends_is_swept_after_the_hold(
    services: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sweep leaves a game this hub follows up live alone for HOLD_MAX_S only: however
    that follow-up is stuck, the game is archived."""
    monkeypatch.setattr(endings_module, "HOLD_MAX_S", 0.2, raising=False)
    r = services["redis"]
    stuck = asyncio.Event()
    archived: list[str] = []

    async def archive(game_id: str) -> None:
        if not archived and not stuck.is_set():
            stuck.set()
            await asyncio.Event().wait()  # never returns
        archived.append(game_id)

    endings = Endings(r, services["scripts"], steps=(archive,))
    endings.on_commit(ended("held"), 0, b"")
    await stuck.wait()
    await r.zadd(keys.finished(keys.bucket("held")), {"held": 0})
    assert await endings.sweep() == 0  # followed up live just now: left alone
    await r.zadd(keys.finished(keys.bucket("held")), {"held": 0})  # its lease, run out
    await asyncio.sleep(0.25)
    assert await endings.sweep() == 1
    assert archived == ["held"]
    await endings.stop()


async def test_the_reconciliation_pass_queues_an_ended_game_the_queue_lost(
    services: dict[str, Any],
) -> None:
    """An ended game not let go (no expiry) is archived even if its queue entry was lost:
    one hub's pass (claimed once per period) queues it again, due at once; a game in
    progress, one still queued and one let go are left alone."""
    r, games = services["redis"], services["games"]
    lost, queued, let_go = [await _ended_game(games) for _ in range(3)]
    playing, invite = await games.create(A, "nielsen", 600, "friend")
    await games.join(B, playing.id, invite)
    await r.zrem(keys.finished(keys.bucket(lost)), lost)  # the entry dropped
    await r.zrem(keys.finished(keys.bucket(let_go)), let_go)
    await r.pexpire(keys.game(let_go), 600_000)  # archived and let go
    before = await r.zscore(keys.finished(keys.bucket(queued)), queued)
    one, other = Reconciler(r, services["scripts"]), Reconciler(r, services["scripts"])
    assert await one.tick() + await other.tick() == 1  # one pass a period, by one hub
    assert await r.zscore(keys.finished(keys.bucket(lost)), lost) == 0  # due at once
    assert await r.zscore(keys.finished(keys.bucket(queued)), queued) == before
    assert await r.zscore(keys.finished(keys.bucket(let_go)), let_go) is None
    assert await r.zscore(keys.finished(keys.bucket(playing.id)), playing.id) is None
    assert await one.run() == 0  # nothing left to find


async def _ended_game(games: GameService) -> str:
    state, invite = await games.create(A, "nielsen", 600, "friend")
    state = await games.join(B, state.id, invite)
    await resign(games, state.id, "attackers")
    return state.id
