"""Analysis by the bot, as the hubs ask for it (docs/analysis.md, "The queue and the workers").

A finished game's analysis is queued once in Redis (``lua/analysis.lua``) for the workers
(``brandubh analyse-worker``, beside the service, never in it) and read from PostgreSQL
once a worker kept it there. A board evaluation is queued the same way, ahead of the games,
cached by position, and waited for a bounded time. Who may ask is the HTTP route's
question (http/analysis.py); here are the limits, the queue's bound, and the positions of
a player's games in progress, which nobody playing them may have evaluated.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import secrets
from collections.abc import Iterable, Mapping
from typing import Final, TypeAlias, cast

from redis.asyncio import Redis

from brandubh.analysis import ANALYSIS_VERSION, BOARD_NODES, NODES_PER_PLY
from brandubh.engine import EngineError, Game, parse_position
from brandubh.hub.analysis.walks import BoardWalks, address_limit
from brandubh.hub.config import Settings
from brandubh.hub.errors import RateLimited, Refusal
from brandubh.hub.live import GameService, GameState, mygames
from brandubh.hub.redis import Scripts, keys
from brandubh.store import Store

# A JSON object passed through as the HTTP API gives it (docs/analysis.md, docs/protocol.md).
JsonObject: TypeAlias = dict[str, object]

DAY_MS: Final = 24 * 3600 * 1000
HOUR_MS: Final = 3600 * 1000
POLL_S: Final = 0.5  # a waiting evaluation looks at the cache this often, notice or not


SIZE: Final = 7
# The board's eight symmetries (turns and mirrors), each as where every square goes: the
# rules are the same on a turned or mirrored board, so such a board is the same position.
_SYMMETRIES: Final = tuple(
    tuple(
        to_r * SIZE + to_c
        for r in range(SIZE)
        for c in range(SIZE)
        for to_r, to_c in [
            ((r, c), (c, SIZE - 1 - r), (SIZE - 1 - r, SIZE - 1 - c), (SIZE - 1 - c, r))[turn]
        ]
        for to_r, to_c in [(to_r, SIZE - 1 - to_c) if mirror else (to_r, to_c)]
    )
    for turn in range(4)
    for mirror in (False, True)
)


def _moved(bits: int, where: tuple[int, ...]) -> int:
    out = 0
    while bits:
        low = bits & -bits
        out |= 1 << where[low.bit_length() - 1]
        bits ^= low
    return out


def board_of(position: str) -> tuple[int, int, int]:
    """The pieces of a position text, whichever side is to move and however the board is
    turned or mirrored: the least of its eight symmetric forms (EngineError if no position)."""
    att, dfn, king, _ = parse_position(position)
    return min(
        (_moved(att, to), _moved(dfn, to), to[king] if king >= 0 else -1) for to in _SYMMETRIES
    )


def position_digest(ruleset: str, position: str, nodes: int) -> str:
    """The cache key of one board evaluation: the version, rule set, position and budget."""
    text = f"{ANALYSIS_VERSION}|{ruleset}|{position}|{nodes}"
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

    # -- a game's analysis ---------------------------------------------------------------

    async def _script(
        self, mode: str, queue: str, job: str, job_id: str, *args: str | int
    ) -> list[str]:
        reply = await self.scripts.analysis(keys=[queue, job], args=[mode, job_id, *args])
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
        queued; ``analysis_busy`` past the queue's bound."""
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
        reply = await self._script(
            "request",
            queue,
            job,
            state.id,
            self.settings.analysis_queue_max,
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

    async def playing_boards(self, player_id: str) -> dict[str, tuple[int, int, int]]:
        """The current board of each game the player is playing now, by game id."""
        ids = cast(
            list[bytes],
            await self.redis.zrevrange(keys.player_active(player_id), 0, mygames.MAX_PLAYING),
        )
        boards = {}
        for raw in ids:
            with contextlib.suppress(Refusal):
                state = await self.games.load(raw.decode())
                if state.status == "active" and state.is_player(player_id):
                    boards[state.id] = board_of(state.snapshot().position)
        return boards

    async def evaluate(
        self, ruleset: str, position: str, player_id: str | None, address: str
    ) -> JsonObject:
        """The evaluation of a position (docs/analysis.md), from the cache or a worker;
        ``own_game`` when the requester plays a game standing in it now (either side to
        move, the board turned or mirrored), ``analysis_busy`` when no worker answered in
        time."""
        try:
            canonical = Game(ruleset, position).position
        except EngineError as exc:
            raise Refusal("bad_position", f"not a position of {ruleset}: {exc}") from None
        if player_id is not None:
            board = board_of(canonical)
            if board in (await self.playing_boards(player_id)).values():
                raise Refusal("own_game")
        digest = position_digest(ruleset, canonical, self.board_nodes)
        cached = await self._cached(digest)
        if cached is not None:
            return cached | {"cached": True}
        waiter = self._waiting.setdefault(digest, asyncio.Event())
        try:
            await self._ask(digest, ruleset, canonical, address)
            loop = asyncio.get_running_loop()
            until = loop.time() + self.settings.analysis_wait_s
            while (left := until - loop.time()) > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(waiter.wait(), min(POLL_S, left))
                found = await self._cached(digest)
                if found is not None:
                    return found | {"cached": False}
        finally:
            if self._waiting.get(digest) is waiter:
                del self._waiting[digest]
        raise Refusal(
            "analysis_busy",
            f"no analysis worker answered within {self.settings.analysis_wait_s:g} s: "
            "the evaluation stays queued, ask again shortly",
        )

    async def _cached(self, digest: str) -> JsonObject | None:
        raw = await self.redis.get(keys.evaluation(digest))
        return None if raw is None else cast(JsonObject, json.loads(raw))

    async def _ask(self, digest: str, ruleset: str, position: str, address: str) -> None:
        """Queue the evaluation (once, however many ask), counted per address per hour."""
        queue, job = keys.evaluation_queue(), keys.analysis_job("p", digest)
        known = await self._script("status", queue, job, digest)
        if known[0] != "none":
            return
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
        reply_ = await self._script(
            "request",
            queue,
            job,
            digest,
            self.settings.analysis_queue_max,
            "kind", "p",
            "ruleset", ruleset,
            "position", position,
            "nodes", self.board_nodes,
            "version", ANALYSIS_VERSION,
        )  # fmt: skip
        if reply_[0] == "busy":
            self._check_bound(int(reply_[1]))

    def on_notice(self, msg: Mapping[str, object]) -> None:
        """Hub-channel hook: a worker cached an evaluation someone here may wait for."""
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
