"""One websocket: its limits, its outbound queue, its heartbeat and the games it follows.

The player a socket speaks for comes from its session cookie, never from a message. A
socket without a player, or following a game it does not play, is a spectator: it can
receive, and every action it tries is refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Final

from starlette.websockets import WebSocket, WebSocketDisconnect

from brandubh.hub.accounts import COOKIE, Sessions
from brandubh.hub.config import Settings
from brandubh.hub.errors import CODES, ProtocolError, Refusal, verification_required
from brandubh.hub.live import GameService, MatchService, Player
from brandubh.hub.lobby import Lobby
from brandubh.hub.messages import (
    CLOSE_HEARTBEAT,
    CLOSE_INTERNAL_ERROR,
    CLOSE_ORIGIN_REFUSED,
    CLOSE_SESSION_ENDED,
    CLOSE_TOO_MANY_ERRORS,
    CLOSE_TOO_SLOW,
    CLOSE_TRY_AGAIN_LATER,
    MESSAGES,
    decode_frame,
    frames,
    validate,
)
from brandubh.hub.redis import UNREACHABLE, outage
from brandubh.hub.wire.fanout import Fanout
from brandubh.hub.wire.origin import origin_allowed
from brandubh.hub.wire.presence import Presence
from brandubh.hub.wire.sockets import Sockets
from brandubh.hub.wire.watchers import Watchers

log = logging.getLogger("brandubh.hub")

MAX_GAMES_PER_SOCKET = 16
SESSION_CHECK_S: Final = 1.0  # an acting socket's session is re-read at most this stale
# Messages that act for the socket's player: the session must still be alive for them.
ACTING: Final = frozenset(MESSAGES) - {"watch", "unwatch", "lobby", "ping", "pong"}


@dataclass(frozen=True)
class Services:
    """Exactly what a socket uses, given by the composition root (app.py)."""

    settings: Settings
    games: GameService
    fanout: Fanout
    watchers: Watchers
    presence: Presence
    lobby: Lobby
    matches: MatchService
    sockets: Sockets
    sessions: Sessions
    clock: Callable[[], int]  # this process's estimate of Redis's clock, ms
    stamp: Callable[[], int]  # the same, never going back: a move's receipt time
    hold: Callable[[int], AbstractContextManager[None]]  # a stamped move is in flight
    budgets: SharedBudgets
    verified: Callable[[str], Awaitable[bool]]  # whether an account confirmed its address
    heartbeat: Heartbeat


def disconnected(exc: BaseException) -> bool:
    """Whether an exception only says that the client went away (not an error of ours)."""
    return isinstance(exc, WebSocketDisconnect | OSError | EOFError) or (
        isinstance(exc, RuntimeError) and "close message has been sent" in str(exc)
    )


class TokenBucket:
    """``capacity`` tokens, refilled continuously at ``rate`` per second."""

    def __init__(self, capacity: float, rate: float) -> None:
        self.capacity = capacity
        self.rate = rate
        self.tokens = capacity
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class SharedBudgets:
    """What one session's sockets on this hub share (a message budget), and how many
    sockets each client address holds here (capped)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._sessions: dict[str, tuple[TokenBucket, int]] = {}
        self._addresses: dict[str, int] = {}

    def admit(self, address: str) -> bool:
        """Count a new socket of this address, unless it holds its share already."""
        held = self._addresses.get(address, 0)
        cap = self.settings.sockets_per_address
        if cap and held >= cap:
            return False
        self._addresses[address] = held + 1
        return True

    def release(self, address: str) -> None:
        held = self._addresses.get(address, 0) - 1
        if held > 0:
            self._addresses[address] = held
        else:
            self._addresses.pop(address, None)

    def join(self, session_id: str) -> TokenBucket:
        """The session's shared budget (one per session on this hub), for one more socket."""
        s = self.settings
        bucket, users = self._sessions.get(session_id) or (
            TokenBucket(s.session_credits, s.session_credits / s.credit_window_s),
            0,
        )
        self._sessions[session_id] = (bucket, users + 1)
        return bucket

    def leave(self, session_id: str) -> None:
        bucket, users = self._sessions[session_id]
        if users > 1:
            self._sessions[session_id] = (bucket, users - 1)
        else:
            del self._sessions[session_id]


