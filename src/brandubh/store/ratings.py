"""Ratings as they stand: a player's in each rule set with its history, and the
leaderboards. (Rating a game is part of archiving it: archive.py; the Glicko-2 arithmetic
is brandubh.ratings.)"""

from __future__ import annotations

from typing import Final, TypedDict

from sqlalchemy import select

from brandubh.ratings import PROVISIONAL_RD, Rating
from brandubh.store.base import Base
from brandubh.store.tables import accounts, rating_history, ratings

HISTORY_SHOWN: Final = 1000  # rating history points a profile shows per rule set
LEADERBOARD_SIZE: Final = 100


class RatingJson(TypedDict):
    """A rating as the profile and the leaderboards show it (docs/protocol.md)."""

    rating: float
    rd: float
    volatility: float
    games: int
    provisional: bool


class HistoryPoint(TypedDict):
    """A point of a rating's history: after the game ``game``, ended at ``t`` (ms)."""

    t: int
    rating: float
    rd: float
    game: str


def rating_json(rating: Rating, games_rated: int) -> RatingJson:
    return {
        "rating": round(rating.rating, 1),
        "rd": round(rating.rd, 1),
        "volatility": round(rating.volatility, 6),
        "games": games_rated,
        "provisional": rating.provisional,
    }


class RatingQueries(Base):
    """``Store``'s part about ratings."""

    async def rating(self, player_id: str, ruleset: str) -> tuple[Rating, int]:
        """A player's rating in a rule set and their rated games; a new player's if none."""
        async with self._begin() as conn:
            row = (
                await conn.execute(
                    select(ratings).where(
                        ratings.c.player_id == player_id, ratings.c.ruleset == ruleset
                    )
                )
            ).first()
        if row is None or not row.games:
            return Rating(), 0
        return Rating(row.rating, row.rd, row.volatility), int(row.games)

    async def ratings(self, player_id: str) -> dict[str, dict[str, object]]:
        """The player's rating in each rule set they have played rated, with its history
        (the last HISTORY_SHOWN points, oldest first)."""
        async with self._begin() as conn:
            rows = (
                await conn.execute(
                    select(ratings)
                    .where(ratings.c.player_id == player_id, ratings.c.games > 0)
                    .order_by(ratings.c.ruleset)
                )
            ).all()
            out: dict[str, dict[str, object]] = {}
            for row in rows:
                recent = (
                    select(rating_history)
                    .where(
                        rating_history.c.player_id == player_id,
                        rating_history.c.ruleset == row.ruleset,
                    )
                    .order_by(rating_history.c.t.desc(), rating_history.c.game_id.desc())
                    .limit(HISTORY_SHOWN)
                    .subquery()
                )
                points = (
                    await conn.execute(select(recent).order_by(recent.c.t, recent.c.game_id))
                ).all()
                rating = Rating(row.rating, row.rd, row.volatility)
                history: list[HistoryPoint] = [
                    {
                        "t": int(p._mapping["t"]),
                        "rating": round(p.rating, 1),
                        "rd": round(p.rd, 1),
                        "game": p.game_id,
                    }
                    for p in points
                ]
                out[row.ruleset] = {**rating_json(rating, int(row.games)), "history": history}
        return out

    async def leaderboard(
        self, ruleset: str, size: int = LEADERBOARD_SIZE, *, bots: bool = False
    ) -> list[dict[str, object]]:
        """The opted-in players with a rating that is not provisional, best first: people
        only, or with ``bots`` bot accounts only (each list apart from the other)."""
        async with self._begin() as conn:
            rows = (
                await conn.execute(
                    select(ratings, accounts.c.name)
                    .join(accounts, accounts.c.id == ratings.c.player_id)
                    .where(
                        ratings.c.ruleset == ruleset,
                        ratings.c.games > 0,
                        ratings.c.rd < PROVISIONAL_RD,
                        accounts.c.leaderboard.is_(True),
                        accounts.c.bot.is_(bots),
                    )
                    .order_by(ratings.c.rating.desc(), ratings.c.player_id)
                    .limit(size)
                )
            ).all()
        return [
            {
                "rank": rank,
                "id": row.player_id,
                "name": row.name,
                **({"bot": True} if bots else {}),
                **rating_json(Rating(row.rating, row.rd, row.volatility), int(row.games)),
            }
            for rank, row in enumerate(rows, start=1)
        ]
