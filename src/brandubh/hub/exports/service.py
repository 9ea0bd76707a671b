"""Exports: the limits a requester has (an address: so many an hour; a token: its own
window, counted by its guard; either: two at once on a hub) and the stream of lines from
the archive."""

from __future__ import annotations

import secrets
from collections.abc import AsyncGenerator
from typing import Final

from brandubh.hub.errors import RateLimited
from brandubh.hub.exports.lines import line
from brandubh.hub.exports.query import ExportQuery
from brandubh.hub.redis import Scripts, keys
from brandubh.store import Store

HOUR_MS: Final = 3_600_000
AT_ONCE: Final = 2  # exports one address or token may have running on one hub


class Exports:
    """Streams of a player's finished games, limited per requester: ``ip:<address>`` or
    ``token:<id>``."""

    def __init__(self, store: Store, scripts: Scripts, per_hour: int) -> None:
        self.store = store
        self.scripts = scripts
        self.per_hour = per_hour
        self._running: dict[str, int] = {}  # address -> exports streaming from this hub

    async def admit(self, requester: str, hourly: bool) -> None:
        """Count an export against its requester (``hourly``: against the address's hour
        too), or RateLimited; then ``stream`` it."""
        if self._running.get(requester, 0) >= AT_ONCE:
            raise RateLimited(f"you have {AT_ONCE} exports running: wait for one to finish", 5)
        if not (hourly and self.per_hour):
            return
        reply = await self.scripts.windows(
            keys=[f"{keys.export_limits()}:{requester}"],
            args=[HOUR_MS, secrets.token_hex(8), self.per_hour],
        )
        if int(reply[0]):
            raise RateLimited(
                f"your address has made as many exports as an hour allows ({self.per_hour})",
                max(1, int(reply[1]) // 1000),
            )

    async def stream(
        self, requester: str, player_id: str, query: ExportQuery
    ) -> AsyncGenerator[bytes, None]:
        """The export's bytes, a game at a time, counted as running until it ends (or the
        client goes, which closes this generator)."""
        self._running[requester] = self._running.get(requester, 0) + 1
        try:
            async for game in self.store.stream_player_games(player_id, query.games):
                yield line(game, query.format)
        finally:
            left = self._running[requester] - 1
            if left:
                self._running[requester] = left
            else:
                del self._running[requester]
