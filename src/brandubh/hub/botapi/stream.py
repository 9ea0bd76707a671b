"""A bot's stream of one of its games: the game followed as a websocket follows it
(``wire.Subscription`` on the fan-out: each event once, in order, with no gap, caught up
from the event list), its frames turned into NDJSON lines (lines.py), an empty line when
nothing was said for KEEPALIVE_S, the player shown present while it is open.

Its queue is bounded as a websocket's outbound queue is (``Settings.outbound_queue``, plus
the replay window that a catch-up sends at once): the HTTP answer waits while its client does
not read, and a reader that falls that many lines behind has its backlog dropped for one last
``too_slow`` line, and its stream stops following the game; the client resumes with
``since`` (docs/protocol.md §2.9)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator
from typing import Final

from brandubh.hub.botapi.lines import KEEPALIVE_S, Line, line_of, too_slow_line
from brandubh.hub.live import Player
from brandubh.hub.redis import UNREACHABLE
from brandubh.hub.wire import Subscription, connection

# The player's presence entry is renewed this often (it runs out after a minute:
# wire/presence.py), as a websocket's heartbeat renews its own.
PRESENCE_RENEW_S: Final = 20.0

log = logging.getLogger(__name__)


class _LastLine:
    """The frame last turned into a line, and its line: the fan-out hands one frame to each
    of the game's streams on this hub in turn (both players' bots), decoded once for all."""

    frame: bytes = b""
    line: Line | None = None

    @classmethod
    def of(cls, frame: bytes) -> Line | None:
        if frame != cls.frame:
            cls.line = line_of(frame)
            cls.frame = frame
        return cls.line


class GameStream:
    """One open stream: a ``wire.Follower`` whose frames become lines in a queue."""

    def __init__(self, services: connection.Services, player: Player, game_id: str) -> None:
        self.services = services
        self.player = player
        self.id = secrets.token_hex(8)  # this stream's presence entry, as a socket's id
        self.game_id = game_id
        self._queue: asyncio.Queue[Line] = asyncio.Queue()
        # A catch-up queues up to the replay window's events at once, then the live ones.
        settings = services.settings
        self._bound = settings.outbound_queue + settings.replay_window
        self._sub = Subscription(self, game_id, spectator=False)
        self._open = False
        self.closed = False
        self._ending = False
        self.too_slow = False
        self._leaving: asyncio.Task[None] | None = None

    @property
    def queued(self) -> int:
        """Lines waiting for the client to read them (at most the bound, plus one last)."""
        return self._queue.qsize()

    def send(self, frame: bytes) -> None:
        """A frame of the subscription: its line queued, if the bot is to see it; past the
        bound, the stream ends instead (``_fall_behind``)."""
        if self.too_slow:
            return
        line = _LastLine.of(frame)
        if line is None:
            return
        if self._queue.qsize() >= self._bound:
            self._fall_behind()
        else:
            self._queue.put_nowait(line)

    def _fall_behind(self) -> None:
        """The client reads too slowly: what waits for it is dropped (it resumes with
        ``since`` from the last line it read, which the events list still has) for one last
        line that says so, and the game is no longer followed for it."""
        self.too_slow = True
        while not self._queue.empty():
            self._queue.get_nowait()
        self._queue.put_nowait(too_slow_line(self._bound))
        log.info("bot stream of %s ended: reader %d lines behind", self.game_id, self._bound)
        if self._open:
            self._open = False
            self._leaving = asyncio.create_task(self._leave())

    async def _leave(self) -> None:
        # Unreachable, the presence entry runs out by itself (wire/presence.py).
        with contextlib.suppress(*UNREACHABLE):
            await self._sub.leave()

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
                # A line waiting is taken at once, with no timer; the wait for one is timed.
                if self._queue.empty():
                    async with asyncio.timeout(KEEPALIVE_S):
                        line = await self._queue.get()
                else:
                    line = self._queue.get_nowait()
            except TimeoutError:
                yield b"\n"
            else:
                if line.text:
                    yield line.text
                if line.final:
                    return
            # (Not once it has fallen behind: its entry is gone, and stays gone.)
            if self._open and time.monotonic() - renewed >= PRESENCE_RENEW_S:
                renewed = time.monotonic()
                with contextlib.suppress(*UNREACHABLE):  # renewed again at the next turn
                    await self._sub.renew()

    async def close(self) -> None:
        """Stop following (the client went, or the game ended)."""
        self.closed = True
        if self._open:
            self._open = False
            await self._sub.leave()
        elif self._leaving is not None:
            await self._leaving  # left when it fell behind: done before it is forgotten
