"""The composition root: builds the hub's services, wires them, and runs their lifespan.

Nothing else imports this module. Every service receives exactly what it uses; the game
service and the fan-out take their hooks at construction (the hub's ``on_commit`` and the
like); the background loops run in one task group for the lifetime of the app
(docs/architecture.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from pathlib import Path

from redis.asyncio import Redis
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from brandubh import native
from brandubh.engine import RULESETS
from brandubh.hub import loops
from brandubh.hub.accounts import Accounts, Resets, Sessions, Verification
from brandubh.hub.analysis import Analyses
from brandubh.hub.botapi import BOT_SOCKET_PATH, BotGames, serve_bot_socket
from brandubh.hub.challenges import AccountNotices, Challenges, EventStreams
from brandubh.hub.chat import ChatService
from brandubh.hub.config import Settings
from brandubh.hub.errors import Refusal
from brandubh.hub.exports import Exports
from brandubh.hub.http import (
    GZIP_MIN_BYTES,
    DatabaseHealth,
    LeanRoutes,
    MailServices,
    RedactSecrets,
    SecurityHeaders,
    WebServices,
    exception_handlers,
    refusal_json,
)
from brandubh.hub.http import routes as http_routes
from brandubh.hub.lessons import Lessons
from brandubh.hub.live import (
    CONDITIONAL_POLL_S,
    RECONCILE_POLL_S,
    BotWorker,
    Change,
    Conditionals,
    ConditionalWorker,
    Endings,
    GameService,
    Listings,
    Marks,
    MatchService,
    Rater,
    Reconciler,
    RedisClock,
    Scheduler,
)
from brandubh.hub.lobby import Lobby
from brandubh.hub.mail import (
    PRESENCE_EVERY_S,
    MailSettingsError,
    Outbox,
    Reminders,
    Tokens,
    transport_for,
)
from brandubh.hub.messages import CLOSE_SERVER_SHUTDOWN, CLOSE_TRY_AGAIN_LATER, frames
from brandubh.hub.puzzles import Puzzles
from brandubh.hub.redis import Lane, Scripts, outage
from brandubh.hub.redis import client as redis_client
from brandubh.hub.social import Social
from brandubh.hub.tokens import ApiTokens
from brandubh.hub.tournaments import TournamentRunner, TournamentService
from brandubh.hub.wire import (
    RENEW_S,
    Fanout,
    Heartbeat,
    Presence,
    SessionGuard,
    SharedBudgets,
    Sockets,
    TurnNotices,
    Watchers,
    connection,
    on_server_stop,
)
from brandubh.puzzles import InvalidPuzzle, load_shipped
from brandubh.store import Store, StoreUnavailable

MAIL_POLL_S = 1.0
RELEASE_SWEEP_S = 10.0

log = logging.getLogger(__name__)

LOBBY_TICK_S = 1.0
TOURNAMENT_POLL_S = 1.0  # the runner's poll; a due event wakes it sooner (runner.py)
WATCH_LIST_EVERY = 3  # lobby ticks between pushes of the list of games to watch


# Nearly everything a move allocates is freed by reference counting, yet at Python's
# default threshold (700) the collector ran about 25 times a second under saturation, and
# its full collections scanned every cached game: 0.36 s of every 5 s, about 8 % of the
# hub's CPU (bench/load.py). At 20,000: 0.02 s of every 5 s, for a few MB of garbage
# waiting at most.
GC_YOUNG_THRESHOLD = 20_000


def tune_gc() -> None:
    """Once started: what exists now lives as long as the process (modules, tables, the
    engine's caches), so the collector stops scanning it; and collect young objects less
    often."""
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, older, oldest)


class Hub:
    """One hub process's services, wired; ``running()`` is their lifespan."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        # One Redis or a Redis Cluster (BRANDUBH_REDIS_CLUSTER): see redis/client.py.
        self.redis = redis = redis_client.connect(settings)
        cluster = redis_client.cluster_of(redis)
        scripts = Scripts.register(redis)
        # The permanent record (accounts, ratings, the archive): PostgreSQL.
        self.store = store = Store.from_url(
            settings.database_url, pool_size=settings.database_pool_size
        )
        self.clock = clock = RedisClock()
        # This process among the hubs: its watermark (clock.Marks), its entry in the sets of
        # hubs that follow a game (fanout.py), what commit.lua need not publish back to it.
        self.hub_id = hub_id = secrets.token_hex(6)
        # The commit path's pipelined connection (lane.py), on one Redis: on a cluster the
        # cluster client routes each commit to its game's master instead.
        self.lane = (
            Lane(redis.connection_pool, redis_client.COMMAND_TIMEOUT_S) if cluster is None else None
        )
        replicas = None
        if settings.redis_wait_replicas > 0:
            replicas = redis_client.ReplicaWait(
                redis, settings.redis_wait_replicas, settings.redis_wait_ms
            )
        self.games = games = GameService(
            redis,
            scripts,
            settings.time_scale,
            store,
            settings.bot_games_per_player,
            lane=self.lane,
            bot_games_per_address=settings.bot_games_per_address,
            replicas=replicas,
            hub_id=hub_id,
            claim_grace_s=settings.claim_grace_s,
            outage_after_s=settings.outage_after_s,
            on_commit=self.on_commit,
            on_lost=self.on_lost,
        )
        self.marks = Marks(
            settings.redis_url,
            scripts,
            clock,
            hub_id,
            cluster,
            replicas=settings.redis_wait_replicas,
            wait_ms=settings.redis_wait_ms,
        )
        self.scheduler = Scheduler(
            redis,
            scripts,
            games,
            clock,
            self.marks,
            lane=self.lane,
            poll_s=settings.scheduler_poll_s,
            outage_after_s=settings.outage_after_s,
        )
        self.sockets = sockets = Sockets()
        self.sessions = sessions = Sessions(redis, self.lane)
        self.accounts = Accounts(redis, scripts, sessions, settings, store)
        self.session_guard = SessionGuard(sessions, sockets)
        # Follows and blocks: a block hides chat lines and keeps two players unpaired.
        self.social = Social(redis, scripts, store, games)
        self.lessons = Lessons(redis, scripts, store)
        self.puzzles = Puzzles(redis, scripts, store, frozenset(RULESETS))
        self.chat = ChatService(redis, scripts, store, hidden=self.social.blocked_ids)
        self.rater = Rater(redis, games, store, self.chat, grace_s=settings.live_grace_s)
        self.matches = matches = MatchService(redis, games, store, settings.live_grace_s)
        self.tournament_runner = TournamentRunner(
            redis, scripts, games, matches, store, clock.now_ms, settings.live_grace_s
        )
        self.tournaments = TournamentService(
            redis,
            scripts,
            games,
            self.tournament_runner,
            self.rater.lookup,
            store,
            clock.now_ms,
            arena_scale=settings.tournament_scale,
            max_running=settings.tournaments_per_account,
        )
        # The match step first (the tournament's reads the match it moved on), then the
        # tournament's: both read the game's live state, which the rater lets go.
        self.endings = Endings(
            redis,
            scripts,
            steps=(matches.advance, self.tournament_runner.game_ended, self.rater.finish),
            defer=self.scheduler.busy,
        )
        # Finds any ended game not archived that the queue above lost: one hub a minute.
        self.reconciler = Reconciler(redis, scripts)
        self.bot = BotWorker(redis, scripts, games, settings, clock, self.marks)
        self.conditionals = Conditionals(redis, scripts, games)
        self.conditional_replies = ConditionalWorker(
            redis, scripts, games, clock, self.marks, enabled=settings.conditional_replies
        )
        self.lobby = Lobby(
            redis,
            scripts,
            games,
            rating=self.rater.lookup,
            matches=matches,
            clock=clock.now_ms,
            avoided=self.social.avoided,
        )
        # Analysis by the bot: queued here, computed by the workers (hub/analysis/worker.py).
        self.analyses = Analyses(redis, scripts, games, store, settings)
        self.exports = Exports(store, scripts, settings.exports_per_address)
        # Personal API tokens (docs/api.md): kept in PostgreSQL, rate windows in Redis.
        self.tokens = ApiTokens(redis, scripts, store, settings, self.lane)
        self.watchers = Watchers(scripts)
        self.presence = Presence(scripts.presence)
        self.mail_services(settings, redis, scripts)
        # Its hooks given at construction, before it starts listening, so no event can be
        # missed: pub/sub brings other hubs' events only for games followed here.
        self.fanout = fanout = Fanout(
            redis,
            hub_id,
            scripts.member,
            on_event=games.cache.observe,
            on_lobby=self.on_lobby_notice,
            on_hub=self.on_hub_notice,
        )
        # What this process commits reaches its own sockets, endings, bot worker, turn
        # notices, move reminders and the lists to browse at once (``on_commit``).
        self.turns = TurnNotices(redis, hub_id, sockets, games.cache.get)
        self.listings = Listings(redis)
        # Challenges and the account event streams (hub/challenges/): account notices
        # reach this hub's streams and sockets from any hub, through the hubs' channel.
        self.events = EventStreams()
        self.account_notices = AccountNotices(redis, hub_id, sockets, self.events)
        self.challenges = Challenges(
            redis,
            scripts,
            games,
            self.accounts,
            self.account_notices,
            blocks=self.social.blocks,
        )
        self.commit_hooks: tuple[Callable[[Change, int, bytes], None], ...] = (
            self.deliver,
            self.endings.on_commit,
            self.bot.on_commit,
            self.conditional_replies.on_commit,
            self.turns.on_commit,
            self.reminders.on_commit,
            self.listings.on_commit,
            self.scheduler.on_commit,
            self.account_notices.on_commit,
        )
        self.heartbeat = Heartbeat(settings.ping_interval_s)
        self.connection_services = connection.Services(
            settings=settings,
            games=games,
            fanout=fanout,
            watchers=self.watchers,
            presence=self.presence,
            lobby=self.lobby,
            matches=matches,
            sockets=sockets,
            sessions=sessions,
            clock=clock.now_ms,
            stamp=clock.stamp,
            hold=clock.hold,
            budgets=SharedBudgets(settings),
            require_verified=self.accounts.require_verified,
            require_person=self.accounts.require_person,
            heartbeat=self.heartbeat,
            conditionals=self.conditionals,
            chat=self.chat,
            tournament_frame=self.tournament_frame,
            analysis_frame=self.analyses.frame_now,
        )
        # The Bot API's games (hub/botapi/): on the websockets' own services.
        self.bots = BotGames(self.connection_services)
        self._ticks = 0

    def mail_services(self, settings: Settings, redis: Redis, scripts: Scripts) -> None:
        """The outbox and the mail flows (docs/accounts.md, "Mail")."""
        try:
            transport = transport_for(settings.smtp_url, settings.mail_from, settings.mail_dir)
        except MailSettingsError as exc:
            raise SystemExit(str(exc)) from None
        clock = self.clock.now_ms
        self.outbox = outbox = Outbox(
            redis, scripts, transport, settings.mail_from, clock, settings.mail_retry_s
        )
        tokens = Tokens(redis, scripts)
        url = settings.public_url
        self.verification = Verification(redis, scripts, self.accounts, tokens, outbox, url)
        self.resets = Resets(scripts, self.accounts, tokens, outbox, url)
        self.accounts.on_signup.append(self.verification.signed_up)
        self.accounts.on_taken.append(self.verification.signed_up_again)
        self.accounts.on_password_set.append(self.resets.password_set)
        # Round mails of correspondence tournaments go through the same outbox.
        self.tournament_runner.outbox = outbox
        self.tournament_runner.accounts = self.accounts
        self.tournament_runner.public_url = url.rstrip("/")
        self.reminders = Reminders(
            redis,
            scripts,
            self.games,
            self.games.cache.get,
            self.accounts,
            tokens,
            outbox,
            self.sockets.player_ids,
            url,
            clock,
        )

    def loops(self) -> list[loops.Loop]:
        """The background work of this process, each run by loops.run."""
        s = self.settings
        return [
            # Every 25 ms while a socket or bot turn is here; idle, about once a second.
            loops.Loop("marks", self.marks.tick, self.marks.every_s),
            loops.Loop("heartbeat", self.heartbeat.turn, self.heartbeat.every_s, reads_redis=False),
            loops.Loop(
                "scheduler",
                self.scheduler.tick,
                s.scheduler_poll_s,
                wake=self.scheduler.wake,
                cadence=True,
            ),
            loops.Loop("archive sweep", self.endings.sweep, s.archive_poll_s),
            loops.Loop("archive reconciliation", self.reconciler.tick, RECONCILE_POLL_S),
            loops.Loop("bot worker", self.bot.sweep, s.bot_poll_s, wake=self.bot.wake),
            loops.Loop(
                "conditional replies",
                self.conditional_replies.sweep,
                CONDITIONAL_POLL_S,
                wake=self.conditional_replies.wake,
            ),
            loops.Loop("session re-check", self.session_guard.recheck, SessionGuard.RECHECK_S),
            loops.Loop("lobby", self.lobby_tick, LOBBY_TICK_S),
            loops.Loop("fan-out renewal", self.fanout.renew, RENEW_S, reads_redis=False),
            loops.Loop("mail", self.outbox.deliver, MAIL_POLL_S, wake=self.outbox.wake),
            loops.Loop("reminders", self.reminders.tick, MAIL_POLL_S),
            loops.Loop("presence", self.reminders.beat, PRESENCE_EVERY_S),
            loops.Loop("address release", self.verification.sweep, RELEASE_SWEEP_S),
            loops.Loop(
                "tournaments",
                self.tournament_runner.sweep,
                TOURNAMENT_POLL_S,
                wake=self.tournament_runner.wake,
            ),
        ]

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Start everything, run until the app stops, then stop everything."""
        log.info("%s", native.summary())  # engine and hub modules; the bot's at its pool
        await self.redis.ping()
        await self.accounts.start()
        await self.scheduler.beat()  # before any deadline is judged: was the service down?
        await self.marks.write()
        await load_shipped_puzzles(self.store)
        try:
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(self.fanout.listen(), name="fan-out")]
                await asyncio.wait_for(self.fanout.ready.wait(), timeout=10)
                tasks += [group.create_task(loops.run(lp), name=lp.name) for lp in self.loops()]
                tune_gc()
                try:
                    yield
                finally:
                    self.sockets.close_all(CLOSE_SERVER_SHUTDOWN, "server shutting down")
                    for task in tasks:
                        task.cancel()
        finally:
            await self.endings.stop()
            await self.tournament_runner.stop()
            await self.listings.stop()
            await self.account_notices.stop()
            await self.bot.stop()
            await self.conditional_replies.stop()
            await self.reminders.stop()
            await self.marks.close()
            if self.lane is not None:
                await self.lane.aclose()
            await redis_client.close(self.redis)
            await self.store.close()

    def on_commit(self, change: Change, n: int, frame: bytes) -> None:
        """Each change this process committed (the game service's ``on_commit``), to what
        follows it here, in order: the fan-out first (its sockets), then the rest."""
        for hook in self.commit_hooks:
            hook(change, n, frame)

    def on_lost(self, game_id: str) -> None:
        """A commit's reply lost with the lane: the game's sockets here catch up."""
        self.fanout.resync(game_id)

    def deliver(self, change: Change, n: int, frame: bytes) -> None:
        """The event to this hub's sockets of the game, at once (``Fanout.deliver``)."""
        self.fanout.deliver(change.new.id, n, frame)

    def on_hub_notice(self, msg: dict[str, object]) -> None:
        """A notice on the hubs' own channel: turn notices, ended sessions, analyses."""
        self.turns.on_notice(msg)
        self.account_notices.on_notice(msg)
        self.session_guard.on_notice(msg)
        self.on_analysis_notice(msg)

    def on_lobby_notice(self, msg: dict[str, object], frame: bytes) -> None:
        """A lobby frame from any hub: seeks go to lobby sockets, pairings to the players,
        a tournament's frame to its followers, a tournament game to its player."""
        kind = msg.get("t")
        if kind == "paired":
            players = msg.get("players", ())
            if isinstance(players, list | tuple):
                self.sockets.tell([str(p) for p in players], frame)
        elif kind in ("tournament", "tournament_delta"):
            self.sockets.tell_tournament(str(msg.get("tournament")), frame)
            self.tournament_runner.observe(msg)
        elif kind == "tournament_game":
            self.sockets.tell((str(msg.get("player")),), frame)
        else:
            self.sockets.tell_lobby(frame)

    def on_analysis_notice(self, msg: dict[str, object]) -> None:
        """A worker's notice on the hubs' channel: a game's progress or completion goes to
        the sockets here that follow its analysis; a cached evaluation wakes its waiters."""
        kind, game_id = msg.get("t"), msg.get("game")
        if kind == "analysis_progress" and isinstance(game_id, str):
            ply, of = msg.get("ply"), msg.get("of")
            if isinstance(ply, int) and isinstance(of, int):
                self.sockets.tell_analysis(game_id, frames.analysis_progress(game_id, ply, of))
        elif kind == "analysis_done" and isinstance(game_id, str):
            self.sockets.tell_analysis(game_id, frames.analysis_done(game_id))
        else:
            self.analyses.on_notice(msg)

    async def tournament_frame(self, tournament_id: str) -> bytes:
        """A tournament's frame now, for a socket that starts to follow it."""
        version, view = await self.tournaments.frame_view(tournament_id)
        return frames.tournament(tournament_id, view, version)

    async def lobby_tick(self) -> None:
        """Pair waiting players whose windows have widened; now and then push the watch list."""
        self._ticks += 1
        await self.lobby.sweep()
        if self.sockets.lobby_followers and self._ticks % WATCH_LIST_EVERY == 0:
            self.sockets.tell_lobby(frames.games(await self.lobby.watch_list()))

    async def websocket(self, ws: WebSocket) -> None:
        """``/ws``: a socket speaking for its session."""
        await self._socket(ws, connection.serve(self.connection_services, ws))

    async def bot_socket(self, ws: WebSocket) -> None:
        """``/api/bot/socket``: a socket speaking for a ``bot:play`` token (hub/botapi/)."""
        await self._socket(ws, serve_bot_socket(self.connection_services, self.tokens, ws))

    async def _socket(self, ws: WebSocket, serving: Coroutine[object, object, None]) -> None:
        # In use from before the socket is accepted (no move can come sooner) to its end.
        # (enter and leave, not in_use: its generator and an exit stack would be held for
        # the socket's life, about 1.3 KiB.)
        try:
            await self.marks.enter()
        except outage.UNREACHABLE as exc:  # an idle hub's first mark could not be written
            serving.close()
            outage.report("socket", exc)
            await ws.accept()
            why = "the service is unavailable: try again shortly"
            await ws.close(CLOSE_TRY_AGAIN_LATER, why)
            return
        try:
            await serving
        finally:
            self.marks.leave()

    async def stats(self, request: Request) -> JSONResponse:
        """Counters for the benchmarks (bench/load.py): what pub/sub brought this process."""
        waited = self.games.committer.replicas
        return JSONResponse(
            {
                "game_messages": self.fanout.received,
                "games_followed": len(self.fanout.games),
                "sockets": len(self.sockets.all),
                # Commits acknowledged before the replicas asked for confirmed them (WAIT).
                "under_replicated": waited.short if waited is not None else 0,
                **self.bots.stats(),
            }
        )


def client_dir(settings: Settings) -> Path:
    """Where the built client is: the setting, or client/dist beside the source tree."""
    if settings.client_dir:
        return Path(settings.client_dir)
    return Path(__file__).resolve().parents[3] / "client" / "dist"


class Entry:
    """The ASGI entry: a socket on /ws (or the bot socket's path) goes straight to its
    endpoint, all else to the web.

    A socket lives for hours. Routed through Starlette, it would keep a coroutine frame of
    each middleware and of the router for all that time (about 4 KiB a socket), for
    middleware that acts on HTTP answers only."""

    def __init__(
        self,
        web: ASGIApp,
        socket: Callable[[WebSocket], Awaitable[None]],
        bot_socket: Callable[[WebSocket], Awaitable[None]] | None = None,
    ) -> None:
        self.web = web
        self.socket = socket
        self.bot_socket = bot_socket

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            path = scope["path"]
            if path == "/ws":
                await self.socket(WebSocket(scope, receive, send))
                return
            if path == BOT_SOCKET_PATH and self.bot_socket is not None:
                await self.bot_socket(WebSocket(scope, receive, send))
                return
        await self.web(scope, receive, send)


async def load_shipped_puzzles(store: Store) -> int:
    """Insert the shipped puzzle set's missing puzzles, so a fresh install has puzzles at
    once (every hub does it at start: idempotent, ids already kept are skipped). A set that
    does not read or a PostgreSQL out of reach is logged, and the hub starts anyway."""
    try:
        shipped = load_shipped()
    except InvalidPuzzle as exc:
        log.error("the shipped puzzle set does not read: %s", exc)
        return 0
    if not shipped:
        return 0
    try:
        added = await store.add_puzzles(shipped)
    except StoreUnavailable:
        log.warning("PostgreSQL unreachable: the shipped puzzles are loaded at the next start")
        return 0
    if added:
        log.info("puzzles: %d of the %d shipped added", added, len(shipped))
    return added


def create_app(settings: Settings | None = None) -> Entry:
    """The ASGI application (uvicorn calls this as a factory in every worker)."""
    settings = settings or Settings.from_env()
    hub = Hub(settings)
    # The Bot API's streams end when the server begins to stop, not at its grace's end.
    on_server_stop(hub.bots.end_all)
    on_server_stop(hub.events.end_all)  # the event streams too (their clients reopen them)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with hub.running():
            yield

    static = client_dir(settings)
    web_services = WebServices(
        settings=settings,
        redis=hub.redis,
        sessions=hub.sessions,
        accounts=hub.accounts,
        games=hub.games,
        matches=hub.matches,
        rater=hub.rater,
        chat=hub.chat,
        analyses=hub.analyses,
        static=static,
        database=DatabaseHealth(hub.accounts.store.ping),
        tokens=hub.tokens,
        social=hub.social,
        tournaments=hub.tournaments,
        exports=hub.exports,
        bots=hub.bots,
        challenges=hub.challenges,
        events=hub.events,
        lessons=hub.lessons,
        puzzles=hub.puzzles,
    )
    mail_web = MailServices(
        settings=settings,
        sessions=hub.sessions,
        accounts=hub.accounts,
        verification=hub.verification,
        resets=hub.resets,
        reminders=hub.reminders,
        static=static,
    )
    found = http_routes(static, tournaments=web_services.tournaments is not None)
    routes = [*found, Route("/healthz/stats", hub.stats)]
    handlers = exception_handlers()
    handlers.update(dict.fromkeys(outage.UNREACHABLE, unavailable))
    # uvicorn's access log (BRANDUBH_LOG_LEVEL=info) never shows a mailed token or invite.
    access_log = logging.getLogger("uvicorn.access")
    for old in [f for f in access_log.filters if isinstance(f, RedactSecrets)]:
        access_log.removeFilter(old)
    access_log.addFilter(RedactSecrets(routes))
    web_app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers=handlers,
        middleware=[
            Middleware(SecurityHeaders),
            Middleware(GZipMiddleware, minimum_size=GZIP_MIN_BYTES),
        ],
    )
    # What every endpoint reads its services from (http/base.services, mail.mail_services).
    web_app.state.services = web_services
    web_app.state.mail = mail_web
    # A bot's move skips Starlette's layers (http/lean.py); all else goes on to them.
    return Entry(LeanRoutes(web_app, web_services, handlers), hub.websocket, hub.bot_socket)


async def unavailable(request: Request, exc: Exception) -> Response:
    """Redis could not be reached: 503, and one log line per outage (not a traceback)."""
    outage.report("http", exc)
    response = refusal_json(Refusal("unavailable"))
    response.headers["Retry-After"] = "1"
    return response
