"""The bot socket, ``/api/bot/socket`` (docs/protocol.md §2.9.1): the site's websocket,
spoken for by a ``bot:play`` token (``Authorization: Bearer``, never a cookie) instead of
a session. A bot's moves over it cost the hub what a person's do (docs/scaling.md); its
token is read again as a session is, so a revoked token's sockets close (4005)."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Final, Protocol

from starlette.datastructures import Headers
from starlette.websockets import WebSocket

from brandubh.hub.errors import Refusal
from brandubh.hub.live import Player
from brandubh.hub.wire import connection

PATH: Final = "/api/bot/socket"
SCOPE: Final = "bot:play"


class TokenHolder(Protocol):
    """What a token resolves to (tokens.Bearer)."""

    @property
    def account_id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def token_id(self) -> str: ...


class Tokens(Protocol):
    """What the bot socket asks of the API tokens (tokens.ApiTokens)."""

    # The holder of an Authorization header, which has the scope; token_invalid,
    # token_scope or rate_limited otherwise (the request counted in the token's window).
    def bearer(
        self, authorization: str | None, scope: str | None = None
    ) -> Awaitable[TokenHolder]: ...

    # The same token read again: token_invalid once revoked.
    def still_good(self, authorization: str | None) -> Awaitable[None]: ...


async def serve(services: connection.Services, tokens: Tokens, ws: WebSocket) -> None:
    """The bot socket: a connection speaking for the token's account, its budget shared
    by the token's sockets on this hub."""

    async def of_token(headers: Headers) -> connection.Speaker:
        authorization = headers.get("authorization")
        holder = await tokens.bearer(authorization, SCOPE)

        async def recheck() -> Refusal | None:
            try:
                await tokens.still_good(authorization)
            except Refusal as exc:
                return exc
            return None

        player = Player(holder.account_id, holder.name)
        budget = f"token:{holder.token_id}"
        return connection.Speaker(player, True, budget=budget, recheck=recheck)

    await connection.serve_as(services, ws, of_token)
