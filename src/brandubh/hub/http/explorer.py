"""The opening explorer over HTTP (docs/protocol.md, "The opening explorer"): the moves
played from a position in archived games between people, read from the counts the archive
keeps (brandubh.store's explorer), never by scanning games."""

from __future__ import annotations

from typing import Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from brandubh.engine import (
    RULESETS,
    START_POSITION,
    EngineError,
    format_position,
    parse_position,
)
from brandubh.hub.errors import Refusal
from brandubh.hub.http.base import services

# The counts are the same for everyone and change only as games are archived: a minute's
# caching spares the database a board stepped through back and forth.
CACHE: Final = "public, max-age=60"
MAX_POSITION: Final = 200  # a position is about 40 characters; a longer one is no position


def canonical(ruleset: str | None, position: str | None) -> tuple[str, str]:
    """The rule set and the position's canonical text; ``bad_field`` naming what is wrong."""
    if ruleset not in RULESETS:
        raise Refusal(
            "bad_field",
            f"ruleset must be one of {', '.join(RULESETS)}, not {ruleset!r}"
            if ruleset
            else f"ruleset is missing: one of {', '.join(RULESETS)}",
        )
    if position is None:
        return ruleset, START_POSITION
    if len(position) > MAX_POSITION:
        raise Refusal("bad_field", f"position is over {MAX_POSITION} characters")
    try:
        return ruleset, format_position(*parse_position(position))
    except EngineError as exc:
        raise Refusal("bad_field", f"position: {exc}") from None


async def explorer(request: Request) -> Response:
    ruleset, position = canonical(
        request.query_params.get("ruleset"), request.query_params.get("position")
    )
    answer = await services(request).accounts.store.explorer(ruleset, position)
    return JSONResponse(answer, headers={"Cache-Control": CACHE})


ROUTES: Final = (Route("/api/explorer", explorer),)
