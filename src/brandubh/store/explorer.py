"""The opening explorer: per rule set, position and move, how many archived games between
people played it and how they ended (docs/analysis.md, "The opening explorer").

The counts live in ``explorer_moves`` and are kept incrementally: ``archive_game`` adds a
game's rows in the transaction that inserts it (after the insert's guard, so a game
archived twice counts once), and ``rebuild_explorer`` makes the table again from ``games``
(``brandubh db explorer-rebuild``). Both count a game through ``opening``, so they agree.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol, TypedDict

from sqlalchemy import bindparam, case, func, select, text
from sqlalchemy.dialects.postgresql import ARRAY, Insert, insert
from sqlalchemy.ext.asyncio import AsyncConnection

from brandubh.engine import EngineError, Game, parse_position
from brandubh.store.base import Base
from brandubh.store.tables import explorer_moves, games

# Only the opening is counted: a game adds at most this many (position, move) rows. Past it
# nearly every position is one game's own, and the table would grow by a row per ply.
EXPLORER_PLIES: Final = 40
COUNTS: Final = ("games", "attackers", "defenders", "draws", "rated", "rating_sum")
# The rebuild sums in memory (bounded): games by move list, replayed when this many differ,
# and rows, written when this many differ.
REBUILD_GAMES: Final = 10_000
REBUILD_FLUSH: Final = 100_000
REBUILD_FETCH: Final = 5_000

# What the explorer reads of an archived game (besides its ratings).
GAME_FIELDS: Final = (
    games.c.ruleset,
    games.c.moves,
    games.c.winner,
    games.c.opponent,
    games.c.attacker_id,
    games.c.defender_id,
    games.c.reason,
)

Key = tuple[bytes, str]  # (position key, move text)
Sums = dict[tuple[str, bytes, str], list[int]]  # (rule set, position key, move) -> COUNTS


def board_key(att: int, dfn: int, king: int, side: int) -> bytes:
    """The position as 15 bytes: attackers' and defenders' bitboards (49 bits each, 7
    bytes), then the king's square + 1 (0: no king) and the side to move in one byte."""
    return att.to_bytes(7, "big") + dfn.to_bytes(7, "big") + bytes(((king + 1) << 1 | side,))


def position_key(position: str) -> bytes:
    """The key of a position in the project's notation; InvalidPosition if it is not one.
    Two spellings of one position (``7`` or ``1111111``) have one key."""
    return board_key(*parse_position(position))


def counts_for_explorer(
    opponent: str, attacker: str | None, defender: str | None, reason: str
) -> bool:
    """A game between two different people (no bot) that was not aborted."""
    return (
        opponent == "friend"
        and attacker is not None
        and defender is not None
        and attacker != defender
        and reason != "aborted"
    )


def opening(ruleset: str, moves: Sequence[str]) -> list[Key]:
    """The distinct (position, move) pairs of a game's first ``EXPLORER_PLIES`` plies, in
    order; a game that repeats a position and its move counts for it once. Stops at a move
    the engine refuses (an archive row is never made unreadable by its explorer rows)."""
    game = Game(ruleset)
    board = game.board
    seen: dict[Key, None] = {}
    for move_text in moves[:EXPLORER_PLIES]:
        key = board_key(board.att, board.dfn, board.king, board.side)
        try:
            move = game.play(move_text)
        except EngineError:
            break
        seen[(key, move.text)] = None
    return list(seen)


@dataclass(frozen=True)
class Outcome:
    """What one archived game adds to each of its rows."""

    winner: str | None
    rating_sum: int | None  # both players' ratings before the game; None when unrated

    def counts(self) -> tuple[int, int, int, int, int, int]:
        rated = self.rating_sum is not None
        return (
            1,
            int(self.winner == "attackers"),
            int(self.winner == "defenders"),
            int(self.winner is None),
            int(rated),
            self.rating_sum or 0,
        )


def rating_sum(ratings: Mapping[str, object] | None) -> int | None:
    """Both players' ratings before a rated game, from its summary's ``ratings``
    (``{player: {"before": ...}}``), each rounded to a whole point; None if unrated."""
    if not ratings or len(ratings) != 2:
        return None
    return sum(round(float(_before(change))) for change in ratings.values())


