"""HTTP routes of game chat (docs/protocol.md §3.7): an account's chat-off setting, and a
game's player chat for its two players (the replay). Lines themselves go by websocket."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from brandubh.hub.accounts import COOKIE, Session, not_logged_in
from brandubh.hub.errors import Refusal
from brandubh.hub.http.base import Services, read_json


def routes(web: Services) -> list[Route]:
    chat = web.chat

    async def account_session(request: Request) -> Session:
        session = await web.sessions.get_session(request.cookies.get(COOKIE))
        if session is None or not session.account:
            raise not_logged_in()
        return session

    async def chat_setting(request: Request) -> Response:
        session = await account_session(request)
        if request.method == "PUT":
            body = await read_json(request, web.settings, {"chat_off"})
            off = body.get("chat_off")
            if not isinstance(off, bool):
                raise Refusal("bad_field", "chat_off must be true or false")
            await chat.set_chat_off(session.player.id, off)
        else:
            off = await chat.chat_off(session.player.id)
        return JSONResponse({"chat_off": off}, headers={"Cache-Control": "no-store"})

    async def game_chat(request: Request) -> Response:
        session = await account_session(request)
        state = await web.games.load(request.path_params["game_id"])
        lines = await chat.player_chat(state, session.player.id)
        return JSONResponse(
            {"room": "players", "lines": lines}, headers={"Cache-Control": "no-store"}
        )

    return [
        Route("/api/me/chat", chat_setting, methods=["GET", "PUT"]),
        Route("/api/games/{game_id}/chat", game_chat),
    ]
