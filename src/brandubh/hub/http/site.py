"""Every HTTP route of the site, in the order they are matched, and the handlers of what a
route raises.

Every id a path carries is checked for its shape here, before any handler sees it: a NUL
byte or a stray character never reaches Redis or PostgreSQL (docs/protocol.md §2).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Final

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route

from brandubh.hub.errors import Refusal
from brandubh.hub.http import accounts, games, mail, web
from brandubh.hub.http.base import Services, refusal_response
from brandubh.hub.http.mail import Services as MailServices
from brandubh.hub.messages import GAME_ID_RE, PLAYER_ID_RE

# The shape of each id a path may carry, by its parameter's name; a name not listed here
# must still be a short run of URL-safe characters. Mailed tokens are 43 characters.
ANY_ID: Final = re.compile(r"^[A-Za-z0-9_-]{1,64}\Z")
ID_SHAPES: Final = {
    "game_id": GAME_ID_RE,
    "invite": GAME_ID_RE,
    "player_id": PLAYER_ID_RE,
    "match_id": PLAYER_ID_RE,
    "ruleset": PLAYER_ID_RE,
    "token": re.compile(r"^[A-Za-z0-9_-]{43}\Z"),
}


def routes(services: Services, mail_services: MailServices, static: Path) -> list[BaseRoute]:
    """The mail flows' pages, accounts, games, then the client's own pages and files."""
    found: list[BaseRoute] = [
        *mail.routes(mail_services, static),
        *accounts.routes(services),
        *games.routes(services, static),
        *web.routes(services),
    ]
    found = [checked(route) if isinstance(route, Route) else route for route in found]
    if (static / "assets").is_dir():
        found.append(Mount("/assets", web.Assets(directory=static / "assets"), name="assets"))
    return found


def checked(route: Route) -> Route:
    """The route, refusing a path whose ids are not of their shape before its handler
    runs: ``404 not_found`` under ``/api/``, the app's not-found page elsewhere."""
    if not route.param_convertors:
        return route
    endpoint = route.endpoint

    async def guarded(request: Request) -> Response:
        for name, value in request.path_params.items():
            if not isinstance(value, str) or not ID_SHAPES.get(name, ANY_ID).match(value):
                if request.url.path.startswith("/api/"):
                    raise Refusal("not_found", f"no {name.replace('_', ' ')} has that form")
                raise HTTPException(404)
        response: Response = await endpoint(request)
        return response

    return Route(route.path, guarded, methods=route.methods, name=route.name)


def exception_handlers(static: Path) -> dict[Any, Any]:
    """A refusal answers with its code's status; a path we do not serve, the app's 404."""
    return {Refusal: refusal_response, 404: web.not_found_handler(static)}
