"""What a puzzle attempt is, decided without I/O: a move checked against the solution,
the refutation of a wrong move when the opponent wins at once, the day's puzzle, the
limits (docs/protocol.md §2.13)."""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from brandubh.engine import EngineError, Game, Side
from brandubh.hub.errors import Refusal

REQUESTS: Final = 120  # puzzle requests (a new puzzle, a start, a move) per window, per player
WINDOW_S: Final = 60
MAX_MOVE_TEXT: Final = 32  # a move's text is far shorter; longer is refused unread
STREAK_START: Final = 600.0  # a streak's first puzzle: the easiest near this rating
STREAK_SEEN: Final = 200  # a streak's puzzles remembered, so none comes twice in it

Verdict = Literal["right", "solved", "failed"]


@dataclass(frozen=True, slots=True)
class Checked:
    """A move checked at the solver's turn ``ply``: the verdict, the move as played
    (canonical text) and the position after it, the defence's reply from the line
    (``right``), the solution's move (``failed``: the one that was awaited), and the game
    after the move (and the reply)."""

    verdict: Verdict
    played: str
    moved: str
    reply: str | None
    expected: str
    game: Game


def replay(position: str, ruleset: str, moves: Sequence[str]) -> Game:
    """The puzzle's game after ``moves`` of its line (which replay: the record checked it)."""
    game = Game.from_position(position, ruleset)
    for text in moves:
        game.play(text)
    return game


def solver_side(position: str, ruleset: str) -> Side:
    """The side the player finds moves for: the one to move at the puzzle's start."""
    return Game.from_position(position, ruleset).side_to_move


def check_move(
    position: str, ruleset: str, solution: Sequence[str], ply: int, move: str
) -> Checked:
    """Check the solver's move at ``ply`` (an even index into ``solution``) against the
    line: the solution's move, or any move that wins the game at once, is right; the last
    right move solves it. An illegal move is refused (``illegal_move``): nothing judged."""
    if len(move) > MAX_MOVE_TEXT or not move.strip():
        raise Refusal("bad_field", f"move is a move's text, at most {MAX_MOVE_TEXT} characters")
    game = replay(position, ruleset, solution[:ply])
    solver = game.side_to_move
    expected = str(game.play(solution[ply]))
    game.pop()
    try:
        played = str(game.play(move.strip()))
    except EngineError as exc:
        raise Refusal("illegal_move", f"{move.strip()} is not legal here: {exc}") from None
    moved = game.position
    won_now = game.result is not None and game.result.winner == solver
    if played != expected and not won_now:
        return Checked("failed", played, moved, None, expected, game)
    if won_now or ply + 1 >= len(solution):
        return Checked("solved", played, moved, None, expected, game)
    reply = str(game.play(solution[ply + 1]))
    if ply + 2 >= len(solution) or game.result is not None:
        # A line ends with the solver's move (docs/puzzles.md); a reply that ended the game
        # would be a record the loader refused: either way, nothing is left to find.
        return Checked("solved", played, moved, reply, expected, game)
    return Checked("right", played, moved, reply, expected, game)


def winning_reply(game: Game) -> str | None:
    """A move that wins the game at once for the side to move, if there is one: the
    refutation of a wrong move that lets the opponent escape or capture the king."""
    if game.result is not None:
        return None
    mover = game.side_to_move
    for text in game.legal_texts():
        game.play(text)
        won = game.result is not None and game.result.winner == mover
        game.pop()
        if won:
            return text
    return None


def day_of(now_s: float) -> str:
    """The UTC day of an instant, as the daily puzzle names it (YYYY-MM-DD)."""
    return datetime.datetime.fromtimestamp(now_s, datetime.UTC).date().isoformat()


def daily_choice(day: str, ids: Sequence[str]) -> str | None:
    """The day's puzzle among ``ids``: the one whose SHA-256 of day and id is least, the
    same for everyone on that day whatever the order of ``ids``; and adding puzzles changes
    a day's choice only when a new one wins it."""
    if not ids:
        return None
    return min(ids, key=lambda pid: hashlib.sha256(f"{day}:{pid}".encode()).digest())


def prompt(side: Side) -> str:
    """What the player is asked."""
    return f"Find the best move for the {side}"
