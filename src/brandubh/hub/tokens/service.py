"""Personal API tokens, the hub's side: creating one (shown once), an account's list,
revoking, and the guard of token routes: a request's bearer token resolved to its account
and scopes, counted against the token's rate window (lua/windows.lua), its last use noted
in PostgreSQL at most once a minute (a Redis marker, keys.api_used)."""

from __future__ import annotations

import logging
import math
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from redis.asyncio import Redis

from brandubh.hub.accounts import reachable
from brandubh.hub.config import Settings
from brandubh.hub.errors import RateLimited, Refusal
from brandubh.hub.redis import Scripts, keys
from brandubh.hub.tokens.secret import bearer_text, digest_of, new_token
from brandubh.store import ApiToken, Store, StoreUnavailable

MAX_LIVE: Final = 20  # live tokens per account
USED_EVERY_MS: Final = 60_000  # the last use is written at most this often per token

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Bearer:
    """Who a request's token speaks for, and what it may do."""

    account_id: str
    name: str
    token_id: str
    scopes: tuple[str, ...]
    bot: bool = False  # a bot account's token (when the token was resolved)


class ApiTokens:
    def __init__(self, redis: Redis, scripts: Scripts, store: Store, settings: Settings) -> None:
        self.redis = redis
        self.scripts = scripts
        self.store = store
        self.settings = settings

    async def create(
        self, account_id: str, name: str, scopes: Sequence[str]
    ) -> tuple[ApiToken, str]:
        """A new token and its text, which is never shown again; ``too_many_tokens`` when
        the account has ``MAX_LIVE`` live ones."""
        text, digest = new_token()
        async with reachable():
            made = await self.store.create_token(
                secrets.token_urlsafe(9), account_id, name, scopes, digest, most=MAX_LIVE
            )
        if made is None:
            raise Refusal("too_many_tokens")
        return made, text

    async def live(self, account_id: str) -> list[ApiToken]:
        async with reachable():
            return await self.store.live_tokens(account_id)

    async def revoke(self, account_id: str, token_id: str) -> None:
        """Revoke one of the account's live tokens (``not_found`` if it has no such one);
        its next request is refused."""
        async with reachable():
            done = await self.store.revoke_token(account_id, token_id)
        if not done:
            raise Refusal("not_found", f"you have no live token {token_id}")

    async def bearer(self, authorization: str | None, scope: str | None = None) -> Bearer:
        """The holder of the request's token (its ``Authorization`` header), which must
        have ``scope`` if given: ``token_invalid``, ``rate_limited`` or ``token_scope``
        otherwise. Only a request let through notes the token's use."""
        text = bearer_text(authorization)
        async with reachable():
            found = await self.store.token_holder(digest_of(text))
        if found is None:
            raise Refusal("token_invalid", "this token is unknown or revoked")
        token, name, bot = found
        await self._count(token.id)
        if scope is not None and scope not in token.scopes:
            raise Refusal(
                "token_scope",
                f"this token lacks the scope {scope}: make a token with it on your account page",
            )
        if await self.redis.set(keys.api_used(token.id), 1, nx=True, px=USED_EVERY_MS):
            try:
                await self.store.token_used(token.id)
            except StoreUnavailable as exc:  # bookkeeping: the request is still good
                log.warning("a token's last use was not noted: %s", exc.detail)
        return Bearer(token.account_id, name, token.id, token.scopes, bot)

    async def _count(self, token_id: str) -> None:
        """Count a request of this token in its window, or RateLimited (nothing counted)."""
        s = self.settings
        if not s.token_requests:
            return
        reply = await self.scripts.windows(
            keys=[keys.api_requests(token_id)],
            args=[int(s.token_window_s * 1000), secrets.token_hex(8), s.token_requests],
        )
        if int(reply[0]):
            wait = max(1, math.ceil(int(reply[1]) / 1000))
            raise RateLimited(
                f"too many requests with this token ({s.token_requests} a window of "
                f"{s.token_window_s:g} s): try again in {wait} s",
                wait,
            )
