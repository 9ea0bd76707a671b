"""Learning from one's mistakes: a judged move of an analysed game as an exercise, and a move
tried in its place judged as the analysis would have judged it (docs/analysis.md,
"Learning from your mistakes").

A tried move is searched exactly as the analysis searched the position after a move (the
same budget, the game's repetition history, the same seeded search) and judged by the drop of
its mover's chance from the analysed position before it, with ``judge``'s thresholds: good
when that drop is no judgment at all, so any good move passes, not only the search's. Proved
results are exact: a tried move after which the search proves a loss is never good, one that
keeps (or finds) a proved win always is, and from a proved win only a move that keeps it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal, TypedDict

from brandubh.analysis.analyse import GameAnalysis, PositionEval, search_game
from brandubh.analysis.board import play_move, replay
from brandubh.analysis.judge import Judgment, judge
from brandubh.bot import MATE_BOUND
from brandubh.engine import Side

__all__ = ["Exercise", "ExerciseJson", "TriedJson", "TriedMove", "Why", "exercises", "try_move"]

# Why a tried move was judged as it was (the client words each).
Why = Literal["best", "played", "won", "lost", "win_lost", "chance"]
WHYS: Final[tuple[Why, ...]] = ("best", "played", "won", "lost", "win_lost", "chance")


class ExerciseJson(TypedDict):
    """An exercise as JSON (a worker's job carries it)."""

    ply: int
    side: Side
    played: str
    judgment: Judgment
    before: dict[str, object]
    after: dict[str, object]
    best: str
    line: list[str]


class TriedJson(TypedDict):
    """A tried move's verdict as JSON (cached, and served: docs/protocol.md §2.3)."""

    ply: int
    move: str
    good: bool
    why: Why
    judgment: Judgment | None
    before: float
    after: float
    eval: dict[str, object]
    nodes: int


@dataclass(frozen=True, slots=True)
class Exercise:
    """A judged move: its ply, who played it, the move and its judgment, the analysed
    positions before and after it, and the search's preferred move and line instead."""

    ply: int
    side: Side
    played: str
    judgment: Judgment
    before: PositionEval
    after: PositionEval
    best: str
    line: tuple[str, ...]

    def to_dict(self) -> ExerciseJson:
        return {
            "ply": self.ply,
            "side": self.side,
            "played": self.played,
            "judgment": self.judgment,
            "before": self.before.to_dict(),
            "after": self.after.to_dict(),
            "best": self.best,
            "line": list(self.line),
        }

    @classmethod
    def from_dict(cls, data: ExerciseJson) -> Exercise:
        return cls(
            int(data["ply"]),
            data["side"],
            data["played"],
            data["judgment"],
            PositionEval.from_dict(data["before"]),
            PositionEval.from_dict(data["after"]),
            data["best"],
            tuple(data["line"]),
        )


def exercises(analysis: GameAnalysis, side: Side | None = None) -> list[Exercise]:
    """The analysis's judged moves (of ``side`` only, if given), in the game's order."""
    found: list[Exercise] = []
    for index, ply in enumerate(analysis.plies):
        if ply.judgment is None or ply.best is None or side not in (None, ply.side):
            continue
        before = analysis.start if index == 0 else analysis.plies[index - 1].eval
        found.append(
            Exercise(
                ply.ply, ply.side, ply.move, ply.judgment, before, ply.eval, ply.best, ply.line
            )
        )
    return found


@dataclass(frozen=True, slots=True)
class TriedMove:
    """A move tried in an exercise's place: its canonical text, whether it is good, why, its
    judgment (None: none), the mover's chance before and after it, the evaluation after it
    (searched, or the analysis's own for the best and the played move) and the nodes spent."""

    ply: int
    move: str
    good: bool
    why: Why
    judgment: Judgment | None
    before: float
    after: float
    eval: PositionEval
    nodes: int

    def to_dict(self) -> TriedJson:
        return {
            "ply": self.ply,
            "move": self.move,
            "good": self.good,
            "why": self.why,
            "judgment": self.judgment,
            "before": self.before,
            "after": self.after,
            "eval": self.eval.to_dict(),
            "nodes": self.nodes,
        }

    @classmethod
    def from_dict(cls, data: TriedJson) -> TriedMove:
        return cls(
            int(data["ply"]),
            data["move"],
            bool(data["good"]),
            data["why"],
            data["judgment"],
            float(data["before"]),
            float(data["after"]),
            PositionEval.from_dict(data["eval"]),
            int(data["nodes"]),
        )


def _mover_chance(side: Side, chance: float) -> float:
    return round(chance if side == "defenders" else 1.0 - chance, 4)


def _proved(side: Side, e: PositionEval) -> int:
    """1 when ``e`` is a proved win for ``side``, -1 a proved loss, 0 neither (a score at or
    past the bot's proof bound, or a game over: its score is the bound's)."""
    if abs(e.score) < MATE_BOUND:
        return 0
    defenders_win = e.score > 0
    return 1 if defenders_win == (side == "defenders") else -1


def try_move(
    exercise: Exercise,
    ruleset: str,
    moves: Sequence[str],
    tried: str,
    *,
    position: str | None = None,
    nodes: int,
) -> TriedMove:
    """Judge ``tried`` in the place of the exercise's move, ``moves`` being the game's moves
    before it (from ``position``, the rule set's start if None) and ``nodes`` the analysis's
    budget. Raises board.IllegalLineMove (with the engine's reason) for an illegal move."""
    game = replay(ruleset, position, moves)
    side = game.side_to_move
    canonical = play_move(game, len(moves), tried)
    before = _mover_chance(side, exercise.before.chance)
    if canonical == exercise.best:
        # The search's own choice: no error by its standard (as the analysis judges).
        return TriedMove(
            exercise.ply, canonical, True, "best", None, before, before, exercise.before, 0
        )
    if canonical == exercise.played:
        after = _mover_chance(side, exercise.after.chance)
        return TriedMove(
            exercise.ply,
            canonical,
            False,
            "played",
            exercise.judgment,
            before,
            after,
            exercise.after,
            0,
        )
    found, spent = search_game(game, nodes)
    after = _mover_chance(side, found.chance)
    judgment = judge(before, after)
    proved = _proved(side, found)
    why: Why = "chance"
    if proved < 0:
        good, why = False, "lost"
    elif proved > 0:
        good, why = True, "won"
    elif _proved(side, exercise.before) > 0:
        good, why = False, "win_lost"
    else:
        good = judgment is None
    return TriedMove(exercise.ply, canonical, good, why, judgment, before, after, found, spent)
