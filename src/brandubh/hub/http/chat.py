"""HTTP routes of game chat (docs/protocol.md §3.7): an account's chat-off setting, and a
game's player chat for its two players (the replay). Lines themselves go by websocket."""

from __future__ import annotations

from typing import Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from brandubh.hub.errors import Refusal
from brandubh.hub.http.base import account_session, read_json, services


async def chat_setting(request: Request) -> Response:
    web = services(request)
    session = await account_session(request, web.sessions)
    if request.method == "PUT":
        body = await read_json(request, web.settings, {"chat_off"})
        off = body.get("chat_off")
        if not isinstance(off, bool):
            raise Refusal("bad_field", "chat_off must be true or false")
        await web.chat.set_chat_off(session.player.id, off)
    else:
        off = await web.chat.chat_off(session.player.id)
    return JSONResponse({"chat_off": off}, headers={"Cache-Control": "no-store"})


async def game_chat(request: Request) -> Response:
    web = services(request)
    session = await account_session(request, web.sessions)
    state = await web.games.load(request.path_params["game_id"])
    lines = await web.chat.player_chat(state, session.player.id)
    return JSONResponse({"room": "players", "lines": lines}, headers={"Cache-Control": "no-store"})


ROUTES: Final = (
    Route("/api/me/chat", chat_setting, methods=["GET", "PUT"]),
    Route("/api/games/{game_id}/chat", game_chat),
)
