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
from typing import TYPE_CHECKING, Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from brandubh.hub.protocol import (
    CLOSE_HEARTBEAT,
    CLOSE_TOO_MANY_ERRORS,
    CLOSE_TOO_SLOW,
    FREE,
    ProtocolError,
    decode_frame,
    encode,
    error_frame,
    validate,
)
from brandubh.hub.state import Player

if TYPE_CHECKING:
    from brandubh.hub.app import Hub

log = logging.getLogger("brandubh.hub")

MAX_GAMES_PER_SOCKET = 16
LOBBY_MESSAGES = frozenset({"lobby", "seek", "cancel_seek", "accept_seek", "quick", "cancel_quick"})
WATCHER_TTL_MS = 60_000


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

    def on_frame(self, kind: str, n: int, frame: bytes) -> None:
        if kind != "event":
            self.conn.send(frame)  # notices (watcher counts) are not numbered
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
        hub = self.conn.hub
        try:
            state = await hub.games.load(self.game_id)
            window = hub.settings.replay_window
            if since is None or since < 0 or since > state.seq or state.seq - since > window:
                watchers = await hub.watcher_count(self.game_id)
                self.conn.send(await hub.games.snapshot_frame(state, watchers))
                self.last = state.seq
            else:
                for frame in await hub.games.events_after(self.game_id, since):
                    since += 1
                    self.conn.send(frame)
                self.last = since
            # Who is connected, after the state it belongs to (changes follow as frames).
            self.conn.send(await hub.presence.frame(self.game_id))
            self.syncing = False
            pending, self.pending = sorted(self.pending, key=lambda p: p[0]), []
            for n, frame in pending:
                self._deliver(n, frame)
        except ProtocolError as exc:
            self.syncing = False
            self.conn.send(error_frame(exc.code, exc.message))
        except Exception:
            self.syncing = False
            log.exception("catch-up failed for game %s", self.game_id)
            self.conn.send(error_frame("unavailable", "could not load the game; retrying"))


