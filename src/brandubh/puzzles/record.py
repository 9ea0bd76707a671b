"""A puzzle's record, one JSON object a line, written and read back exactly.

``{"id", "ruleset", "position", "solution", "theme", "depth", "source", "rating"}``:
``position`` is the engine's position text (side to move included), ``solution`` the line
in our move notation starting with the solver's move and alternating with the defence's
best replies, ``depth`` the solver's moves in it. docs/puzzles.md has the rules a record
meets (one answer at each of the solver's moves, proved by a complete search).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Final, Literal, get_args

from brandubh.engine import EngineError, Game, get_ruleset

Theme = Literal["escape", "capture", "defend"]
# escape: the defenders force a win (the king escapes); capture: the attackers force one (the
# king is captured); a side left without a move also loses where the rule set says so;
# defend: the side to move has one move that does not lose within the opponent's next two
# moves, every other does (docs/puzzles.md, Defend); its solution is that move, depth 1.
THEMES: Final[tuple[Theme, ...]] = get_args(Theme)
START_RATING: Final = 1500.0
_FIELDS: Final = ("id", "ruleset", "position", "solution", "theme", "depth", "source", "rating")


class InvalidPuzzle(ValueError):
    """A puzzle line that is not a puzzle record: the message names the field."""


@dataclass(frozen=True, slots=True)
class Puzzle:
    """One puzzle: where it starts, its one solution line, and where it came from."""

    id: str
    ruleset: str
    position: str
    solution: tuple[str, ...]
    theme: Theme
    depth: int
    source: str
    rating: float = START_RATING

    def game(self) -> Game:
        """The engine's game at the puzzle's start (no history before it)."""
        return Game.from_position(self.position, self.ruleset)


def puzzle_id(ruleset: str, position: str) -> str:
    """A stable id for a start: the same position under the same rules is the same puzzle."""
    digest = hashlib.sha256(f"{ruleset}\n{position}".encode()).hexdigest()
    return digest[:10]


def format_puzzle(puzzle: Puzzle) -> str:
    """The puzzle as one line of JSON (no newline), fields in a fixed order."""
    fields = {
        "id": puzzle.id,
        "ruleset": puzzle.ruleset,
        "position": puzzle.position,
        "solution": list(puzzle.solution),
        "theme": puzzle.theme,
        "depth": puzzle.depth,
        "source": puzzle.source,
        "rating": round(puzzle.rating, 1),
    }
    return json.dumps(fields, separators=(",", ":"))


def parse_puzzle(line: str) -> Puzzle:
    """Read one puzzle line, checking its fields and that its solution replays; or
    InvalidPuzzle naming what is wrong."""
    try:
        raw = json.loads(line)
    except ValueError as exc:
        raise InvalidPuzzle(f"a puzzle line is one JSON object: {exc}") from None
    if not isinstance(raw, dict):
        raise InvalidPuzzle("a puzzle line is one JSON object")
    missing = [f for f in _FIELDS if f not in raw]
    if missing:
        raise InvalidPuzzle(f"a puzzle line lacks {', '.join(missing)}")
    solution = raw["solution"]
    if not (isinstance(solution, list) and solution and all(isinstance(m, str) for m in solution)):
        raise InvalidPuzzle("solution is a non-empty list of moves")
    theme = raw["theme"]
    if theme not in THEMES:
        raise InvalidPuzzle(f"theme is one of {', '.join(THEMES)}, not {theme!r}")
    depth = raw["depth"]
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:
        raise InvalidPuzzle("depth is a whole number of moves, at least 1")
    rating = raw["rating"]
    if not isinstance(rating, (int, float)) or isinstance(rating, bool):
        raise InvalidPuzzle("rating is a number")
    for name in ("id", "ruleset", "position", "source"):
        if not isinstance(raw[name], str) or not raw[name]:
            raise InvalidPuzzle(f"{name} is a non-empty string")
    try:
        get_ruleset(raw["ruleset"])
        game = Game.from_position(raw["position"], raw["ruleset"])
        for text in solution:
            game.play(text)
    except EngineError as exc:
        raise InvalidPuzzle(f"the solution does not replay from the position: {exc}") from None
    if raw["id"] != puzzle_id(raw["ruleset"], raw["position"]):
        raise InvalidPuzzle("id is not the position's id under its rule set")
    return Puzzle(
        id=raw["id"],
        ruleset=raw["ruleset"],
        position=raw["position"],
        solution=tuple(solution),
        theme=theme,
        depth=depth,
        source=raw["source"],
        rating=float(rating),
    )
