"""HTTP routes of accounts, profiles, the leaderboards and the archive (docs/protocol.md §2).

Every request other than GET passes the same cross-site check as the game routes
(origin.py): ``Sec-Fetch-Site`` not ``cross-site``, or an allowed ``Origin``.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any, Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from brandubh.engine import RULESETS, EngineError, Game
from brandubh.hub.accounts import RateLimited, not_logged_in, reachable
from brandubh.hub.origin import unsafe_request_allowed
from brandubh.hub.protocol import GAME_ID_RE, ProtocolError
from brandubh.hub.sessions import COOKIE, TTL_S, Session
from brandubh.hub.state import unpack_snapshot

if TYPE_CHECKING:
    from brandubh.hub.app import Hub

MAX_BODY: Final = 4096
PLAYER_ID_RE: Final = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
GAMES_PAGE: Final = 20
MAX_GAMES_PAGE: Final = 100

STATUS: Final = {
    "bad_credentials": 401,
    "not_logged_in": 401,
    "forbidden": 403,
    "account_required": 403,
    "not_found": 404,
    "email_taken": 409,
    "rate_limited": 429,
    "busy": 503,
    "unavailable": 503,  # PostgreSQL cannot be reached (accounts.reachable)
}


def error(exc: ProtocolError) -> JSONResponse:
    response = JSONResponse(
        {"error": exc.code, "message": exc.message}, status_code=STATUS.get(exc.code, 400)
    )
    if isinstance(exc, RateLimited):
        response.headers["Retry-After"] = str(exc.retry_after)
    return response


async def read_json(request: Request, hub: Hub, fields: set[str]) -> dict[str, Any]:
    """The JSON object of a non-GET request, after the cross-site check; only ``fields``."""
    if not unsafe_request_allowed(request.headers, hub.settings.allowed_origins):
        raise ProtocolError("forbidden", "cross-site request refused: send an Origin header")
    body = await request.body()
    if len(body) > MAX_BODY:
        raise ProtocolError("bad_request", f"request body over {MAX_BODY} bytes")
    if not body:
        data: Any = {}
    else:
        try:
            data = json.loads(body)
        except ValueError:
            raise ProtocolError("bad_request", "the request body must be JSON") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_request", "the request body must be a JSON object")
    unknown = set(data) - fields
    if unknown:
        raise ProtocolError(
            "bad_field",
            f"unexpected fields: {', '.join(sorted(unknown))}; fields: {', '.join(sorted(fields))}",
        )
    return data


def set_session_cookie(response: Response, token: str, request: Request) -> Response:
    response.set_cookie(
        COOKIE,
        token,
        max_age=TTL_S,
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/",
    )
    return response


def address(request: Request) -> str:
    """The client's address (uvicorn applies X-Forwarded-For from trusted proxies only)."""
    return request.client.host if request.client else "unknown"


