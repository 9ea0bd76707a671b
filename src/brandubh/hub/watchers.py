"""Spectator counts: each watching socket is an entry in its game's watcher set.

Entries expire (``WATCHER_TTL_MS``, refreshed by the socket's heartbeat) so that a hub that
dies does not leave its spectators counted; lua/watchers.lua publishes each new count.
"""

from __future__ import annotations

from typing import Final, Literal

from brandubh.hub import keys
from brandubh.hub.scripts import Scripts

WATCHER_TTL_MS: Final = 60_000

WatcherOp = Literal["add", "del", "get"]


class Watchers:
    def __init__(self, scripts: Scripts) -> None:
        self.scripts = scripts

    async def count(self, game_id: str) -> int:
        return await self.update(game_id, "", "get", publish=False)

    async def update(
        self, game_id: str, conn_id: str, op: WatcherOp, *, publish: bool = True
    ) -> int:
        """Add, refresh or remove one socket; the new count (published unless told not)."""
        count = await self.scripts.watchers(
            keys=[keys.watchers(game_id)],
            args=[
                conn_id,
                op,
                WATCHER_TTL_MS,
                keys.game_channel(game_id),
                game_id,
                "1" if publish else "0",
            ],
        )
        return int(count)
