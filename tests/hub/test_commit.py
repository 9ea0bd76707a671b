"""The commit path: commit.lua publishes an event only for other hubs that follow the game,
and a change committed under a cancelled caller still reaches this process's hooks."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from typing import Any, cast

import msgpack
import pytest
import redis.asyncio as aioredis

from brandubh.engine import Game
from brandubh.hub.live import events
from brandubh.hub.live.changes import Change
from brandubh.hub.live.games import GameService
from brandubh.hub.live.matches import MatchService
from brandubh.hub.live.state import GameState, Player
from brandubh.hub.redis import keys
from brandubh.hub.redis.lane import Lane
from brandubh.hub.redis.scripts import Scripts
from waiting import wait_for

A, B = Player("u_ann", "Ann"), Player("u_bob", "Bob")
HUB = "hub-here"
ELSEWHERE = "hub-elsewhere"
FAR = 2**50  # an entry in a set of hubs that holds for ever (ms)


@pytest.fixture
async def services(fresh_redis_url: str) -> AsyncIterator[dict[str, Any]]:
    """A lane-committing game service of this process, on a Redis of the test's own."""
    r = aioredis.Redis.from_url(fresh_redis_url)
    lane = Lane(r.connection_pool, timeout_s=10)
    commits: list[tuple[str, int]] = []
    told: list[tuple[str, bytes]] = []

    def seen(change: Change, n: int, frame: bytes) -> None:
        commits.append((change.new.id, n))
        told.append((change.new.id, frame))

    lost: list[str] = []
    games = GameService(
        r, Scripts.register(r), lane=lane, hub_id=HUB, on_commit=seen, on_lost=lost.append
    )
    yield {"redis": r, "games": games, "commits": commits, "lost": lost, "frames": told}
    await lane.aclose()
    await r.aclose()


async def started(games: GameService) -> GameState:
    _, game_id = await MatchService(games.redis, games).start(A, B, "nielsen", 600, None)
    return await games.load(game_id)


async def move(games: GameService, state: GameState, msg_id: str) -> Any:
    text = state.game().legal_texts()[0]
    return await games.move(state.turn, state.id, state.ply, text, msg_id)


async def published(r: aioredis.Redis, game_id: str, play: Any) -> dict[str, list[bytes]]:
    """What the channels of this hub and of another hub heard while ``play`` ran."""
    pubsub = r.pubsub()
    channels = {keys.game_channel(game_id, hub): hub for hub in (HUB, ELSEWHERE)}
    await pubsub.ssubscribe(*channels)
    for _ in channels:
        await pubsub.get_message(timeout=1)  # the subscriptions' confirmations
    await play()
    heard: dict[str, list[bytes]] = {HUB: [], ELSEWHERE: []}
    while (msg := await pubsub.get_message(timeout=0.3)) is not None:
        if msg["type"] == "smessage":
            heard[channels[msg["channel"].decode()]].append(msg["data"])
    await pubsub.aclose()  # type: ignore[no-untyped-call]
    return heard


async def test_an_event_is_published_only_to_the_other_hubs_that_follow_the_game(
    services: dict[str, Any],
) -> None:
    r, games = services["redis"], services["games"]
    state = await started(games)
    hubs = keys.game_hubs(state.id)

    async def one_move() -> None:
        nonlocal state
        await move(games, state, f"m{state.ply}")
        state = await games.load(state.id)

    # Followed nowhere, or only here (where the hooks deliver it): not published.
    assert await published(r, state.id, one_move) == {HUB: [], ELSEWHERE: []}
    await r.zadd(hubs, {HUB: FAR})
    assert await published(r, state.id, one_move) == {HUB: [], ELSEWHERE: []}
    # Another hub follows it: published to that hub's channel alone, numbered, once.
    await r.zadd(hubs, {ELSEWHERE: FAR})
    heard = await published(r, state.id, one_move)
    assert heard[HUB] == [] and len(heard[ELSEWHERE]) == 1
    assert heard[ELSEWHERE][0].startswith(b"%d " % state.seq)
    await r.zrem(hubs, HUB)
    heard = await published(r, state.id, one_move)
    assert heard[HUB] == [] and len(heard[ELSEWHERE]) == 1
    # That hub's entry ran out long ago (the hub died): nothing goes to it any more.
    await r.zadd(hubs, {ELSEWHERE: 1})
    assert await published(r, state.id, one_move) == {HUB: [], ELSEWHERE: []}
    # Every commit reached this process's hooks, whether published or not.
    assert [n for g, n in services["commits"] if g == state.id][-5:] == list(
        range(state.seq - 4, state.seq + 1)
    )


