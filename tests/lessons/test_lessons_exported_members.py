"""brandubh.lessons' public face is pinned: its ``__all__`` is exactly this list."""

from __future__ import annotations

import brandubh.lessons

EXPORTED = [
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


def test_all_is_the_pinned_list() -> None:
    assert brandubh.lessons.__all__ == EXPORTED
    assert [n for n in EXPORTED if not hasattr(brandubh.lessons, n)] == []
