"""Fan-out between hub processes: one pub/sub connection per process, and the local
registry of which sockets follow which game.

Every commit publishes its event on the game's own sharded channel (keys.game_channel,
SPUBLISH) as "<n> <frame>"; notices about the game go there as "0 <frame>". A process
subscribes (SSUBSCRIBE) to a game's channel when its first socket follows the game and
unsubscribes after its last one leaves, so a hub receives only the events of games it
holds sockets for. ``add`` returns once the subscription is in effect: what the caller
then reads from the event list (its catch-up) and what pub/sub brings overlap, and leave
no gap between them. Pub/sub is at-most-once, so each subscription also numbers what it
delivered and fills any gap from the game's event list (``connection.Subscription``).

A change this process commits is delivered to its own sockets at once (``deliver``, a
commit hook); the copy pub/sub brings back is then a duplicate the subscription skips.
The lobby's and the hubs' own channels stay ordinary channels every hub listens on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, Final, Protocol

import msgpack
from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from brandubh.hub import keys, outage

log = logging.getLogger("brandubh.hub")

# How long ``add`` waits for Redis to confirm a subscription before going on regardless
# (then a gap, if any, is filled when the next event shows it).
SUBSCRIBE_WAIT_S: Final = 5.0


class Listener(Protocol):
    """Something that follows one game on this process (a socket's subscription)."""

    def on_frame(self, n: int, frame: bytes) -> None: ...
    def resync(self) -> None: ...


# Called with (game id, event number) for every event pub/sub brings; must not block.
EventHook = Callable[[str, int], None]


class Fanout:
    """The process's pub/sub connection and its registry of local subscriptions."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self.games: dict[str, set[Listener]] = {}
        self.hooks: list[EventHook] = []
        # Frames of the lobby channel: (decoded map, raw frame).
        self.lobby_hooks: list[Callable[[dict[str, Any], bytes], None]] = []
        # Notices of the hubs' own channel (keys.hub_channel): sessions that ended.
        self.hub_hooks: list[Callable[[dict[str, Any]], None]] = []
        self.ready = asyncio.Event()
        self.received = 0  # game-channel messages received (bench/load.py reads it)
        self._pubsub: PubSub | None = None
        # SSUBSCRIBEs sent and not yet confirmed, per game, and who waits for them.
        self._unconfirmed: dict[str, int] = {}
        self._joined: dict[str, asyncio.Future[None]] = {}

    # -- the local registry ------------------------------------------------------------

    async def add(self, game_id: str, listener: Listener) -> None:
        """Follow a game; returns once its channel's subscription is in effect."""
        listeners = self.games.get(game_id)
        if listeners is None:
            self.games[game_id] = {listener}
            joined = self._joined[game_id] = asyncio.get_running_loop().create_future()
            await self._subscribe(game_id)
        else:
            listeners.add(listener)
            joined = self._joined.get(game_id) or _done()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(joined), SUBSCRIBE_WAIT_S)

    async def remove(self, game_id: str, listener: Listener) -> None:
        listeners = self.games.get(game_id)
        if listeners is None:
            return
        listeners.discard(listener)
        if not listeners:
            del self.games[game_id]
            self._joined.pop(game_id, None)
            if self._pubsub is not None:
                with contextlib.suppress(RedisConnectionError, RedisTimeoutError, OSError):
                    await self._pubsub.sunsubscribe(keys.game_channel(game_id))

    def deliver(self, game_id: str, n: int, frame: bytes) -> None:
        """Hand an event to this process's sockets that follow its game."""
        for listener in list(self.games.get(game_id, ())):
            listener.on_frame(n, frame)

    async def _subscribe(self, game_id: str) -> None:
        if self._pubsub is None:
            return  # reconnecting: the new connection subscribes to every followed game
        self._unconfirmed[game_id] = self._unconfirmed.get(game_id, 0) + 1
        # On failure the listener reconnects, subscribes again and resyncs everyone.
        with contextlib.suppress(RedisConnectionError, RedisTimeoutError, OSError):
            await self._pubsub.ssubscribe(keys.game_channel(game_id))

    def _confirmed(self, channel: bytes) -> None:
        game_id = keys.game_of_channel(channel)
        left = self._unconfirmed.get(game_id, 0) - 1
        if left > 0:
            self._unconfirmed[game_id] = left
            return
        self._unconfirmed.pop(game_id, None)
        joined = self._joined.get(game_id)
        if joined is not None and not joined.done():
            joined.set_result(None)

    # -- listening ----------------------------------------------------------------------

    async def listen(self) -> None:
        """Listen for ever (the lifespan's task group runs it); ``ready`` once subscribed."""
        first = True
        lobby = keys.lobby_channel().encode()
        hubs = keys.hub_channel().encode()
        while True:
            pubsub = self.redis.pubsub()
            try:
                await pubsub.subscribe(keys.lobby_channel(), keys.hub_channel())
                self._unconfirmed.clear()
                if self.games:
                    await pubsub.ssubscribe(*(keys.game_channel(g) for g in self.games))
                self._pubsub = pubsub
                for joined in self._joined.values():
                    if not joined.done():
                        joined.set_result(None)  # everyone resyncs below anyway
                if not first:
                    # Whatever was published while we were away reaches nobody: catch up.
                    for listeners in list(self.games.values()):
                        for listener in list(listeners):
                            listener.resync()
                first = False
                self.ready.set()
                async for message in pubsub.listen():
                    kind = message["type"]
                    if kind == "smessage":
                        self._dispatch(message["channel"], message["data"])
                    elif kind == "message":
                        if message["channel"] == lobby:
                            self._dispatch_lobby(message["data"])
                        elif message["channel"] == hubs:
                            self._dispatch_hub(message["data"])
                    elif kind == "ssubscribe":
                        self._confirmed(message["channel"])
            except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
                outage.report("fan-out", exc)  # one line per outage, not per retry
                await asyncio.sleep(0.2)
            finally:
                self._pubsub = None
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]

    def _dispatch(self, channel: bytes, data: bytes) -> None:
        self.received += 1
        head, _, frame = data.partition(b" ")
        try:
            n = int(head)
        except ValueError:
            log.error("unreadable message on a game channel; dropped")
            return
        game_id = keys.game_of_channel(channel)
        for listener in list(self.games.get(game_id, ())):
            listener.on_frame(n, frame)
        if n:
            for hook in self.hooks:
                hook(game_id, n)

    def _dispatch_lobby(self, data: bytes) -> None:
        try:
            msg = msgpack.unpackb(data, raw=False)
        except ValueError:
            log.error("unreadable frame on the lobby channel; dropped")
            return
        for hook in self.lobby_hooks:
            hook(msg, data)

    def _dispatch_hub(self, data: bytes) -> None:
        try:
            msg = msgpack.unpackb(data, raw=False)
        except ValueError:
            log.error("unreadable frame on the hubs' channel; dropped")
            return
        if isinstance(msg, dict):
            for hook in self.hub_hooks:
                hook(msg)


def _done() -> asyncio.Future[None]:
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    done.set_result(None)
    return done
