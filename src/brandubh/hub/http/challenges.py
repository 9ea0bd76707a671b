"""The routes of challenges and the account event stream (docs/protocol.md §2.10,
docs/api.md "Challenges and the event stream"). Each challenge route takes either
credential: a bearer token (``challenge:write``; accepting, declining and listing also
take ``bot:play``), in which case cookies are never read, or the site's session cookie
of an account with a confirmed address, under the cross-site check. The event stream
takes a token only (``bot:play`` or ``challenge:write``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from brandubh.hub.challenges import Challenges, EventStreams, Party, check_reason
from brandubh.hub.errors import Refusal, verification_required
from brandubh.hub.http.base import (
    Services,
    account_session,
    check_cross_site,
    read_json_body,
    services,
)
from brandubh.hub.http.botapi import STREAM_HEADERS
from brandubh.hub.http.tokens import NO_STORE, bearer
from brandubh.hub.live import Player
from brandubh.hub.messages import GAME_ID_RE, PLAYER_ID_RE

WRITE: Final = ("challenge:write",)
ANSWER: Final = ("challenge:write", "bot:play")  # accept, decline, list, the event stream
BODY_FIELDS: Final = frozenset({"ruleset", "move_time", "rated", "side"})


def _challenges(web: Services) -> Challenges:
    if web.challenges is None:  # pragma: no cover - the composition root always gives it
        raise Refusal("unavailable", "challenges are not running on this hub")
    return web.challenges


def _streams(web: Services) -> EventStreams:
    if web.events is None:  # pragma: no cover - the composition root always gives it
        raise Refusal("unavailable", "event streams are not running on this hub")
    return web.events


async def _by_token(request: Request, scopes: tuple[str, ...]) -> Party:
    """The account of the request's bearer token, which must have one of ``scopes``."""
    holder = await bearer(request)
    if not any(scope in holder.scopes for scope in scopes):
        wanted = " or ".join(scopes)
        raise Refusal(
            "token_scope",
            f"this token lacks the scope {wanted}: make a token with it on your account page",
        )
    return Party(holder.account_id, holder.name, holder.bot)


async def caller(request: Request, scopes: tuple[str, ...], *, person: bool = False) -> Party:
    """Who asks: a bearer token's account when the request carries ``Authorization``
    (cookies unread), else the session's account (a confirmed address; a state-changing
    request passes the cross-site check first). With ``person``, a bot account's session
    is refused (``bot_account``): it plays through its tokens only."""
    if "authorization" in request.headers:
        return await _by_token(request, scopes)
    web = services(request)
    if request.method != "GET":
        check_cross_site(request, web.settings)
    session = await account_session(request, web.sessions)
    standing = await web.accounts.standing(session.player.id)
    if standing is None or not standing.verified:
        raise verification_required()
    if person and standing.bot:
        raise Refusal("bot_account")
    return Party(session.player.id, session.player.name, standing.bot)


def _challenge_id(request: Request) -> str:
    game_id = str(request.path_params["game_id"])
    if not GAME_ID_RE.match(game_id):
        raise Refusal("not_found", f"there is no challenge {game_id}")
    return game_id


async def create(request: Request) -> Response:
    web = services(request)
    who = await caller(request, WRITE, person=True)
    target = str(request.path_params["player_id"])
    if not PLAYER_ID_RE.match(target):
        raise Refusal("not_found", f"there is no player {target}")
    body = await read_json_body(request, set(BODY_FIELDS))
    made = await _challenges(web).create(who, target, body)
    return JSONResponse({"challenge": made}, status_code=201, headers=NO_STORE)


async def listing(request: Request) -> Response:
    web = services(request)
    who = await caller(request, ANSWER)
    return JSONResponse(await _challenges(web).open_of(who.id), headers=NO_STORE)


async def accept(request: Request) -> Response:
    web = services(request)
    who = await caller(request, ANSWER, person=True)
    game_id = _challenge_id(request)
    await read_json_body(request, set())
    state = await _challenges(web).accept(Player(who.id, who.name), game_id)
    return JSONResponse({"id": state.id, "url": f"/g/{state.id}"}, headers=NO_STORE)


async def decline(request: Request) -> Response:
    web = services(request)
    who = await caller(request, ANSWER)
    game_id = _challenge_id(request)
    body = await read_json_body(request, {"reason"})
    reason = check_reason(body.get("reason"))
    await _challenges(web).decline(who.id, game_id, reason)
    return JSONResponse({"ok": True}, headers=NO_STORE)


async def cancel(request: Request) -> Response:
    web = services(request)
    who = await caller(request, WRITE)
    game_id = _challenge_id(request)
    await read_json_body(request, set())
    await _challenges(web).cancel(who.id, game_id)
    return JSONResponse({"ok": True}, headers=NO_STORE)


async def event_stream(request: Request) -> Response:
    """GET /api/stream/event: the account's open challenges and games in progress, then
    its notices as they come, NDJSON, an empty line every 7 s when quiet."""
    web = services(request)
    challenges, streams = _challenges(web), _streams(web)
    who = await _by_token(request, ANSWER)
    stream = streams.open(who.id)  # first: what happens while the opening is read waits
    try:
        stream.start(await challenges.opening_lines(who.id))
    except BaseException:
        streams.close(stream)
        raise

    async def body() -> AsyncIterator[bytes]:
        try:
            async for chunk in stream.lines():
                yield chunk
        finally:
            streams.close(stream)

    return StreamingResponse(body(), media_type="application/x-ndjson", headers=STREAM_HEADERS)


ROUTES: Final = (
    Route("/api/challenge", listing),
    Route("/api/challenge/{player_id}", create, methods=["POST"]),
    Route("/api/challenge/{game_id}/accept", accept, methods=["POST"]),
    Route("/api/challenge/{game_id}/decline", decline, methods=["POST"]),
    Route("/api/challenge/{game_id}/cancel", cancel, methods=["POST"]),
    Route("/api/stream/event", event_stream),
)
