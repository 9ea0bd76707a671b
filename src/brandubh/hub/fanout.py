"""Fan-out between hub processes: one pub/sub listener per process, and the local registry
of which sockets follow which game.

Every commit publishes its event frame on the game's bucket channel; each hub process
listens on all bucket channels and hands each frame to the sockets it holds for that game.
Pub/sub is at-most-once, so each subscription also numbers what it delivered and fills any
gap from the game's event list (``connection.Subscription``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, Protocol

import msgpack
from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from brandubh.hub import keys

log = logging.getLogger("brandubh.hub")


class Listener(Protocol):
    """Something that follows one game on this process (a socket's subscription)."""

    def on_frame(self, kind: str, n: int, frame: bytes) -> None: ...
    def resync(self) -> None: ...


# Called for every event on this process (the bot worker wakes on them); must not block.
EventHook = Callable[[dict[str, Any]], None]


class Fanout:
    """The process's pub/sub listener and its registry of local subscriptions."""

    def __init__(self, redis: Redis, pubsub: Callable[[], PubSub] | None = None) -> None:
        self.redis = redis
        # Opens a pub/sub connection; on a cluster, to another node each time (app.py).
        self.pubsub = pubsub or (lambda: redis.pubsub(ignore_subscribe_messages=True))
        self.games: dict[str, set[Listener]] = {}
        self.hooks: list[EventHook] = []
        # Frames of the lobby channel: (decoded map, raw frame).
        self.lobby_hooks: list[Callable[[dict[str, Any], bytes], None]] = []
        # Notices of the hubs' own channel (keys.hub_channel): sessions that ended.
        self.hub_hooks: list[Callable[[dict[str, Any]], None]] = []
        self.ready = asyncio.Event()

    def add(self, game_id: str, listener: Listener) -> None:
        self.games.setdefault(game_id, set()).add(listener)

    def remove(self, game_id: str, listener: Listener) -> None:
        listeners = self.games.get(game_id)
        if listeners is not None:
            listeners.discard(listener)
            if not listeners:
                del self.games[game_id]

    async def listen(self) -> None:
        """Listen for ever (the lifespan's task group runs it); ``ready`` once subscribed."""
        first = True
        while True:
            pubsub = self.pubsub()
            try:
                await pubsub.subscribe(
                    *(keys.channel(b) for b in range(keys.BUCKETS)),
                    keys.lobby_channel(),
                    keys.hub_channel(),
                )
                if not first:
                    # Whatever was published while we were away reaches nobody: catch up.
                    for listeners in list(self.games.values()):
                        for listener in list(listeners):
                            listener.resync()
                first = False
                self.ready.set()
                lobby = keys.lobby_channel().encode()
                hubs = keys.hub_channel().encode()
                async for message in pubsub.listen():
                    if message["type"] != "message":
                        continue
                    if message["channel"] == lobby:
                        self._dispatch_lobby(message["data"])
                    elif message["channel"] == hubs:
                        self._dispatch_hub(message["data"])
                    else:
                        self._dispatch(message["data"])
            except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
                log.warning("pub/sub connection lost (%s); reconnecting", exc)
                await asyncio.sleep(0.2)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]

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

    def _dispatch(self, data: bytes) -> None:
        try:
            msg = msgpack.unpackb(data, raw=False)
            kind, game_id = msg["t"], msg["game"]
        except (ValueError, KeyError, TypeError):
            log.error("unreadable frame on a game channel; dropped")
            return
        for listener in list(self.games.get(game_id, ())):
            listener.on_frame(kind, msg.get("n", 0), data)
        if kind == "event":
            for hook in self.hooks:
                hook(msg)
