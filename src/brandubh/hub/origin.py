"""Cross-site checks: websocket Origin allowlist and non-GET request guards (docs/protocol.md §2).

Starlette checks neither: its CORS middleware skips websockets, and a browser will open a
websocket to any site with the user's cookies (cross-site websocket hijacking).
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit


def _same_host(origin: str, host: str | None) -> bool:
    return host is not None and urlsplit(origin).netloc.lower() == host.lower()


def origin_allowed(headers: Mapping[str, str], allowed: frozenset[str]) -> bool:
    """A websocket may open when it has no Origin (not a browser), or an allowed one.

    With no allowlist configured, the allowed origin is the request's own host.
    """
    origin = headers.get("origin")
    if origin is None:
        return True
    if allowed:
        return origin in allowed
    return _same_host(origin, headers.get("host"))


def unsafe_request_allowed(headers: Mapping[str, str], allowed: frozenset[str]) -> bool:
    """A non-GET request: refuse ``Sec-Fetch-Site: cross-site``; without that header,
    require an allowed Origin."""
    site = headers.get("sec-fetch-site")
    if site is not None:
        return site != "cross-site"
    origin = headers.get("origin")
    if origin is None:
        return False
    return origin in allowed if allowed else _same_host(origin, headers.get("host"))