def routes(hub: Hub) -> list[Route]:
    accounts = hub.accounts

    async def session_of(request: Request) -> Session | None:
        return await hub.sessions.get_session(request.cookies.get(COOKIE))

    async def account_session(request: Request) -> Session:
        session = await session_of(request)
        if session is None or not session.account:
            raise not_logged_in()
        return session

    async def signed_in(session: Session, token: str, request: Request, status: int) -> Response:
        try:
            account = await accounts.get(session.player.id)
        except ProtocolError:  # signed in, and PostgreSQL gone since: the email can wait
            account = None
        body = {
            "id": session.player.id,
            "name": session.player.name,
            "account": True,
            "email": account.email if account else None,
        }
        return set_session_cookie(JSONResponse(body, status_code=status), token, request)

    async def signup(request: Request) -> Response:
        try:
            body = await read_json(request, hub, {"email", "password", "name"})
            token, session = await accounts.signup(
                body.get("email"), body.get("password"), body.get("name"), await session_of(request)
            )
        except ProtocolError as exc:
            return error(exc)
        return await signed_in(session, token, request, 201)

    async def login(request: Request) -> Response:
        try:
            body = await read_json(request, hub, {"email", "password"})
            token, session = await accounts.login(
                body.get("email"), body.get("password"), address(request), await session_of(request)
            )
        except ProtocolError as exc:
            return error(exc)
        return await signed_in(session, token, request, 200)

    async def logout(request: Request) -> Response:
        try:
            body = await read_json(request, hub, {"everywhere"})
            everywhere = body.get("everywhere", False)
            if not isinstance(everywhere, bool):
                raise ProtocolError("bad_field", "everywhere must be true or false")
            session = await session_of(request)
            ended = await accounts.logout(session, everywhere) if session else 0
        except ProtocolError as exc:
            return error(exc)
        response = JSONResponse({"ended": ended})
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax")
        return response

    async def change_password(request: Request) -> Response:
        try:
            body = await read_json(request, hub, {"current", "new"})
            session = await account_session(request)
            ended = await accounts.change_password(
                session, body.get("current"), body.get("new"), address(request)
            )
        except ProtocolError as exc:
            return error(exc)
        return JSONResponse({"ended": ended})

    async def settings(request: Request) -> Response:
        try:
            body = await read_json(request, hub, {"leaderboard"})
            session = await account_session(request)
            board = body.get("leaderboard")
            if not isinstance(board, bool):
                raise ProtocolError("bad_field", "leaderboard must be true or false")
            await accounts.set_leaderboard(session.player.id, board)
        except ProtocolError as exc:
            return error(exc)
        return JSONResponse({"leaderboard": board})

    async def profile(request: Request) -> Response:
        pid = request.path_params["player_id"]
        try:
            account = await accounts.get(pid) if PLAYER_ID_RE.match(pid) else None
            if account is None:
                raise ProtocolError("not_found", f"there is no player {pid}")
            async with reachable():
                ratings = await hub.rater.ratings(account.id)
        except ProtocolError as exc:
            return error(exc)
        session = await session_of(request)
        return JSONResponse(
            {
                "id": account.id,
                "name": account.name,
                "since": account.created,
                "leaderboard": account.leaderboard,
                "me": session is not None and session.player.id == account.id,
                "ratings": ratings,
            }
        )

    async def player_games(request: Request) -> Response:
        pid = request.path_params["player_id"]
        try:
            if not PLAYER_ID_RE.match(pid) or await accounts.get(pid) is None:
                raise ProtocolError("not_found", f"there is no player {pid}")
            offset = _int_param(request, "offset", 0, 0, 1_000_000)
            limit = _int_param(request, "limit", GAMES_PAGE, 1, MAX_GAMES_PAGE)
            async with reachable():
                games, more = await hub.rater.player_games(pid, offset, limit)
        except ProtocolError as exc:
            return error(exc)
        return JSONResponse({"games": games, "next": more})

    async def leaderboard(request: Request) -> Response:
        ruleset = request.path_params["ruleset"]
        try:
            if ruleset not in RULESETS:
                raise ProtocolError("not_found", f"there is no rule set {ruleset}")
            async with reachable():
                players = await hub.rater.leaderboard(ruleset)
        except ProtocolError as exc:
            return error(exc)
        return JSONResponse(
            {"ruleset": ruleset, "players": players}, headers={"Cache-Control": "no-store"}
        )

    async def positions(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        try:
            if not GAME_ID_RE.match(game_id):
                raise ProtocolError("not_found", f"there is no game {game_id}")
            state = await hub.games.load(game_id)
            game = Game(state.ruleset, unpack_snapshot(state.snap).start_position)
            shown = [game.position]
            played = []
            for text in state.moves:
                played.append(str(game.play(text)))
                shown.append(game.position)
        except ProtocolError as exc:
            return error(exc)
        except EngineError as exc:  # pragma: no cover - every stored move was legal
            return error(ProtocolError("busy", f"the game does not replay: {exc}"))
        return JSONResponse(
            {
                "id": state.id,
                "ruleset": state.ruleset,
                "status": state.status,
                "moves": played,
                "positions": shown,
                "result": (
                    {"winner": state.result.winner, "reason": state.result.reason}
                    if state.result
                    else None
                ),
            }
        )

    return [
        Route("/api/signup", signup, methods=["POST"]),
        Route("/api/login", login, methods=["POST"]),
        Route("/api/logout", logout, methods=["POST"]),
        Route("/api/password", change_password, methods=["POST"]),
        Route("/api/settings", settings, methods=["POST"]),
        Route("/api/players/{player_id}", profile),
        Route("/api/players/{player_id}/games", player_games),
        Route("/api/leaderboard/{ruleset}", leaderboard),
        Route("/api/games/{game_id}/positions", positions),
    ]


def _int_param(request: Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise ProtocolError("bad_field", f"{name} must be a whole number from {low} to {high}")
    return int(raw)
