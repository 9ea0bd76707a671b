"""The hub's Starlette application: its parts, its lifespan and its routes."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

from redis.asyncio import BlockingConnectionPool, Redis
from starlette.applications import Starlette
from starlette.routing import Mount, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from brandubh.hub import http, keys
from brandubh.hub.bot_worker import BotWorker
from brandubh.hub.config import Settings
from brandubh.hub.connection import WATCHER_TTL_MS, Connection
from brandubh.hub.fanout import Fanout
from brandubh.hub.games import GameService
from brandubh.hub.origin import origin_allowed
from brandubh.hub.scheduler import Scheduler
from brandubh.hub.scripts import Scripts
from brandubh.hub.sessions import COOKIE, Sessions

log = logging.getLogger("brandubh.hub")


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
        self.fanout = Fanout(self.redis)
        self.bot = BotWorker(self, settings)
        self.connections: set[Connection] = set()

    async def start(self) -> None:
        await self.redis.ping()
        await self.fanout.start()
        self.fanout.hooks.append(self.games.observe)
        self.fanout.hooks.append(self.bot.on_event)
        await self.bot.start()
        await self.scheduler.start()

    async def stop(self) -> None:
        for conn in list(self.connections):
            conn.close(1001, "server shutting down")
        await self.scheduler.stop()
        await self.bot.stop()
        await self.fanout.stop()
        await self.redis.aclose()
        await self.pool.aclose()

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
        player = await self.sessions.get(ws.cookies.get(COOKIE))
        conn = Connection(self, ws, player)
        self.connections.add(conn)
        try:
            await conn.run()
        finally:
            self.connections.discard(conn)


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
        WebSocketRoute("/ws", hub.websocket),
    ]
    if (static / "assets").is_dir():
        routes.append(Mount("/assets", StaticFiles(directory=static / "assets"), name="assets"))
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.hub = hub
    return app
