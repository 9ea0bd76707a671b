"""One websocket from accept to close: its limits, its outbound queue, its heartbeat,
the games it follows, and the reader that parses each frame once and hands the typed
message to its handler (handlers.py).

A frame is written at once, straight to the transport (transport.py's ``write_frame``),
while nothing waits before it and the socket takes writes; otherwise it joins the
socket's queue, which a writer task, started then, sends through the ASGI send (waiting
while the transport is paused) until it is empty. So no task wakes per frame, order is
kept, and a reader too slow for the queue is still closed (4002). Under another
websocket protocol than ``GuardedWebSocket`` every frame takes the queue.

The player a socket speaks for comes from its session cookie (or, on the bot socket,
its ``bot:play`` token: hub/botapi/bot_socket.py), never from a message. A
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
from typing import Final, Protocol, TypeAlias

from starlette.datastructures import Headers
from starlette.requests import cookie_parser
from starlette.websockets import WebSocket, WebSocketDisconnect

from brandubh.hub.accounts import COOKIE, Sessions
from brandubh.hub.chat import ChatService
from brandubh.hub.config import Settings
from brandubh.hub.errors import CODES, ProtocolError, Refusal
from brandubh.hub.live import Conditionals, GameService, MatchService, Player
from brandubh.hub.lobby import Lobby
from brandubh.hub.messages import (
    CLOSE_HEARTBEAT,
    CLOSE_INTERNAL_ERROR,
    CLOSE_ORIGIN_REFUSED,
    CLOSE_SESSION_ENDED,
    CLOSE_TOKEN_REFUSED,
    CLOSE_TOO_MANY_ERRORS,
    CLOSE_TOO_SLOW,
    CLOSE_TRY_AGAIN_LATER,
    ClientMessage,
    decode_frame,
    frames,
    parse,
    reply_to,
)
from brandubh.hub.redis import UNREACHABLE, outage
from brandubh.hub.wire.budgets import SharedBudgets, TokenBucket
from brandubh.hub.wire.fanout import Fanout
from brandubh.hub.wire.handlers import handle
from brandubh.hub.wire.heartbeat import Heartbeat
from brandubh.hub.wire.origin import origin_allowed
from brandubh.hub.wire.presence import Presence
from brandubh.hub.wire.sockets import Sockets
from brandubh.hub.wire.subscription import Subscription
from brandubh.hub.wire.transport import direct_writer
from brandubh.hub.wire.watchers import Watchers

log = logging.getLogger(__name__)

# A bot token's socket (Speaker): its token read again, None while it is good.
Recheck: TypeAlias = Callable[[], Awaitable[Refusal | None]]

# A socket acts only if its session (or token) was seen alive at most SESSION_CHECK_S ago; a check
# is sent along with an action (not waited for) once the last is SESSION_RENEW_S old.
SESSION_CHECK_S: Final = 1.0
SESSION_RENEW_S: Final = 0.5


class PersonCheck(Protocol):
    """Accounts.require_person: a bot account refused, and an unconfirmed one if asked."""

    def __call__(self, account_id: str, *, verified: bool = True) -> Awaitable[None]: ...


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
    # Refuses (verification_required) unless the account confirmed its address.
    require_verified: Callable[[str], Awaitable[None]]
    # Refuses a bot account (bot_account), then (with verified) an address not confirmed.
    require_person: PersonCheck
    heartbeat: Heartbeat
    conditionals: Conditionals  # each player's own conditional moves (live/conditional.py)
    chat: ChatService
    # A tournament's frame now (hub/tournaments/), for a socket that starts to follow it.
    tournament_frame: Callable[[str], Awaitable[bytes]] | None = None
    # A game's analysis now, as a frame (or None), for a socket that starts to follow it.
    analysis_frame: Callable[[str], Awaitable[bytes | None]] | None = None


def disconnected(exc: BaseException) -> bool:
    """Whether an exception only says that the client went away (not an error of ours)."""
    return isinstance(exc, WebSocketDisconnect | OSError | EOFError) or (
        isinstance(exc, RuntimeError) and "close message has been sent" in str(exc)
    )


class Connection:
    """A websocket from accept to close."""

    def __init__(
        self,
        services: Services,
        ws: WebSocket,
        player: Player | None,
        account: bool,
        session_id: str | None = None,
        pending: bool = False,
        recheck: Recheck | None = None,
    ) -> None:
        self.services = services
        self.ws = ws
        self.player = player
        self.account = account  # the session is an account's, not a guest's
        self.pending = pending  # a newcomer's, seated from an invitation (accounts.md)
        self.session_id = session_id
        self.recheck = recheck  # a bot token's socket: its token read again (Speaker)
        self.session_checked = time.monotonic()  # the session was read just now
        self._renewing = False  # a check of the session is on its way
        self.id = secrets.token_hex(8)
        settings = services.settings
        # Frames waiting for the writer (a list: lighter than an asyncio.Queue's deques);
        # its head stays in it until written, so that nothing written directly passes it.
        self.out: list[bytes] = []
        self._direct = direct_writer(ws.scope)
        self._writer: asyncio.Task[None] | None = None  # while the queue is not empty
        self._accepted = False  # the writer may run (ASGI sends after the accept only)
        self._failed: BaseException | None = None  # what ended the writer, if it failed
        self.credits = TokenBucket(settings.credits, settings.credits / settings.credit_window_s)
        self.strikes = TokenBucket(settings.strikes, 1 / settings.strike_refill_s)
        self.shared: TokenBucket | None = None  # the session's budget (set by serve)
        self.subs: dict[str, Subscription] = {}
        self.last_seen = time.monotonic()
        self.closing: tuple[int, str] | None = None
        self.lobby_player: Player | None = None  # set once it opens seeks or waits to pair
        self.pings = 0
        self._reading: asyncio.Task[None] | None = None

    # -- sending --------------------------------------------------------------------------

    def send(self, frame: bytes) -> None:
        """Write a frame now if the socket takes it, else queue it; a reader too slow to
        keep up is closed, not buffered forever."""
        if self.closing is not None:
            return
        out = self.out
        if not out:
            direct = self._direct
            if direct is not None and direct(frame):
                return
        elif len(out) >= self.services.settings.outbound_queue:
            self.close(CLOSE_TOO_SLOW, "too slow: outbound queue full")
            return
        out.append(frame)
        writer = self._writer
        # (A writer that has just ended is done before its callback forgets it.)
        if (writer is None or writer.done()) and self._accepted:
            self._start_writer()

    def follows(self, game_id: str) -> bool:
        """Whether this socket follows the game (watch): it receives its events."""
        return game_id in self.subs

    def close(self, code: int, reason: str) -> None:
        if self.closing is None:
            self.closing = (code, reason)
            if self._reading is not None:
                self._reading.cancel()  # run() then flushes what is queued and closes

    def _start_writer(self) -> None:
        self._writer = writer = asyncio.create_task(self._write())
        writer.add_done_callback(self._written)

    async def _write(self) -> None:
        """Send the queue through the ASGI send, which waits while writes are paused."""
        out = self.out
        while out:
            await self.ws.send_bytes(out[0])
            out.pop(0)  # (sent: the send does not wait once it has written)

    def _written(self, task: asyncio.Task[None]) -> None:
        if self._writer is task:
            self._writer = None
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:  # the socket is gone, or worse: the reader ends, so does run()
            self._failed = exc
            if self._reading is not None:
                self._reading.cancel()

    # -- the heartbeat (heartbeat.Heartbeat) ---------------------------------------------

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
            for sub in list(self.subs.values()):
                await sub.renew()
            if self.lobby_player is not None:
                await self.services.lobby.refresh_live_seeks(self.lobby_player, self.id)
        except UNREACHABLE as exc:
            outage.report("socket heartbeat", exc)  # refreshed again next time

    # -- the session ----------------------------------------------------------------------

    def session_fresh(self) -> bool:
        """Whether the session was seen alive recently enough to act for (its notice of
        an end may have been lost); once half that old, it is checked again on the way,
        pipelined with the action's own command: a socket acting more often than every
        SESSION_RENEW_S never waits for the check."""
        if self.session_id is None and self.recheck is None:
            return True
        age = time.monotonic() - self.session_checked
        if age >= SESSION_CHECK_S:
            return False
        if age >= SESSION_RENEW_S and not self._renewing:
            if self.recheck is not None:
                self._renew_token(self.recheck)
            elif self.session_id is not None:
                self._renew(self.session_id)
        return True

    def _renew_token(self, recheck: Recheck) -> None:
        asked = time.monotonic()

        def answered(reply: asyncio.Future[Refusal | None]) -> None:
            self._renewing = False
            if reply.cancelled() or reply.exception() is not None:
                return  # unknown: the next action past SESSION_CHECK_S waits for a check
            why = reply.result()
            if why is None:
                self.session_checked = max(self.session_checked, asked)
            else:
                self._token_refused(why)

        self._renewing = True
        asyncio.ensure_future(recheck()).add_done_callback(answered)

    def _token_refused(self, why: Refusal) -> None:
        """A token found revoked (or without its scope) closes its socket (4005); one over
        its rate, or unread for an outage, only has this action refused."""
        if why.code in ("token_invalid", "token_scope"):
            self.close(CLOSE_TOKEN_REFUSED, why.code)

    def _renew(self, sid: str) -> None:
        asked = time.monotonic()
        probe = self.services.sessions.probe(sid)
        if probe is None:
            return  # no lane: checked, waiting, when stale

        def answered(reply: asyncio.Future[object]) -> None:
            self._renewing = False
            if reply.cancelled() or reply.exception() is not None:
                return  # unknown: the next action past SESSION_CHECK_S waits for a check
            if reply.result():
                self.session_checked = max(self.session_checked, asked)
            else:
                self.close(CLOSE_SESSION_ENDED, "session ended")

        self._renewing = True
        probe.add_done_callback(answered)

    async def check_session(self) -> None:
        """Refuse to act for a session that ended, after reading it (at most once a
        second: ``session_fresh``); a token's socket reads its token."""
        sid = self.session_id
        asked = time.monotonic()
        if self.recheck is not None:
            why = await self.recheck()
            if why is not None:
                self._token_refused(why)
                raise why
            self.session_checked = max(self.session_checked, asked)
            return
        if sid is None:
            return
        if not await self.services.sessions.alive([sid]):
            self.close(CLOSE_SESSION_ENDED, "session ended")
            raise Refusal("session_ended")
        self.session_checked = max(self.session_checked, asked)

    # -- the socket's life ----------------------------------------------------------------

    async def run(self) -> None:
        settings = self.services.settings
        await self.ws.accept()
        self._reading = asyncio.create_task(self._reader())
        self._accepted = True
        if self.out:  # frames told to it before the accept
            self._start_writer()
        self.send(
            frames.hello(
                {"id": self.player.id, "name": self.player.name} if self.player else None,
                settings.ping_interval_s,
                self.services.clock(),
                {
                    "max_frame_bytes": settings.max_frame_bytes,
                    "credits": settings.credits,
                    "credit_window": settings.credit_window_s,
                    # How long an opponent must be gone before a claim (docs/fair-play.md).
                    "claim_grace": settings.claim_grace_s,
                },
            )
        )
        reading = self._reading
        if self.closing is not None:  # closed before it ran (its session ended, say)
            reading.cancel()
        self.services.heartbeat.add(self)
        # Until the reader ends (a failed writer cancels it): a future it ends, lighter
        # than asyncio.wait's frames and callbacks for as long as the socket lives.
        ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def end(_: object) -> None:
            if not ended.done():
                ended.set_result(None)

        reading.add_done_callback(end)
        try:
            await ended
            failures = [self._failed]
            if not reading.cancelled():
                failures.append(reading.exception())
            for exc in failures:
                if exc is None or disconnected(exc):
                    continue  # a client leaving is not an error
                log.error("socket %s failed", self.id, exc_info=exc)
                self.close(CLOSE_INTERNAL_ERROR, "internal error")
        finally:
            self.services.heartbeat.discard(self)
            tasks = [t for t in (reading, self._writer) if t is not None]
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(BaseException):
                    await task
            await self._cleanup()
            if self.closing is not None:
                # Flush what is queued (an error explaining the close) before closing: within
                # a second in all, not a second a frame (a peer that never reads).
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(self._flush(), 1)
                with contextlib.suppress(Exception):
                    await self.ws.close(self.closing[0], self.closing[1])

    async def _flush(self) -> None:
        await self._write()

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
            msg: ClientMessage | None = None
            flooded = False
            try:
                if data is None:
                    raise ProtocolError("bad_frame", "frames must be binary msgpack, not text")
                # Every message costs a credit, pings and pongs too, from the socket's budget
                # and from the budget its session's sockets share.
                if not self.credits.take() or (self.shared is not None and not self.shared.take()):
                    flooded = True
                    raise Refusal(
                        "rate_limited",
                        "too many messages: wait a few seconds; this one was ignored",
                    )
                msg = parse(decode_frame(data, settings.max_frame_bytes))
                await handle(self, msg)
            except (*UNREACHABLE, *outage.TORN) as exc:
                if isinstance(exc, outage.TORN):
                    if not settings.redis_cluster:
                        raise
                    # redis-py's cluster client met a connection torn down under it (a
                    # node going away): the store is out of reach, not a bug of this socket.
                    log.warning("a connection to the cluster was torn down: %r", exc)
                outage.report("socket", exc)
                msg_id, game = reply_to(msg)
                self.send(frames.error("unavailable", CODES["unavailable"].message, msg_id, game))
            except Refusal as exc:
                # Answer with the message's id and game, so the client knows what was refused.
                msg_id, game = reply_to(msg)
                self.send(frames.error(exc.code, exc.message, exc.msg_id or msg_id, game))
                # Only what a correct client never sends strikes: a malformed message or a
                # flood past its credits. A refusal of a well-formed message (a chat limit,
                # a claim too early, a move that lost a race) is the game's answer, free.
                if (isinstance(exc, ProtocolError) or flooded) and not self.strikes.take():
                    self.close(CLOSE_TOO_MANY_ERRORS, "too many bad messages")
                    return

    async def _cleanup(self) -> None:
        if self.lobby_player is not None:
            with contextlib.suppress(Exception):
                await self.services.lobby.drop_live_seeks(self.lobby_player, self.id)
        for sub in list(self.subs.values()):
            with contextlib.suppress(Exception):
                await sub.leave()
        self.subs.clear()


