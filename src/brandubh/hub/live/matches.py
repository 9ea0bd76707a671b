"""Two-game matches: each player attacks once; the second game swaps the first's sides.

A match is a hash (keys.match) naming its players, terms, games and each game's result.
The end of each of its games moves it on (``advance``), one of the steps endings.py runs
durably after every ending, any number of times: so each step is idempotent. A game's
result is recorded under its own field, the score is derived from all of them, and the
later games have ids derived from the match's (``<match>-2``, ``<match>-3``), so creating
one twice returns the first. A 1-1 score ends the
match drawn, except in ``newsome``, whose source gives the player who won by the largest
margin (the most pieces left on the board) the choice of sides for a tie-breaker; with
equal margins the match is drawn. The next game's id and the score reach the players as a
``match`` notice on the finished game's channel. A finished match is kept in PostgreSQL
(retried with backoff while it cannot be reached); its hash then expires after the live
grace, and its summary is read from PostgreSQL.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Mapping
from typing import TypedDict, TypeGuard, cast

from redis.asyncio import Redis

from brandubh.fairplay import TIEBREAK_RULESETS
from brandubh.hub.config import LIVE_GRACE_S
from brandubh.hub.errors import Refusal
from brandubh.hub.live.games import WAITING_TTL_S, GameService
from brandubh.hub.live.state import GameState, Player
from brandubh.hub.messages import frames
from brandubh.hub.redis import keys
from brandubh.store import Store, StoreUnavailable

log = logging.getLogger(__name__)


class MatchPlayer(TypedDict):
    id: str
    name: str


class MatchSummary(TypedDict):
    """A match as GET /api/matches/<id> and the ``match`` notice show it (docs/protocol.md),
    and as PostgreSQL keeps it once finished."""

    id: str
    ruleset: str
    players: list[MatchPlayer]  # the two: the first game's attacker first
    score: dict[str, float]  # player id -> points
    games: list[str]
    status: str  # playing | choosing | finished
    chooser: str | None  # who picks the tie-breaker's sides
    winner: str | None


def _is_summary(found: Mapping[str, object]) -> TypeGuard[MatchSummary]:
    """Whether a summary read back from PostgreSQL is of ``MatchSummary``'s shape."""
    players, score, games = found.get("players"), found.get("score"), found.get("games")
    return (
        isinstance(found.get("id"), str)
        and isinstance(found.get("ruleset"), str)
        and isinstance(players, list)
        and all(
            isinstance(p, dict) and isinstance(p.get("id"), str) and isinstance(p.get("name"), str)
            for p in players
        )
        and isinstance(score, dict)
        and all(isinstance(k, str) and isinstance(v, int | float) for k, v in score.items())
        and isinstance(games, list)
        and all(isinstance(g, str) for g in games)
        and isinstance(found.get("status"), str)
        and all(isinstance(found.get(k), str | None) for k in ("chooser", "winner"))
    )


