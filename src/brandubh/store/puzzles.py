"""Puzzles in PostgreSQL: adding a set (missing ids only), choosing one for a player near
their rating, every id (the day's puzzle is chosen among them), and an attempt's outcome
rated once (hub/puzzles/).

The store does not import ``brandubh.puzzles`` (which may import the store): a puzzle comes
in as anything with the record's fields (``PuzzleFields``) and goes out as ``StoredPuzzle``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from sqlalchemy import ColumnElement, Row, and_, func, select, update
from sqlalchemy.dialects.postgresql import insert

from brandubh.ratings import Rating, rate_game
from brandubh.store.accounts import _NOW_MS
from brandubh.store.base import Base
from brandubh.store.tables import puzzle_attempts, puzzle_ratings, puzzles

CHOICES: Final = 12  # a player's next puzzle: one of this many nearest their rating, at random
ADD_BATCH: Final = 500  # rows a statement when adding a set


class PuzzleFields(Protocol):
    """What adding a puzzle reads: ``brandubh.puzzles.Puzzle``'s fields."""

    @property
    def id(self) -> str: ...
    @property
    def ruleset(self) -> str: ...
    @property
    def position(self) -> str: ...
    @property
    def solution(self) -> tuple[str, ...]: ...
    @property
    def theme(self) -> str: ...
    @property
    def depth(self) -> int: ...
    @property
    def source(self) -> str: ...
    @property
    def rating(self) -> float: ...


@dataclass(frozen=True, slots=True)
class StoredPuzzle:
    """A puzzle as served: the record's fields, its rating now and its rated attempts."""

    id: str
    ruleset: str
    position: str
    solution: tuple[str, ...]
    theme: str
    depth: int
    source: str
    rating: Rating
    plays: int


@dataclass(frozen=True, slots=True)
class PuzzleStanding:
    """An account's puzzle rating, its rated attempts and its best streak."""

    rating: Rating
    attempts: int
    best_streak: int


@dataclass(frozen=True, slots=True)
class AttemptOutcome:
    """What finishing an attempt did: whether it was rated (a first answer, not a streak's),
    the player's and the puzzle's ratings before and after (equal when unrated)."""

    rated: bool
    player_before: Rating
    player_after: Rating
    puzzle_before: Rating
    puzzle_after: Rating


def _stored(row: Row[tuple[object, ...]]) -> StoredPuzzle:
    return StoredPuzzle(
        id=row.id,
        ruleset=row.ruleset,
        position=row.position,
        solution=tuple(row.solution.split()),
        theme=row.theme,
        depth=int(row.depth),
        source=row.source,
        rating=Rating(row.rating, row.rd, row.volatility),
        plays=int(row.plays),
    )


def _filters(theme: str | None, ruleset: str | None) -> list[ColumnElement[bool]]:
    found: list[ColumnElement[bool]] = []
    if theme is not None:
        found.append(puzzles.c.theme == theme)
    if ruleset is not None:
        found.append(puzzles.c.ruleset == ruleset)
    return found