class Heartbeat:
    """Pings every socket of this process from one loop, not a task per socket (a task
    waiting in a sleep costs about 2 KiB a socket): the sockets are spread over
    ``SLOTS`` turns of the interval, so the pings go out evenly, not in one burst."""

    SLOTS: Final = 10
    REFRESH_EVERY: Final = 8  # pings between refreshes of watcher and presence entries

    def __init__(self, interval_s: float) -> None:
        self.every_s = interval_s / self.SLOTS  # the pause between turns (app.loops)
        self._slots: list[set[Connection]] = [set() for _ in range(self.SLOTS)]
        self._added = 0
        self._turn = 0
        self._refreshing: asyncio.Task[None] | None = None

    def add(self, conn: Connection) -> None:
        self._slots[self._added % self.SLOTS].add(conn)
        self._added += 1

    def discard(self, conn: Connection) -> None:
        for slot in self._slots:
            slot.discard(conn)

    async def turn(self) -> None:
        """Ping one slot's sockets; refresh the entries of those due, off this loop."""
        slot = self._slots[self._turn % self.SLOTS]
        self._turn += 1
        due = [conn for conn in list(slot) if conn.beat(self.REFRESH_EVERY)]
        if due and (self._refreshing is None or self._refreshing.done()):
            # In the background: a slow Redis must not hold up anyone's ping.
            self._refreshing = asyncio.create_task(self._refresh(due))

    @staticmethod
    async def _refresh(conns: list[Connection]) -> None:
        for conn in conns:
            await conn.refresh()


class Subscription:
    """One socket following one game: delivers each event once, in order, with no gap."""

    def __init__(self, conn: Connection, game_id: str, spectator: bool) -> None:
        self.conn = conn
        self.game_id = game_id
        self.spectator = spectator
        self.last = -1  # last event number sent; -1 until the first sync
        self.syncing = False
        self.pending: list[tuple[int, bytes]] = []
        self.task: asyncio.Task[None] | None = None

    def on_frame(self, n: int, frame: bytes) -> None:
        """An event numbered ``n``, or a notice (``n`` 0: watcher counts, rematch, match)."""
        if not n:
            self.conn.send(frame)  # notices are not numbered
        elif self.syncing:
            self.pending.append((n, frame))
        else:
            self._deliver(n, frame)

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
            self.conn.send(await services.presence.frame(self.game_id))
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


Handler = Callable[["Connection", dict[str, Any]], Awaitable[None]]