class Connection:
    """A websocket from accept to close."""

    def __init__(self, hub: Hub, ws: WebSocket, player: Player | None) -> None:
        self.hub = hub
        self.ws = ws
        self.player = player
        self.id = secrets.token_hex(8)
        settings = hub.settings
        self.out: asyncio.Queue[bytes] = asyncio.Queue(maxsize=settings.outbound_queue)
        self.credits = TokenBucket(settings.credits, settings.credits / settings.credit_window_s)
        self.strikes = TokenBucket(settings.strikes, 1 / settings.strike_refill_s)
        self.subs: dict[str, Subscription] = {}
        self.last_seen = time.monotonic()
        self.closing: tuple[int, str] | None = None
        self.lobby_player: Player | None = None  # set once it opens seeks or waits to pair
        self.account = False  # the session is an account's, not a guest's
        self._closed = asyncio.Event()

    # -- sending --------------------------------------------------------------------------

    def send(self, frame: bytes) -> None:
        """Queue a frame; a reader too slow to keep up is closed, not buffered forever."""
        if self.closing is not None:
            return
        try:
            self.out.put_nowait(frame)
        except asyncio.QueueFull:
            self.close(CLOSE_TOO_SLOW, "too slow: outbound queue full")

    def close(self, code: int, reason: str) -> None:
        if self.closing is None:
            self.closing = (code, reason)
            self._closed.set()

    async def _writer(self) -> None:
        while True:
            frame = await self.out.get()
            await self.ws.send_bytes(frame)

    async def _heartbeat(self) -> None:
        settings = self.hub.settings
        n = 0
        while True:
            await asyncio.sleep(settings.ping_interval_s)
            if time.monotonic() - self.last_seen > settings.dead_after_s:
                self.close(CLOSE_HEARTBEAT, "no message or pong within the heartbeat timeout")
                return
            n += 1
            self.send(encode({"t": "ping", "n": n, "now": self.hub.scheduler.redis_now_ms()}))
            if n % 8 == 0:
                await self._refresh_watchers()
                if self.lobby_player is not None:
                    await self.hub.lobby.refresh_live_seeks(self.lobby_player, self.id)

    # -- the socket's life ----------------------------------------------------------------

    async def run(self) -> None:
        await self.ws.accept()
        self.send(
            encode(
                {
                    "t": "hello",
                    "player": {"id": self.player.id, "name": self.player.name}
                    if self.player
                    else None,
                    "ping_interval": self.hub.settings.ping_interval_s,
                    "now": self.hub.scheduler.redis_now_ms(),
                    "limits": {
                        "max_frame_bytes": self.hub.settings.max_frame_bytes,
                        "credits": self.hub.settings.credits,
                        "credit_window": self.hub.settings.credit_window_s,
                    },
                }
            )
        )
        tasks = [
            asyncio.create_task(self._writer()),
            asyncio.create_task(self._heartbeat()),
            asyncio.create_task(self._reader()),
            asyncio.create_task(self._closed.wait()),
        ]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                if not task.cancelled() and task.exception() is not None:
                    log.error("socket %s failed", self.id, exc_info=task.exception())
                    self.close(1011, "internal error")
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(BaseException):
                    await task
            await self._cleanup()
            if self.closing is not None:
                # Flush what is queued (an error explaining the close) before closing.
                with contextlib.suppress(Exception):
                    while not self.out.empty():
                        await asyncio.wait_for(self.ws.send_bytes(self.out.get_nowait()), 1)
                    await self.ws.close(self.closing[0], self.closing[1])

    async def _reader(self) -> None:
        while True:
            try:
                message = await self.ws.receive()
            except WebSocketDisconnect:
                return
            if message["type"] == "websocket.disconnect":
                return
            self.last_seen = time.monotonic()
            data = message.get("bytes")
            try:
                if data is None:
                    raise ProtocolError("bad_frame", "frames must be binary msgpack, not text")
                msg = validate(decode_frame(data, self.hub.settings.max_frame_bytes))
                if msg["t"] not in FREE and not self.credits.take():
                    raise ProtocolError(
                        "rate_limited",
                        "too many messages: wait a few seconds; this one was ignored",
                        msg.get("id"),
                    )
                try:
                    await self._handle(msg)
                except ProtocolError as exc:
                    # Answer with the message's id, so the client knows what was refused.
                    exc.msg_id = exc.msg_id or msg.get("id")
                    raise
            except ProtocolError as exc:
                self.send(error_frame(exc.code, exc.message, exc.msg_id))
                if not self.strikes.take():
                    self.close(CLOSE_TOO_MANY_ERRORS, "too many bad messages")
                    return

    async def _handle(self, msg: dict[str, Any]) -> None:
        kind = msg["t"]
        if kind == "ping":
            self.send(encode({"t": "pong", "n": msg.get("n", 0)}))
        elif kind == "pong":
            pass
        elif kind == "watch":
            await self._watch(msg["game"], msg.get("since"))
        elif kind == "unwatch":
            await self._unwatch(msg["game"])
        elif kind == "rematch":
            await self._rematch(msg)
        elif kind == "choose_sides":
            game = await self.hub.matches.choose_sides(
                self._lobby_player(msg).id, msg["match"], msg["side"]
            )
            self.send(encode({"t": "lobby_ack", "id": msg["id"], "of": kind, "game": game}))
        elif kind in LOBBY_MESSAGES:
            await self._lobby(msg)
        else:
            await self._act(msg)

    async def _watch(self, game_id: str, since: int | None) -> None:
        sub = self.subs.get(game_id)
        if sub is None:
            if len(self.subs) >= MAX_GAMES_PER_SOCKET:
                raise ProtocolError(
                    "too_many_games", f"a socket may follow at most {MAX_GAMES_PER_SOCKET} games"
                )
            state = await self.hub.games.load(game_id)
            spectator = self.player is None or not state.is_player(self.player.id)
            sub = Subscription(self, game_id, spectator)
            self.subs[game_id] = sub
            # Subscribe before reading the catch-up, or an event could fall between the two.
            self.hub.fanout.add(game_id, sub)
            if spectator:
                await self.hub.watchers_update(game_id, self.id, "add")
            elif self.player is not None:
                await self.hub.presence.update(game_id, self.id, self.player.id, "add")
        elif sub.task is not None and not sub.task.done():
            sub.task.cancel()
            sub.pending.clear()
        sub.start(since)

    async def _unwatch(self, game_id: str) -> None:
        sub = self.subs.pop(game_id, None)
        if sub is None:
            raise ProtocolError("not_watching", f"this socket does not follow game {game_id}")
        await self._drop(sub)

    async def _drop(self, sub: Subscription) -> None:
        self.hub.fanout.remove(sub.game_id, sub)
        if sub.task is not None:
            sub.task.cancel()
        if sub.spectator:
            await self.hub.watchers_update(sub.game_id, self.id, "del")
        elif self.player is not None:
            await self.hub.presence.update(sub.game_id, self.id, self.player.id, "del")

    def _player_id(self, msg: dict[str, Any]) -> str:
        if self.player is None:
            raise ProtocolError(
                "no_session", "this socket has no session: open the site to get one", msg["id"]
            )
        return self.player.id

    async def _act(self, msg: dict[str, Any]) -> None:
        """A player's action on a game: answered by an ack with its event number."""
        player, games, game, msg_id = self._player_id(msg), self.hub.games, msg["game"], msg["id"]
        kind = msg["t"]
        if kind == "move":
            done = await games.move(player, game, msg["ply"], msg["move"], msg_id)
        elif kind == "resign":
            done = await games.resign(player, game, msg_id)
        elif kind == "abort":
            done = await games.abort(player, game, msg_id)
        elif kind == "offer_draw":
            done = await games.offer_draw(player, game, msg_id)
        else:
            done = await games.answer_draw(player, game, msg["accept"], msg_id)
        self.send(
            encode(
                {
                    "t": "ack",
                    "id": msg["id"],
                    "game": msg["game"],
                    "n": done.n,
                    "duplicate": done.duplicate,
                }
            )
        )

    async def _lobby(self, msg: dict[str, Any]) -> None:
        """Lobby messages: follow it, open/cancel/accept seeks, quick pairing."""
        kind, lobby = msg["t"], self.hub.lobby
        if kind == "lobby":
            if msg["on"]:
                self.hub.lobby_sockets.add(self)
                self.send(
                    encode(
                        {
                            "t": "lobby",
                            "seeks": await lobby.seek_list(),
                            "games": await lobby.watch_list(),
                        }
                    )
                )
            else:
                self.hub.lobby_sockets.discard(self)
            return
        player = self._lobby_player(msg)
        reply: dict[str, Any] = {"t": "lobby_ack", "id": msg["id"], "of": kind}
        if kind == "seek":
            reply["seek"] = await lobby.open_seek(
                player,
                msg["ruleset"],
                msg["move_time"],
                msg.get("rated", True),
                msg.get("match", False),
                self.id,
            )
            self.lobby_player = player
        elif kind == "cancel_seek":
            await lobby.cancel_seek(player, msg["seek"])
        elif kind == "accept_seek":
            reply["game"] = (await lobby.accept_seek(player, msg["seek"])).game
        elif kind == "quick":
            pairs = await lobby.quick(player, msg["ruleset"], msg["move_time"], self.id)
            reply["game"] = pairs[0].game if pairs else None
            self.lobby_player = player
        else:
            reply["left"] = await lobby.leave_quick(player)
        self.send(encode(reply))

    def _lobby_player(self, msg: dict[str, Any]) -> Player:
        """The player behind a seek or pairing: games against people need an account."""
        if self.player is None:
            raise ProtocolError(
                "no_session", "this socket has no session: open the site to get one", msg["id"]
            )
        if not self.account:
            raise ProtocolError(
                "account_required",
                "playing a person needs an account: sign up or log in first (the bot needs none)",
                msg["id"],
            )
        return self.player

    async def _rematch(self, msg: dict[str, Any]) -> None:
        outcome, next_game = await self.hub.games.rematch(self._player_id(msg), msg["game"])
        self.send(
            encode(
                {
                    "t": "rematch_ack",
                    "id": msg["id"],
                    "game": msg["game"],
                    "outcome": outcome,
                    "next": next_game,
                }
            )
        )

    async def _refresh_watchers(self) -> None:
        for sub in list(self.subs.values()):
            if sub.spectator:
                await self.hub.watchers_update(sub.game_id, self.id, "add", publish=False)
            elif self.player is not None:
                await self.hub.presence.update(sub.game_id, self.id, self.player.id, "add")

    async def _cleanup(self) -> None:
        if self.lobby_player is not None:
            with contextlib.suppress(Exception):
                await self.hub.lobby.drop_live_seeks(self.lobby_player, self.id)
        for sub in list(self.subs.values()):
            with contextlib.suppress(Exception):
                await self._drop(sub)
        self.subs.clear()
