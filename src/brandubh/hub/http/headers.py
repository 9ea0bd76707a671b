"""Security headers on every HTTP answer: a pure ASGI middleware (docs/protocol.md §2).

The built client is one module script and a stylesheet from /assets (no inline script),
so the policy allows scripts from this origin only. No page may be framed (clickjacking:
Resign or "Log out everywhere" would be one click in a hidden frame). Invite links carry
their token in the path, so no Referer leaves the page. Answers of the API may be personal
(the session's player, an account's data): no cache keeps them.
"""

from __future__ import annotations

from typing import Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP: Final = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
ALWAYS: Final[list[tuple[bytes, bytes]]] = [
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
NO_STORE: Final = (b"cache-control", b"no-store")


class SecurityHeaders:
    """Adds ``ALWAYS`` to every response, and ``Cache-Control: no-store`` under /api/."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        personal = str(scope.get("path", "")).startswith("/api/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(n, v) for n, v in ALWAYS if n not in names]
                if personal and b"cache-control" not in names:
                    extra.append(NO_STORE)
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)
