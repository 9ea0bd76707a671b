"""Every HTTP route of the site, in the order they are matched, and the handlers of what a
route raises."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.routing import BaseRoute, Mount

from brandubh.hub.errors import Refusal
from brandubh.hub.http import accounts, games, mail, web
from brandubh.hub.http.base import Services, refusal_response
from brandubh.hub.http.mail import Services as MailServices


def routes(services: Services, mail_services: MailServices, static: Path) -> list[BaseRoute]:
    """The mail flows' pages, accounts, games, then the client's own pages and files."""
    found: list[BaseRoute] = [
        *mail.routes(mail_services, static),
        *accounts.routes(services),
        *games.routes(services, static),
        *web.routes(services),
    ]
    if (static / "assets").is_dir():
        found.append(Mount("/assets", web.Assets(directory=static / "assets"), name="assets"))
    return found


def exception_handlers(static: Path) -> dict[Any, Any]:
    """A refusal answers with its code's status; a path we do not serve, the app's 404."""
    return {Refusal: refusal_response, 404: web.not_found_handler(static)}
