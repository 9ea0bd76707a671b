"""The archive: finished games (each rated, when it counts, in the transaction that keeps
it), a player's list of games, and finished matches.

``archive_game`` inserts the finished game (its id is the guard) and applies the rating
change in the same transaction, so that a retry, or two hubs archiving the same ending at
once, can never rate a game twice; the opening explorer's counts (explorer.py) are added
there too, behind the same guard.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from sqlalchemy import bindparam, func, or_, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncConnection

from brandubh.ratings import Rating, rate_game
from brandubh.store.base import Base
from brandubh.store.explorer import Outcome, add_game, counts_for_explorer, rating_sum
from brandubh.store.tables import accounts, game_players, games, matches, rating_history, ratings

# Rows a game export reads from its cursor at a time (stream_player_games).
EXPORT_BATCH: Final = 100


@dataclass(frozen=True)
class GamesQuery:
    """Which of a player's finished games an export takes: of these rule sets (None: any),
    the ends' bounds (ms, inclusive), and at most how many, newest first."""

    rulesets: tuple[str, ...] | None
    since: int | None
    until: int | None
    max: int


@dataclass(frozen=True)
class ExportedGame:
    """One finished game as an export gives it: the archive's summary, its moves, its
    record's text (docs/record-format.md)."""

    summary: dict[str, Any]
    moves: list[str]
    record: str


@dataclass(frozen=True)
class Seat:
    """A player of a finished game: id, display name, side."""

    id: str
    name: str
    side: str  # attackers | defenders


@dataclass(frozen=True)
class FinishedGame:
    """Everything the archive keeps of one finished game."""

    id: str
    ruleset: str
    wants_rating: bool  # created rated, between two players (not the bot)
    opponent: str
    bot_level: int | None
    seats: tuple[Seat, ...]  # both sides' players; the bot included
    winner: str | None
    reason: str
    plies: int
    move_time: int
    created: int
    ended: int
    moves: tuple[str, ...]
    seed: str
    commitment: str
    record: str
    final: bytes  # msgpack of the game's last live hash
    final_seq: int
    match_id: str | None = None
    match_no: int | None = None
    origin: str = ""  # where the game came from (hub/live/state.py ORIGINS); "" if unknown
    humans: tuple[Seat, ...] = field(default=())  # players whose archive lists it

    def seat(self, side: str) -> Seat | None:
        return next((s for s in self.seats if s.side == side), None)


@dataclass(frozen=True)
class Archived:
    """The outcome of archiving: ``ok`` (this call did it) or ``dup`` (done before)."""

    outcome: str
    rated: bool = False
    summary: dict[str, Any] | None = None


@dataclass(frozen=True)
class FinalGame:
    """An archived game's last live fields, to answer reads once Redis let it go."""

    id: str
    final: bytes
    final_seq: int
    seed: str
    record: str


def counts_for_rating(game: FinishedGame, accounts_found: set[str]) -> bool:
    """A game is rated when created rated, between two different confirmed accounts, not
    aborted."""
    ids = [s.id for s in game.humans]
    return (
        game.wants_rating
        and game.opponent == "friend"
        and len(ids) == 2
        and ids[0] != ids[1]
        and set(ids) <= accounts_found
        and game.reason != "aborted"
    )


def might_count(game: FinishedGame) -> bool:
    """Whether a game could count for ratings before asking who has an account."""
    return (
        game.wants_rating
        and game.opponent == "friend"
        and len(game.humans) == 2
        and game.reason != "aborted"
    )


@dataclass(frozen=True)
class RatingChange:
    """A rated game's effect: rows for _RATE, history points, the summary's changes."""

    rows: list[dict[str, Any]]
    points: list[dict[str, Any]]
    changes: dict[str, dict[str, Any]]


