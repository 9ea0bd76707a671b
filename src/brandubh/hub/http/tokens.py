"""HTTP routes of personal API tokens (docs/api.md, docs/protocol.md §2.6): the account
page's three (create, list, revoke), which take the browser's session cookie and never a
token, and the token routes, ``GET /api/account``, ``GET /api/account/games``
(``games:read``) and ``POST /api/bot/account/upgrade`` (``bot:play``), which take a bearer
token and never a cookie: a token is no session, and a cookie opens no token route (nothing
there for another site to forge)."""

from __future__ import annotations

from typing import Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from brandubh.hub.errors import Refusal
from brandubh.hub.http.base import account_session, check_cross_site, read_json, services
from brandubh.hub.http.web import games_of
from brandubh.hub.live import mygames
from brandubh.hub.tokens import Bearer, check_name, check_scopes
from brandubh.store import ApiToken

NO_STORE: Final = {"Cache-Control": "no-store"}


def shown(token: ApiToken) -> dict[str, object]:
    """A token as its owner's list shows it: never its text nor its digest."""
    return {
        "id": token.id,
        "name": token.name,
        "scopes": list(token.scopes),
        "created": token.created,
        "last_used": token.last_used,
    }


async def create_token(request: Request) -> Response:
    web = services(request)
    body = await read_json(request, web.settings, {"name", "scopes"})
    session = await account_session(request, web.sessions)
    await web.accounts.require_verified(session.player.id)
    name = check_name(body.get("name"))
    scopes = check_scopes(body.get("scopes"))
    token, text = await web.tokens.create(session.player.id, name, scopes)
    answer = {**shown(token), "token": text}
    del answer["last_used"]
    return JSONResponse(answer, status_code=201, headers=NO_STORE)


async def list_tokens(request: Request) -> Response:
    web = services(request)
    session = await account_session(request, web.sessions)
    tokens = await web.tokens.live(session.player.id)
    return JSONResponse({"tokens": [shown(t) for t in tokens]}, headers=NO_STORE)


async def revoke_token(request: Request) -> Response:
    web = services(request)
    check_cross_site(request, web.settings)
    session = await account_session(request, web.sessions)
    token_id = request.path_params["token_id"]
    await web.tokens.revoke(session.player.id, token_id)
    return JSONResponse({"id": token_id, "revoked": True}, headers=NO_STORE)


async def bearer(request: Request, scope: str | None = None) -> Bearer:
    """The guard of every token route: the request's ``Authorization`` header resolved
    to its account and scopes (cookies are never read)."""
    return await services(request).tokens.bearer(request.headers.get("authorization"), scope)


async def token_account(request: Request) -> Response:
    holder = await bearer(request)
    return JSONResponse(
        {
            "id": holder.account_id,
            "name": holder.name,
            "bot": holder.bot,
            "scopes": list(holder.scopes),
        },
        headers=NO_STORE,
    )


async def token_games(request: Request) -> Response:
    holder = await bearer(request, "games:read")
    return await games_of(services(request), holder.account_id)


async def upgrade_to_bot(request: Request) -> Response:
    """Make the token's account a bot account, for good (docs/api.md, Becoming a bot)."""
    web = services(request)
    holder = await bearer(request, "bot:play")
    if holder.bot:
        raise Refusal("already_bot")
    # A rated game in progress would be rated after the upgrade: it counts as played.
    playing = await mygames.playing(web.redis, web.games.load, holder.account_id)
    if any(card["rated"] for card in playing):
        raise Refusal(
            "bot_has_rated_games",
            "this account is playing a rated game: an account that has played a rated game "
            "cannot become a bot (make a new account for the bot)",
        )
    try:
        await web.accounts.upgrade_to_bot(holder.account_id)
    except Refusal as exc:
        if exc.code == "already_bot":  # upgraded, but its mark may have failed: set it now
            await web.tokens.became_bot(holder.account_id)
        raise
    await web.tokens.became_bot(holder.account_id)
    return JSONResponse(
        {"id": holder.account_id, "name": holder.name, "bot": True}, headers=NO_STORE
    )


ROUTES: Final = (
    Route("/api/account", token_account),
    Route("/api/account/games", token_games),
    Route("/api/bot/account/upgrade", upgrade_to_bot, methods=["POST"]),
    Route("/api/account/tokens", create_token, methods=["POST"]),
    Route("/api/account/tokens", list_tokens),
    Route("/api/account/tokens/{token_id}", revoke_token, methods=["DELETE"]),
)
