"""The courses as the client reads them (``GET /api/learn``), built once from the pure
lessons: each stage's board after its prelude and the learner's legal moves there; pure."""

from __future__ import annotations

from functools import cache
from typing import Literal, TypedDict

from brandubh.lessons import COURSES, DEFAULT_COURSE, Course, GoalKind, Stage, learner_side, start


class StageView(TypedDict):
    """One stage in ``GET /api/learn``."""

    id: str
    title: str
    kind: Literal["board", "game"]
    task: str
    explanation: str
    hint: str
    side: str  # the learner's side ("" for the game)
    start: str  # the position before the prelude
    prelude: list[str]  # moves already played
    position: str  # the position the learner moves from
    moves: int  # the learner's moves to reach the goal
    legal: list[str]  # the learner's legal moves there
    bot_level: int


class CourseView(TypedDict):
    ruleset: str
    title: str
    stages: list[StageView]


def _stage(course: Course, stage: Stage) -> StageView:
    if stage.goal.kind is GoalKind.GAME:
        side, position, legal = "", "", []
    else:
        game = start(stage, course.ruleset)
        side, position, legal = (
            learner_side(stage.position, stage.prelude),
            game.position,
            game.legal_texts(),
        )
    return {
        "id": stage.id,
        "title": stage.title,
        "kind": "game" if stage.goal.kind is GoalKind.GAME else "board",
        "task": stage.task,
        "explanation": stage.explanation,
        "hint": stage.hint,
        "side": side,
        "start": stage.position,
        "prelude": list(stage.prelude),
        "position": position,
        "moves": stage.goal.moves,
        "legal": legal,
        "bot_level": stage.bot_level,
    }


@cache
def courses() -> tuple[CourseView, ...]:
    """Every course, the default (nielsen) first."""
    ordered = sorted(COURSES.values(), key=lambda c: c.ruleset != DEFAULT_COURSE)
    return tuple(
        {"ruleset": c.ruleset, "title": c.title, "stages": [_stage(c, s) for s in c.stages]}
        for c in ordered
    )
