"""Analysis by the bot, as the hubs ask for it (docs/analysis.md, "The queue and the workers").

A finished game's analysis is queued once in Redis (``lua/analysis.lua``) for the workers
(``brandubh analyse-worker``, beside the service, never in it) and read from PostgreSQL once
a worker kept it there. A board evaluation is queued the same way, ahead of the games,
cached by position, and waited for a bounded time; so is a move tried in place of a judged
one (learning from one's mistakes: exercise.py of the analysis), cached by game, ply and
move. Who may ask is the HTTP route's question (http/analysis.py); here are the limits, the
queue's bound, and the positions of the games in progress, which nobody may have evaluated
(inplay.py)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import secrets
from collections.abc import Coroutine, Iterable, Mapping
from typing import Final, TypeAlias, cast

from redis.asyncio import Redis

from brandubh.analysis import (
    ANALYSIS_VERSION,
    BOARD_NODES,
    NODES_PER_PLY,
    GameAnalysis,
    exercises,
    try_move,
)
from brandubh.engine import EngineError, Game, IllegalMove
from brandubh.hub.analysis.inplay import Board, board, in_play
from brandubh.hub.analysis.walks import BoardWalks, address_limit
from brandubh.hub.config import Settings
from brandubh.hub.errors import RateLimited, Refusal
from brandubh.hub.live import GameService, GameState, unpack_snapshot
from brandubh.hub.messages import frames
from brandubh.hub.redis import Scripts, keys
from brandubh.store import Store

# A JSON object passed through as the HTTP API gives it (docs/analysis.md, docs/protocol.md).
JsonObject: TypeAlias = dict[str, object]

DAY_MS: Final = 24 * 3600 * 1000
HOUR_MS: Final = 3600 * 1000
POLL_S: Final = 0.5  # a waiting evaluation looks at the cache this often, notice or not


def position_digest(ruleset: str, position: str, nodes: int) -> str:
    """The cache key of one board evaluation: the version, rule set, position and budget."""
    text = f"{ANALYSIS_VERSION}|{ruleset}|{position}|{nodes}"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def tried_digest(game_id: str, ply: int, move: str, nodes: int) -> str:
    """The cache key of a move tried in an exercise: the version, game, ply, canonical move
    and the analysis's budget (a game's moves never change once it has ended)."""
    text = f"{ANALYSIS_VERSION}|{game_id}|{ply}|{move}|{nodes}"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _texts(reply: Iterable[object]) -> list[str]:
    return [x.decode() if isinstance(x, bytes) else str(x) for x in reply]


class Analyses:
    """Requests, statuses and board evaluations, over the queue in Redis and the store."""

    def __init__(
        self,
        redis: Redis,
        scripts: Scripts,
        games: GameService,
        store: Store,
        settings: Settings,
    ) -> None:
        self.redis = redis
        self.scripts = scripts
        self.games = games
        self.store = store
        self.settings = settings
        self.nodes = settings.analysis_nodes or NODES_PER_PLY
        self.board_nodes = settings.analysis_board_nodes or BOARD_NODES
        # The analysis board's walks, counted per address and walked off the event loop.
        self.walks = BoardWalks(address_limit(scripts, settings.walks_per_address))
        # Board evaluations this process waits for, by digest: set by a worker's notice.
        self._waiting: dict[str, asyncio.Event] = {}
        # The latest scan of the running games' boards, and when it began (loop time).
        self._scan: asyncio.Future[list[Board]] | None = None
        self._scan_began = 0.0

    # -- a game's analysis ---------------------------------------------------------------

    async def _script(
        self, mode: str, queue: str, job: str, job_id: str, *args: str | int
    ) -> list[str]:
        reply = await self.scripts.analysis(keys=[queue, job], args=[mode, job_id, *args])
        return _texts(reply)

    async def _queue(self, queue: str, job: str, job_id: str, *fields: str | int) -> list[str]:
        """Queue a job with its fields (unless known), a token waking one idle worker."""
        reply = await self.scripts.analysis(
            keys=[queue, job, keys.analysis_wake()],
            args=[
                "request",
                job_id,
                self.settings.analysis_queue_max,
                keys.ANALYSIS_WAKE_MAX,
                *fields,
            ],
        )
        return _texts(reply)

    async def stored(self, game_id: str) -> JsonObject | None:
        """The game's analysis of this version, once a worker kept it."""
        return await self.store.analysis(game_id, ANALYSIS_VERSION)

    async def status(self, game_id: str) -> JsonObject:
        """``{"status": none | queued | running | done, ...}`` (docs/protocol.md)."""
        queued = await self._queued(game_id)
        if queued is not None:
            return queued
        analysis = await self.stored(game_id)
        if analysis is None:
            return {"status": "none"}
        return {"status": "done", "analysis": analysis}

    async def frame_now(self, game_id: str) -> bytes | None:
        """What a socket that starts to follow this game's analysis is told at once: the
        progress if it runs, ``analysis_done`` if it is kept, else nothing. Asked after the
        socket follows, so a job that ends between the two is seen by one or the other."""
        status = await self.status(game_id)
        if status["status"] == "running":
            return frames.analysis_progress(
                game_id, cast(int, status["ply"]), cast(int, status["of"])
            )
        if status["status"] == "done":
            return frames.analysis_done(game_id)
        return None

    async def _queued(self, game_id: str) -> JsonObject | None:
        reply = await self._script(
            "status", keys.analysis_queue(), keys.analysis_job("g", game_id), game_id
        )
        return _shape(reply)

    async def request(
        self, state: GameState, account_id: str | None, address: str
    ) -> tuple[bool, JsonObject]:
        """Queue the analysis of a finished game unless it is done or queued already:
        (whether it was queued now, the status). Counted against the limits only when
        queued; ``analysis_busy`` past the queue's bound; ``no_moves`` for a game that ended
        before its first move (an abort, a withdrawn invitation): nothing to analyse."""
        if not state.moves:
            raise Refusal("no_moves")
        if await self.stored(state.id) is not None:
            return False, {"status": "done"}
        queue, job = keys.analysis_queue(), keys.analysis_job("g", state.id)
        known = await self._script("status", queue, job, state.id)
        if known[0] != "none":
            return False, cast(JsonObject, _shape(known))
        self._check_bound(int(known[1]))
        await self._count(account_id, address)
        start = state.snapshot().start_position
        if start == Game(state.ruleset).position:
            start = ""  # the rule set's own start
        reply = await self._queue(
            queue,
            job,
            state.id,
            "kind", "g",
            "ruleset", state.ruleset,
            "position", start,
            "moves", " ".join(state.moves),
            "nodes", self.nodes,
            "version", ANALYSIS_VERSION,
        )  # fmt: skip
        if reply[0] == "busy":
            self._check_bound(int(reply[1]))
        return True, cast(JsonObject, _shape(reply))

    def _check_bound(self, waiting: int) -> None:
        if waiting >= self.settings.analysis_queue_max:
            raise Refusal(
                "analysis_busy",
                f"the analysis queue is full: {waiting} games are waiting for a worker, so "
                f"yours would be number {waiting + 1}; try again in a few minutes",
            )

    async def _count(self, account_id: str | None, address: str) -> None:
        """Count one analysis against the account's and the address's day, or refuse."""
        s = self.settings
        base = f"{keys.analysis_limits()}:day"
        windows = [f"{base}:ip:{address}"]
        maxima = [s.analysis_per_address]
        if account_id is not None:
            windows.append(f"{base}:acct:{account_id}")
            maxima.append(s.analysis_per_account)
        reply = await self.scripts.windows(
            keys=windows, args=[DAY_MS, secrets.token_hex(8), *maxima]
        )
        which, wait_ms = int(reply[0]), int(reply[1])
        if which:
            whose = "from your address" if which == 1 else "for your account"
            hours = max(1, round(wait_ms / HOUR_MS))
            raise RateLimited(
                f"you have requested as many analyses {whose} as a day allows "
                f"({maxima[which - 1]}): the next in about {hours} hour{'s' if hours > 1 else ''}",
                max(1, wait_ms // 1000),
                code="analysis_limit",
            )

    # -- board evaluations ---------------------------------------------------------------

    async def boards_in_play(self) -> list[Board]:
        """The board of every game in progress, read after this call began: one scan of
        the running games serves every request that arrived before it started."""
        loop = asyncio.get_running_loop()
        arrived = loop.time()
        while True:
            scan = self._scan
            if scan is not None and self._scan_began >= arrived:
                return await asyncio.shield(scan)
            if scan is not None and not scan.done():
                # Begun before this request: it may miss a move made since; wait, then scan.
                with contextlib.suppress(Exception):
                    await asyncio.shield(scan)
                continue
            self._scan_began = loop.time()
            self._scan = asyncio.ensure_future(self._read_boards())

    async def _read_boards(self) -> list[Board]:
        ids = cast(list[bytes], await self.redis.zrange(keys.live_games(), 0, -1))
        pipe = self.redis.pipeline(transaction=False)
        for raw in ids:
            pipe.hmget(keys.game(raw.decode()), "status", "snap")
        boards = []
        for status, snap in cast(list[list[bytes | None]], await pipe.execute()):
            if status == b"active" and snap:
                with contextlib.suppress(EngineError, ValueError):
                    boards.append(board(unpack_snapshot(snap).position))
        return boards

    async def evaluate(self, ruleset: str, position: str, address: str) -> JsonObject:
        """The evaluation of a position (docs/analysis.md), from the cache or a worker;
        ``position_in_play`` when it stands on a running game's board or one move past it,
        whoever asks (inplay.py), ``analysis_busy`` when no worker answered in time."""
        try:
            canonical = Game(ruleset, position).position
        except EngineError as exc:
            raise Refusal("bad_position", f"not a position of {ruleset}: {exc}") from None
        if in_play(canonical, await self.boards_in_play()):
            raise Refusal("position_in_play")
        digest = position_digest(ruleset, canonical, self.board_nodes)
        key = keys.evaluation(digest)
        cached = await self._cached(key)
        if cached is not None:
            return cached | {"cached": True}
        return await self._wait(
            digest, key, self._ask(digest, ruleset, canonical, address), "evaluation"
        )

    async def _wait(
        self, digest: str, key: str, ask: Coroutine[object, object, None], what: str
    ) -> JsonObject:
        """Queue a job by ``ask`` and wait for a worker's notice (or the cache) for at most
        BRANDUBH_ANALYSIS_WAIT_S; ``analysis_busy`` when no worker answered in time."""
        waiter = self._waiting.setdefault(digest, asyncio.Event())
        try:
            await ask
            loop = asyncio.get_running_loop()
            until = loop.time() + self.settings.analysis_wait_s
            while (left := until - loop.time()) > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(waiter.wait(), min(POLL_S, left))
                found = await self._cached(key)
                if found is not None:
                    return found | {"cached": False}
        finally:
            if self._waiting.get(digest) is waiter:
                del self._waiting[digest]
        raise Refusal(
            "analysis_busy",
            f"no analysis worker answered within {self.settings.analysis_wait_s:g} s: "
            f"the {what} stays queued, ask again shortly",
        )

    async def _cached(self, key: str) -> JsonObject | None:
        raw = await self.redis.get(key)
        return None if raw is None else cast(JsonObject, json.loads(raw))

    async def _ask(self, digest: str, ruleset: str, position: str, address: str) -> None:
        """Queue the evaluation (once, however many ask), counted per address per hour."""
        queue, job = keys.evaluation_queue(), keys.analysis_job("p", digest)
        known = await self._script("status", queue, job, digest)
        if known[0] != "none":
            return
        self._check_bound(int(known[1]))  # before counting: a refusal costs no evaluation
        reply = await self.scripts.windows(
            keys=[f"{keys.analysis_limits()}:eval:ip:{address}"],
            args=[HOUR_MS, secrets.token_hex(8), self.settings.evaluations_per_address],
        )
        if int(reply[0]):
            raise RateLimited(
                "you have asked for as many board evaluations from your address as an hour "
                f"allows ({self.settings.evaluations_per_address})",
                max(1, int(reply[1]) // 1000),
                code="analysis_limit",
            )
        reply_ = await self._queue(
            queue,
            job,
            digest,
            "kind", "p",
            "ruleset", ruleset,
            "position", position,
            "nodes", self.board_nodes,
            "version", ANALYSIS_VERSION,
        )  # fmt: skip
        if reply_[0] == "busy":
            self._check_bound(int(reply_[1]))

    # -- moves tried in exercises (learning from one's mistakes) ---------------------------

    async def try_move(
        self, state: GameState, ply: int, move: str, session_id: str | None, address: str
    ) -> JsonObject:
        """The verdict on ``move`` tried in place of the game's judged move ``ply``
        (analysis/exercise.py): at once for the search's own move or the move played,
        else from the cache or a worker's search at the analysis's budget. Refused:
        ``not_analysed``, ``not_a_mistake``, ``illegal_move`` (the engine's reason),
        ``analysis_limit`` (tries an hour), ``analysis_busy``."""
        stored = await self.stored(state.id)
        if stored is None:
            raise Refusal("not_analysed")
        analysis = GameAnalysis.from_dict(stored)
        exercise = next((e for e in exercises(analysis) if e.ply == ply), None)
        if exercise is None:
            raise Refusal(
                "not_a_mistake",
                f"ply {ply} is not one of this game's inaccuracies, mistakes or blunders "
                f"(those are plies {', '.join(str(e.ply) for e in exercises(analysis))})",
            )
        start = state.snapshot().start_position
        game = Game(state.ruleset, start)
        before = state.moves[: ply - 1]
        for text in before:
            game.play(text)
        try:
            canonical = str(game.play(move))
        except IllegalMove as exc:
            raise Refusal(
                "illegal_move", f"{move!r} cannot be played at ply {ply}: {exc}"
            ) from None
        if canonical in (exercise.best, exercise.played):
            # Judged without a search: the analysis's own verdicts.
            found = try_move(
                exercise, state.ruleset, before, canonical, position=start, nodes=analysis.nodes
            )
            return cast(JsonObject, found.to_dict()) | {"cached": True}
        digest = tried_digest(state.id, ply, canonical, analysis.nodes)
        key = keys.tried(digest)
        cached = await self._cached(key)
        if cached is not None:
            return cached | {"cached": True}
        fields: tuple[str | int, ...] = (
            "kind", "x",
            "ruleset", state.ruleset,
            "position", start,
            "moves", " ".join(before),
            "tried", canonical,
            "exercise", json.dumps(exercise.to_dict(), separators=(",", ":")),
            "nodes", analysis.nodes,
            "version", ANALYSIS_VERSION,
        )  # fmt: skip
        ask = self._ask_try(digest, fields, session_id, address)
        return await self._wait(digest, key, ask, "tried move")

    async def _ask_try(
        self,
        digest: str,
        fields: tuple[str | int, ...],
        session_id: str | None,
        address: str,
    ) -> None:
        """Queue a tried move's search (once, however many try it), counted per session
        and per address per hour."""
        queue, job = keys.exercise_queue(), keys.analysis_job("x", digest)
        known = await self._script("status", queue, job, digest)
        if known[0] != "none":
            return
        self._check_bound(int(known[1]))
        s = self.settings
        base = f"{keys.analysis_limits()}:try"
        windows, maxima = [f"{base}:ip:{address}"], [s.tries_per_address]
        if session_id is not None:
            windows.append(f"{base}:s:{session_id}")
            maxima.append(s.tries_per_session)
        reply = await self.scripts.windows(
            keys=windows, args=[HOUR_MS, secrets.token_hex(8), *maxima]
        )
        which = int(reply[0])
        if which:
            whose = "from your address" if which == 1 else "in this session"
            raise RateLimited(
                f"you have tried as many moves in exercises {whose} as an hour allows "
                f"({maxima[which - 1]}): try again later",
                max(1, int(reply[1]) // 1000),
                code="analysis_limit",
            )
        reply_ = await self._queue(queue, job, digest, *fields)
        if reply_[0] == "busy":
            self._check_bound(int(reply_[1]))

    def on_notice(self, msg: Mapping[str, object]) -> None:
        """Hub-channel hook: a worker cached an evaluation or a tried move's verdict someone
        here may wait for."""
        if msg.get("t") == "analysis_evaluated":
            waiter = self._waiting.get(str(msg.get("key")))
            if waiter is not None:
                waiter.set()


def _shape(reply: list[str]) -> JsonObject | None:
    """A status reply of lua/analysis.lua as the HTTP API says it; None for no job."""
    match reply[0]:
        case "queued":
            return {"status": "queued", "position": int(reply[1])}
        case "running":
            return {"status": "running", "ply": int(reply[1]), "of": int(reply[2])}
        case _:
            return None
