"""HTTP routes of tournaments: the list, creating one, its page's view, joining,
withdrawing, pausing, resuming, and its export for verification (docs/protocol.md §2)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from brandubh.hub.accounts import COOKIE, Session
from brandubh.hub.errors import Refusal
from brandubh.hub.http.base import Services, read_json
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


def routes(web: Services) -> list[Route]:
    """The tournament routes; none when the hub runs without tournaments."""
    service = web.tournaments
    if service is None:
        return []
    tournaments: TournamentService = service

    async def session_of(request: Request) -> Session | None:
        return await web.sessions.get_session(request.cookies.get(COOKIE))

    async def confirmed(request: Request) -> Session:
        """Creating and joining need an account with a confirmed address."""
        session = await session_of(request)
        if (
            session is None
            or not session.account
            or session.pending
            or not await web.accounts.is_verified(session.player.id)
        ):
            raise Refusal(
                "not_allowed", "tournaments are for accounts with a confirmed email address"
            )
        return session

    async def listing(request: Request) -> Response:
        query = request.query_params
        section = query.get("section")
        return JSONResponse(await tournaments.listing(section, query.get("after")))

    async def create(request: Request) -> Response:
        body = await read_json(request, web.settings, CREATE_FIELDS)
        session = await confirmed(request)
        tid = await tournaments.create(session.player, body)
        return JSONResponse({"id": tid}, status_code=201)

    async def view(request: Request) -> Response:
        session = await session_of(request)
        viewer = session.player.id if session else None
        return JSONResponse(await tournaments.view(request.path_params["tournament_id"], viewer))

    def acting(op: str) -> Callable[[Request], Awaitable[Response]]:
        async def act(request: Request) -> Response:
            await read_json(request, web.settings, set())
            tid = request.path_params["tournament_id"]
            if op == "join":
                session = await confirmed(request)
            else:
                found = await session_of(request)
                if found is None:
                    raise Refusal("not_joined")
                session = found
            await tournaments.act(session.player, tid, op)
            return JSONResponse(await tournaments.view(tid, session.player.id))

        return act

    async def export(request: Request) -> Response:
        return JSONResponse(await tournaments.export(request.path_params["tournament_id"]))

    return [
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
    ]