def rate(game: FinishedGame, before: dict[str, Rating]) -> RatingChange:
    """Both players' new ratings from those before the game: one Glicko-2 period (pure)."""
    a, b = game.humans
    score = 0.5 if game.winner is None else (1.0 if game.winner == a.side else 0.0)
    new_a, new_b = rate_game(before[a.id], before[b.id], score)
    rows, points, changes = [], [], {}
    for seat, new in ((a, new_a), (b, new_b)):
        rows.append(
            {
                "pid": seat.id,
                "rs": game.ruleset,
                "new_rating": new.rating,
                "new_rd": new.rd,
                "new_vol": new.volatility,
                "ended": game.ended,
            }
        )
        points.append(
            {
                "player_id": seat.id,
                "ruleset": game.ruleset,
                "game_id": game.id,
                "t": game.ended,
                "rating": new.rating,
                "rd": new.rd,
            }
        )
        changes[seat.id] = {
            "before": round(before[seat.id].rating, 1),
            "after": round(new.rating, 1),
            "provisional": new.provisional,
        }
    return RatingChange(rows, points, changes)


# One player's new rating after a rated game (run for both players at once).
_RATE: Final = (
    update(ratings)
    .where(ratings.c.player_id == bindparam("pid"), ratings.c.ruleset == bindparam("rs"))
    .values(
        rating=bindparam("new_rating"),
        rd=bindparam("new_rd"),
        volatility=bindparam("new_vol"),
        games=ratings.c.games + 1,
        last=bindparam("ended"),
    )
)


def summary_of(
    game: FinishedGame, rated: bool, changes: dict[str, dict[str, Any]] | None
) -> dict[str, Any]:
    """The archive list's entry for a game (GET /api/players/<id>/games)."""

    def who(side: str) -> dict[str, str] | None:
        s = game.seat(side)
        return {"id": s.id, "name": s.name} if s else None

    return {
        "id": game.id,
        "ruleset": game.ruleset,
        "rated": rated,
        "opponent": game.opponent,
        "bot_level": game.bot_level if game.opponent == "bot" else None,
        "players": {"attackers": who("attackers"), "defenders": who("defenders")},
        "result": {"winner": game.winner, "reason": game.reason},
        "plies": game.plies,
        "move_time": game.move_time,
        "created": game.created,
        "ended": game.ended,
        "ratings": changes,
        "origin": game.origin or None,
    }


