"""A bot's stream of one of its games: the game followed as a websocket follows it
(``wire.Subscription`` on the fan-out: each event once, in order, with no gap, caught up
from the event list), its frames turned into NDJSON lines (lines.py), an empty line when
nothing was said for KEEPALIVE_S, the player shown present while it is open."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import AsyncIterator
from typing import Final

from brandubh.hub.botapi.lines import KEEPALIVE_S, Line, line_of
from brandubh.hub.live import Player
from brandubh.hub.redis import UNREACHABLE
from brandubh.hub.wire import Subscription, connection

# The player's presence entry is renewed this often (it runs out after a minute:
# wire/presence.py), as a websocket's heartbeat renews its own.
PRESENCE_RENEW_S: Final = 20.0


class GameStream:
    """One open stream: a ``wire.Follower`` whose frames become lines in a queue."""

    def __init__(self, services: connection.Services, player: Player, game_id: str) -> None:
        self.services = services
        self.player = player
        self.id = secrets.token_hex(8)  # this stream's presence entry, as a socket's id
        self.game_id = game_id
        self._queue: asyncio.Queue[Line] = asyncio.Queue()
        self._sub = Subscription(self, game_id, spectator=False)
        self._open = False
        self.closed = False
        self._ending = False

    def send(self, frame: bytes) -> None:
        """A frame of the subscription: its line queued, if the bot is to see it."""
        line = line_of(frame)
        if line is not None:
            self._queue.put_nowait(line)

    def end(self) -> None:
        """End the stream after what is queued (the server stops)."""
        if not self._ending:
            self._ending = True
            self._queue.put_nowait(Line(b"", final=True))

    async def open(self, since: int | None) -> None:
        """Follow the game, then catch up from ``since`` (None: the whole state first)."""
        sub = self._sub
        sub.syncing = True  # events arriving while it subscribes wait for the catch-up
        await self.services.fanout.add(self.game_id, sub)
        self._open = True
        await sub.enter()
        sub.start(since)

    async def lines(self) -> AsyncIterator[bytes]:
        """The stream's bytes, until the game's final state (or a failed catch-up, or the
        server's stop)."""
        renewed = time.monotonic()
        while True:
            try:
                line = await asyncio.wait_for(self._queue.get(), KEEPALIVE_S)
            except TimeoutError:
                yield b"\n"
            else:
                if line.text:
                    yield line.text
                if line.final:
                    return
            if time.monotonic() - renewed >= PRESENCE_RENEW_S:
                renewed = time.monotonic()
                with contextlib.suppress(*UNREACHABLE):  # renewed again at the next turn
                    await self._sub.renew()

    async def close(self) -> None:
        """Stop following (the client went, or the game ended)."""
        self.closed = True
        if self._open:
            self._open = False
            await self._sub.leave()
