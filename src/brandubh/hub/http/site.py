"""Every HTTP route of the site, in the order they are matched, and the handlers of what a
route raises.

Every id a path carries is checked for its shape here, before any handler sees it: a NUL
byte or a stray character never reaches Redis or PostgreSQL (docs/protocol.md §2).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Final

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import ExceptionHandler

from brandubh.hub.errors import Refusal
from brandubh.hub.http import (
    accounts,
    analysis,
    botapi,
    challenges,
    chat,
    explorer,
    exports,
    games,
    lessons,
    mail,
    otnimport,
    puzzles,
    social,
    tokens,
    web,
)
from brandubh.hub.http import tournaments as tournaments_routes
from brandubh.hub.http.base import refusal_response
from brandubh.hub.mail import TOKEN_RE
from brandubh.hub.messages import GAME_ID_RE, PLAYER_ID_RE

# The shape of each id a path may carry, by its parameter's name; a name not listed here
# must still be a short run of URL-safe characters.
ANY_ID: Final = re.compile(r"^[A-Za-z0-9_-]{1,64}\Z")
ID_SHAPES: Final = {
    "game_id": GAME_ID_RE,
    "invite": GAME_ID_RE,
    "player_id": PLAYER_ID_RE,
    "match_id": PLAYER_ID_RE,
    "tournament_id": GAME_ID_RE,
    "ruleset": PLAYER_ID_RE,
    "token": TOKEN_RE,
    "stage": PLAYER_ID_RE,
}


def routes(static: Path, tournaments: bool = True) -> list[BaseRoute]:
    """The mail flows' pages, accounts, API tokens, chat, analysis, tournaments (when the hub runs
    them), games, then the client's own pages and files. Each endpoint reads its services
    from the app's state (base.services, mail.mail_services)."""
    found: list[BaseRoute] = [
        *mail.ROUTES,
        *accounts.ROUTES,
        *exports.ROUTES,
        *tokens.ROUTES,
        *botapi.ROUTES,
        *challenges.ROUTES,
        *chat.ROUTES,
        *social.ROUTES,
        *lessons.ROUTES,
        *puzzles.ROUTES,
        *explorer.ROUTES,
        *analysis.ROUTES,
        *otnimport.ROUTES,
        *(tournaments_routes.ROUTES if tournaments else ()),
        *games.ROUTES,
        *web.ROUTES,
    ]
    found = [checked(route) if isinstance(route, Route) else route for route in found]
    if (static / "assets").is_dir():
        found.append(Mount("/assets", web.Assets(directory=static / "assets"), name="assets"))
    return found


def checked(route: Route) -> Route:
    """The route, refusing a path whose ids are not of their shape before its handler
    runs: ``404 not_found`` under ``/api/`` (``token_unknown`` for a mailed link's token,
    as for one never sent), the app's not-found page elsewhere."""
    if not route.param_convertors:
        return route
    endpoint = route.endpoint

    async def guarded(request: Request) -> Response:
        for name, value in request.path_params.items():
            refused = misshapen(name, value)
            if refused is not None:
                if not request.url.path.startswith("/api/"):
                    raise HTTPException(404)
                raise refused
        response: Response = await endpoint(request)
        return response

    return Route(route.path, guarded, methods=route.methods, name=route.name)


def misshapen(name: str, value: object) -> Refusal | None:
    """The refusal of an /api/ path's id ``name`` that is not of its shape; None if it is."""
    if isinstance(value, str) and ID_SHAPES.get(name, ANY_ID).match(value):
        return None
    if name == "token":
        return Refusal("token_unknown")  # as mail/tokens.py answers it
    return Refusal("not_found", f"no {name.replace('_', ' ')} has that form")


# Path parameters that are secrets: whoever holds one may act with it (mailed tokens, a
# friend game's invitation). A log never shows them.
SECRET_PARAMS: Final = frozenset({"token", "invite"})
HIDDEN: Final = "[hidden]"


class RedactSecrets(logging.Filter):
    """A filter for uvicorn's access log: the secret part of every path that has one (a
    route with a ``{token}`` or ``{invite}``) is logged as ``[hidden]``. The routes are
    tried in their order, as the app matches them; what follows a secret (a stray
    ``/more``, a query) is kept, so a mistyped link hides its token too."""

    def __init__(self, routes: list[BaseRoute]) -> None:
        super().__init__()
        self.patterns = [_secret_pattern(r.path) for r in routes if isinstance(r, Route)]

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            record.args = (*args[:2], self.redact(args[2]), *args[3:])
        return True

    def redact(self, path: str) -> str:
        """The path (and its query) with each secret segment replaced."""
        for pattern in self.patterns:
            found = pattern.match(path)
            if found:
                for name in SECRET_PARAMS & set(found.groupdict()):
                    start, end = found.span(name)
                    path = path[:start] + HIDDEN + path[end:]
                return path
        return path


def _secret_pattern(path: str) -> re.Pattern[str]:
    """A route's path as a pattern over logged paths, a named group for each secret."""
    out, rest, secret = "^", path, False
    for found in re.finditer(r"\{(\w+)(?::\w+)?\}", path):
        out += re.escape(rest[: found.start() - (len(path) - len(rest))])
        name = found.group(1)
        if name in SECRET_PARAMS:
            out += f"(?P<{name}>[^/?#]*)"
            secret = True
        else:
            out += "[^/?#]*"
        rest = path[found.end() :]
    out += re.escape(rest)
    return re.compile(out if secret else out + r"(?:[?#].*)?\Z", re.DOTALL)


def exception_handlers() -> dict[int | type[Exception], ExceptionHandler]:
    """A refusal answers with its code's status; a path we do not serve, the app's 404."""
    return {Refusal: refusal_response, 404: web.not_found}