class ArchiveQueries(Base):
    """``Store``'s part about the archive."""

    async def archive_game(self, game: FinishedGame) -> Archived:
        """Insert the finished game and apply its rating change, in one transaction:
        ``ok`` when this call did it, ``dup`` when it was archived before."""
        humans = list(dict.fromkeys(s.id for s in game.humans))
        async with self._begin() as conn:
            rated = might_count(game) and counts_for_rating(
                game, await self._accounts_in(conn, humans)
            )
            # Both rating rows locked first (in id order): two games of one player are
            # rated one after the other, and a second archiving of this game waits here.
            after = rate(game, await self._lock_ratings(conn, game)) if rated else None
            summary = summary_of(game, rated, after.changes if after else None)
            # The guard: once the first archiving committed, this inserts nothing.
            claimed = (
                await conn.execute(
                    insert(games)
                    .values(_game_row(game, rated=rated, summary=summary))
                    .on_conflict_do_nothing(index_elements=[games.c.id])
                    .returning(games.c.id)
                )
            ).first()
            if claimed is None:
                return Archived("dup")
            if after is not None:
                await conn.execute(_RATE, after.rows)
                await conn.execute(insert(rating_history), after.points)
            if humans:
                await conn.execute(
                    insert(game_players),
                    [{"player_id": p, "game_id": game.id, "ended": game.ended} for p in humans],
                )
            await _count_opening(conn, game, after)
        return Archived("ok", rated, summary)

    async def _accounts_in(self, conn: AsyncConnection, ids: list[str]) -> set[str]:
        """Those of ``ids`` that are confirmed accounts (no ``verified`` field counts as
        confirmed): a newcomer seated from an invitation is rated once it confirms."""
        if not ids:
            return set()
        confirmed = or_(accounts.c.verified.is_(None), accounts.c.verified.is_(True))
        return set(
            await conn.scalars(select(accounts.c.id).where(accounts.c.id.in_(ids), confirmed))
        )

    async def _lock_ratings(self, conn: AsyncConnection, game: FinishedGame) -> dict[str, Rating]:
        """Both players' ratings in the game's rule set, their rows locked until the end of
        the transaction (a new player's row made first)."""
        fresh = Rating()
        found = await conn.execute(
            insert(ratings)
            .values(
                [
                    {
                        "player_id": pid,
                        "ruleset": game.ruleset,
                        "rating": fresh.rating,
                        "rd": fresh.rd,
                        "volatility": fresh.volatility,
                        "games": 0,
                        "last": 0,
                    }
                    for pid in sorted({s.id for s in game.humans})
                ]
            )
            # An update that changes nothing, for its row lock and its RETURNING.
            .on_conflict_do_update(
                index_elements=[ratings.c.player_id, ratings.c.ruleset],
                set_={"games": ratings.c.games},
            )
            .returning(ratings.c.player_id, ratings.c.rating, ratings.c.rd, ratings.c.volatility)
        )
        return {r.player_id: Rating(r.rating, r.rd, r.volatility) for r in found}

    async def is_archived(self, game_id: str) -> bool:
        async with self._begin() as conn:
            return await conn.scalar(select(games.c.id).where(games.c.id == game_id)) is not None

    async def archived_among(self, game_ids: Sequence[str]) -> set[str]:
        if not game_ids:
            return set()
        async with self._begin() as conn:
            return set(await conn.scalars(select(games.c.id).where(games.c.id.in_(list(game_ids)))))

    async def final_game(self, game_id: str) -> FinalGame | None:
        """An archived game's last live fields (None if it was never archived)."""
        async with self._begin() as conn:
            row = (
                await conn.execute(
                    select(
                        games.c.id,
                        games.c.final,
                        games.c.final_seq,
                        games.c.seed,
                        games.c.record,
                    ).where(games.c.id == game_id)
                )
            ).first()
        if row is None:
            return None
        return FinalGame(row.id, bytes(row.final), int(row.final_seq), row.seed, row.record)

    async def summary(self, game_id: str) -> dict[str, Any] | None:
        async with self._begin() as conn:
            found = await conn.scalar(select(games.c.summary).where(games.c.id == game_id))
        return dict(found) if found is not None else None

    async def player_games(
        self, player_id: str, offset: int, limit: int
    ) -> tuple[list[dict[str, Any]], int | None]:
        """A page of the player's finished games, newest first, and the offset of the
        next page (None at the end)."""
        async with self._begin() as conn:
            rows = (
                await conn.scalars(
                    select(games.c.summary)
                    .join(game_players, game_players.c.game_id == games.c.id)
                    .where(game_players.c.player_id == player_id)
                    .order_by(game_players.c.ended.desc(), game_players.c.game_id.desc())
                    .offset(offset)
                    .limit(limit + 1)
                )
            ).all()
        page = [dict(r) for r in rows[:limit]]
        return page, (offset + limit if len(rows) > limit else None)

    async def stream_player_games(
        self, player_id: str, query: GamesQuery
    ) -> AsyncIterator[ExportedGame]:
        """The player's finished games that ``query`` selects, newest first, read through a
        server-side cursor a batch at a time: memory does not grow with their number."""
        where = [game_players.c.player_id == player_id]
        if query.since is not None:
            where.append(game_players.c.ended >= query.since)
        if query.until is not None:
            where.append(game_players.c.ended <= query.until)
        if query.rulesets is not None:
            where.append(games.c.ruleset.in_(query.rulesets))
        stmt = (
            select(games.c.summary, games.c.moves, games.c.record)
            .join(game_players, game_players.c.game_id == games.c.id)
            .where(*where)
            .order_by(game_players.c.ended.desc(), game_players.c.game_id.desc())
            .limit(query.max)
            .execution_options(yield_per=EXPORT_BATCH)
        )
        async with self._begin() as conn:
            rows = await conn.stream(stmt)
            async for summary, moves, record in rows:
                yield ExportedGame(dict(summary), moves.split() if moves else [], record)

    async def stream_records(self, rulesets: Sequence[str]) -> AsyncIterator[tuple[str, str]]:
        """(id, record text) of every finished game under ``rulesets``, oldest first, through
        a server-side cursor (the puzzle generator reads the whole archive)."""
        stmt = (
            select(games.c.id, games.c.record)
            .where(games.c.ruleset.in_(list(rulesets)))
            .order_by(games.c.ended, games.c.id)
            .execution_options(yield_per=EXPORT_BATCH)
        )
        async with self._begin() as conn:
            rows = await conn.stream(stmt)
            async for game_id, record in rows:
                yield game_id, record

    async def count_games(self) -> int:
        async with self._begin() as conn:
            return int(await conn.scalar(select(func.count()).select_from(games)) or 0)

    # -- matches ---------------------------------------------------------------------------

    async def archive_match(self, summary: dict[str, Any], ended: int) -> bool:
        """Keep a finished match (idempotent on its id); True when this call wrote it."""
        a, b = (p["id"] for p in summary["players"])
        async with self._begin() as conn:
            done = (
                await conn.execute(
                    insert(matches)
                    .values(
                        id=summary["id"],
                        ruleset=summary["ruleset"],
                        player_a=a,
                        player_b=b,
                        points_a=float(summary["score"][a]),
                        points_b=float(summary["score"][b]),
                        winner=summary.get("winner") or None,
                        games=" ".join(summary["games"]),
                        ended=ended,
                        summary=summary,
                    )
                    .on_conflict_do_nothing(index_elements=[matches.c.id])
                    .returning(matches.c.id)
                )
            ).first()
        return done is not None

    async def match(self, match_id: str) -> dict[str, Any] | None:
        async with self._begin() as conn:
            found = await conn.scalar(select(matches.c.summary).where(matches.c.id == match_id))
        return dict(found) if found is not None else None


