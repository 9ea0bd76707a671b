"""Lessons: a course per rule set, each an ordered list of stages with a goal the engine
checks move by move (docs/learn.md). Pure: the service keeps progress, this says what is right.
"""

from brandubh.lessons.check import (
    NotABoard,
    StageFinished,
    Verdict,
    aim,
    can_force,
    check,
    ending,
    start,
)
from brandubh.lessons.courses import COURSES, DEFAULT_COURSE, FIRST_GAME_LEVEL, at
from brandubh.lessons.stages import Course, Goal, GoalKind, Stage, learner_side

__all__ = [
    "COURSES",
    "DEFAULT_COURSE",
    "FIRST_GAME_LEVEL",
    "Course",
    "Goal",
    "GoalKind",
    "NotABoard",
    "Stage",
    "StageFinished",
    "Verdict",
    "aim",
    "at",
    "can_force",
    "check",
    "ending",
    "learner_side",
    "start",
]
