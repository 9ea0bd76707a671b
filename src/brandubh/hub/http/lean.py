"""The Bot API's move, ``POST /api/bot/game/<id>/move/<move>``, answered in front of
Starlette (docs/scaling.md, "The Bot API against the websocket path").

A bot's every move is one such request, and Starlette's middleware (the gzip responder, the
security headers, the error and exception layers), its router and its Request and Response
cost the hub more than the move's commit. Here the path is matched and its ids checked, the
token and ``ply`` read from the scope, the move played by the route's own function
(botapi.play_move), and the answer sent through the security headers' middleware; what the
route raises is answered by the app's own handlers. Every other request goes on to the app,
whose route for the move stays (a path this one does not take is answered there, the same).
Its answers are never gzipped: the app's middleware leaves an answer this small as it is.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping
from typing import Final, cast

from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import (
    ASGIApp,
    ExceptionHandler,
    HTTPExceptionHandler,
    Receive,
    Scope,
    Send,
)

from brandubh.hub.http.base import Services
from brandubh.hub.http.botapi import done, play_move
from brandubh.hub.http.headers import SecurityHeaders
from brandubh.hub.http.site import misshapen

# As Starlette compiles the route's path, but to the end of the string: a path ending in a
# newline goes on to the app, which refuses it.
MOVE: Final = re.compile(r"/api/bot/game/([^/]+)/move/([^/]+)\Z")


def header(scope: Scope, name: bytes) -> str | None:
    """The first header ``name`` (lower case) of the request, as Starlette reads it."""
    for key, value in scope["headers"]:
        if key == name:
            return str(value.decode("latin-1"))
    return None


class LeanRoutes:
    """ASGI: the Bot API's move answered here, everything else by ``web``."""

    def __init__(
        self,
        web: ASGIApp,
        services: Services,
        handlers: Mapping[int | type[Exception], ExceptionHandler],
    ) -> None:
        self.web = web
        self.services = services
        self.handlers = handlers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and not scope.get("root_path"):
            found = MOVE.match(scope["path"])
            if found is not None:
                response = await self._move(found[1], found[2], scope, receive)
                await SecurityHeaders(response)(scope, receive, send)
                return
        await self.web(scope, receive, send)

    async def _move(self, game_id: str, text: str, scope: Scope, receive: Receive) -> Response:
        try:
            for name, value in (("game_id", game_id), ("move", text)):
                refused = misshapen(name, value)
                if refused is not None:
                    raise refused
            ply = QueryParams(scope["query_string"]).get("ply")
            authorization = header(scope, b"authorization")
            return done(await play_move(self.services, authorization, game_id, text, ply))
        except Exception as exc:
            return await self._answer(exc, scope, receive)

    async def _answer(self, exc: Exception, scope: Scope, receive: Receive) -> Response:
        """The app's answer to what a route raised (its exception handlers, looked up as
        Starlette does); anything else goes on up, to be a 500 and a logged traceback."""
        for kind in type(exc).__mro__:
            handler = self.handlers.get(kind)
            if handler is not None:  # (an HTTP handler: this is an HTTP request)
                answer = cast(HTTPExceptionHandler, handler)(Request(scope, receive), exc)
                response = await answer if inspect.isawaitable(answer) else answer
                assert isinstance(response, Response)
                return response
        raise exc
