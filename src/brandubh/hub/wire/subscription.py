"""One socket following one game: each event delivered once, in order, with no gap, the
chat lines of the room it sees (apart from the events), and the entry that says the
socket watches (a spectator) or plays (presence) there. A "socket" is any ``Follower``: a
websocket's connection, or a bot's game stream (hub/botapi/)."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Protocol

from brandubh.hub.errors import Refusal
from brandubh.hub.messages import frames
from brandubh.hub.redis import UNREACHABLE, outage

if TYPE_CHECKING:
    from brandubh.hub.live import Player
    from brandubh.hub.wire.connection import Services

log = logging.getLogger(__name__)


class Follower(Protocol):
    """What a subscription sends to: a websocket's connection, or a bot's game stream."""

    @property
    def services(self) -> Services: ...
    @property
    def player(self) -> Player | None: ...
    @property
    def id(self) -> str: ...
    def send(self, frame: bytes) -> None: ...


class Subscription:
    """One socket following one game: delivers each event once, in order, with no gap."""

    __slots__ = (
        "conn",
        "game_id",
        "hidden",
        "last",
        "pending",
        "presence",
        "spectator",
        "syncing",
        "task",
    )

    def __init__(self, conn: Follower, game_id: str, spectator: bool) -> None:
        self.conn = conn
        self.game_id = game_id
        self.spectator = spectator
        self.last = -1  # last event number sent; -1 until the first sync
        self.syncing = False
        self.pending: list[tuple[int, bytes]] = []
        self.task: asyncio.Task[None] | None = None  # the catch-up, while it runs
        self.presence = -1  # the version of the last presence sent (lua/presence.lua)
        # Authors whose lines this socket's player never sees (the players they block):
        # read with each catch-up, so a block applies from the game's next opening.
        self.hidden: frozenset[str] = frozenset()

    # -- the socket's entry: a spectator is counted, a player is present -----------------

    async def enter(self) -> None:
        """Say that this socket watches the game, or that its player is here."""
        conn = self.conn
        if self.spectator:
            await conn.services.watchers.update(self.game_id, conn.id, "add")
        elif conn.player is not None:
            await conn.services.presence.update(self.game_id, conn.id, conn.player.id, "add")

    async def renew(self) -> None:
        """Renew the entry before it expires (heartbeat)."""
        conn = self.conn
        if self.spectator:
            await conn.services.watchers.update(self.game_id, conn.id, "add", publish=False)
        elif conn.player is not None:
            await conn.services.presence.update(self.game_id, conn.id, conn.player.id, "add")

    async def leave(self) -> None:
        """Stop following: no more frames, and the entry is taken out."""
        conn = self.conn
        if self.task is not None:
            self.task.cancel()
        await conn.services.fanout.remove(self.game_id, self)
        if self.spectator:
            await conn.services.watchers.update(self.game_id, conn.id, "del")
        elif conn.player is not None:
            await conn.services.presence.update(self.game_id, conn.id, conn.player.id, "del")

    # -- delivery ------------------------------------------------------------------------

    def on_frame(self, n: int, frame: bytes) -> None:
        """An event numbered ``n``, or a notice (``n`` 0: watcher counts, rematch, match)."""
        if not n:
            self.conn.send(frame)  # notices are not numbered
        elif self.syncing:
            self.pending.append((n, frame))
        else:
            self._deliver(n, frame)

    def on_chat(self, room: str, author: str, muted: bool, frame: bytes) -> None:
        """A chat line: sent at once if this socket sees its room (chat/service.py), and a
        muted author's only to that author's own sockets, and none by an author this
        socket's player blocks. It takes no event number."""
        player = self.conn.player
        if room != ("spectators" if self.spectator else "players") or author in self.hidden:
            return
        if muted and (player is None or player.id != author):
            return
        self.conn.send(frame)

    def on_presence(self, version: int, frame: bytes) -> None:
        """Who is connected: sent unless this socket already had a newer answer (the
        catch-up reads presence on another connection than pub/sub brings it on)."""
        if version >= self.presence:
            self.presence = version
            self.conn.send(frame)

    def _deliver(self, n: int, frame: bytes) -> None:
        if n <= self.last:
            return  # already sent (it arrived by catch-up and by pub/sub)
        if n == self.last + 1:
            self.conn.send(frame)
            self.last = n
        else:
            self.resync()

    def resync(self) -> None:
        """Fill a gap from the event list (or a snapshot), then resume live delivery."""
        if not self.syncing:
            self.start(self.last)

    def start(self, since: int | None) -> None:
        self.syncing = True
        self.task = asyncio.create_task(self._sync(since))

    async def _sync(self, since: int | None) -> None:
        try:
            await self._catch_up(since)
        finally:
            # Done: not held for as long as the socket follows the game (memory per socket),
            # unless a gap found meanwhile started the next catch-up.
            if self.task is asyncio.current_task():
                self.task = None

    async def _catch_up(self, since: int | None) -> None:
        services = self.conn.services
        games = services.games
        try:
            state = await games.load(self.game_id)
            window = services.settings.replay_window
            if since is None or since < 0 or since > state.seq or state.seq - since > window:
                watchers = await services.watchers.count(self.game_id)
                self.conn.send(await games.snapshot_frame(state, watchers))
                self.last = state.seq
            else:
                events = await games.events_after(self.game_id, since)
                if len(events) < state.seq - since:
                    # The events left Redis with the game (archived): the final state.
                    watchers = await services.watchers.count(self.game_id)
                    self.conn.send(await games.snapshot_frame(state, watchers))
                    since = state.seq
                else:
                    for frame in events:
                        since += 1
                        self.conn.send(frame)
                self.last = since
            # Who is connected, after the state it belongs to (changes follow as frames).
            self.on_presence(*await services.presence.frame(self.game_id))
            # The chat's latest lines: with each snapshot and catch-up, by their own numbers.
            player = self.conn.player
            viewer = player.id if player else None
            self.hidden = await services.chat.hidden(viewer)
            room, lines = await services.chat.recent(state, viewer)
            self.conn.send(frames.chat_lines(self.game_id, room, lines))
            self.syncing = False
            pending, self.pending = sorted(self.pending, key=lambda p: p[0]), []
            for n, frame in pending:
                self._deliver(n, frame)
        except Refusal as exc:
            self.syncing = False
            self.conn.send(frames.error(exc.code, exc.message, game=self.game_id))
        except Exception as exc:
            self.syncing = False
            if isinstance(exc, UNREACHABLE):
                outage.report("catch-up", exc)
            else:
                log.exception("catch-up failed for game %s", self.game_id)
            self.conn.send(
                frames.error("unavailable", "could not load the game; retrying", game=self.game_id)
            )
