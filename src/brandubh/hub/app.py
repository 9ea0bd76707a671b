"""The composition root: builds the hub's services, wires them, and runs their lifespan.

Nothing else imports this module. Every service receives exactly what it uses; the
fan-out's hooks are wired before it starts listening; the background loops run in one
task group for the lifetime of the app (docs/architecture.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.routing import Mount, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from brandubh.hub import connection, frames, http, http_accounts, loops, redis_client
from brandubh.hub.accounts import Accounts, SessionGuard
from brandubh.hub.bot_worker import BotWorker
from brandubh.hub.config import Settings
from brandubh.hub.endings import Endings
from brandubh.hub.errors import Refusal
from brandubh.hub.fanout import Fanout
from brandubh.hub.games import GameService
from brandubh.hub.lobby import Lobby
from brandubh.hub.matches import MatchService
from brandubh.hub.protocol import CLOSE_SERVER_SHUTDOWN
from brandubh.hub.rater import Rater
from brandubh.hub.scheduler import Scheduler
from brandubh.hub.scripts import Scripts
from brandubh.hub.sessions import Sessions
from brandubh.hub.sockets import Sockets
from brandubh.hub.watchers import Watchers

log = logging.getLogger("brandubh.hub")

LOBBY_TICK_S = 1.0
WATCH_LIST_EVERY = 3  # lobby ticks between pushes of the list of games to watch


class Hub:
    """One hub process's services, wired; ``running()`` is their lifespan."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        # One Redis or a Redis Cluster (BRANDUBH_REDIS_CLUSTER): see redis_client.py.
        self.redis = redis = redis_client.connect(settings)
        scripts = Scripts.register(redis)
        self.replicas = None
        if settings.redis_wait_replicas > 0:
            self.replicas = redis_client.ReplicaWait(
                redis, settings.redis_wait_replicas, settings.redis_wait_ms
            )
        self.games = games = GameService(redis, scripts, settings.time_scale, self.replicas)
        self.scheduler = Scheduler(
            redis,
            scripts,
            games,
            poll_s=settings.scheduler_poll_s,
            outage_after_s=settings.outage_after_s,
        )
        self.sockets = sockets = Sockets()
        self.sessions = sessions = Sessions(redis)
        self.accounts = Accounts(redis, scripts, sessions, settings)
        self.session_guard = SessionGuard(sessions, sockets)
        self.rater = Rater(redis, scripts, games)
        self.matches = matches = MatchService(redis, games)
        self.endings = Endings(redis, scripts, steps=(self.rater.finish, matches.advance))
        self.bot = BotWorker(redis, scripts, games, settings, self.scheduler.redis_now_ms)
        self.lobby = Lobby(
            redis,
            scripts,
            games,
            rating=self.rater.lookup,
            matches=matches,
            clock=self.scheduler.redis_now_ms,
        )
        self.watchers = Watchers(scripts)
        self.fanout = fanout = Fanout(redis, redis_client.pubsub_factory(redis))
        # Wired before the fan-out starts listening, so no event can be missed.
        fanout.hooks += [games.committer.observe, self.endings.on_event, self.bot.on_event]
        fanout.hub_hooks.append(self.session_guard.on_notice)
        fanout.lobby_hooks.append(self.on_lobby_notice)
        self.connection_services = connection.Services(
            settings=settings,
            games=games,
            fanout=fanout,
            watchers=self.watchers,
            lobby=self.lobby,
            matches=matches,
            sockets=sockets,
            sessions=sessions,
            clock=self.scheduler.redis_now_ms,
        )
        self._ticks = 0

    def loops(self) -> list[loops.Loop]:
        """The background work of this process, each run by loops.run."""
        s = self.settings
        return [
            loops.Loop("scheduler", self.scheduler.tick, s.scheduler_poll_s),
            loops.Loop("archive sweep", self.endings.sweep, s.archive_poll_s),
            loops.Loop("bot worker", self.bot.sweep, s.bot_poll_s, wake=self.bot.wake),
            loops.Loop("session re-check", self.session_guard.recheck, SessionGuard.RECHECK_S),
            loops.Loop("lobby", self.lobby_tick, LOBBY_TICK_S),
        ]

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Start everything, run until the app stops, then stop everything."""
        await self.redis.ping()
        await self.accounts.start()
        await self.scheduler.beat()  # before any deadline is judged: was the service down?
        try:
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(self.fanout.listen(), name="fan-out")]
                await asyncio.wait_for(self.fanout.ready.wait(), timeout=10)
                tasks += [group.create_task(loops.run(lp), name=lp.name) for lp in self.loops()]
                try:
                    yield
                finally:
                    self.sockets.close_all(CLOSE_SERVER_SHUTDOWN, "server shutting down")
                    for task in tasks:
                        task.cancel()
        finally:
            await self.endings.stop()
            await self.bot.stop()
            await redis_client.close(self.redis)

    def on_lobby_notice(self, msg: dict[str, Any], frame: bytes) -> None:
        """A lobby frame from any hub: seeks go to lobby sockets, pairings to the players."""
        if msg.get("t") == "paired":
            self.sockets.tell(msg.get("players", ()), frame)
        else:
            self.sockets.tell_lobby(frame)

    async def lobby_tick(self) -> None:
        """Pair waiting players whose windows have widened; now and then push the watch list."""
        self._ticks += 1
        await self.lobby.sweep()
        if self.sockets.lobby_followers and self._ticks % WATCH_LIST_EVERY == 0:
            self.sockets.tell_lobby(frames.games(await self.lobby.watch_list()))

    async def websocket(self, ws: WebSocket) -> None:
        await connection.serve(self.connection_services, ws)


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
        async with hub.running():
            yield

    static = client_dir(settings)
    web = http.Services(
        settings=settings,
        redis=hub.redis,
        sessions=hub.sessions,
        accounts=hub.accounts,
        games=hub.games,
        matches=hub.matches,
        rater=hub.rater,
    )
    routes = [
        *http_accounts.routes(web),
        *http.routes(web, static),
        WebSocketRoute("/ws", hub.websocket),
    ]
    if (static / "assets").is_dir():
        routes.append(Mount("/assets", StaticFiles(directory=static / "assets"), name="assets"))
    return Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={Refusal: http.refusal_response},
    )
