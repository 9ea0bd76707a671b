"""The archive and the ratings: every finished game is archived, and rated when it counts,
exactly once. ``finish`` is one of the steps endings.py runs after a game ends, on its
live path and its sweep alike, any number of times for a game.

``lua/archive.lua`` is the guard: the game's entry in the archive hash is written in the
same step as both players' new ratings, so a second run answers ``dup`` and changes
nothing. A rating read for the computation carries its game count as a version; a rating
changed meanwhile by another game makes the script answer ``retry``.

A game counts for ratings when it was created rated, was played between two accounts
(the bot never; a guest never), and has a result other than an abort. Every game is one
Glicko-2 rating period (ratings.py), computed from both players' ratings before it.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Final, cast

from redis.asyncio import Redis

from brandubh.engine import RULESETS
from brandubh.hub import keys
from brandubh.hub.errors import Refusal
from brandubh.hub.games import GameService
from brandubh.hub.scripts import Scripts
from brandubh.hub.sessions import TTL_S
from brandubh.hub.state import BOT_ID, GameState
from brandubh.ratings import PROVISIONAL_RD, Rating, rate_game

log = logging.getLogger("brandubh.rater")

HISTORY_KEPT: Final = 1000  # rating history points kept per player and rule set
LEADERBOARD_SIZE: Final = 100
_RETRIES: Final = 8


def _rating_of(raw: list[bytes | None]) -> tuple[Rating, int]:
    """A rating hash's (rating, games) from HMGET r rd vol n; a new player's if empty."""
    r, rd, vol, n = raw
    if r is None or rd is None or vol is None:
        return Rating(), 0
    return Rating(float(r), float(rd), float(vol)), int(n or 0)


def rating_json(rating: Rating, games: int) -> dict[str, Any]:
    return {
        "rating": round(rating.rating, 1),
        "rd": round(rating.rd, 1),
        "volatility": round(rating.volatility, 6),
        "games": games,
        "provisional": rating.provisional,
    }


class Rater:
    def __init__(self, redis: Redis, scripts: Scripts, games: GameService) -> None:
        self.redis = redis
        self.scripts = scripts
        self.games = games

    # -- archiving one game ------------------------------------------------------------------

    async def finish(self, game_id: str) -> str:
        """Archive a finished game, rating it if it counts: "ok" when this call did it,
        "dup" when it was done before, "gone"/"not_ended" when there is nothing to do."""
        for _ in range(_RETRIES):
            if await self.redis.hexists(keys.archived(), game_id):
                return "dup"
            try:
                state = await self.games.load(game_id)
            except Refusal:
                return "gone"
            if state.status != "ended" or state.result is None:
                return "not_ended"
            outcome = await self._archive(state)
            if outcome != "retry":
                return outcome
        raise RuntimeError(f"the ratings of game {game_id} kept changing")

    async def _archive(self, state: GameState) -> str:
        assert state.result is not None
        ended = int(cast(bytes | None, await self.redis.hget(keys.game(state.id), "updated")) or 0)
        humans = [p for p in (state.creator, state.joiner) if p is not None and p.id != BOT_ID]
        if state.result.reason == "aborted" and state.ply == 0:
            humans = []  # nothing was played: kept from the player's list
        pipe = self.redis.pipeline(transaction=False)
        for p in humans:
            pipe.exists(keys.account(p.id))
        is_account = [bool(n) for n in await pipe.execute()]
        rated = (
            state.rated
            and state.opponent == "friend"
            and len(humans) == 2
            and humans[0].id != humans[1].id
            and all(is_account)
            and state.result.reason != "aborted"
        )
        before: list[tuple[Rating, int]] = []
        after: list[Rating] = []
        if rated:
            pipe = self.redis.pipeline(transaction=False)
            for p in humans:
                pipe.hmget(keys.rating(p.id, state.ruleset), ["r", "rd", "vol", "n"])
            before = [_rating_of(raw) for raw in await pipe.execute()]
            side0 = state.side_of(humans[0].id)
            winner = state.result.winner
            score = 0.5 if winner is None else (1.0 if winner == side0 else 0.0)
            a, b = rate_game(before[0][0], before[1][0], score)
            after = [a, b]

        def who(pid: str) -> dict[str, str] | None:
            p = state.player(pid)
            return {"id": p.id, "name": p.name} if p else None

        summary: dict[str, Any] = {
            "id": state.id,
            "ruleset": state.ruleset,
            "rated": rated,
            "opponent": state.opponent,
            "bot_level": state.bot_level if state.opponent == "bot" else None,
            "players": {"attackers": who(state.attacker), "defenders": who(state.defender)},
            "result": {"winner": state.result.winner, "reason": state.result.reason},
            "plies": state.ply,
            "move_time": state.move_time,
            "created": state.created,
            "ended": ended,
            "ratings": None,
        }
        if rated:
            summary["ratings"] = {
                p.id: {
                    "before": round(old.rating, 1),
                    "after": round(new.rating, 1),
                    "provisional": new.provisional,
                }
                for p, (old, _), new in zip(humans, before, after, strict=True)
            }
        script_keys = [keys.archived(), keys.leaderboard(state.ruleset)]
        args: list[str | int | float] = [
            state.id,
            json.dumps(summary, separators=(",", ":")),
            ended,
            len(humans),
            "1" if rated else "0",
            PROVISIONAL_RD,
            TTL_S * 1000,
            HISTORY_KEPT,
        ]
        for i, p in enumerate(humans):
            script_keys += [
                keys.player_games(p.id),
                keys.account(p.id),
                keys.rating(p.id, state.ruleset),
                keys.rating_history(p.id, state.ruleset),
            ]
            if rated:
                new = after[i]
                args += [
                    p.id,
                    str(before[i][1]),
                    repr(new.rating),
                    repr(new.rd),
                    repr(new.volatility),
                ]
            else:
                args += [p.id, "", "", "", ""]
            args.append("0" if is_account[i] else "1")
        reply = await self.scripts.archive(keys=script_keys, args=args)
        return cast(str, reply[0].decode())

    # -- reading -----------------------------------------------------------------------------

    async def ratings(self, player_id: str) -> dict[str, dict[str, Any]]:
        """The player's rating in each rule set they have played rated, with its history."""
        pipe = self.redis.pipeline(transaction=False)
        for ruleset in RULESETS:
            pipe.hmget(keys.rating(player_id, ruleset), ["r", "rd", "vol", "n"])
            pipe.lrange(keys.rating_history(player_id, ruleset), 0, -1)
        replies = await pipe.execute()
        out: dict[str, dict[str, Any]] = {}
        for ruleset, raw, history in zip(RULESETS, replies[::2], replies[1::2], strict=True):
            rating, games = _rating_of(raw)
            if not games:
                continue
            points = []
            for item in history:
                t, r, rd, game = item.decode().split("|")
                points.append(
                    {
                        "t": int(t),
                        "rating": round(float(r), 1),
                        "rd": round(float(rd), 1),
                        "game": game,
                    }
                )
            out[ruleset] = {**rating_json(rating, games), "history": points}
        return out

    async def lookup(self, player_id: str, ruleset: str) -> tuple[float, bool]:
        """(rating, provisional) in a rule set: for the lobby's pairing and lists."""
        raw = await self.redis.hmget(keys.rating(player_id, ruleset), ["r", "rd", "vol", "n"])
        rating, _ = _rating_of(cast(list[bytes | None], raw))
        return rating.rating, rating.provisional

    async def player_games(
        self, player_id: str, offset: int, limit: int
    ) -> tuple[list[dict[str, Any]], int | None]:
        """A page of the player's finished games, newest first, and the offset of the next
        page (None at the end)."""
        ids = cast(
            list[bytes],
            await self.redis.zrevrange(keys.player_games(player_id), offset, offset + limit),
        )
        more = len(ids) > limit
        ids = ids[:limit]
        if not ids:
            return [], None
        raw = cast(list[bytes | None], await self.redis.hmget(keys.archived(), ids))
        games = [json.loads(r) for r in raw if r is not None]
        return games, offset + limit if more else None

    async def leaderboard(self, ruleset: str) -> list[dict[str, Any]]:
        """The opted-in players with a non-provisional rating, best first."""
        top = cast(
            list[tuple[bytes, float]],
            await self.redis.zrevrange(
                keys.leaderboard(ruleset), 0, LEADERBOARD_SIZE - 1, withscores=True
            ),
        )
        pipe = self.redis.pipeline(transaction=False)
        for pid, _ in top:
            pipe.hget(keys.account(pid.decode()), "name")
            pipe.hmget(keys.rating(pid.decode(), ruleset), ["r", "rd", "vol", "n"])
        replies = await pipe.execute()
        out = []
        for rank, ((pid, _), name, raw) in enumerate(
            zip(top, replies[::2], replies[1::2], strict=True), start=1
        ):
            rating, games = _rating_of(raw)
            out.append(
                {
                    "rank": rank,
                    "id": pid.decode(),
                    "name": name.decode() if name else pid.decode(),
                    **rating_json(rating, games),
                }
            )
        return out