class MatchService:
    def __init__(
        self,
        redis: Redis,
        games: GameService,
        store: Store | None = None,
        grace_s: float = LIVE_GRACE_S,
    ) -> None:
        self.redis = redis
        self.games = games
        self.store = store
        self.grace_ms = max(1, int(grace_s * 1000))

    async def start(
        self,
        a: Player,
        b: Player,
        ruleset: str,
        move_time: int,
        rated: bool | None,
        match_id: str = "",
        origin: str = "seek",
        tournament: str = "",
    ) -> tuple[str, str]:
        """Create a match and its first game (sides by that game's seed); (match, game).
        With ``match_id`` (a tournament's) it is idempotent: its first game is
        ``<match_id>-1``, and a match of that id that exists already is left as it is.
        ``tournament``: the tournament the match is of, which each of its games names."""
        first = f"{match_id}-1" if match_id else ""
        if match_id and not await self.redis.hsetnx(keys.match(match_id), "id", match_id):
            await self.games.create(
                a, ruleset, move_time, "friend", joiner=b, rated=rated, match=match_id,
                match_no=1, game_id=first, origin=origin, tournament=tournament,
            )  # fmt: skip
            return match_id, first
        match_id = match_id or "m" + secrets.token_urlsafe(8)
        await self.redis.hset(
            keys.match(match_id),
            mapping={
                "id": match_id,
                "ruleset": ruleset,
                "move_time": str(move_time),
                "rated": "" if rated is None else ("1" if rated else "0"),
                "a": a.id,
                "a_name": a.name,
                "b": b.id,
                "b_name": b.name,
                "points_a": "0",
                "points_b": "0",
                "games": "",
                "status": "playing",
                "tournament": tournament,
            },
        )
        state, _ = await self.games.create(
            a,
            ruleset,
            move_time,
            "friend",
            joiner=b,
            rated=rated,
            match=match_id,
            match_no=1,
            game_id=first,
            origin=origin,
            tournament=tournament,
        )
        await self.redis.hset(keys.match(match_id), "games", state.id)
        return match_id, state.id

    async def open_challenge(self, state: GameState) -> None:
        """A friend challenge asked for a match: the match waits for the joiner (and is
        forgotten with its first game if nobody joins)."""
        key = keys.match(state.match)
        await self.redis.hset(
            keys.match(state.match),
            mapping={
                "id": state.match,
                "ruleset": state.ruleset,
                "move_time": str(state.move_time),
                "rated": "1" if state.rated else "0",
                "a": state.creator.id,
                "a_name": state.creator.name,
                "b": "",
                "b_name": "",
                "points_a": "0",
                "points_b": "0",
                "games": state.id,
                "status": "playing",
            },
        )
        await self.redis.expire(key, WAITING_TTL_S)

    async def joined(self, state: GameState) -> None:
        """The first game of a challenged match has its second player."""
        if state.match and state.joiner is not None:
            pipe = self.redis.pipeline(transaction=False)
            pipe.hset(
                keys.match(state.match),
                mapping={"b": state.joiner.id, "b_name": state.joiner.name},
            )
            pipe.persist(keys.match(state.match))
            await pipe.execute()

    async def _fields(self, match_id: str) -> dict[str, str]:
        raw = cast(dict[bytes, bytes], await self.redis.hgetall(keys.match(match_id)))
        if not raw:
            raise Refusal("not_found", f"there is no match {match_id}")
        return {k.decode(): v.decode() for k, v in raw.items()}

    async def summary(self, match_id: str) -> MatchSummary:
        """The match as GET /api/matches/<id> shows it: live, or from the archive."""
        if self.store is not None and not await self.redis.exists(keys.match(match_id)):
            try:
                kept = await self.store.match(match_id)
            except StoreUnavailable:
                raise Refusal(
                    "busy", "this match is in the archive, which cannot be reached: try again"
                ) from None
            if kept is not None:
                if not _is_summary(kept):
                    raise ValueError(f"match {match_id}: its kept summary is not a summary")
                return kept
        f = await self._fields(match_id)
        return {
            "id": match_id,
            "ruleset": f["ruleset"],
            "players": [{"id": f["a"], "name": f["a_name"]}, {"id": f["b"], "name": f["b_name"]}],
            "score": {f["a"]: float(f["points_a"]), f["b"]: float(f["points_b"])},
            "games": f["games"].split(),
            "status": f["status"],  # playing | choosing | finished
            "chooser": f.get("chooser") or None,
            "winner": f.get("winner") or None,
        }

    async def advance(self, game_id: str) -> None:
        """Endings step: record a match game's result and start or settle what follows."""
        try:
            state = await self.games.load(game_id)
        except Refusal:
            return  # gone: nothing to move on
        if state.status != "ended" or not state.match or state.result is None:
            return
        key = keys.match(state.match)
        if state.withdrawn():
            await self.redis.delete(key)  # a match challenge withdrawn: no match at all
            return
        if not await self.redis.exists(key):
            # Finished, kept in PostgreSQL and let go after the grace (a step run again
            # after a long outage), or never there: nothing to move on, and no stub of a
            # hash to write (its summary would then fail).
            return
        winner = state.result.winner
        await self.redis.hset(
            key, f"result:{game_id}", state.player_of(winner) if winner else "draw"
        )
        f = await self._fields(state.match)
        a, b = f["a"], f["b"]
        points = _points(f)
        update: dict[str, str] = {"points_a": str(points[a]), "points_b": str(points[b])}
        players = {a: Player(a, f["a_name"]), b: Player(b, f["b_name"])}
        rated = None if f["rated"] == "" else f["rated"] == "1"
        games = f["games"].split()
        if state.match_no == 1:
            # The second game swaps the sides: the first game's defender attacks.
            nxt, _ = await self.games.create(
                players[a],
                f["ruleset"],
                int(f["move_time"]),
                "friend",
                joiner=players[b],
                rated=rated,
                match=state.match,
                match_no=2,
                attacker_id=state.defender,
                game_id=f"{state.match}-2",
                origin="match",
                tournament=state.tournament,
            )
            if nxt.id not in games:
                update["games"] = " ".join([*games, nxt.id])
        elif (
            state.match_no == 2
            and points[a] == points[b] == 1
            and (f["ruleset"] in TIEBREAK_RULESETS)
        ):
            if not f.get("tiebreak"):  # once the sides are chosen, this step is done
                chooser = await self._larger_margin(games)
                if chooser:
                    update.update(status="choosing", chooser=chooser)
                else:
                    update.update(status="finished", winner="")
        else:
            leader = a if points[a] > points[b] else b if points[b] > points[a] else ""
            update.update(status="finished", winner=leader)
        await self.redis.hset(key, mapping=update)  # type: ignore[arg-type]
        summary = await self.summary(state.match)
        notice = frames.match(game_id, summary)
        await self.games.scripts.notice(
            keys=[keys.game_hubs(game_id)], args=[keys.game_channel_stem(game_id), notice]
        )
        if summary["status"] == "finished":
            await self.keep(summary, int(time.time() * 1000))

    async def keep(self, summary: MatchSummary, ended: int) -> None:
        """Archive a finished match in PostgreSQL; then its hash expires after the grace.
        StoreUnavailable while PostgreSQL cannot be reached: endings.py tries again."""
        if self.store is None:
            return
        # A plain dict, as the archive takes it (the same JSON is kept).
        await self.store.archive_match(dict(summary), ended)
        await self.redis.pexpire(keys.match(summary["id"]), self.grace_ms, lt=True)

    async def _larger_margin(self, game_ids: list[str]) -> str:
        """The player whose win left the most of their pieces on the board ("" if equal)."""
        margins: dict[str, int] = {}
        for game_id in game_ids[:2]:
            state = await self.games.load(game_id)
            if state.result is None or state.result.winner is None:
                continue
            board = state.game().board
            left = (
                board.att.bit_count()
                if state.result.winner == "attackers"
                else board.dfn.bit_count() + (board.king >= 0)
            )
            margins[state.player_of(state.result.winner)] = left
        if len(margins) != 2 or len(set(margins.values())) != 2:
            return ""
        return max(margins, key=lambda pid: margins[pid])

    async def choose_sides(self, player_id: str, match_id: str, side: str) -> str:
        """The tie-break chooser picks a side; the third game starts. Its id (the same id
        again if the chooser asks twice with the same side)."""
        key = keys.match(match_id)
        summary = await self.summary(match_id)
        if summary["chooser"] != player_id or summary["status"] not in ("choosing", "playing"):
            raise Refusal("not_your_choice")
        if not await self.redis.hsetnx(key, "tiebreak_side", side):
            chosen = cast(bytes | None, await self.redis.hget(key, "tiebreak_side"))
            if chosen is None or chosen.decode() != side:
                raise Refusal("not_your_choice", "the sides are already chosen")
        elif summary["status"] != "choosing":
            raise Refusal("not_your_choice", "there are no sides to choose in this match")
        p = summary["players"]
        a, b = Player(p[0]["id"], p[0]["name"]), Player(p[1]["id"], p[1]["name"])
        other = b.id if player_id == a.id else a.id
        f = await self._fields(match_id)
        rated = None if f["rated"] == "" else f["rated"] == "1"
        state, _ = await self.games.create(
            a,
            f["ruleset"],
            int(f["move_time"]),
            "friend",
            joiner=b,
            rated=rated,
            match=match_id,
            match_no=3,
            attacker_id=player_id if side == "attackers" else other,
            game_id=f"{match_id}-3",
            origin="match",
            tournament=f.get("tournament", ""),
        )
        games = f["games"].split()
        await self.redis.hset(
            key,
            mapping={
                "games": " ".join(games if state.id in games else [*games, state.id]),
                "status": "playing",
                "tiebreak": state.id,
            },
        )
        return state.id


def _points(f: dict[str, str]) -> dict[str, float]:
    """The score of a match from its games' recorded results."""
    points = {f["a"]: 0.0, f["b"]: 0.0}
    for name, value in f.items():
        if not name.startswith("result:"):
            continue
        if value == "draw":
            points[f["a"]] += 0.5
            points[f["b"]] += 0.5
        elif value in points:
            points[value] += 1
    return points
