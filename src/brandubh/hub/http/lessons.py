"""HTTP routes of the lessons (docs/protocol.md §2.12): the courses with the caller's stars,
and a learner's move checked by the server, which alone gives stars."""

from __future__ import annotations

from typing import Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from brandubh.hub.errors import Refusal
from brandubh.hub.http.base import read_json, services, session_of
from brandubh.hub.http.games import player_for, with_cookie
from brandubh.hub.lessons import Lessons

NO_STORE: Final = {"Cache-Control": "no-store"}
MAX_MOVE_TEXT: Final = 32


def _lessons(request: Request) -> Lessons:
    found = services(request).lessons
    if found is None:  # pragma: no cover - the composition root always gives it
        raise Refusal("not_found", "this hub has no lessons")
    return found


async def learn(request: Request) -> Response:
    """``GET /api/learn``: the courses and the caller's stars; a read makes no session."""
    web = services(request)
    session = await session_of(request, web.sessions)
    player = session.player.id if session else None
    answer = await _lessons(request).learn(player, bool(session and session.account))
    return JSONResponse(answer, headers=NO_STORE)


async def move(request: Request) -> Response:
    """``POST /api/learn/{ruleset}/{stage}/move``: ``{"moves": [...]}``, the learner's moves
    from the stage's start, the last one new. A visitor gets a guest session."""
    web = services(request)
    body = await read_json(request, web.settings, {"moves"})
    moves = body.get("moves")
    if (
        not isinstance(moves, list)
        or not moves
        or not all(isinstance(m, str) and 0 < len(m) <= MAX_MOVE_TEXT for m in moves)
    ):
        raise Refusal(
            "bad_field",
            f"moves must be a non-empty list of move texts (each 1 to {MAX_MOVE_TEXT} "
            'characters), such as ["d2-d6"]',
        )
    ruleset, stage = request.path_params["ruleset"], request.path_params["stage"]
    lessons = _lessons(request)
    lessons.stage(ruleset, stage)  # an unknown stage makes no guest session
    session = await session_of(request, web.sessions)
    player, token, keep = await player_for(web, request)
    answer = await lessons.move(player.id, bool(session and session.account), ruleset, stage, moves)
    if answer["star"] and keep is not None:
        await web.sessions.keep(keep)  # a guest with a star keeps the session's full life
    return with_cookie(JSONResponse(answer, headers=NO_STORE), token, request)


ROUTES: Final = (
    Route("/api/learn", learn),
    Route("/api/learn/{ruleset}/{stage}/move", move, methods=["POST"]),
)
