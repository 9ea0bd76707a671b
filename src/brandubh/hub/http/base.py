"""What every HTTP route shares: the services it is given, reading a JSON body after the
cross-site check, the session cookie, and the answer to a refusal (docs/protocol.md §2)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from redis.asyncio import Redis
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from brandubh.hub.accounts import COOKIE, TTL_S, Accounts, Sessions
from brandubh.hub.analysis import Analyses
from brandubh.hub.chat import ChatService
from brandubh.hub.config import Settings
from brandubh.hub.errors import RateLimited, Refusal, http_status
from brandubh.hub.live import GameService, MatchService, Rater
from brandubh.hub.tournaments import TournamentService
from brandubh.hub.wire import unsafe_request_allowed

MAX_BODY: Final = 4096


@dataclass(frozen=True)
class Services:
    """Exactly what the HTTP routes use, given by the composition root (app.py)."""

    settings: Settings
    redis: Redis
    sessions: Sessions
    accounts: Accounts
    games: GameService
    matches: MatchService
    rater: Rater
    chat: ChatService
    analyses: Analyses
    tournaments: TournamentService | None = None


async def refusal_response(request: Request, exc: Exception) -> Response:
    """The app's exception handler for every ``Refusal`` a route raises."""
    assert isinstance(exc, Refusal)
    response = JSONResponse(
        {"error": exc.code, "message": exc.message}, status_code=http_status(exc.code)
    )
    if isinstance(exc, RateLimited):
        response.headers["Retry-After"] = str(exc.retry_after)
    return response


def check_cross_site(request: Request, settings: Settings) -> None:
    """Refuse a state-changing request that another site made the browser send."""
    if not unsafe_request_allowed(request.headers, settings.allowed_origins):
        origin = request.headers.get("origin")
        raise Refusal(
            "forbidden",
            f"cross-site request refused: origin {origin} may not change anything here"
            if origin
            else "cross-site request refused: send the page's Origin header",
        )


async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, refused (413) past ``limit`` bytes before more is read: by its
    Content-Length first, then by counting what arrives (a chunked body has no length)."""
    declared = request.headers.get("content-length")
    too_large = Refusal("payload_too_large", f"the request body is over {limit} bytes")
    if declared is not None:
        if not (declared.isascii() and declared.isdigit()):
            raise Refusal("bad_request", "Content-Length must be a whole number of bytes")
        if int(declared) > limit:
            raise too_large
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_large
        chunks.append(chunk)
    return b"".join(chunks)


async def read_json(request: Request, settings: Settings, fields: set[str]) -> dict[str, Any]:
    """The JSON object of a non-GET request, after the cross-site check; only ``fields``."""
    check_cross_site(request, settings)
    body = await read_body(request, MAX_BODY)
    if not body:
        data: Any = {}
    else:
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):  # RecursionError: nested too deep
            raise Refusal(
                "bad_request", "the request body must be JSON: UTF-8 text, not nested deeply"
            ) from None
    if not isinstance(data, dict):
        raise Refusal("bad_request")
    unknown = set(data) - fields
    if unknown:
        raise Refusal(
            "bad_field",
            f"unexpected fields: {', '.join(sorted(unknown))}; fields: {', '.join(sorted(fields))}",
        )
    return data


def set_session_cookie(response: Response, token: str, request: Request) -> Response:
    response.set_cookie(
        COOKIE,
        token,
        max_age=TTL_S,
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/",
    )
    return response


def clear_session_cookie(response: Response, request: Request) -> Response:
    response.delete_cookie(
        COOKIE, path="/", httponly=True, samesite="lax", secure=request.url.scheme == "https"
    )
    return response


def address(request: Request) -> str:
    """The client's address (uvicorn applies X-Forwarded-For from trusted proxies only)."""
    return request.client.host if request.client else "unknown"
