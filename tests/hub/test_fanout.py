"""Fan-out where a game is watched: a hub receives a game's events only while one of its
sockets follows the game, and a socket that starts following mid-game misses nothing."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from brandubh.hub.redis import keys
from brandubh.hub.redis.scripts import Scripts
from brandubh.hub.wire.fanout import Fanout
from services import HubProcess
from waiting import wait_for
from wsclient import Msg, Socket, friend_game, seated

CORNERS = ("a1", "a7", "g1", "g7")


def received(hub: HubProcess) -> int:
    """Game-channel messages pub/sub has brought the hub so far."""
    return int(httpx.get(hub.url + "/healthz/stats", timeout=5).json()["game_messages"])


async def play(game: str, sockets: dict[str, Socket], state: Msg, n: int, count: int) -> int:
    """Play ``count`` quiet moves from event ``n`` at ``state``; the last event number."""
    rng = random.Random(n)
    for _ in range(count):
        quiet = [m for m in state["legal"] if "x" not in m and m[-2:] not in CORNERS]
        mover = sockets[state["turn"]]
        await mover.move(game, state["ply"], rng.choice(quiet))
        n += 1
        state = (await mover.event(n))["state"]
    return n


@pytest.mark.cluster
async def test_a_hub_with_no_socket_of_a_game_receives_none_of_its_events(
    start_hub: Any, redis_sync: Any
) -> None:
    players, watchers, idle = start_hub(), start_hub(), start_hub()
    game, alice, bob = await friend_game(players.url)
    sockets = await seated(game, alice, bob)
    watcher = await Socket.open(watchers.url)
    snap = await watcher.watch(game)
    before = {h.url: received(h) for h in (players, watchers, idle)}

    n = await play(game, sockets, snap["state"], snap["n"], 6)
    await watcher.event(n)  # the spectator's hub had them all
    after = {h.url: received(h) for h in (players, watchers, idle)}
    assert after[idle.url] == before[idle.url]  # nothing reached the hub with no socket
    assert after[watchers.url] - before[watchers.url] >= 6

    # Once its last socket of the game leaves, the spectators' hub stops receiving it.
    await watcher.close()
    await wait_for(  # the spectators' hub leaves the game's hubs as it unsubscribes
        lambda: redis_sync.zcard(keys.game_hubs(game)) == 1, "the spectators' hub to leave"
    )
    quiet = received(watchers)
    state = (await sockets["attackers"].seen_or_next(lambda m: m.get("n") == n))["state"]
    await play(game, sockets, state, n, 4)
    assert received(watchers) == quiet
    assert received(idle) == before[idle.url]
    for sock in sockets.values():
        await sock.close()


async def test_two_players_and_a_spectator_on_one_hub_each_get_every_event_once_in_order(
    hub: HubProcess,
) -> None:
    """Local delivery, each frame written straight to its socket: every event reaches the
    two players and a spectator once and in order, and each move's ack its mover after
    its event."""
    game, alice, bob = await friend_game(hub.url)
    sockets = await seated(game, alice, bob)
    spectator = await Socket.open(hub.url)
    snap = await spectator.watch(game)
    start = snap["n"]
    last = await play(game, sockets, snap["state"], start, 40)
    for sock in (*sockets.values(), spectator):
        await sock.seen_or_next(lambda m: m["t"] == "event" and m["n"] == last)
        numbers = [e["n"] for e in sock.events(game)]
        assert numbers[numbers.index(start + 1) :] == list(range(start + 1, last + 1))
    for sock in sockets.values():
        while sum(f["t"] == "ack" for f in sock.frames) < 20:  # the last one may follow
            await sock.recv()
        kinds = [f["t"] for f in sock.frames if f["t"] in ("event", "ack")]
        acks = [i for i, kind in enumerate(kinds) if kind == "ack"]
        assert len(acks) == 20 and all(kinds[i - 1] == "event" for i in acks)
    for sock in (*sockets.values(), spectator):
        await sock.close()


async def test_a_socket_that_starts_following_mid_game_sees_every_event_once_in_order(
    hub: HubProcess, hub2: HubProcess
) -> None:
    game, alice, bob = await friend_game(hub.url)
    sockets = await seated(game, alice, bob)
    snap = await sockets["attackers"].seen_or_next(lambda m: m["t"] == "snapshot")
    moves = 30
    done = asyncio.Event()

    async def mover() -> int:
        try:
            return await play(game, sockets, snap["state"], snap["n"], moves)
        finally:
            done.set()

    async def follower(delay: float) -> list[Msg]:
        """A spectator on the other hub (which holds no other socket of this game) that
        starts following while the moves are being played."""
        await asyncio.sleep(delay)
        sock = await Socket.open(hub2.url)
        got: list[Msg] = [await sock.watch(game, since=0)]
        last = snap["n"] + moves
        while got[-1]["n"] < last:
            got.append(await sock.recv_until(lambda m: m["t"] in ("event", "snapshot")))
        await sock.close()
        return got

    results = await asyncio.gather(mover(), *(follower(0.05 * i) for i in range(6)))
    last = results[0]
    for seen in results[1:]:
        numbers = [m["n"] for m in seen]
        # A snapshot (when it came in far behind) or events from the start; then every
        # later event exactly once, in order.
        start = numbers[0] if seen[0]["t"] == "snapshot" else 0
        assert numbers == ([start] if seen[0]["t"] == "snapshot" else []) + list(
            range(start + 1, last + 1)
        )
        assert all(m["t"] == "event" for m in seen[1:])
    assert done.is_set()
    for sock in sockets.values():
        await sock.close()


async def test_a_hub_hears_only_what_other_hubs_commit_in_games_it_follows(
    start_hub: Any, redis_async: Any
) -> None:
    """The committing hub hands its own sockets each event; commit.lua publishes it only
    to the channel of each other hub that follows the game, and stops once that hub's last
    socket leaves."""
    here, there = start_hub(), start_hub()
    game, alice, bob = await friend_game(here.url)
    sockets = await seated(game, alice, bob)
    local = await Socket.open(here.url)
    snap = await local.watch(game)
    hubs = keys.game_hubs(game)
    (here_id,) = [h.decode() for h in await redis_async.zrange(hubs, 0, -1)]  # once for 3

    pubsub = redis_async.pubsub()  # listens on the hubs' channels of the game
    await pubsub.ssubscribe(keys.game_channel(game, here_id))

    async def heard() -> dict[str, list[int]]:
        got: dict[str, list[int]] = {}
        while (msg := await pubsub.get_message(timeout=0.3)) is not None:
            if msg["type"] == "smessage" and not msg["data"].startswith((b"0 ", b"p ")):
                # events, not notices (watcher counts, presence), by the hub they are for
                hub = msg["channel"].decode().rpartition(":")[2]
                got.setdefault(hub, []).append(int(msg["data"].split(b" ", 1)[0]))
        return got

    await heard()
    n = await play(game, sockets, snap["state"], snap["n"], 4)
    await local.event(n)  # the spectator on the same hub had every move
    assert await heard() == {}

    remote = await Socket.open(there.url)
    await remote.watch(game)
    members = {h.decode() for h in await redis_async.zrange(hubs, 0, -1)}
    assert len(members) == 2 and here_id in members
    (there_id,) = members - {here_id}
    await pubsub.ssubscribe(keys.game_channel(game, there_id))
    await heard()
    state = (await sockets["attackers"].seen_or_next(lambda m: m.get("n") == n))["state"]
    n2 = await play(game, sockets, state, n, 3)
    await remote.event(n2)
    # Each move once, to the other hub alone: one message per move over both hubs.
    assert await heard() == {there_id: list(range(n + 1, n2 + 1))}

    await remote.close()

    async def left() -> bool:  # the remote hub leaves the set once its socket's close is handled
        return bool(await redis_async.zcard(hubs) == 1)

    await wait_for(left, "the remote hub gone from the game's hubs", 5, 0.1)
    state = (await sockets["attackers"].seen_or_next(lambda m: m.get("n") == n2))["state"]
    n3 = await play(game, sockets, state, n2, 2)
    await local.event(n3)
    assert await heard() == {}
    await pubsub.aclose()
    for sock in (*sockets.values(), local):
        await sock.close()


async def test_a_hub_that_stops_leaves_the_sets_of_hubs_of_its_games(
    start_hub: Any, redis_async: Any
) -> None:
    """A hub stopped (SIGTERM) takes itself out of the sets of the games it followed: no
    publication goes to a channel nobody will read again."""
    here, there = start_hub(), start_hub()
    game, alice, bob = await friend_game(here.url)
    sockets = await seated(game, alice, bob)
    hubs = keys.game_hubs(game)
    (here_id,) = await redis_async.zrange(hubs, 0, -1)
    remote = await Socket.open(there.url)
    await remote.watch(game)
    assert await redis_async.zcard(hubs) == 2

    there.stop()
    assert await redis_async.zrange(hubs, 0, -1) == [here_id]
    for sock in sockets.values():
        await sock.close()


class Recorder:
    """A listener that keeps what the fan-out gave it."""

    def __init__(self) -> None:
        self.frames: list[tuple[int, bytes]] = []
        self.resyncs = 0

    def on_frame(self, n: int, frame: bytes) -> None:
        self.frames.append((n, frame))

    def on_chat(self, room: str, author: str, muted: bool, frame: bytes) -> None:
        self.frames.append((0, frame))

    def on_presence(self, version: int, frame: bytes) -> None:
        self.frames.append((0, frame))

    def resync(self) -> None:
        self.resyncs += 1


async def test_the_entry_of_a_hub_that_died_runs_out_and_is_published_nothing(
    fresh_redis_url: str,
) -> None:
    r = aioredis.Redis.from_url(fresh_redis_url)
    scripts = Scripts.register(r)
    live, dead = (Fanout(r, hub, scripts.member, member_ttl_ms=400) for hub in ("live", "dead"))
    tasks = [asyncio.create_task(f.listen()) for f in (live, dead)]
    heard_live, heard_dead = Recorder(), Recorder()
    try:
        await live.ready.wait()
        await dead.ready.wait()
        await live.add("g1", heard_live)
        await dead.add("g1", heard_dead)
        hubs = keys.game_hubs("g1")
        assert sorted(await r.zrange(hubs, 0, -1)) == [b"dead", b"live"]

        async def notice(frame: bytes) -> None:
            await scripts.notice(keys=[hubs], args=[keys.game_channel_stem("g1"), frame])

        await notice(b"one")
        await wait_for(lambda: heard_live.frames and heard_dead.frames, "both hubs hearing", 3)
        tasks[1].cancel()  # the dead hub: no goodbye, no renewal
        for _ in range(6):  # the live hub renews, past the dead one's time
            await asyncio.sleep(0.1)
            await live.renew()
        await notice(b"two")
        await asyncio.sleep(0.3)
        assert heard_live.frames == [(0, b"one"), (0, b"two")]
        assert heard_dead.frames == [(0, b"one")]
        assert await r.zrange(hubs, 0, -1) == [b"live"]  # dropped by the renewal
        assert 0 < await r.pttl(hubs) <= 400  # the set goes with its latest entry
        tasks[0].cancel()  # the live hub dies too: nobody renews the set any more

        async def gone() -> bool:
            return bool(await r.exists(hubs) == 0)

        await wait_for(gone, "the set to expire with its latest entry", 5)
        assert heard_live.resyncs == 0  # its own entry never ran out
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await r.aclose()


async def test_a_hub_whose_entry_ran_out_catches_up_at_its_next_renewal(
    fresh_redis_url: str,
) -> None:
    r = aioredis.Redis.from_url(fresh_redis_url)
    scripts = Scripts.register(r)
    fanout = Fanout(r, "stalled", scripts.member)
    task = asyncio.create_task(fanout.listen())
    followed, other = Recorder(), Recorder()
    try:
        await fanout.ready.wait()
        await fanout.add("g1", followed)
        await fanout.add("g2", other)
        await fanout.renew()
        assert (followed.resyncs, other.resyncs) == (0, 0)
        await r.zrem(keys.game_hubs("g1"), "stalled")  # as if it stalled past its time
        await fanout.renew()
        assert (followed.resyncs, other.resyncs) == (1, 0)
        assert await r.zrange(keys.game_hubs("g1"), 0, -1) == [b"stalled"]  # back in
        await fanout.remove("g1", followed)
        assert await r.exists(keys.game_hubs("g1")) == 0
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await r.aclose()
