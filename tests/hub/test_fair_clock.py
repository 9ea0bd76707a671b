"""Timeouts never caused by us: a move the hub received before its deadline is played even
when Redis froze before the commit could run (docs/fair-play.md); one received after the
deadline is refused and the game ends on time.

Redis is frozen with SIGSTOP and thawed with SIGCONT (a redis-server of the test's own).
The clock is only used to arrange when things happen, never asserted.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from brandubh.run.redis_server import EmbeddedRedis
from wsclient import Msg, Socket, friend_game, seated

# 60 s per move at this scale: 3 s. Schedulers poll often, so a timeout is not late.
ENV = {"BRANDUBH_TIME_SCALE": "0.05", "BRANDUBH_SCHEDULER_POLL_S": "0.02"}


@contextmanager
def frozen(server: EmbeddedRedis) -> Iterator[None]:
    """Redis stopped (SIGSTOP) for the duration; always thawed afterwards."""
    os.kill(server.process.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(server.process.pid, signal.SIGCONT)


async def until(ms: float) -> None:
    """Sleep until this host's clock reads ``ms`` (the same clock as Redis's, one machine)."""
    await asyncio.sleep(max(0.0, ms / 1000 - time.time()))


async def opening(game: str, sockets: dict[str, Socket]) -> tuple[Msg, int]:
    """Both sides' first moves (a timeout before them would abort the game, not end it on
    time); the state after them, with the attackers' deadline, and its event number."""
    snap = await sockets["attackers"].seen_or_next(lambda m: m["t"] == "snapshot")
    state, n = snap["state"], snap["n"]
    for side in ("attackers", "defenders"):
        quiet = [m for m in state["legal"] if "x" not in m]
        await sockets[side].move(game, state["ply"], quiet[0])
        n += 1
        state = (await sockets["attackers"].event(n))["state"]
    assert state["deadline"] and state["turn"] == "attackers"
    return state, n


async def test_a_move_received_before_the_deadline_is_played_through_a_redis_freeze(
    own_redis: EmbeddedRedis, start_hub: Any
) -> None:
    hub = start_hub(ENV, redis=own_redis.url)
    game, alice, bob = await friend_game(hub.url, move_time=60)
    sockets = await seated(game, alice, bob)
    state, n = await opening(game, sockets)
    deadline = state["deadline"]
    mover, other = sockets["attackers"], sockets["defenders"]

    await until(deadline - 800)
    with frozen(own_redis):
        # The hub receives this at once; its commit cannot run until Redis thaws, well
        # after the deadline.
        mid = await mover.move(game, state["ply"], state["legal"][0])
        await until(deadline + 1500)
    reply = await mover.reply_to(mid)
    assert reply["t"] == "ack", reply
    event = await mover.seen_or_next(lambda m: m["t"] == "event" and m["n"] == n + 1)
    assert event["kind"] == "move" and event["state"]["status"] == "active"
    assert event["state"]["ply"] == state["ply"] + 1
    # No timeout came after it either: the next event is the defenders' move.
    after = event["state"]
    await other.move(game, after["ply"], after["legal"][0])
    nxt = await other.seen_or_next(lambda m: m["t"] == "event" and m["n"] == n + 2)
    assert nxt["kind"] == "move"
    for sock in sockets.values():
        await sock.close()


async def test_a_move_received_after_the_deadline_is_refused(
    own_redis: EmbeddedRedis, start_hub: Any
) -> None:
    hub = start_hub(ENV, redis=own_redis.url)
    game, alice, bob = await friend_game(hub.url, move_time=60)
    sockets = await seated(game, alice, bob)
    state, n = await opening(game, sockets)
    deadline = state["deadline"]
    mover = sockets["attackers"]

    await until(deadline - 500)
    with frozen(own_redis):
        await until(deadline + 500)
        mid = await mover.move(game, state["ply"], state["legal"][0])  # too late
        await asyncio.sleep(0.3)
    reply = await mover.reply_to(mid)
    assert reply["t"] == "error", reply
    # The commit found the deadline passed, or the timeout had already ended the game.
    assert reply["code"] in ("deadline_passed", "game_not_active"), reply
    ended = await mover.seen_or_next(lambda m: m["t"] == "event" and m["n"] == n + 1)
    assert ended["kind"] == "timeout" and ended["side"] == "attackers"
    assert ended["state"]["result"] == {"winner": "defenders", "reason": "timeout"}
    for sock in sockets.values():
        await sock.close()
