"""HTTP routes of analysis by the bot: asking for a finished game's analysis and reading it,
moves tried in place of its judged ones, board evaluations, and the analysis board's lines
(docs/protocol.md §2.3).

Who may ask for a game's analysis: a player of the game, or, for a game that is not
private (a private challenge), any account with a confirmed address. Nobody playing a game
gets it evaluated while it runs: by its id (``own_game`` here) or by its position typed in
(analysis/analyses.py). Anyone may try moves in an analysed game's exercises: the analysis
is everyone's to read, and the tries are counted per session and per address.
"""

from __future__ import annotations

from typing import Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from brandubh.engine import RULESETS
from brandubh.hub.accounts import Session, reachable
from brandubh.hub.errors import Refusal
from brandubh.hub.http.base import Services, address, read_json, services, session_of
from brandubh.hub.live import GameState

PRIVATE: Final = frozenset({"challenge"})  # GameState.origin_or_guess(): private challenges


def _ruleset(body: dict[str, object]) -> str:
    ruleset = body.get("ruleset")
    if not isinstance(ruleset, str) or ruleset not in RULESETS:
        raise Refusal("bad_field", f"ruleset: one of {', '.join(sorted(RULESETS))}")
    return ruleset


def _position(body: dict[str, object], required: bool) -> str | None:
    position = body.get("position")
    if position is None and not required:
        return None
    if not isinstance(position, str) or not position or len(position) > 200:
        raise Refusal("bad_position", "position: a position text of at most 200 characters")
    return position


async def may_request(web: Services, session: Session | None, state: GameState) -> None:
    """A player of the game, or a confirmed account for a game that is not private."""
    if session is not None and state.is_player(session.player.id):
        return
    if session is None or not session.account or state.origin_or_guess() in PRIVATE:
        raise Refusal(
            "not_allowed",
            "only the game's players may ask for its analysis, or, for a game that is not "
            "private, an account with a confirmed address",
        )
    if not await web.accounts.is_verified(session.player.id):
        raise Refusal(
            "not_allowed",
            "confirm your email address first: analyses of other players' games are "
            "for confirmed accounts",
        )


async def request_analysis(request: Request) -> Response:
    web = services(request)
    await read_json(request, web.settings, set())  # the cross-site check; no fields
    session = await session_of(request, web.sessions)
    state = await web.games.load(request.path_params["game_id"])
    if state.status != "ended":
        if session is not None and state.is_player(session.player.id):
            raise Refusal("own_game")
        raise Refusal("not_finished")
    await may_request(web, session, state)
    account = session.player.id if session is not None and session.account else None
    async with reachable():  # PostgreSQL unreachable: 503 unavailable
        _, status = await web.analyses.request(state, account, address(request))
    return JSONResponse(status, status_code=202 if status["status"] == "queued" else 200)


async def read_analysis(request: Request) -> Response:
    web = services(request)
    game_id = request.path_params["game_id"]
    await web.games.load(game_id)  # not_found for a game that never was
    async with reachable():
        return JSONResponse(await web.analyses.status(game_id))


async def try_exercise(request: Request) -> Response:
    web = services(request)
    body = await read_json(request, web.settings, {"ply", "move"})
    ply, move = body.get("ply"), body.get("move")
    if not isinstance(ply, int) or isinstance(ply, bool) or ply < 1:
        raise Refusal("bad_field", "ply: the number of the judged move, 1 for the first")
    if not isinstance(move, str) or not move or len(move) > 20:
        raise Refusal("bad_field", "move: a move text such as d1-c1")
    session = await session_of(request, web.sessions)
    state = await web.games.load(request.path_params["game_id"])
    async with reachable():
        verdict = await web.analyses.try_move(
            state, ply, move, None if session is None else session.id, address(request)
        )
    return JSONResponse(verdict)


async def evaluate(request: Request) -> Response:
    web = services(request)
    body = await read_json(request, web.settings, {"ruleset", "position"})
    ruleset, position = _ruleset(body), _position(body, required=True)
    assert position is not None
    return JSONResponse(await web.analyses.evaluate(ruleset, position, address(request)))


async def board_walk(request: Request) -> Response:
    web = services(request)
    body = await read_json(request, web.settings, {"ruleset", "position", "moves"})
    ruleset, position = _ruleset(body), _position(body, required=False)
    gzipped = "gzip" in request.headers.get("accept-encoding", "")
    # Bounded, counted per address and walked off the event loop (analysis/walks.py).
    walked = await web.analyses.walks.walk(
        ruleset, position, body.get("moves", []), address(request), gzipped
    )
    headers = {"Content-Encoding": "gzip", "Vary": "Accept-Encoding"} if walked.gzipped else {}
    return Response(walked.body, media_type="application/json", headers=headers)


ROUTES: Final = (
    Route("/api/games/{game_id}/analysis", request_analysis, methods=["POST"]),
    Route("/api/games/{game_id}/analysis", read_analysis),
    Route("/api/games/{game_id}/analysis/exercise", try_exercise, methods=["POST"]),
    Route("/api/analysis/position", evaluate, methods=["POST"]),
    Route("/api/board/walk", board_walk, methods=["POST"]),
)