async def test_the_hooks_get_the_frame_commit_lua_stored(services: dict[str, Any]) -> None:
    """The new deadline is written over the placeholder twice (live/events.py's contract):
    by commit.lua in the frame it stores, by this process in its hooks' copy; the same."""
    r, games = services["redis"], services["games"]
    state = await started(games)
    await move(games, state, "m-deadline")
    told = [frame for game, frame in services["frames"] if game == state.id]
    assert told and events.PLACEHOLDER not in told[-1]
    assert msgpack.unpackb(told[-1])["state"]["deadline"] > 0  # a deadline was set
    assert told[-1] == (await r.lrange(keys.events(state.id), -1, -1))[0]


async def test_a_move_committed_under_a_cancelled_caller_still_reaches_the_hooks(
    services: dict[str, Any],
) -> None:
    r, games = services["redis"], services["games"]
    state = await started(games)
    await r.zadd(keys.game_hubs(state.id), {HUB: FAR})  # followed only here: nothing is published
    await games.committer.lane.call("PING")  # the lane is open
    redis_pid = int((await r.info("server"))["process_id"])
    os.kill(redis_pid, signal.SIGSTOP)  # a stalled Redis: what is sent now waits
    try:
        # The state is cached, so the move needs no round trip before its commit: that is
        # written at once and waits for Redis.
        mover = asyncio.create_task(move(games, state, "cancelled"))
        await asyncio.sleep(0.3)
        mover.cancel()
        with pytest.raises(asyncio.CancelledError):
            await mover
    finally:
        os.kill(redis_pid, signal.SIGCONT)
    await wait_for(lambda: (state.id, state.seq + 1) in services["commits"], "the commit's hook", 5)
    assert services["lost"] == []
    after = await games.load(state.id)
    assert after.seq == state.seq + 1  # the commit ran, once
    # The resend is acknowledged as the same move.
    again = await games.move(
        state.turn, state.id, state.ply, state.game().legal_texts()[0], "cancelled"
    )
    assert again.duplicate and again.n == after.seq


# -- the moves and repetition counts, in keys of their own -----------------------------------


async def test_moves_are_appended_and_positions_counted_in_their_own_keys(
    services: dict[str, Any],
) -> None:
    r, games = services["redis"], services["games"]
    state = await started(games)
    for n in range(4):
        await move(games, state, f"m{n}")
        games.cache.forget(state.id)  # each move read back from Redis
        state = await games.load(state.id)
    assert b"moves" not in await r.hgetall(keys.game(state.id))
    stored = (await r.get(keys.moves(state.id))).decode()
    assert tuple(stored.split()) == state.moves and len(state.moves) == 4
    engine = state.game()
    counts = {int(h): int(n) for h, n in (await r.hgetall(keys.repetitions(state.id))).items()}
    assert counts == {h: state.recent.count(h) for h in set(state.recent)}
    assert engine.repetitions == counts[state.recent[-1]]


async def test_a_game_stored_the_old_way_keeps_every_move_through_its_next_commit(
    services: dict[str, Any],
) -> None:
    """An upgrade with games in play: their moves lived in the hash, their recent positions
    in the snapshot; the next commit moves them to their own keys, losing nothing."""
    r, games = services["redis"], services["games"]
    state = await started(games)
    for n in range(3):
        await move(games, state, f"m{n}")
        state = await games.load(state.id)
    old_snap = pack_old(state)
    pipe = r.pipeline(transaction=False)
    pipe.hset(keys.game(state.id), mapping={"moves": " ".join(state.moves), "snap": old_snap})
    pipe.delete(keys.moves(state.id), keys.repetitions(state.id))
    await pipe.execute()
    games.cache.forget(state.id)
    legacy = await games.load(state.id)
    assert legacy.legacy and legacy.moves == state.moves
    assert sorted(legacy.recent) == sorted(state.recent)
    await move(games, legacy, "m3")
    games.cache.forget(state.id)
    after = await games.load(state.id)
    assert not after.legacy and after.moves[:3] == state.moves and len(after.moves) == 4
    assert b"moves" not in await r.hgetall(keys.game(state.id))
    replayed = Game("nielsen")
    for text in after.moves:
        replayed.play(text)
    assert replayed.position == after.game().position
    assert sorted(after.recent) == sorted(replayed.snapshot().recent)


def pack_old(state: GameState) -> bytes:
    """The snapshot as the hub stored it before keys.repetitions: every recent position."""
    snap = state.snapshot()
    return cast(
        bytes,
        msgpack.packb(
            [snap.ruleset, snap.start_position, snap.position, snap.ply, list(snap.woods),
             list(snap.recent)],
            use_bin_type=True,
        ),
    )  # fmt: skip
