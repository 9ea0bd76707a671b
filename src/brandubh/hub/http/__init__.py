"""The site over HTTP: the JSON API of games, accounts and the mail flows, the client's
pages and files, and the security headers on every answer. Every endpoint is a
module-level function of the request, reading its services from the app's state (put there
by the composition root). Routes raise ``Refusal``; one handler answers it with the code's
status. May import every package below it (live, accounts, mail, wire's origin checks),
never the composition root."""

from brandubh.hub.http.base import DatabaseHealth, refusal_json
from brandubh.hub.http.base import Services as WebServices
from brandubh.hub.http.headers import SecurityHeaders
from brandubh.hub.http.lean import LeanRoutes
from brandubh.hub.http.mail import Services as MailServices
from brandubh.hub.http.site import RedactSecrets, exception_handlers, routes
from brandubh.hub.http.web import GZIP_MIN_BYTES

__all__ = [
    "GZIP_MIN_BYTES",
    "DatabaseHealth",
    "LeanRoutes",
    "MailServices",
    "RedactSecrets",
    "SecurityHeaders",
    "WebServices",
    "exception_handlers",
    "refusal_json",
    "routes",
]
