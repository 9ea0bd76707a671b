"""The Bot API's game routes (docs/protocol.md §2.9, docs/api.md "Playing as a bot"): a
program plays its account's games with a ``bot:play`` token (``Authorization: Bearer``
only, as every token route): the game's stream, and its moves and other actions, each
through the websockets' services (hub/botapi/)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Final, Literal

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from brandubh.hub.botapi import BotGames
from brandubh.hub.errors import Refusal
from brandubh.hub.http.base import Services, read_json_body, services
from brandubh.hub.http.tokens import NO_STORE, bearer
from brandubh.hub.live import Player
from brandubh.hub.tokens import Bearer, TokenCheck
from brandubh.hub.wire import chunk_writer

SCOPE: Final = "bot:play"
# Streamed as it comes: no gzip (the middleware passes an encoded answer by), no proxy
# buffering.
STREAM_HEADERS: Final = {**NO_STORE, "Content-Encoding": "identity", "X-Accel-Buffering": "no"}


def bots_of(web: Services) -> BotGames:
    """The Bot API's games, which the composition root gives every hub."""
    found = web.bots
    if found is None:  # pragma: no cover - the composition root always gives it
        raise Refusal("unavailable", "the Bot API is not running on this hub")
    return found


def _bots(request: Request) -> BotGames:
    return bots_of(services(request))


def count_of(name: str, raw: str | None) -> int | None:
    """A query parameter that is a count (absent: None), else ``bad_field``."""
    if raw is None:
        return None
    if not raw.isdigit() or len(raw) > 9:
        raise Refusal("bad_field", f"{name}: a whole number, 0 or more")
    return int(raw)


def _number(request: Request, name: str) -> int | None:
    return count_of(name, request.query_params.get(name))


def done(n: int) -> Response:
    """A Bot API action's answer: done, and the game's event number after it."""
    return JSONResponse({"ok": True, "n": n}, headers=NO_STORE)


async def _holder(request: Request) -> Bearer:
    return await bearer(request, SCOPE)


async def stream_game(request: Request) -> Response:
    bots = _bots(request)
    holder = await _holder(request)
    since = _number(request, "since")
    player = Player(holder.account_id, holder.name)
    # Its lines go straight to the connection while it keeps up (hub/botapi/stream.py);
    # the answer's task sends the headers, the keep-alives, what waited, and the end.
    direct = chunk_writer(request.scope)
    stream = await bots.stream(player, request.path_params["game_id"], since, direct)

    async def body() -> AsyncIterator[bytes]:
        try:
            async for chunk in stream.lines():
                yield chunk
        finally:
            # The client went (this task is cancelled) or the game ended: stop following,
            # shielded from the cancellation that may have brought us here.
            with anyio.CancelScope(shield=True):
                await bots.close(stream)

    return StreamingResponse(body(), media_type="application/x-ndjson", headers=STREAM_HEADERS)


async def play_move(
    web: Services, authorization: str | None, game_id: str, text: str, ply: str | None
) -> int:
    """``POST /api/bot/game/<game_id>/move/<text>?ply=<ply>`` (the path's ids checked
    already): the game's event number after the move. For Starlette's route and for the
    lean path in front of it (lean.py) alike. The token's check (revoked? within its rate
    window?) is done by the move's commit, in the same Redis call (ApiTokens.spend)."""
    bots = bots_of(web)
    tokens = web.tokens
    # Stamped on arrival, before the token is read: its deadline is judged by this.
    with bots.stamped() as received:
        holder = await tokens.holder(authorization, SCOPE)

        async def play(check: TokenCheck | None) -> int:
            at = count_of("ply", ply)
            token_id, account_id = holder.token_id, holder.account_id
            return await bots.move(token_id, account_id, game_id, text, at, received, check)

        return await tokens.spend(holder, play)


async def move(request: Request) -> Response:
    params = request.path_params
    n = await play_move(
        services(request),
        request.headers.get("authorization"),
        params["game_id"],
        params["move"],
        request.query_params.get("ply"),
    )
    return done(n)


async def resign(request: Request) -> Response:
    return await _game_action(request, "resign")


async def abort(request: Request) -> Response:
    return await _game_action(request, "abort")


async def _game_action(request: Request, action: Literal["resign", "abort"]) -> Response:
    """A stamped action that names only the game (resign, abort)."""
    bots = _bots(request)
    with bots.stamped():
        holder = await _holder(request)
        act = bots.resign if action == "resign" else bots.abort
        n = await act(holder.token_id, holder.account_id, request.path_params["game_id"])
    return done(n)


async def draw(request: Request) -> Response:
    bots = _bots(request)
    answer = request.path_params["answer"]
    if answer not in ("yes", "no"):
        raise Refusal("not_found", "a draw is answered yes or no")
    with bots.stamped():
        holder = await _holder(request)
        game_id = request.path_params["game_id"]
        n = await bots.draw(holder.token_id, holder.account_id, game_id, answer == "yes")
    return done(n)


async def chat(request: Request) -> Response:
    bots = _bots(request)
    holder = await _holder(request)
    body = await read_json_body(request, {"text"})
    text = body.get("text")
    if not isinstance(text, str):
        raise Refusal("bad_field", "text: the line, a string")
    player = Player(holder.account_id, holder.name)
    n = await bots.chat(player, request.path_params["game_id"], text)
    return done(n)


ROUTES: Final = (
    Route("/api/bot/game/stream/{game_id}", stream_game),
    Route("/api/bot/game/{game_id}/move/{move}", move, methods=["POST"]),
    Route("/api/bot/game/{game_id}/resign", resign, methods=["POST"]),
    Route("/api/bot/game/{game_id}/abort", abort, methods=["POST"]),
    Route("/api/bot/game/{game_id}/draw/{answer}", draw, methods=["POST"]),
    Route("/api/bot/game/{game_id}/chat", chat, methods=["POST"]),
)
