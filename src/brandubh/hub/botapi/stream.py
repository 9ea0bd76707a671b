"""A bot's stream of one of its games: the game followed as a websocket follows it
(``wire.Subscription`` on the fan-out: each event once, in order, with no gap, caught up
from the event list), its frames turned into NDJSON lines (lines.py), an empty line when
nothing was said for KEEPALIVE_S, the player shown present while it is open.

Its queue is bounded as a websocket's outbound queue is (``Settings.outbound_queue``, plus
the replay window that a catch-up sends at once): the HTTP answer waits while its client does
not read, and a reader that falls that many lines behind has its backlog dropped for one last
``too_slow`` line, and its stream stops following the game; the client resumes with
``since`` (docs/protocol.md §2.9).

A line is written at once, straight to the connection as a chunk of the answer (the
protocol's direct writer: wire's ``chunk_writer``), as a socket's frame is, while nothing
waits before it and the connection takes writes: no task wakes for it. Otherwise it joins
the queue, which the answer's task sends (waiting while the transport is paused); the task
also sends the answer's headers, the keep-alive lines and the end."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable
from typing import Final

from brandubh.hub.botapi.lines import KEEPALIVE_S, Line, line_of, too_slow_line
from brandubh.hub.live import Player
from brandubh.hub.redis import UNREACHABLE
from brandubh.hub.wire import Subscription, connection

# The player's presence entry is renewed this often (it runs out after a minute:
# wire/presence.py), as a websocket's heartbeat renews its own.
PRESENCE_RENEW_S: Final = 20.0

log = logging.getLogger(__name__)

# Writes a line to the connection now if it takes it; False if not (queue it instead).
DirectWriter = Callable[[bytes], bool]


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
    """One open stream: a ``wire.Follower`` whose frames become lines, written direct or
    queued for the answer's task."""

    def __init__(
        self,
        services: connection.Services,
        player: Player,
        game_id: str,
        direct: DirectWriter | None = None,
    ) -> None:
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
        # Writes a line to the connection now (None: every line takes the queue, as under
        # another HTTP protocol, or once the answer's task stopped reading lines).
        self._direct = direct
        self._holding = False  # the task holds a line it has not yet written
        self._wrote = time.monotonic()  # when a line (or a keep-alive) last went out

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
        direct = self._direct
        # Straight to the connection only with nothing before it (queued, or held by the
        # task), so that lines keep their order; never once the stream's end is queued.
        if (
            direct is not None
            and not self._holding
            and not self._ending
            and not self._queue.qsize()
            and direct(line.text)
        ):
            self._wrote = time.monotonic()
            if line.final:  # the task ends the answer after it
                self._ending = True
                self._queue.put_nowait(Line(b"", final=True))
            return
        if line.final:
            self._ending = True  # what comes after it is never read: nothing direct either
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
        """The stream's bytes that its task sends, until the game's final state (or a
        failed catch-up, or the server's stop); the lines written direct are not among them."""
        renewed = time.monotonic()
        queue = self._queue
        try:
            while True:
                line: Line | None = None
                if not queue.empty():  # a line waiting is taken at once, with no timer
                    line = queue.get_nowait()
                else:
                    # An empty line after KEEPALIVE_S with none written, direct or not.
                    quiet = time.monotonic() - self._wrote
                    if quiet < KEEPALIVE_S:
                        try:
                            async with asyncio.timeout(KEEPALIVE_S - quiet):
                                line = await queue.get()
                        except TimeoutError:
                            pass
                if line is None:
                    if time.monotonic() - self._wrote >= KEEPALIVE_S:
                        self._holding = True
                        yield b"\n"
                        self._holding = False
                        self._wrote = time.monotonic()
                else:
                    if line.text:
                        self._holding = True
                        yield line.text
                        self._holding = False
                        self._wrote = time.monotonic()
                    if line.final:
                        return
                # (Not once it has fallen behind: its entry is gone, and stays gone.)
                if self._open and time.monotonic() - renewed >= PRESENCE_RENEW_S:
                    renewed = time.monotonic()
                    with contextlib.suppress(*UNREACHABLE):  # renewed again at the next turn
                        await self._sub.renew()
        finally:
            # The task no longer sends lines (the end, or its client went): none direct
            # either, which would come after the answer's end or on a closed connection.
            self._direct = None

    async def close(self) -> None:
        """Stop following (the client went, or the game ended)."""
        self.closed = True
        if self._open:
            self._open = False
            await self._sub.leave()
        elif self._leaving is not None:
            await self._leaving  # left when it fell behind: done before it is forgotten
