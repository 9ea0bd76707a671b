"""HTTP routes of tournaments: the list, creating one, its page's view, joining,
withdrawing, pausing, resuming, and its export for verification (docs/protocol.md §2)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from brandubh.hub.accounts import Session
from brandubh.hub.errors import Refusal
from brandubh.hub.http.base import read_json, services, session_of
from brandubh.hub.tournaments import TournamentService

CREATE_FIELDS = {
    "name",
    "format",
    "ruleset",
    "move_time",
    "starts_at",
    "duration_min",
    "rounds",
    "max_players",
}
ACTIONS = ("join", "withdraw", "pause", "resume")


def tournaments_of(request: Request) -> TournamentService:
    """The tournaments' service (site.py places these routes only when the hub runs one)."""
    service = services(request).tournaments
    assert service is not None
    return service


async def confirmed(request: Request) -> Session:
    """Creating and joining need an account with a confirmed address, a person's: a bot
    account is refused (``bot_account``)."""
    web = services(request)
    session = await session_of(request, web.sessions)
    refused = Refusal("not_allowed", "tournaments are for accounts with a confirmed email address")
    if session is None or not session.account or session.pending:
        raise refused
    standing = await web.accounts.standing(session.player.id)
    if standing is not None and standing.bot:
        raise Refusal("bot_account", "tournaments are for people: a bot account cannot join one")
    if standing is None or not standing.verified:
        raise refused
    return session


async def listing(request: Request) -> Response:
    query = request.query_params
    listed = await tournaments_of(request).listing(query.get("section"), query.get("after"))
    return JSONResponse(listed)


async def create(request: Request) -> Response:
    body = await read_json(request, services(request).settings, CREATE_FIELDS)
    session = await confirmed(request)
    tid = await tournaments_of(request).create(session.player, body)
    return JSONResponse({"id": tid}, status_code=201)


async def view(request: Request) -> Response:
    session = await session_of(request, services(request).sessions)
    viewer = session.player.id if session else None
    tid = request.path_params["tournament_id"]
    return JSONResponse(await tournaments_of(request).view(tid, viewer))


def acting(op: str) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint of one action on a tournament (``ACTIONS``)."""

    async def act(request: Request) -> Response:
        web = services(request)
        await read_json(request, web.settings, set())
        tid = request.path_params["tournament_id"]
        if op == "join":
            session = await confirmed(request)
        else:
            found = await session_of(request, web.sessions)
            if found is None:
                raise Refusal("not_joined")
            session = found
        tournaments = tournaments_of(request)
        await tournaments.act(session.player, tid, op)
        return JSONResponse(await tournaments.view(tid, session.player.id))

    return act


async def export(request: Request) -> Response:
    tid = request.path_params["tournament_id"]
    return JSONResponse(await tournaments_of(request).export(tid))


ROUTES: Final = (
    Route("/api/tournaments", listing, methods=["GET"]),
    Route("/api/tournaments", create, methods=["POST"]),
    Route("/api/tournaments/{tournament_id}", view, methods=["GET"]),
    Route("/api/tournaments/{tournament_id}/export", export, methods=["GET"]),
    # Each action by name: a catch-all "{action}" would also take paths such as
    # "/api/tournaments/../.." (test_hardening) and answer other methods with a 405.
    *(
        Route(f"/api/tournaments/{{tournament_id}}/{op}", acting(op), methods=["POST"])
        for op in ACTIONS
    ),
)
