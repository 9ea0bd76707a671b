"""Spectator counts: each watching socket is an entry in its game's watcher set.

Entries expire (``WATCHER_TTL_MS``, refreshed by the socket's heartbeat) so that a hub that
dies does not leave its spectators counted; lua/watchers.lua publishes each new count, at
most one per ``PUBLISH_EVERY_MS`` per game: a change held back is published by this hub
once the interval has passed (one pending publish per game), so the last count always
reaches the players.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Final, Literal

from brandubh.hub.redis import Scripts, keys, outage

WATCHER_TTL_MS: Final = 60_000
PUBLISH_EVERY_MS: Final = 250

WatcherOp = Literal["add", "del", "get"]


class Watchers:
    def __init__(self, scripts: Scripts) -> None:
        self.scripts = scripts
        self._pending: dict[str, asyncio.Task[None]] = {}

    async def count(self, game_id: str) -> int:
        return await self.update(game_id, "", "get", publish=False)

    async def update(
        self, game_id: str, conn_id: str, op: WatcherOp, *, publish: bool = True
    ) -> int:
        """Add, refresh or remove one socket; the new count (published unless told not)."""
        count, published = await self.scripts.watchers(
            keys=[
                keys.watchers(game_id),
                keys.watchers_published(game_id),
                keys.game_hubs(game_id),
            ],
            args=[
                conn_id,
                op,
                WATCHER_TTL_MS,
                keys.game_channel_stem(game_id),
                game_id,
                "1" if publish else "0",
                PUBLISH_EVERY_MS,
            ],
        )
        if not int(published) and game_id not in self._pending:
            task = asyncio.create_task(self._publish_later(game_id))
            self._pending[game_id] = task
        return int(count)

    async def _publish_later(self, game_id: str) -> None:
        try:
            await asyncio.sleep(PUBLISH_EVERY_MS / 1000)
            del self._pending[game_id]
            await self.update(game_id, "", "get")
        except outage.UNREACHABLE as exc:
            outage.report("watcher count", exc)
        finally:
            with contextlib.suppress(KeyError):
                if self._pending.get(game_id) is asyncio.current_task():
                    del self._pending[game_id]