class Connection:
    """A websocket from accept to close."""

    def __init__(
        self,
        services: Services,
        ws: WebSocket,
        player: Player | None,
        account: bool,
        session_id: str | None = None,
    ) -> None:
        self.services = services
        self.ws = ws
        self.player = player
        self.account = account  # the session is an account's, not a guest's
        self.session_id = session_id
        self.session_checked = time.monotonic()  # the session was read just now
        self.id = secrets.token_hex(8)
        settings = services.settings
        # Frames waiting for the writer, and what it waits on when there are none: lighter
        # than an asyncio.Queue (three deques, about 2 KiB a socket) and cheaper per frame.
        self.out: list[bytes] = []
        self._more: asyncio.Future[None] | None = None
        self.credits = TokenBucket(settings.credits, settings.credits / settings.credit_window_s)
        self.strikes = TokenBucket(settings.strikes, 1 / settings.strike_refill_s)
        self.shared: TokenBucket | None = None  # the session's budget (set by serve)
        self.subs: dict[str, Subscription] = {}
        self.last_seen = time.monotonic()
        self.closing: tuple[int, str] | None = None
        self.lobby_player: Player | None = None  # set once it opens seeks or waits to pair
        self.received = 0  # when the acting message being handled arrived (Redis clock, ms)
        self.pings = 0
        self._reading: asyncio.Task[None] | None = None

    # -- sending --------------------------------------------------------------------------

    def send(self, frame: bytes) -> None:
        """Queue a frame; a reader too slow to keep up is closed, not buffered forever."""
        if self.closing is not None:
            return
        if len(self.out) >= self.services.settings.outbound_queue:
            self.close(CLOSE_TOO_SLOW, "too slow: outbound queue full")
            return
        self.out.append(frame)
        more = self._more
        if more is not None and not more.done():
            more.set_result(None)

    def follows(self, game_id: str) -> bool:
        """Whether this socket follows the game (watch): it receives its events."""
        return game_id in self.subs

    def close(self, code: int, reason: str) -> None:
        if self.closing is None:
            self.closing = (code, reason)
            if self._reading is not None:
                self._reading.cancel()  # run() then flushes what is queued and closes

    async def _writer(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            while self.out:
                await self.ws.send_bytes(self.out.pop(0))
            self._more = loop.create_future()
            await self._more

    def beat(self, refresh_every: int) -> bool:
        """One heartbeat (Heartbeat.turn): close a silent socket, else ping it; whether
        its watcher and presence entries are due to be refreshed."""
        settings = self.services.settings
        if time.monotonic() - self.last_seen > settings.dead_after_s:
            self.close(CLOSE_HEARTBEAT, "no message or pong within the heartbeat timeout")
            return False
        self.pings += 1
        self.send(frames.ping(self.pings, self.services.clock()))
        return self.pings % refresh_every == 0 and (bool(self.subs) or bool(self.lobby_player))

    async def refresh(self) -> None:
        """Renew the entries that say this socket watches, plays or seeks (they expire)."""
        try:
            await self._refresh_watchers()
            if self.lobby_player is not None:
                await self.services.lobby.refresh_live_seeks(self.lobby_player, self.id)
        except UNREACHABLE as exc:
            outage.report("socket heartbeat", exc)  # refreshed again next time

    # -- the socket's life ----------------------------------------------------------------

    async def run(self) -> None:
        settings = self.services.settings
        await self.ws.accept()
        self.send(
            frames.hello(
                {"id": self.player.id, "name": self.player.name} if self.player else None,
                settings.ping_interval_s,
                self.services.clock(),
                {
                    "max_frame_bytes": settings.max_frame_bytes,
                    "credits": settings.credits,
                    "credit_window": settings.credit_window_s,
                },
            )
        )
        self._reading = asyncio.create_task(self._reader())
        tasks = [asyncio.create_task(self._writer()), self._reading]
        if self.closing is not None:  # closed before it ran (its session ended, say)
            self._reading.cancel()
        self.services.heartbeat.add(self)
        # Until either ends: a future both tasks end, lighter than asyncio.wait's frames
        # and callbacks for as long as the socket lives.
        ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def end(_: object) -> None:
            if not ended.done():
                ended.set_result(None)

        for task in tasks:
            task.add_done_callback(end)
        try:
            await ended
            for task in (t for t in tasks if t.done()):
                exc = task.exception() if not task.cancelled() else None
                if exc is None or disconnected(exc):
                    continue  # a client leaving is not an error
                log.error("socket %s failed", self.id, exc_info=exc)
                self.close(CLOSE_INTERNAL_ERROR, "internal error")
        finally:
            self.services.heartbeat.discard(self)
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(BaseException):
                    await task
            await self._cleanup()
            if self.closing is not None:
                # Flush what is queued (an error explaining the close) before closing.
                with contextlib.suppress(Exception):
                    while self.out:
                        await asyncio.wait_for(self.ws.send_bytes(self.out.pop(0)), 1)
                    await self.ws.close(self.closing[0], self.closing[1])

    async def _reader(self) -> None:
        settings = self.services.settings
        while True:
            try:
                message = await self.ws.receive()
            except WebSocketDisconnect:
                return
            if message["type"] == "websocket.disconnect":
                return
            self.last_seen = time.monotonic()
            data = message.get("bytes")
            msg: dict[str, Any] | None = None
            try:
                if data is None:
                    raise ProtocolError("bad_frame", "frames must be binary msgpack, not text")
                # Every message costs a credit, pings and pongs too, from the socket's budget
                # and from the budget its session's sockets share.
                if not self.credits.take() or (self.shared is not None and not self.shared.take()):
                    raise Refusal(
                        "rate_limited",
                        "too many messages: wait a few seconds; this one was ignored",
                    )
                msg = validate(decode_frame(data, settings.max_frame_bytes))
                if msg["t"] in ACTING:
                    # Stamped on arrival, before any wait (the session check reads Redis):
                    # a move received by its deadline is in time whatever stalls after, and
                    # the hold keeps this hub's watermark from passing it (clock.py).
                    self.received = self.services.stamp()
                    with self.services.hold(self.received):
                        await self._check_session()
                        await HANDLERS[msg["t"]](self, msg)
                else:
                    await HANDLERS[msg["t"]](self, msg)
            except (*UNREACHABLE, *outage.TORN) as exc:
                if isinstance(exc, outage.TORN):
                    if not settings.redis_cluster:
                        raise
                    # redis-py's cluster client met a connection torn down under it (a
                    # node going away): the store is out of reach, not a bug of this socket.
                    log.warning("a connection to the cluster was torn down: %r", exc)
                outage.report("socket", exc)
                game = msg.get("game") if msg and isinstance(msg.get("game"), str) else None
                msg_id = msg.get("id") if msg and isinstance(msg.get("id"), str) else None
                self.send(frames.error("unavailable", CODES["unavailable"].message, msg_id, game))
            except Refusal as exc:
                # Answer with the message's id and game, so the client knows what was refused.
                msg_id = exc.msg_id or (msg.get("id") if msg else None)
                game = msg.get("game") if msg and isinstance(msg.get("game"), str) else None
                self.send(frames.error(exc.code, exc.message, msg_id, game))
                if not self.strikes.take():
                    self.close(CLOSE_TOO_MANY_ERRORS, "too many bad messages")
                    return

    # -- following games ------------------------------------------------------------------

    async def _watch(self, msg: dict[str, Any]) -> None:
        game_id, since = msg["game"], msg.get("since")
        sub = self.subs.get(game_id)
        if sub is None:
            if len(self.subs) >= MAX_GAMES_PER_SOCKET:
                raise Refusal(
                    "too_many_games", f"a socket may follow at most {MAX_GAMES_PER_SOCKET} games"
                )
            state = await self.services.games.load(game_id)
            spectator = self.player is None or not state.is_player(self.player.id)
            sub = Subscription(self, game_id, spectator)
            sub.syncing = True  # events arriving while it subscribes wait for the catch-up
            self.subs[game_id] = sub
            # Subscribed before the catch-up is read, or an event could fall between the two.
            try:
                await self.services.fanout.add(game_id, sub)
            except BaseException:
                del self.subs[game_id]  # followed nothing: the client may ask again
                raise
            if spectator:
                await self.services.watchers.update(game_id, self.id, "add")
            elif self.player is not None:
                await self.services.presence.update(game_id, self.id, self.player.id, "add")
        elif sub.task is not None and not sub.task.done():
            sub.task.cancel()
            sub.pending.clear()
        sub.start(since)

    async def _unwatch(self, msg: dict[str, Any]) -> None:
        sub = self.subs.pop(msg["game"], None)
        if sub is None:
            raise Refusal("not_watching", f"this socket does not follow game {msg['game']}")
        await self._drop(sub)

    async def _drop(self, sub: Subscription) -> None:
        if sub.task is not None:
            sub.task.cancel()
        await self.services.fanout.remove(sub.game_id, sub)
        if sub.spectator:
            await self.services.watchers.update(sub.game_id, self.id, "del")
        elif self.player is not None:
            await self.services.presence.update(sub.game_id, self.id, self.player.id, "del")

    async def _refresh_watchers(self) -> None:
        for sub in list(self.subs.values()):
            if sub.spectator:
                await self.services.watchers.update(sub.game_id, self.id, "add", publish=False)
            elif self.player is not None:
                await self.services.presence.update(sub.game_id, self.id, self.player.id, "add")

    # -- acting on a game -----------------------------------------------------------------

    async def _check_session(self) -> None:
        """Refuse to act for a session that ended (its notice may have been lost): read
        at most once a second, so acting costs at most one EXISTS a second."""
        sid = self.session_id
        if sid is None or time.monotonic() - self.session_checked < SESSION_CHECK_S:
            return
        if not await self.services.sessions.alive([sid]):
            self.close(CLOSE_SESSION_ENDED, "session ended")
            raise Refusal("session_ended")
        self.session_checked = time.monotonic()

    def _player_id(self) -> str:
        if self.player is None:  # a visitor who has not played yet: a spectator
            raise Refusal("not_a_player")
        return self.player.id

    def _acted(self, msg: dict[str, Any], n: int, duplicate: bool) -> None:
        self.send(frames.ack(msg["id"], msg["t"], game=msg["game"], n=n, duplicate=duplicate))

    async def _move(self, msg: dict[str, Any]) -> None:
        # Stamped by the reader as the frame arrived (clock.py).
        done = await self.services.games.move(
            self._player_id(), msg["game"], msg["ply"], msg["move"], msg["id"], self.received
        )
        self._acted(msg, done.n, done.duplicate)

    async def _resign(self, msg: dict[str, Any]) -> None:
        done = await self.services.games.resign(self._player_id(), msg["game"], msg["id"])
        self._acted(msg, done.n, done.duplicate)

    async def _abort(self, msg: dict[str, Any]) -> None:
        done = await self.services.games.abort(self._player_id(), msg["game"], msg["id"])
        self._acted(msg, done.n, done.duplicate)

    async def _offer_draw(self, msg: dict[str, Any]) -> None:
        done = await self.services.games.offer_draw(self._player_id(), msg["game"], msg["id"])
        self._acted(msg, done.n, done.duplicate)

    async def _answer_draw(self, msg: dict[str, Any]) -> None:
        done = await self.services.games.answer_draw(
            self._player_id(), msg["game"], msg["accept"], msg["id"]
        )
        self._acted(msg, done.n, done.duplicate)

    async def _rematch(self, msg: dict[str, Any]) -> None:
        outcome, next_game = await self.services.games.rematch(self._player_id(), msg["game"])
        self.send(
            frames.ack(msg["id"], "rematch", game=msg["game"], outcome=outcome, next=next_game)
        )

    async def _decline_rematch(self, msg: dict[str, Any]) -> None:
        agreed = await self.services.games.decline_rematch(self._player_id(), msg["game"])
        self.send(frames.ack(msg["id"], "decline_rematch", game=msg["game"], next=agreed))

    # -- the lobby ------------------------------------------------------------------------

    def _lobby_player(self) -> Player:
        """The player behind a seek or pairing: games against people need an account."""
        if not self.account or self.player is None:  # (a first visit has no session yet)
            raise Refusal("account_required")
        return self.player

    async def _person_player(self) -> Player:
        """The player behind a new seek or pairing: playing people needs a confirmed address."""
        player = self._lobby_player()
        if not await self.services.verified(player.id):
            raise verification_required()
        return player

    async def _follow_lobby(self, msg: dict[str, Any]) -> None:
        lobby = self.services.lobby
        self.services.sockets.follow_lobby(self, msg["on"])
        if msg["on"]:
            self.send(frames.lobby(await lobby.seek_list(), await lobby.watch_list()))

    async def _seek(self, msg: dict[str, Any]) -> None:
        player = await self._person_player()
        seek = await self.services.lobby.open_seek(
            player,
            msg["ruleset"],
            msg["move_time"],
            msg.get("rated", True),
            msg.get("match", False),
            self.id,
        )
        self.lobby_player = player
        self.send(frames.ack(msg["id"], "seek", seek=seek))

    async def _cancel_seek(self, msg: dict[str, Any]) -> None:
        await self.services.lobby.cancel_seek(self._lobby_player(), msg["seek"])
        self.send(frames.ack(msg["id"], "cancel_seek"))

    async def _accept_seek(self, msg: dict[str, Any]) -> None:
        pairing = await self.services.lobby.accept_seek(await self._person_player(), msg["seek"])
        self.send(frames.ack(msg["id"], "accept_seek", game=pairing.game))

    async def _quick(self, msg: dict[str, Any]) -> None:
        player = await self._person_player()
        pairs = await self.services.lobby.quick(player, msg["ruleset"], msg["move_time"], self.id)
        self.lobby_player = player
        self.send(frames.ack(msg["id"], "quick", game=pairs[0].game if pairs else None))

    async def _cancel_quick(self, msg: dict[str, Any]) -> None:
        left = await self.services.lobby.leave_quick(self._lobby_player())
        self.send(frames.ack(msg["id"], "cancel_quick", left=left))

    async def _choose_sides(self, msg: dict[str, Any]) -> None:
        game = await self.services.matches.choose_sides(
            self._lobby_player().id, msg["match"], msg["side"]
        )
        self.send(frames.ack(msg["id"], "choose_sides", game=game))

    # -- the heartbeat --------------------------------------------------------------------

    async def _ping(self, msg: dict[str, Any]) -> None:
        self.send(frames.pong(msg.get("n", 0)))

    async def _pong(self, msg: dict[str, Any]) -> None:
        return None  # its arrival was noted by the reader (last_seen)

    async def _cleanup(self) -> None:
        if self.lobby_player is not None:
            with contextlib.suppress(Exception):
                await self.services.lobby.drop_live_seeks(self.lobby_player, self.id)
        for sub in list(self.subs.values()):
            with contextlib.suppress(Exception):
                await self._drop(sub)
        self.subs.clear()


# Each message type a client may send (protocol.MESSAGES), and the one method that answers it.
HANDLERS: Final[dict[str, Handler]] = {
    "watch": Connection._watch,
    "unwatch": Connection._unwatch,
    "move": Connection._move,
    "resign": Connection._resign,
    "abort": Connection._abort,
    "offer_draw": Connection._offer_draw,
    "answer_draw": Connection._answer_draw,
    "rematch": Connection._rematch,
    "decline_rematch": Connection._decline_rematch,
    "lobby": Connection._follow_lobby,
    "seek": Connection._seek,
    "cancel_seek": Connection._cancel_seek,
    "accept_seek": Connection._accept_seek,
    "quick": Connection._quick,
    "cancel_quick": Connection._cancel_quick,
    "choose_sides": Connection._choose_sides,
    "ping": Connection._ping,
    "pong": Connection._pong,
}
assert HANDLERS.keys() == MESSAGES.keys(), "every message type needs exactly one handler"


async def serve(services: Services, ws: WebSocket) -> None:
    """The websocket endpoint: check the origin, find the session, run the connection."""
    if not origin_allowed(ws.headers, services.settings.allowed_origins):
        await ws.close(code=CLOSE_ORIGIN_REFUSED, reason="origin not allowed")
        return
    address = ws.client.host if ws.client else "unknown"
    budgets = services.budgets
    if not budgets.admit(address):
        await ws.accept()
        await ws.close(CLOSE_TRY_AGAIN_LATER, "too many sockets from your address")
        return
    try:
        try:
            session = await services.sessions.get_session(ws.cookies.get(COOKIE))
        except UNREACHABLE as exc:
            outage.report("socket", exc)
            await ws.accept()
            await ws.close(CLOSE_TRY_AGAIN_LATER, "the service is unavailable: try again shortly")
            return
        player = session.player if session else None
        sid = session.id if session else None
        conn = Connection(services, ws, player, bool(session and session.account), sid)
        player_id = player.id if player else None
        if sid is not None:
            conn.shared = budgets.join(sid)
        services.sockets.add(conn, player_id, sid)
        try:
            await conn.run()
        finally:
            services.sockets.discard(conn, player_id)
            if sid is not None:
                budgets.leave(sid)
    finally:
        budgets.release(address)
