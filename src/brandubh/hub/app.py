"""The hub's Starlette application: its parts, its lifespan and its routes."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.routing import Mount, WebSocketRoute
from starlette.websockets import WebSocket

from brandubh.hub import http, keys, web
from brandubh.hub.accounts import Accounts, SessionGuard
from brandubh.hub.bot_worker import BotWorker
from brandubh.hub.config import Settings
from brandubh.hub.connection import WATCHER_TTL_MS, Connection
from brandubh.hub.fanout import Fanout
from brandubh.hub.games import GameService
from brandubh.hub.lobby import Lobby
from brandubh.hub.matches import MatchService
from brandubh.hub.origin import origin_allowed
from brandubh.hub.presence import Presence, turn_notices
from brandubh.hub.protocol import encode
from brandubh.hub.rater import Rater
from brandubh.hub.scheduler import Scheduler
from brandubh.hub.scripts import Scripts
from brandubh.hub.sessions import COOKIE, Sessions

log = logging.getLogger("brandubh.hub")

LOBBY_TICK_S = 1.0
WATCH_LIST_EVERY = 3  # ticks between pushes of the list of games to watch


class Hub:
    """Everything one hub process holds: Redis, scripts, services and local sockets."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.pool = BlockingConnectionPool.from_url(
            settings.redis_url, max_connections=settings.redis_pool_size, timeout=10
        )
        self.redis = Redis(connection_pool=self.pool)
        self.scripts = Scripts.register(self.redis)
        self.games = GameService(self.redis, self.scripts, settings.time_scale)
        self.scheduler = Scheduler(
            self.redis,
            self.scripts,
            self.games,
            poll_s=settings.scheduler_poll_s,
            outage_after_s=settings.outage_after_s,
        )
        self.sessions = Sessions(self.redis)
        self.accounts = Accounts(self.redis, self.scripts, self.sessions, settings)
        self.session_guard = SessionGuard(self.sessions)
        self.rater = Rater(self.redis, self.scripts, self.games, settings.archive_poll_s)
        self.fanout = Fanout(self.redis)
        self.bot = BotWorker(self, settings)
        self.matches = MatchService(self.redis, self.games)
        self.lobby = Lobby(
            self.redis, self.scripts, self.games, rating=self.rater.lookup, matches=self.matches
        )
        self.connections: set[Connection] = set()
        self.by_player: dict[str, set[Connection]] = {}
        self.presence = Presence(self.scripts.presence)
        self.lobby_sockets: set[Connection] = set()
        self._lobby_task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self.redis.ping()
        self.fanout.hub_hooks.append(self.session_guard.on_notice)
        await self.fanout.start()
        self.fanout.hooks.append(self.games.observe)
        self.fanout.hooks.append(self.rater.on_event)
        await self.accounts.start()
        await self.session_guard.start()
        await self.rater.start()
        self.fanout.lobby_hooks.append(self.on_lobby_notice)
        self.fanout.hooks.append(self.matches.on_event)
        self.fanout.hooks.append(self.bot.on_event)
        self.fanout.hooks.append(turn_notices(self.by_player))
        await self.bot.start()
        await self.scheduler.start()
        self._lobby_task = asyncio.create_task(self._lobby_loop(), name="lobby")

    async def stop(self) -> None:
        for conn in list(self.connections):
            conn.close(1001, "server shutting down")
        if self._lobby_task is not None:
            self._lobby_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._lobby_task
        await self.scheduler.stop()
        await self.rater.stop()
        await self.session_guard.stop()
        await self.matches.stop()
        await self.bot.stop()
        await self.fanout.stop()
        await self.redis.aclose()
        await self.pool.aclose()

    def on_lobby_notice(self, msg: dict[str, Any], frame: bytes) -> None:
        """A lobby frame from any hub: seeks go to lobby sockets, pairings to the players."""
        if msg.get("t") == "paired":
            for pid in msg.get("players", ()):
                for conn in list(self.by_player.get(pid, ())):
                    conn.send(frame)
        else:
            for conn in list(self.lobby_sockets):
                conn.send(frame)

    async def _lobby_loop(self) -> None:
        """Pair waiting players whose windows have widened; push the watch list."""
        tick = 0
        while True:
            await asyncio.sleep(LOBBY_TICK_S)
            tick += 1
            try:
                await self.lobby.sweep()
                if self.lobby_sockets and tick % WATCH_LIST_EVERY == 0:
                    frame = encode({"t": "games", "games": await self.lobby.watch_list()})
                    for conn in list(self.lobby_sockets):
                        conn.send(frame)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("lobby pass failed; trying again")

    async def watcher_count(self, game_id: str) -> int:
        return await self.watchers_update(game_id, "", "get", publish=False)

    async def watchers_update(
        self, game_id: str, conn_id: str, op: str, *, publish: bool = True
    ) -> int:
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

    async def websocket(self, ws: WebSocket) -> None:
        if not origin_allowed(ws.headers, self.settings.allowed_origins):
            await ws.close(code=1008, reason="origin not allowed")
            return
        session = await self.sessions.get_session(ws.cookies.get(COOKIE))
        player = session.player if session else None
        conn = Connection(self, ws, player)
        conn.account = bool(session and session.account)
        self.connections.add(conn)
        if session is not None:
            self.session_guard.add(conn, session.id)
        if player is not None:
            self.by_player.setdefault(player.id, set()).add(conn)
        try:
            await conn.run()
        finally:
            self.connections.discard(conn)
            self.session_guard.discard(conn)
            self.lobby_sockets.discard(conn)
            if player is not None:
                mine = self.by_player.get(player.id, set())
                mine.discard(conn)
                if not mine:
                    self.by_player.pop(player.id, None)


def client_dir(settings: Settings) -> Path:
    """Where the built client is: the setting, or client/dist beside the source tree."""
    if settings.client_dir:
        return Path(settings.client_dir)
    return Path(__file__).resolve().parents[3] / "client" / "dist"


def create_app(settings: Settings | None = None) -> Starlette:
    """The ASGI application (uvicorn calls this as a factory in every worker)."""
    settings = settings or Settings.from_env()
    hub = Hub(settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await hub.start()
        try:
            yield
        finally:
            await hub.stop()

    static = client_dir(settings)
    routes = [
        *http.routes(hub, static),
        *web.routes(hub),
        WebSocketRoute("/ws", hub.websocket),
    ]
    if (static / "assets").is_dir():
        routes.append(Mount("/assets", web.Assets(directory=static / "assets"), name="assets"))
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[Middleware(GZipMiddleware, minimum_size=web.GZIP_MIN_BYTES)],
        exception_handlers={404: web.not_found_handler(static)},
    )
    app.state.hub = hub
    return app
