"""The lessons' service: the courses with a player's stars, and a learner's move checked by
the engine against the stage's goal (brandubh.lessons.check), never trusted from the client.
A star is given here, on the server's own verdict."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Sequence
from typing import Final, Literal, TypedDict

from redis.asyncio import Redis

from brandubh.engine import Game, IllegalMove
from brandubh.hub.errors import RateLimited, Refusal
from brandubh.hub.lessons.progress import Progress
from brandubh.hub.lessons.views import CourseView, courses
from brandubh.hub.redis import Scripts, keys
from brandubh.lessons import COURSES, GoalKind, Stage, StageFinished, Verdict, check
from brandubh.store import Store

MOVES_PER_MINUTE: Final = 120  # a learner's checked moves per minute, every stage together
WINDOW_MS: Final = 60_000
MAX_MOVES: Final = 8  # no stage asks for more; a longer list is refused before any work


class Learn(TypedDict):
    """``GET /api/learn``."""

    default: str
    courses: list[CourseView]
    stars: dict[str, list[str]]


class MoveAnswer(TypedDict):
    """``POST /api/learn/{ruleset}/{stage}/move``."""

    status: Literal["continue", "success", "failure"]
    move: str
    reply: str | None
    position: str
    message: str
    moves_left: int
    legal: list[str]  # the learner's legal moves now, while the stage goes on
    star: bool  # the caller has this stage's star (given now or before)


class Lessons:
    def __init__(self, redis: Redis, scripts: Scripts, store: Store) -> None:
        self.redis = redis
        self.scripts = scripts
        self.progress = Progress(redis, store)

    async def learn(self, player_id: str | None, account: bool) -> Learn:
        """Every course and the player's stars (none without a session)."""
        stars = await self.progress.stars(player_id, account) if player_id else set()
        by_course: dict[str, list[str]] = {}
        for view in courses():
            ids = {s["id"] for s in view["stages"]}
            done = sorted(s for r, s in stars if r == view["ruleset"] and s in ids)
            by_course[view["ruleset"]] = done
        return {"default": "nielsen", "courses": list(courses()), "stars": by_course}

    async def move(
        self, player_id: str, account: bool, ruleset: str, stage_id: str, moves: Sequence[str]
    ) -> MoveAnswer:
        """Check the learner's moves from the stage's start; the last one's verdict."""
        stage = stage_of(ruleset, stage_id)
        if stage.goal.kind is GoalKind.GAME:
            raise Refusal(
                "not_a_board", f"{ruleset}/{stage_id} is a game against the bot: start one"
            )
        if not 1 <= len(moves) <= MAX_MOVES:
            raise Refusal("bad_field", f"moves must list 1 to {MAX_MOVES} moves")
        await self._count(player_id)
        try:
            verdict, legal = await asyncio.to_thread(_judge, stage, ruleset, moves)
        except IllegalMove as exc:
            raise Refusal("illegal_move", f"move {len(moves)}: {exc}") from None
        except StageFinished as exc:
            raise Refusal("stage_finished", str(exc)) from None
        star = verdict.status == "success"
        if star:
            await self.progress.add(player_id, account, (ruleset, stage_id))
        return {
            "status": verdict.status,
            "move": verdict.move,
            "reply": verdict.reply,
            "position": verdict.position,
            "message": verdict.message,
            "moves_left": verdict.moves_left,
            "legal": legal,
            "star": star,
        }

    @staticmethod
    def stage(ruleset: str, stage_id: str) -> Stage:
        """The stage, or ``unknown_stage``."""
        return stage_of(ruleset, stage_id)

    async def _count(self, player_id: str) -> None:
        reply = await self.scripts.windows(
            keys=[keys.lesson_window(player_id)],
            args=[WINDOW_MS, secrets.token_hex(8), MOVES_PER_MINUTE],
        )
        if int(reply[0]):
            wait = max(1, -(-int(reply[1]) // 1000))
            raise RateLimited(
                f"{MOVES_PER_MINUTE} lesson moves a minute at most: try again in {wait} s", wait
            )


def stage_of(ruleset: str, stage_id: str) -> Stage:
    """The stage, or ``unknown_stage`` naming what there is."""
    course = COURSES.get(ruleset)
    if course is None:
        raise Refusal(
            "unknown_stage", f"there is no course {ruleset!r}: choose one of {', '.join(COURSES)}"
        )
    stage = course.stage(stage_id)
    if stage is None:
        ids = ", ".join(s.id for s in course.stages)
        raise Refusal("unknown_stage", f"the {ruleset} course has no stage {stage_id!r}: {ids}")
    return stage


def _judge(stage: Stage, ruleset: str, moves: Sequence[str]) -> tuple[Verdict, list[str]]:
    """The verdict and, while the stage goes on, the learner's legal moves (in a thread)."""
    verdict = check(stage, ruleset, moves)
    if verdict.status != "continue":
        return verdict, []
    return verdict, Game(ruleset, verdict.position).legal_texts()
