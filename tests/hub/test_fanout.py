"""Fan-out where a game is watched: a hub receives a game's events only while one of its
sockets follows the game, and a socket that starts following mid-game misses nothing."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx

from services import HubProcess
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


async def test_a_hub_with_no_socket_of_a_game_receives_none_of_its_events(
    start_hub: Any,
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
    assert after[players.url] - before[players.url] >= 6

    # Once its last socket of the game leaves, the spectators' hub stops receiving it.
    await watcher.close()
    await asyncio.sleep(0.5)  # (the unsubscribe is on its way; nothing is timed here)
    quiet = received(watchers)
    state = (await sockets["attackers"].seen_or_next(lambda m: m.get("n") == n))["state"]
    await play(game, sockets, state, n, 4)
    assert received(watchers) == quiet
    assert received(idle) == before[idle.url]
    for sock in sockets.values():
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
