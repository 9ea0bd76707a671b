"""A lesson's stage as a typed record: its board, the learner's side, its goal and its words."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from brandubh.engine import Result, Side


class GoalKind(Enum):
    """What the learner must bring about, as the engine reports it."""

    REACH = "reach"  # a piece of the learner's (the king, with ``king``) stops on a square
    CAPTURE = "capture"  # every piece on ``squares`` captured by the learner's moves
    RESULT = "result"  # the game ends with ``result`` (an escape, a capture of the king...)
    GAME = "game"  # not a board: a first game against the bot


@dataclass(frozen=True, slots=True)
class Goal:
    """A stage's goal: its kind, its squares or result, and the learner's moves to reach it."""

    kind: GoalKind
    moves: int
    squares: tuple[str, ...] = ()
    king: bool = False
    result: Result | None = None


@dataclass(frozen=True, slots=True)
class Stage:
    """One stage of a course: a position (after ``prelude``, moves already played), a goal
    checked move by move, and the sentences the learner reads."""

    id: str
    title: str
    position: str
    goal: Goal
    task: str  # the goal in one sentence, shown above the board
    explanation: str
    hint: str
    success: str
    prelude: tuple[str, ...] = ()
    bot_level: int = 0  # a GAME stage: the bot's level


@dataclass(frozen=True, slots=True)
class Course:
    """The lessons of one rule set, in order."""

    ruleset: str
    title: str
    stages: tuple[Stage, ...]

    def stage(self, stage_id: str) -> Stage | None:
        """The stage with this id, or None."""
        return next((s for s in self.stages if s.id == stage_id), None)


def learner_side(position: str, prelude: tuple[str, ...]) -> Side:
    """The side the learner plays: the side to move once the prelude has been played."""
    to_move = position.split()[-1]
    attackers_first = to_move == "a"
    if len(prelude) % 2:
        attackers_first = not attackers_first
    return "attackers" if attackers_first else "defenders"
