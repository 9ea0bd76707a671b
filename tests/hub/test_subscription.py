"""A subscription's catch-up (hub/wire/subscription.py) with stand-in services: pure asyncio."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any, cast

from brandubh.hub.messages import frames
from brandubh.hub.wire.connection import Connection
from brandubh.hub.wire.subscription import Subscription


class Games:
    """A game at event 3 whose first catch-up waits until ``release`` is set, and any later
    one until ``again`` is."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.again = asyncio.Event()
        self.loads = 0

    async def load(self, game_id: str) -> Any:
        self.loads += 1
        await (self.release if self.loads == 1 else self.again).wait()
        return SimpleNamespace(seq=3)

    async def snapshot_frame(self, state: Any, watchers: int) -> bytes:
        return b"snapshot"

    async def events_after(self, game_id: str, since: int) -> list[bytes]:
        return [b"event %d" % n for n in range(since + 1, 4)]


async def count(game_id: str) -> int:
    return 1


PRESENCE_VERSION = [5]  # what the catch-up reads: the version of its presence answer


async def presence_frame(game_id: str) -> tuple[int, bytes]:
    return PRESENCE_VERSION[0], b"presence"


async def recent(state: Any, viewer: str | None) -> tuple[str | None, list[Any]]:
    return "spectators", []


async def hidden(viewer: str | None) -> frozenset[str]:
    return frozenset()  # whose lines the viewer never sees: nobody here


CHAT = frames.chat_lines("g1", "spectators", [])  # the chat's lines, after each catch-up


def catching_up(sent: list[bytes]) -> tuple[Subscription, Games, asyncio.Task[None]]:
    """A spectator's subscription sending into ``sent``, its first catch-up started."""
    games = Games()
    services = SimpleNamespace(
        games=games,
        settings=SimpleNamespace(replay_window=100),
        watchers=SimpleNamespace(count=count),
        presence=SimpleNamespace(frame=presence_frame),
        chat=SimpleNamespace(recent=recent, hidden=hidden),
    )
    conn = SimpleNamespace(services=services, send=sent.append, player=None)
    sub = Subscription(cast(Connection, conn), "g1", spectator=True)
    sub.start(None)
    assert sub.task is not None
    return sub, games, sub.task


async def test_a_finished_catch_up_is_not_held_while_the_socket_follows() -> None:
    sent: list[bytes] = []
    sub, games, first = catching_up(sent)
    sub.on_frame(4, b"event 4")  # live, during the catch-up: delivered after it
    games.release.set()
    await asyncio.wait_for(first, 5)
    assert sent == [b"snapshot", b"presence", CHAT, b"event 4"]
    assert sub.task is None and not sub.syncing and sub.last == 4


async def test_a_gap_found_by_a_catch_up_keeps_the_next_one() -> None:
    sent: list[bytes] = []
    sub, games, first = catching_up(sent)
    sub.on_frame(6, b"event 6")  # event 4 and 5 are missing: a second catch-up follows
    games.release.set()
    await asyncio.wait_for(first, 5)
    second = sub.task  # (the first, ending, did not forget it)
    assert second is not None and second is not first and sub.syncing
    games.again.set()
    await asyncio.wait_for(second, 5)
    assert sub.task is None and sent == [b"snapshot", b"presence", CHAT, b"presence", CHAT]


async def test_a_presence_older_than_one_sent_is_not_sent() -> None:
    # The catch-up's presence and pub/sub's travel on two connections: a change heard on
    # pub/sub (version 7) may arrive before the catch-up's older read (version 5).
    sent: list[bytes] = []
    sub, games, first = catching_up(sent)
    sub.on_presence(7, b"presence 7")
    games.release.set()
    await asyncio.wait_for(first, 5)
    assert sent == [b"presence 7", b"snapshot", CHAT]
    sub.on_presence(6, b"presence 6")  # older still: dropped
    sub.on_presence(8, b"presence 8")
    assert sent[-1] == b"presence 8" and b"presence 6" not in sent
