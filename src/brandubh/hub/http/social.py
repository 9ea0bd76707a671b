"""HTTP routes of follows and blocks (docs/protocol.md §2.11): the four acts take the
site's session cookie and pass the cross-site check; the two lists take the session, or a
bearer token with ``games:read`` (then never a cookie)."""

from __future__ import annotations

from typing import Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from brandubh.hub.errors import Refusal
from brandubh.hub.http.accounts import public_account
from brandubh.hub.http.base import account_session, check_cross_site, services
from brandubh.hub.http.tokens import bearer
from brandubh.store import Account

NO_STORE: Final = {"Cache-Control": "no-store"}


async def _target(request: Request) -> tuple[str, Account]:
    """The acting account (a session, after the cross-site check) and the player named."""
    web = services(request)
    check_cross_site(request, web.settings)
    session = await account_session(request, web.sessions)
    pid = request.path_params["player_id"]
    account = await public_account(web.accounts, pid)
    if account is None:
        raise Refusal("not_found", f"there is no player {pid}")
    return session.player.id, account


async def follow(request: Request) -> Response:
    actor, target = await _target(request)
    await services(request).social.follow(actor, target.id, target.name)
    return JSONResponse({"id": target.id, "following": True}, headers=NO_STORE)


async def unfollow(request: Request) -> Response:
    actor, target = await _target(request)
    await services(request).social.unfollow(actor, target.id)
    return JSONResponse({"id": target.id, "following": False}, headers=NO_STORE)


async def block(request: Request) -> Response:
    actor, target = await _target(request)
    await services(request).social.block(actor, target.id)
    return JSONResponse({"id": target.id, "blocking": True}, headers=NO_STORE)


async def unblock(request: Request) -> Response:
    actor, target = await _target(request)
    await services(request).social.unblock(actor, target.id)
    return JSONResponse({"id": target.id, "blocking": False}, headers=NO_STORE)


async def _reader(request: Request) -> str:
    """Whose lists these are: a bearer token's account (``games:read``) when the request
    carries ``Authorization``, else the session's account."""
    if "authorization" in request.headers:
        return (await bearer(request, "games:read")).account_id
    return (await account_session(request, services(request).sessions)).player.id


async def following(request: Request) -> Response:
    reader = await _reader(request)
    found = await services(request).social.following(reader)
    return JSONResponse({"following": found}, headers=NO_STORE)


async def blocking(request: Request) -> Response:
    reader = await _reader(request)
    found = await services(request).social.blocking(reader)
    return JSONResponse({"blocking": found}, headers=NO_STORE)


ROUTES: Final = (
    Route("/api/follow/{player_id}", follow, methods=["POST"]),
    Route("/api/unfollow/{player_id}", unfollow, methods=["POST"]),
    Route("/api/block/{player_id}", block, methods=["POST"]),
    Route("/api/unblock/{player_id}", unblock, methods=["POST"]),
    Route("/api/following", following),
    Route("/api/blocking", blocking),
)