def _before(change: object) -> float | str:
    """A player's rating before the game, from their entry of a summary's ``ratings``."""
    found = change["before"] if isinstance(change, Mapping) else None
    if not isinstance(found, int | float | str) or isinstance(found, bool):
        raise ValueError(f"a rating change without its rating before: {change!r:.80}")
    return found


def game_rows(ruleset: str, keys: Iterable[Key], outcome: Outcome) -> list[dict[str, object]]:
    """One game's rows for ``explorer_moves``, one per (position, move), a pair the game
    played twice (a repetition) counted twice as the rebuild counts it; sorted so that
    every transaction locks the rows it shares with another in the same order (no deadlock
    between two archivings)."""
    times = Counter(keys)
    counts = outcome.counts()
    return [
        {
            "ruleset": ruleset,
            "position": pos,
            "move": move,
            **{name: value * times[pos, move] for name, value in zip(COUNTS, counts, strict=True)},
        }
        for pos, move in sorted(times)
    ]


def _upsert(stmt: Insert) -> Insert:
    return stmt.on_conflict_do_update(
        index_elements=[explorer_moves.c.ruleset, explorer_moves.c.position, explorer_moves.c.move],
        set_={c: explorer_moves.c[c] + stmt.excluded[c] for c in COUNTS},
    )


_UPSERT: Final = _upsert(insert(explorer_moves))


async def add_rows(conn: AsyncConnection, rows: list[dict[str, object]]) -> None:
    """Add rows' counts to ``explorer_moves`` (inserted when new), one execution a row: for
    the rebuild's large batches, past a statement's limit of parameters."""
    if rows:
        await conn.execute(_UPSERT, rows)


def _game_upsert() -> Insert:
    """One game's rows as one statement of fixed shape: each column's values as an array,
    unnested. A multi-row VALUES of 40 rows cost 4.5 ms to compile, a new statement for each
    number of rows; this one is compiled and prepared once (bench/analysis_explorer.py)."""
    arrays = (
        func.unnest(
            *(
                bindparam(name, type_=ARRAY(explorer_moves.c[name].type))
                for name in ("position", "move", *COUNTS)
            )
        )
        .table_valued("position", "move", *COUNTS)
        .render_derived(name="game_rows")
    )
    rows = select(bindparam("ruleset", type_=explorer_moves.c.ruleset.type), *arrays.c).select_from(
        arrays
    )
    names = ["ruleset", "position", "move", *COUNTS]
    return _upsert(insert(explorer_moves).from_select(names, rows))


_GAME_UPSERT: Final = _game_upsert()


async def add_game(
    conn: AsyncConnection,
    ruleset: str,
    moves: Sequence[str],
    outcome: Outcome,
) -> None:
    """Count one archived game, in its archiving transaction: one statement of at most
    ``EXPLORER_PLIES`` rows, not one round trip a ply."""
    rows = game_rows(ruleset, opening(ruleset, moves), outcome)
    if rows:
        columns: dict[str, object] = {
            name: [row[name] for row in rows] for name in ("position", "move", *COUNTS)
        }
        await conn.execute(_GAME_UPSERT, {"ruleset": ruleset, **columns})


class MoveCounts(Protocol):
    """A row of ``explorer_moves`` as ``explorer_answer`` reads it."""

    @property
    def move(self) -> str: ...
    @property
    def games(self) -> int: ...
    @property
    def attackers(self) -> int: ...
    @property
    def defenders(self) -> int: ...
    @property
    def draws(self) -> int: ...
    @property
    def rated(self) -> int: ...
    @property
    def rating_sum(self) -> int: ...


class MoveJson(TypedDict):
    """A move of GET /api/explorer's answer (docs/protocol.md)."""

    move: str
    games: int
    attackers: int
    defenders: int
    draws: int
    rating: int | None  # the players' mean rating before the games, over the rated ones


class Total(TypedDict):
    games: int
    attackers: int
    defenders: int
    draws: int


class ExplorerAnswer(TypedDict):
    """GET /api/explorer's answer (docs/protocol.md)."""

    ruleset: str
    position: str
    total: Total
    moves: list[MoveJson]