class PuzzleQueries(Base):
    """``Store``'s part about puzzles."""

    async def add_puzzles(self, found: Iterable[PuzzleFields]) -> int:
        """Insert the puzzles whose ids are not here yet; how many were inserted. Those
        already here keep their rating and plays (idempotent)."""
        unique = {p.id: p for p in found}  # a set that names a puzzle twice adds it once
        rows = [
            {
                "id": p.id,
                "ruleset": p.ruleset,
                "position": p.position,
                "solution": " ".join(p.solution),
                "theme": p.theme,
                "depth": p.depth,
                "source": p.source,
                "rating": float(p.rating),
                "rd": Rating().rd,
                "volatility": Rating().volatility,
                "plays": 0,
                "added": _NOW_MS,
            }
            for p in unique.values()
        ]
        added = 0
        async with self._begin() as conn:
            for start in range(0, len(rows), ADD_BATCH):
                done = await conn.execute(
                    insert(puzzles)
                    .values(rows[start : start + ADD_BATCH])
                    .on_conflict_do_nothing(index_elements=["id"])
                    .returning(puzzles.c.id)
                )
                added += len(done.all())
        return added

    async def puzzle_count(self) -> int:
        async with self._begin() as conn:
            return int(await conn.scalar(select(func.count()).select_from(puzzles)) or 0)

    async def puzzle(self, puzzle_id: str) -> StoredPuzzle | None:
        async with self._begin() as conn:
            row = (await conn.execute(select(puzzles).where(puzzles.c.id == puzzle_id))).first()
        return None if row is None else _stored(row)

    async def pick_puzzle(
        self,
        player_id: str,
        *,
        near: float,
        theme: str | None = None,
        ruleset: str | None = None,
        above: float | None = None,
        exclude: Sequence[str] = (),
        choices: int = CHOICES,
        rng: random.Random | None = None,
    ) -> StoredPuzzle | None:
        """A puzzle for ``player_id`` near the rating ``near`` (rated at least ``above`` if
        given, none of ``exclude``): one of the ``choices`` nearest that the player has not
        attempted, else the one they attempted longest ago; None when none fits."""
        where = _filters(theme, ruleset)
        if above is not None:
            where.append(puzzles.c.rating >= above)
        if exclude:
            where.append(puzzles.c.id.not_in(list(exclude)))
        tried = select(puzzle_attempts.c.puzzle_id).where(puzzle_attempts.c.player_id == player_id)
        distance = func.abs(puzzles.c.rating - near)
        async with self._begin() as conn:
            rows = (
                await conn.execute(
                    select(puzzles)
                    .where(and_(True, *where), puzzles.c.id.not_in(tried))
                    .order_by(distance, puzzles.c.id)
                    .limit(choices)
                )
            ).all()
            if not rows:
                # Every fitting puzzle tried: the one tried longest ago comes round again.
                rows = (
                    await conn.execute(
                        select(puzzles)
                        .join(
                            puzzle_attempts,
                            and_(
                                puzzle_attempts.c.puzzle_id == puzzles.c.id,
                                puzzle_attempts.c.player_id == player_id,
                            ),
                        )
                        .where(and_(True, *where))
                        .order_by(puzzle_attempts.c.at, puzzles.c.id)
                        .limit(1)
                    )
                ).all()
        if not rows:
            return None
        return _stored((rng or random).choice(rows))

    async def puzzle_ids(self) -> list[str]:
        """Every puzzle's id, in order (the day's puzzle is chosen among them: hub/puzzles/)."""
        async with self._begin() as conn:
            return list((await conn.scalars(select(puzzles.c.id).order_by(puzzles.c.id))).all())

    async def puzzle_standing(self, player_id: str) -> PuzzleStanding:
        """An account's puzzle rating, rated attempts and best streak; a new one's if none."""
        async with self._begin() as conn:
            row = (
                await conn.execute(
                    select(puzzle_ratings).where(puzzle_ratings.c.player_id == player_id)
                )
            ).first()
        if row is None:
            return PuzzleStanding(Rating(), 0, 0)
        return PuzzleStanding(
            Rating(row.rating, row.rd, row.volatility), int(row.attempts), int(row.best_streak)
        )

    async def finish_attempt(
        self,
        player_id: str,
        puzzle_id: str,
        won: bool,
        *,
        rated: bool,
        guest: Rating | None = None,
    ) -> AttemptOutcome:
        """Keep a finished attempt and rate it if it is the player's first at this puzzle
        and ``rated``: player and puzzle rated against each other (Glicko-2, a period of its
        own, as a game). ``guest``: a guest's rating (from its session), which the caller
        keeps; an account's is read and written here. One transaction."""
        async with self._begin() as conn:
            row = (
                await conn.execute(
                    select(puzzles).where(puzzles.c.id == puzzle_id).with_for_update()
                )
            ).first()
            if row is None:
                raise LookupError(puzzle_id)
            puzzle_before = Rating(row.rating, row.rd, row.volatility)
            if guest is not None:
                player_before = guest
            else:
                mine = (
                    await conn.execute(
                        select(puzzle_ratings)
                        .where(puzzle_ratings.c.player_id == player_id)
                        .with_for_update()
                    )
                ).first()
                player_before = (
                    Rating() if mine is None else Rating(mine.rating, mine.rd, mine.volatility)
                )
            first = (
                await conn.execute(
                    insert(puzzle_attempts)
                    .values(
                        player_id=player_id,
                        puzzle_id=puzzle_id,
                        won=won,
                        at=_NOW_MS,
                        rated=rated,
                        rating_before=player_before.rating,
                        rating_after=player_before.rating,
                    )
                    .on_conflict_do_nothing(index_elements=["player_id", "puzzle_id"])
                    .returning(puzzle_attempts.c.puzzle_id)
                )
            ).first() is not None
            if not (first and rated):
                return AttemptOutcome(
                    False, player_before, player_before, puzzle_before, puzzle_before
                )
            score = 1.0 if won else 0.0
            player_after, puzzle_after = rate_game(player_before, puzzle_before, score)
            await conn.execute(
                update(puzzles)
                .where(puzzles.c.id == puzzle_id)
                .values(
                    rating=puzzle_after.rating,
                    rd=puzzle_after.rd,
                    volatility=puzzle_after.volatility,
                    plays=puzzles.c.plays + 1,
                )
            )
            await conn.execute(
                update(puzzle_attempts)
                .where(
                    puzzle_attempts.c.player_id == player_id,
                    puzzle_attempts.c.puzzle_id == puzzle_id,
                )
                .values(rating_after=player_after.rating)
            )
            if guest is None:
                values = {
                    "rating": player_after.rating,
                    "rd": player_after.rd,
                    "volatility": player_after.volatility,
                }
                await conn.execute(
                    insert(puzzle_ratings)
                    .values(player_id=player_id, attempts=1, best_streak=0, **values)
                    .on_conflict_do_update(
                        index_elements=["player_id"],
                        set_={**values, "attempts": puzzle_ratings.c.attempts + 1},
                    )
                )
        return AttemptOutcome(True, player_before, player_after, puzzle_before, puzzle_after)

    async def keep_streak(self, player_id: str, streak: int) -> int:
        """An account's best streak after one of ``streak`` ended: the greater of the two."""
        async with self._begin() as conn:
            best = await conn.scalar(
                insert(puzzle_ratings)
                .values(
                    player_id=player_id,
                    rating=Rating().rating,
                    rd=Rating().rd,
                    volatility=Rating().volatility,
                    attempts=0,
                    best_streak=streak,
                )
                .on_conflict_do_update(
                    index_elements=["player_id"],
                    set_={"best_streak": func.greatest(puzzle_ratings.c.best_streak, streak)},
                )
                .returning(puzzle_ratings.c.best_streak)
            )
        return int(best or 0)