@dataclass(frozen=True, slots=True)
class Speaker:
    """Whom a socket speaks for: a session's player (or none: a spectator), or a bot
    token's account, whose ``recheck`` reads the token again as a session is read (None
    while it is good, else its refusal); ``budget`` keys the budget its sockets share."""

    player: Player | None
    account: bool
    session_id: str | None = None
    pending: bool = False
    budget: str | None = None
    recheck: Recheck | None = None


async def serve(services: Services, ws: WebSocket) -> None:
    """The websocket endpoint, ``/ws``: the socket speaks for its session cookie's player."""

    async def of_session(headers: Headers) -> Speaker:
        cookie = cookie_parser(headers.get("cookie", "")).get(COOKIE)
        session = await services.sessions.get_session(cookie)
        if session is None:
            return Speaker(None, False)
        sid = session.id
        return Speaker(session.player, session.account, sid, bool(session.pending), budget=sid)

    await serve_as(services, ws, of_session)


async def serve_as(
    services: Services, ws: WebSocket, speaker: Callable[[Headers], Awaitable[Speaker]]
) -> None:
    """Check the origin, find whom the socket speaks for (a refusal closes it with
    4005, after an error frame saying why), run the connection."""
    # Read uncached (not ws.headers, ws.cookies): what the socket's object caches, it keeps
    # for the socket's life, and the handshake is not needed once accepted.
    headers = Headers(scope=ws.scope)
    if not origin_allowed(headers, services.settings.allowed_origins):
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
            who = await speaker(headers)
        except UNREACHABLE as exc:
            outage.report("socket", exc)
            await ws.accept()
            await ws.close(CLOSE_TRY_AGAIN_LATER, "the service is unavailable: try again shortly")
            return
        except Refusal as exc:
            await ws.accept()
            await ws.send_bytes(frames.error(exc.code, exc.message))
            await ws.close(CLOSE_TOKEN_REFUSED, exc.code)
            return
        player = who.player
        conn = Connection(
            services, ws, player, who.account, who.session_id, who.pending, who.recheck
        )
        player_id = player.id if player else None
        if who.budget is not None:
            conn.shared = budgets.join(who.budget)
        services.sockets.add(conn, player_id, who.session_id)
        try:
            await conn.run()
        finally:
            services.sockets.discard(conn, player_id)
            if who.budget is not None:
                budgets.leave(who.budget)
    finally:
        budgets.release(address)