# The answer's type stays a plain dict (an ``ExplorerAnswer``) for bench/analysis_explorer.py,
# which is typed against it (its own file: it would read ``ExplorerAnswer``).
def explorer_answer(ruleset: str, position: str, found: Sequence[MoveCounts]) -> dict[str, Any]:
    """The answer of GET /api/explorer from the rows of one position (docs/protocol.md)."""
    moves: list[MoveJson] = [
        {
            "move": r.move,
            "games": r.games,
            "attackers": r.attackers,
            "defenders": r.defenders,
            "draws": r.draws,
            "rating": round(r.rating_sum / (2 * r.rated)) if r.rated else None,
        }
        for r in found
    ]
    moves.sort(key=lambda m: (-m["games"], m["move"]))
    total: Total = {
        "games": sum(m["games"] for m in moves),
        "attackers": sum(m["attackers"] for m in moves),
        "defenders": sum(m["defenders"] for m in moves),
        "draws": sum(m["draws"] for m in moves),
    }
    answer: ExplorerAnswer = {
        "ruleset": ruleset,
        "position": position,
        "total": total,
        "moves": moves,
    }
    return dict(answer)


class ExplorerQueries(Base):
    """``Store``'s part about the opening explorer."""

    async def explorer(self, ruleset: str, position: str) -> dict[str, Any]:
        """The moves played from ``position`` (already checked) in ``ruleset``'s archive."""
        key = position_key(position)
        async with self._begin() as conn:
            found = (
                await conn.execute(
                    select(
                        explorer_moves.c.move,
                        *(explorer_moves.c[c] for c in COUNTS),
                    ).where(
                        explorer_moves.c.ruleset == ruleset,
                        explorer_moves.c.position == key,
                    )
                )
            ).all()
        return explorer_answer(ruleset, position, found)

    async def rebuild_explorer(self) -> int:
        """Make ``explorer_moves`` again from the whole archive, in one transaction (a game
        archived meanwhile waits for it, then adds itself); the number of games counted."""
        counted = 0
        async with self._begin() as conn:
            await conn.execute(text("TRUNCATE explorer_moves"))
            # Games with the same moves are summed first, then replayed once.
            by_moves: dict[tuple[str, str], list[int]] = {}
            sums: Sums = {}
            result = await conn.stream(
                select(
                    *GAME_FIELDS,
                    case((games.c.rated, games.c.summary["ratings"])).label("ratings"),
                ).execution_options(yield_per=REBUILD_FETCH)
            )
            async for row in result:
                if not counts_for_explorer(
                    row.opponent, row.attacker_id, row.defender_id, row.reason
                ):
                    continue
                counted += 1
                add = Outcome(row.winner, rating_sum(row.ratings)).counts()
                total = by_moves.get((row.ruleset, row.moves))
                if total is None:
                    by_moves[(row.ruleset, row.moves)] = list(add)
                else:
                    for i, n in enumerate(add):
                        total[i] += n
                if len(by_moves) >= REBUILD_GAMES:
                    await _expand(conn, by_moves, sums)
            await _expand(conn, by_moves, sums)
            await _flush(conn, sums)
        return counted


async def _expand(
    conn: AsyncConnection, by_moves: dict[tuple[str, str], list[int]], sums: Sums
) -> None:
    """Add each move list's summed games to its opening's rows (written when many)."""
    for (ruleset, moves), add in by_moves.items():
        for pos, move in opening(ruleset, moves.split()):
            total = sums.setdefault((ruleset, pos, move), [0] * len(COUNTS))
            for i, n in enumerate(add):
                total[i] += n
        if len(sums) >= REBUILD_FLUSH:
            await _flush(conn, sums)
    by_moves.clear()


async def _flush(conn: AsyncConnection, sums: Sums) -> None:
    rows = [
        {"ruleset": rs, "position": pos, "move": move, **dict(zip(COUNTS, n, strict=True))}
        for (rs, pos, move), n in sorted(sums.items())
    ]
    for i in range(0, len(rows), REBUILD_FLUSH // 10):
        await add_rows(conn, rows[i : i + REBUILD_FLUSH // 10])
    sums.clear()