async def _count_opening(
    conn: AsyncConnection, game: FinishedGame, after: RatingChange | None
) -> None:
    """The opening explorer's counts of a game between people (store/explorer.py), with
    the players' ratings before it when it was rated."""
    att, dfn = game.seat("attackers"), game.seat("defenders")
    if counts_for_explorer(
        game.opponent, att.id if att else None, dfn.id if dfn else None, game.reason
    ):
        ratings = after.changes if after is not None else None
        await add_game(conn, game.ruleset, game.moves, Outcome(game.winner, rating_sum(ratings)))


def _game_row(game: FinishedGame, *, rated: bool, summary: dict[str, Any]) -> dict[str, Any]:
    att, dfn = game.seat("attackers"), game.seat("defenders")
    return {
        "id": game.id,
        "ruleset": game.ruleset,
        "rated": rated,
        "opponent": game.opponent,
        "bot_level": game.bot_level,
        "attacker_id": att.id if att else None,
        "attacker_name": att.name if att else None,
        "defender_id": dfn.id if dfn else None,
        "defender_name": dfn.name if dfn else None,
        "winner": game.winner,
        "reason": game.reason,
        "plies": game.plies,
        "move_time": game.move_time,
        "created": game.created,
        "ended": game.ended,
        "moves": " ".join(game.moves),
        "seed": game.seed,
        "commitment": game.commitment,
        "record": game.record,
        "match_id": game.match_id,
        "match_no": game.match_no,
        "summary": summary,
        "final": game.final,
        "final_seq": game.final_seq,
    }
