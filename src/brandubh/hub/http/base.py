"""What every HTTP route shares: the services it reads from the app's state, reading a JSON
body after the cross-site check, the session cookie, and the answer to a refusal, the one
shape of every error body (docs/protocol.md §2).

Every endpoint is a module-level function of the request alone: the composition root puts
``Services`` in the app's state, and ``services(request)`` reads it there.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from redis.asyncio import Redis
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from brandubh.hub.accounts import COOKIE, TTL_S, Accounts, Session, Sessions, not_logged_in
from brandubh.hub.analysis import Analyses
from brandubh.hub.botapi import BotGames
from brandubh.hub.challenges import Challenges, EventStreams
from brandubh.hub.chat import ChatService
from brandubh.hub.config import Settings
from brandubh.hub.errors import RateLimited, Refusal, http_status
from brandubh.hub.exports import Exports
from brandubh.hub.lessons import Lessons
from brandubh.hub.live import GameService, MatchService, Rater
from brandubh.hub.puzzles import Puzzles
from brandubh.hub.social import Social
from brandubh.hub.tokens import ApiTokens
from brandubh.hub.tournaments import TournamentService
from brandubh.hub.wire import unsafe_request_allowed

MAX_BODY: Final = 4096


class DatabaseHealth:
    """How long PostgreSQL has not answered, for /healthz: one ``SELECT 1`` at most every
    ``CHECK_EVERY_S`` however often it is asked (callers meanwhile share the last answer or
    the check under way), none waited on longer than ``ANSWER_S``."""

    CHECK_EVERY_S: Final = 1.0
    ANSWER_S: Final = 2.0

    def __init__(
        self, ping: Callable[[], Awaitable[bool]], clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._ping = ping
        self._clock = clock
        self._checked = -math.inf
        self._down_since: float | None = None
        self._check: asyncio.Task[None] | None = None

    async def down_for(self) -> float:
        """Seconds since a check first found PostgreSQL unanswering; 0 while it answers."""
        if self._check is None and self._clock() - self._checked >= self.CHECK_EVERY_S:
            self._check = asyncio.get_running_loop().create_task(self._run())
        if self._check is not None:
            await asyncio.shield(self._check)  # a request given up does not end the check
        return 0.0 if self._down_since is None else self._clock() - self._down_since

    async def _run(self) -> None:
        try:
            try:
                ok = await asyncio.wait_for(self._ping(), self.ANSWER_S)
            except Exception:
                ok = False
            now = self._clock()
            if ok:
                self._down_since = None
            elif self._down_since is None:
                self._down_since = now
            self._checked = now
        finally:
            self._check = None


@dataclass(frozen=True)
class Services:
    """Exactly what the HTTP routes use, given by the composition root (app.py): ``static``
    is the built client (client/dist), ``database`` the health check /healthz asks."""

    settings: Settings
    redis: Redis
    sessions: Sessions
    accounts: Accounts
    games: GameService
    matches: MatchService
    rater: Rater
    chat: ChatService
    analyses: Analyses
    static: Path
    database: DatabaseHealth
    tokens: ApiTokens
    social: Social
    tournaments: TournamentService | None = None
    exports: Exports | None = None
    bots: BotGames | None = None  # the Bot API's games (hub/botapi/)
    challenges: Challenges | None = None  # challenges (hub/challenges/)
    events: EventStreams | None = None  # this hub's account event streams
    lessons: Lessons | None = None  # the lessons (hub/lessons/)
    puzzles: Puzzles | None = None  # puzzles (hub/puzzles/)


def services(request: Request) -> Services:
    """The routes' services, which the composition root put in the app's state."""
    found: Services = request.app.state.services
    return found


def refusal_body(refusal: Refusal) -> dict[str, str]:
    """The JSON of a refusal: its code (``error``) and its message. Every HTTP error body,
    and /api/verify's verdict that a record does not hold, is made here."""
    return {"error": refusal.code, "message": refusal.message}


def refusal_json(refusal: Refusal) -> JSONResponse:
    """A refusal's answer: its body, its code's status, and when to try again if limited."""
    response = JSONResponse(refusal_body(refusal), status_code=http_status(refusal.code))
    if refusal.code == "token_invalid":  # RFC 6750: what a token route asks for
        response.headers["WWW-Authenticate"] = 'Bearer realm="brandubh", error="invalid_token"'
    if isinstance(refusal, RateLimited):
        response.headers["Retry-After"] = str(refusal.retry_after)
    return response


async def refusal_response(request: Request, exc: Exception) -> Response:
    """The app's exception handler for every ``Refusal`` a route raises."""
    assert isinstance(exc, Refusal)
    return refusal_json(exc)


async def session_of(request: Request, sessions: Sessions) -> Session | None:
    """The request's session, if its cookie names a live one."""
    return await sessions.get_session(request.cookies.get(COOKIE))


async def account_session(request: Request, sessions: Sessions) -> Session:
    """The request's session, which must speak for an account (``not_logged_in``)."""
    session = await session_of(request, sessions)
    if session is None or not session.account:
        raise not_logged_in()
    return session


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


async def read_json(request: Request, settings: Settings, fields: set[str]) -> dict[str, object]:
    """The JSON object of a non-GET request, after the cross-site check; only ``fields``."""
    check_cross_site(request, settings)
    return await read_json_body(request, fields)


async def read_json_body(request: Request, fields: set[str]) -> dict[str, object]:
    """The JSON object of a request, only ``fields``; with no cross-site check, for a token
    route (a bearer token is no cookie a page could send along)."""
    body = await read_body(request, MAX_BODY)
    if not body:
        data: object = {}
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
