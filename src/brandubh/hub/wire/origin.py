"""Cross-site checks: websocket Origin allowlist and non-GET request guards (docs/protocol.md §2).

Starlette checks neither: its CORS middleware skips websockets, and a browser will open a
websocket to any site with the user's cookies (cross-site websocket hijacking).
``Sec-Fetch-Site: same-site`` is not enough: it covers other ports of the same host and
sibling subdomains, which are other origins (login CSRF from a neighbour's page).
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit


def _same_host(origin: str, host: str | None) -> bool:
    return host is not None and urlsplit(origin).netloc.lower() == host.lower()


def _origin_ok(origin: str, headers: Mapping[str, str], allowed: frozenset[str]) -> bool:
    """An origin on the allowlist, or (with none configured) the request's own host."""
    if allowed:
        return origin in allowed
    return _same_host(origin, headers.get("host"))


def origin_allowed(headers: Mapping[str, str], allowed: frozenset[str]) -> bool:
    """A websocket may open when it has no Origin (not a browser), or an allowed one.

    With no allowlist configured, the allowed origin is the request's own host.
    """
    origin = headers.get("origin")
    if origin is None:
        return True
    return _origin_ok(origin, headers, allowed)


def unsafe_request_allowed(headers: Mapping[str, str], allowed: frozenset[str]) -> bool:
    """A non-GET request: its Origin must be allowed (same-origin, or on the allowlist).

    Browsers send Origin with every such request; without one, only
    ``Sec-Fetch-Site: same-origin`` (set by the browser itself) lets it through.
    """
    origin = headers.get("origin")
    site = headers.get("sec-fetch-site")
    if origin is None or origin == "null":
        return origin is None and site == "same-origin"
    if site in ("cross-site", "same-site") and origin not in allowed:
        return False  # the browser says another origin sent it, whatever the Origin
    return _origin_ok(origin, headers, allowed)
