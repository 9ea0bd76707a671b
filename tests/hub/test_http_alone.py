"""HTTP endpoints read and tested alone: each is a module-level function of the request
that reads its services from the app's state, so the routes and handlers that need none
answer in an app given none (no Redis, no PostgreSQL), and every error body they give is
a refusal's (http/base.refusal_body)."""

from __future__ import annotations

from pathlib import Path

import httpx
from starlette.applications import Starlette

from brandubh.engine import RULESETS
from brandubh.hub.errors import Refusal
from brandubh.hub.http import site
from brandubh.hub.http.base import refusal_body
from brandubh.hub.http.games import fails


def alone() -> httpx.AsyncClient:
    """The site's routes and handlers, with no services in the app's state."""
    app = Starlette(
        routes=site.routes(Path("/nowhere")), exception_handlers=site.exception_handlers()
    )
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://hub")


async def test_an_endpoint_that_needs_no_service_answers_alone() -> None:
    async with alone() as client:
        r = await client.get("/api/rulesets")
    assert r.status_code == 200
    assert [rs["id"] for rs in r.json()] == list(RULESETS)


async def test_an_unknown_api_path_is_a_refusal_of_the_registry() -> None:
    async with alone() as client:
        r = await client.get("/api/nothing/here")
    assert r.status_code == 404
    assert r.json() == refusal_body(Refusal("not_found", "there is no API at /api/nothing/here"))


async def test_a_bad_id_is_refused_before_any_service_is_read() -> None:
    """The path's ids are checked by site.checked: the endpoint, which would read the
    services the app does not hold, never runs."""
    async with alone() as client:
        for path in ("/api/games/%00", "/api/players/a%20b", "/api/matches/..%2F.."):
            r = await client.get(path)
            assert r.status_code == 404, path
            assert r.json()["error"] == "not_found", path
        r = await client.post("/api/verify-email/short")
        assert (r.status_code, r.json()["error"]) == (404, "token_unknown")


def test_tournament_routes_are_placed_only_for_a_hub_that_runs_tournaments() -> None:
    def paths(tournaments: bool) -> set[str]:
        every = site.routes(Path("/nowhere"), tournaments=tournaments)
        return {str(getattr(route, "path", "")) for route in every}

    assert "/api/tournaments" in paths(True)
    assert not any(p.startswith("/api/tournaments") for p in paths(False))


def test_a_verdict_that_does_not_hold_is_a_refusal_beside_ok_false() -> None:
    """/api/verify answers 200 either way; what does not hold is a code and its reason."""
    assert fails(Refusal("record_invalid", "the record is not UTF-8 text")) == {
        "ok": False,
        "error": "record_invalid",
        "message": "the record is not UTF-8 text",
    }
    assert fails(Refusal("export_invalid"))["message"] == Refusal("export_invalid").message
