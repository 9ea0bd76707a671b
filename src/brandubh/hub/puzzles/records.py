"""A player's puzzle attempt as Redis keeps it (keys.puzzle_attempt, JSON), and the JSON
shapes of the puzzle routes (docs/protocol.md §2.13); pure."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from typing import Literal, TypedDict

from brandubh.store import StoredPuzzle

Mode = Literal["rated", "streak"]


@dataclass(frozen=True, slots=True)
class Attempt:
    """One attempt: the puzzle, rated or a streak's, the index in the solution of the
    solver's next move, whether it is over (and won), and in a streak the puzzles solved
    before this one and their ids."""

    puzzle: str
    mode: Mode
    ply: int = 0
    over: bool = False
    won: bool = False
    streak: int = 0
    seen: tuple[str, ...] = ()

    def dump(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    def moved(self, ply: int) -> Attempt:
        return replace(self, ply=ply)

    def finished(self, won: bool) -> Attempt:
        return replace(self, over=True, won=won)


def load_attempt(raw: bytes | str | None) -> Attempt | None:
    """The attempt Redis holds, or None (none, or one an older version wrote unreadably)."""
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        mode = data["mode"]
        if mode not in ("rated", "streak"):
            return None
        return Attempt(
            puzzle=str(data["puzzle"]),
            mode=mode,
            ply=int(data["ply"]),
            over=bool(data["over"]),
            won=bool(data["won"]),
            streak=int(data["streak"]),
            seen=tuple(str(s) for s in data["seen"]),
        )
    except (ValueError, KeyError, TypeError):
        return None


class PuzzleView(TypedDict):
    """A puzzle as a player starts it: never its solution nor its theme before the end."""

    id: str
    ruleset: str
    position: str
    side: str  # the side the player finds moves for: the one to move
    prompt: str
    legal: list[str]  # the moves the player may make at the start
    depth: int
    rating: int
    plays: int


class RatingChange(TypedDict):
    before: int
    after: int


class Standing(TypedDict):
    """A player's puzzle rating (``GET /api/puzzles/me``)."""

    rating: int
    rd: int
    provisional: bool
    attempts: int
    best_streak: int
    account: bool


class Started(TypedDict):
    """An attempt begun: the puzzle, its mode, the streak so far, the player's rating."""

    puzzle: PuzzleView
    mode: Mode
    ply: int
    streak: int
    rating: int


class Answer(TypedDict):
    """What a move came to (``POST /api/puzzles/<id>/move``)."""

    result: Literal["right", "solved", "failed"]
    move: str  # the move as played, canonical text
    moved: str  # the position after it (before any reply)
    reply: str | None  # the defence's reply from the line, played for the player
    ply: int  # the solver's next move's index in the line (after the end: its length)
    position: str  # after the move and the reply
    legal: list[str]  # right: the player's moves now (else none)
    right: str | None  # failed: the move that was awaited
    refutation: str | None  # failed: the opponent's best answer to the wrong move
    solution: list[str] | None  # once over: the whole line
    theme: str | None  # once over
    rated: bool
    rating: RatingChange | None  # once over: the player's puzzle rating before and after
    streak: int | None  # streak mode: the puzzles solved in the streak now
    best_streak: int | None  # streak mode, once over: the player's best streak


def view(puzzle: StoredPuzzle, side: str, prompt: str, legal: list[str]) -> PuzzleView:
    return {
        "id": puzzle.id,
        "ruleset": puzzle.ruleset,
        "position": puzzle.position,
        "side": side,
        "prompt": prompt,
        "legal": legal,
        "depth": puzzle.depth,
        "rating": round(puzzle.rating.rating),
        "plays": puzzle.plays,
    }
