"""HTTP routes: the session, creating and joining games, the client's pages, health."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from brandubh import fairplay
from brandubh.engine import RULESETS, EngineError, format_record, parse_record
from brandubh.hub import http_accounts
from brandubh.hub.origin import unsafe_request_allowed
from brandubh.hub.protocol import GAME_ID_RE, ProtocolError
from brandubh.hub.sessions import COOKIE
from brandubh.hub.state import Player

if TYPE_CHECKING:
    from brandubh.hub.app import Hub

MAX_BODY = 4096
MAX_RECORD = 64 * 1024
CREATE_FIELDS = {"ruleset", "move_time", "opponent", "bot_level", "rated", "match", "invitee"}

_STATUS = {
    "not_found": 404,
    "bad_invite": 403,
    "game_not_waiting": 409,
    "not_invited": 403,
    "forbidden": 403,
    "account_required": 403,
    "busy": 503,
}


def _error(code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=_STATUS.get(code, 400))


def routes(hub: Hub, static: Path) -> list[Route]:
    """The HTTP routes of one hub."""

    async def player_for(request: Request) -> tuple[Player, str | None]:
        """The request's player, creating a guest session when it has none."""
        player = await hub.sessions.get(request.cookies.get(COOKIE))
        if player is not None:
            return player, None
        token, player = await hub.sessions.create_guest()
        return player, token

    def with_cookie(response: Response, token: str | None, request: Request) -> Response:
        if token is None:
            return response
        return http_accounts.set_session_cookie(response, token, request)

    async def read_json(request: Request, fields: set[str]) -> dict[str, Any]:
        return await http_accounts.read_json(request, hub, fields)

    async def me(request: Request) -> Response:
        session = await hub.sessions.get_session(request.cookies.get(COOKIE))
        if session is not None and session.account:
            account = await hub.accounts.get(session.player.id)
            return JSONResponse(
                {
                    "id": session.player.id,
                    "name": session.player.name,
                    "account": True,
                    "email": account.email if account else None,
                }
            )
        player, token = await player_for(request)
        body = {"id": player.id, "name": player.name, "account": False, "email": None}
        return with_cookie(JSONResponse(body), token, request)

    async def require_account(request: Request) -> None:
        """Games against people need an account session (the bot needs none)."""
        session = await hub.sessions.get_session(request.cookies.get(COOKIE))
        if session is None or not session.account:
            raise ProtocolError(
                "account_required",
                "playing a person needs an account: sign up or log in first (the bot needs none)",
            )

    async def create_game(request: Request) -> Response:
        try:
            body = await read_json(request, CREATE_FIELDS)
            ruleset = body.get("ruleset", "nielsen")
            move_time = body.get("move_time", 3600)
            opponent = body.get("opponent", "bot")
            bot_level = body.get("bot_level", 1)
            if not isinstance(ruleset, str) or not isinstance(opponent, str):
                raise ProtocolError("bad_field", "ruleset and opponent must be strings")
            if type(move_time) is not int or type(bot_level) is not int:
                raise ProtocolError("bad_field", "move_time and bot_level must be whole numbers")
            rated, match, invitee = (
                body.get("rated"),
                body.get("match", False),
                body.get("invitee", ""),
            )
            if rated is not None and not isinstance(rated, bool):
                raise ProtocolError("bad_field", "rated must be true or false")
            if not isinstance(match, bool) or not isinstance(invitee, str) or len(invitee) > 64:
                raise ProtocolError(
                    "bad_field", "match must be true or false; invitee a player id, or absent"
                )
            if (match or invitee) and opponent != "friend":
                raise ProtocolError("bad_field", "match and invitee are for games against a person")
            if opponent == "friend":
                await require_account(request)
            player, token = await player_for(request)
            match_id = "m" + secrets.token_urlsafe(8) if match else ""
            state, invite = await hub.games.create(
                player,
                ruleset,
                move_time,
                opponent,
                bot_level,
                rated=rated,
                invitee=invitee,
                match=match_id,
                match_no=1 if match else 0,
            )
            if match:
                await hub.matches.open_challenge(state)
        except ProtocolError as exc:
            return _error(exc.code, exc.message)
        body_out: dict[str, Any] = {"id": state.id, "url": f"/g/{state.id}"}
        if match_id:
            body_out["match"] = match_id
        if invite:
            body_out["invite"] = f"/join/{state.id}/{invite}"
        return with_cookie(JSONResponse(body_out, status_code=201), token, request)

    async def join_game(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        try:
            body = await read_json(request, {"invite"})
            invite = body.get("invite")
            if not isinstance(invite, str):
                raise ProtocolError("bad_field", "invite must be the token from the invite link")
            await require_account(request)
            player, token = await player_for(request)
            state = await hub.games.join(player, game_id, invite)
            await hub.matches.joined(state)
        except ProtocolError as exc:
            return _error(exc.code, exc.message)
        return with_cookie(JSONResponse({"id": state.id, "url": f"/g/{state.id}"}), token, request)

    async def game_state(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        if not GAME_ID_RE.match(game_id):
            return _error("not_found", f"there is no game {game_id}")
        try:
            state = await hub.games.load(game_id)
        except ProtocolError as exc:
            return _error(exc.code, exc.message)
        seed = await hub.games.revealed_seed(state)
        return JSONResponse(
            {"n": state.seq, "state": state.public(seed=seed), "moves": list(state.moves)}
        )

    async def game_record(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        try:
            if not GAME_ID_RE.match(game_id):
                raise ProtocolError("not_found", f"there is no game {game_id}")
            state = await hub.games.load(game_id)
        except ProtocolError as exc:
            return _error(exc.code, exc.message)
        text = format_record(await hub.games.record(state))
        return PlainTextResponse(
            text, headers={"Content-Disposition": f'attachment; filename="brandubh-{game_id}.txt"'}
        )

    async def verify_record(request: Request) -> Response:
        if not unsafe_request_allowed(request.headers, hub.settings.allowed_origins):
            return _error("forbidden", "cross-site request refused: send an Origin header")
        body = await request.body()
        if len(body) > MAX_RECORD:
            return _error("bad_request", f"a record is at most {MAX_RECORD} bytes")
        try:
            record = parse_record(body.decode("utf-8"))
            game = fairplay.verify(record)
        except UnicodeDecodeError:
            return JSONResponse({"ok": False, "error": "the record is not UTF-8 text"})
        except (EngineError, fairplay.VerificationFailed) as exc:
            return JSONResponse({"ok": False, "error": str(exc)})
        assert game.result is not None
        return JSONResponse(
            {
                "ok": True,
                "game": record.game_id,
                "ruleset": record.ruleset,
                "moves": len(record.moves),
                "result": str(game.result),
                "winner": game.result.winner,
                "reason": game.result.reason,
            }
        )

    async def match_summary(request: Request) -> Response:
        try:
            summary = await hub.matches.summary(request.path_params["match_id"][:40])
        except ProtocolError as exc:
            return _error(exc.code, exc.message)
        return JSONResponse(summary)

    async def rulesets(request: Request) -> Response:
        return JSONResponse(
            [{"id": rs.name, "title": rs.title, "summary": rs.summary} for rs in RULESETS.values()]
        )

    async def health(request: Request) -> Response:
        await hub.redis.ping()
        return PlainTextResponse("ok")

    async def page(request: Request) -> Response:
        index = static / "index.html"
        if not index.is_file():
            return PlainTextResponse(
                "The client is not built: run `brandubh serve`, which builds it, "
                "or `npm ci && npm run build` in client/.",
                status_code=503,
            )
        _player, token = await player_for(request)
        return with_cookie(FileResponse(index), token, request)

    return [
        *http_accounts.routes(hub),
        Route("/api/me", me),
        Route("/api/rulesets", rulesets),
        Route("/api/games", create_game, methods=["POST"]),
        Route("/api/games/{game_id}", game_state),
        Route("/api/games/{game_id}/join", join_game, methods=["POST"]),
        Route("/api/games/{game_id}/record", game_record),
        Route("/api/verify", verify_record, methods=["POST"]),
        Route("/api/matches/{match_id}", match_summary),
        Route("/verify", page),
        Route("/healthz", health),
        Route("/", page),
        Route("/g/{game_id}", page),
        Route("/join/{game_id}/{invite}", page),
        Route("/rules/{ruleset}", page),
        Route("/lobby", page),
        Route("/watch", page),
        Route("/signup", page),
        Route("/login", page),
        Route("/account", page),
        Route("/u/{player_id}", page),
        Route("/leaderboard", page),
        Route("/leaderboard/{ruleset}", page),
        Route("/replay/{game_id}", page),
        Route("/games", page),
    ]
