"""Personal API tokens, the hub's side: creating one (shown once), an account's list,
revoking, and the guard of token routes: a request's bearer token resolved to its account
and scopes (kept a minute in the hub, cache.py), checked against revocation and counted
against the token's rate window in one Redis call (lua/api_request.lua, on the commit path's
pipelined lane when there is one; for a Bot API move on one Redis, inside the move's commit:
``holder`` then ``spend``), its last use noted in PostgreSQL at most once a minute (a Redis
marker, keys.api_used, and a memo per hub)."""

from __future__ import annotations

import logging
import math
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Final, TypeVar

from redis.asyncio import Redis

from brandubh.hub.accounts import reachable
from brandubh.hub.config import Settings
from brandubh.hub.errors import RateLimited, Refusal
from brandubh.hub.redis import Lane, Scripts, TokenAnswer, TokenCheck, keys
from brandubh.hub.tokens.cache import Held, HolderCache
from brandubh.hub.tokens.secret import bearer_text, digest_of, new_token
from brandubh.store import ApiToken, Store, StoreUnavailable

MAX_LIVE: Final = 20  # live tokens per account
USED_EVERY_MS: Final = 60_000  # the last use is written at most this often per token
HELD_S: Final = 60.0  # a resolved holder is kept this long by a hub
HELD_MOST: Final = 10_000  # holders a hub keeps at most
# A revoked or bot mark outlives any holder a hub kept from before it was set.
MARK_MS: Final = int(HELD_S * 1000) + 30_000

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True)
class Bearer:
    """Who a request's token speaks for, and what it may do."""

    account_id: str
    name: str
    token_id: str
    scopes: tuple[str, ...]
    bot: bool = False  # a bot account's token (when the token was resolved)


@dataclass(frozen=True, slots=True)
class Holder:
    """A request's token resolved to its holder, its scope checked, the request not yet
    checked against revocation nor counted (``ApiTokens.holder``, then ``spend``)."""

    digest: bytes
    held: Held

    @property
    def token_id(self) -> str:
        return self.held.token.id

    @property
    def account_id(self) -> str:
        return self.held.token.account_id


class ApiTokens:
    def __init__(
        self,
        redis: Redis,
        scripts: Scripts,
        store: Store,
        settings: Settings,
        lane: Lane | None = None,
    ) -> None:
        self.redis = redis
        self.scripts = scripts
        # One Redis: every token request's one call goes on the lane (lane.py), as a move's
        # commit does, rather than through redis-py's pool, which costs more than the call.
        self.lane = lane
        self.store = store
        self.settings = settings
        self.held = HolderCache(HELD_MOST, HELD_S)

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
        its next request is refused, on every hub (the mark, keys.api_revoked)."""
        missing = Refusal("not_found", f"you have no live token {token_id}")
        if token_id not in {t.id for t in await self.live(account_id)}:
            raise missing
        # Marked before PostgreSQL is told: should Redis fail, nothing is revoked and the
        # owner is told so, rather than the hubs that keep its holder letting it through
        # (should PostgreSQL fail, the token is refused a while, and the owner tries again).
        await self.redis.set(keys.api_revoked(token_id), 1, px=MARK_MS)
        async with reachable():
            done = await self.store.revoke_token(account_id, token_id)
        if not done:
            raise missing

    async def became_bot(self, account_id: str) -> None:
        """After an upgrade to a bot account: its tokens' kept holders are a bot's from
        their next request on, on every hub (the mark, keys.api_bot)."""
        await self.redis.set(keys.api_bot(account_id), 1, px=MARK_MS)

    async def bearer(self, authorization: str | None, scope: str | None = None) -> Bearer:
        """The holder of the request's token (its ``Authorization`` header), which must
        have ``scope`` if given: ``token_invalid``, ``rate_limited`` or ``token_scope``
        otherwise. Only a request let through notes the token's use."""
        digest = digest_of(bearer_text(authorization))
        held = self.held.get(digest) or await self._resolve(digest)
        token = held.token
        await self._run(self._check(digest, held))
        if scope is not None and scope not in token.scopes:
            raise _lacks(scope)
        await self._note_use(held)
        return Bearer(token.account_id, held.name, token.id, token.scopes, held.bot)

    async def still_good(self, authorization: str | None) -> None:
        """A bot socket's token read again (about once a second while it acts, as a
        socket's session is): ``token_invalid`` once revoked. While its holder is kept, the
        revocation's mark says so (it outlives any holder kept before it); past that, the
        holder is read from PostgreSQL again. Its frames are not counted in the token's
        window: the socket's own budgets bound them."""
        digest = digest_of(bearer_text(authorization))
        held = self.held.get(digest)
        if held is None:
            await self._resolve(digest)
            return
        revoked = keys.api_revoked(held.token.id)
        if self.lane is not None:
            marked = await self.lane.call("EXISTS", revoked)
        else:
            marked = await self.redis.exists(revoked)
        if marked:
            self.held.drop(digest)
            raise Refusal("token_invalid", "this token was revoked, so its sockets close")
        await self._note_use(held)

    async def holder(self, authorization: str | None, scope: str) -> Holder:
        """A Bot API move's first half: the holder of the request's token, which has
        ``scope``; the request is checked and counted by ``spend``. (A token that lacks the
        scope is checked and counted first, then refused ``token_scope``, as by ``bearer``.)"""
        digest = digest_of(bearer_text(authorization))
        held = self.held.get(digest) or await self._resolve(digest)
        if scope not in held.token.scopes:
            await self._run(self._check(digest, held))
            raise _lacks(scope)
        return Holder(digest, held)

    async def spend(self, holder: Holder, act: Callable[[TokenCheck | None], Awaitable[T]]) -> T:
        """A Bot API move's second half: ``act`` (the move) given the request's check, which
        its commit does first, in the same script call; checked and counted once either way.
        """
        # A move that ends before its commit's call (refused on Redis's state, a resend
        # found) changed nothing: the check's own call follows, its refusal put before the
        # move's outcome. Without the lane (Redis Cluster: the token's keys are in other
        # slots than the game's), the check is its own call before the move, as bearer's.
        check = self._check(holder.digest, holder.held)
        if self.lane is None:
            await self._run(check)
            await self._note_use(holder.held)
            return await act(None)
        try:
            done = await act(check)
        except Exception:
            await self._spent(holder.held, check)
            raise
        await self._spent(holder.held, check)
        return done

    async def _spent(self, held: Held, check: TokenCheck) -> None:
        """After a move given ``check``: the check's own call if the move never made it
        (raising the token's refusal), and the use of a request let through noted."""
        if check.answer is None:
            await self._run(check)
        elif check.answer.state:
            return
        await self._note_use(held)

    async def _resolve(self, digest: bytes) -> Held:
        """The token's holder from PostgreSQL, kept; ``token_invalid`` if none is live."""
        asked = self.held.clock()
        async with reachable():
            found = await self.store.token_holder(digest)
        if found is None:
            raise Refusal("token_invalid", "this token is unknown or revoked")
        token, name, bot = found
        return self.held.put(digest, token, name, bot, asked)

    def _check(self, digest: bytes, held: Held) -> TokenCheck:
        """A request of this token, to be checked against revocation and counted in its
        window once (lua/token_check.lua), then judged by ``_judge``."""
        s = self.settings
        token = held.token
        return TokenCheck(
            keys.api_requests(token.id),
            keys.api_revoked(token.id),
            keys.api_bot(token.account_id),
            int(s.token_window_s * 1000),
            # The nonce is the request's member of the window: sent again (the lane's
            # fallback after a lost connection), the script counts the request once.
            secrets.token_hex(8),
            s.token_requests,
            lambda answer: self._judge(digest, held, answer),
        )

    async def _run(self, check: TokenCheck) -> None:
        """The check in its own Redis call (lua/api_request.lua), judged."""
        args: list[int | str] = [check.window_ms, check.nonce, check.most]
        if self.lane is not None:
            reply = await self.lane.script(self.scripts.api_request, check.keys, args)
        else:
            reply = await self.scripts.api_request(keys=check.keys, args=args)
        check.answered(reply)

    def _judge(self, digest: bytes, held: Held, answer: TokenAnswer) -> None:
        """RateLimited (nothing counted), or ``token_invalid`` if the token was revoked;
        a request counted for an account that became a bot makes its holder a bot's."""
        s = self.settings
        if answer.state < 0:
            self.held.drop(digest)
            raise Refusal("token_invalid", "this token was revoked: make a new one if you need one")
        if answer.state:
            wait = max(1, math.ceil(answer.wait_ms / 1000))
            raise RateLimited(
                f"too many requests with this token ({s.token_requests} a window of "
                f"{s.token_window_s:g} s): try again in {wait} s",
                wait,
            )
        if answer.bot:
            held.bot = True  # for good: an upgrade is never undone

    async def _note_use(self, held: Held) -> None:
        """Note the token's use in PostgreSQL at most once a minute: this hub asks Redis
        at most once a minute per token (its memo), and Redis's marker keeps the hubs from
        writing it more than once between them."""
        now = self.held.clock()
        if held.noted is not None and now - held.noted < USED_EVERY_MS / 1000:
            return
        held.noted = now
        token_id = held.token.id
        if await self.redis.set(keys.api_used(token_id), 1, nx=True, px=USED_EVERY_MS):
            try:
                await self.store.token_used(token_id)
            except StoreUnavailable as exc:  # bookkeeping: the request is still good
                log.warning("a token's last use was not noted: %s", exc.detail)


def _lacks(scope: str) -> Refusal:
    return Refusal(
        "token_scope",
        f"this token lacks the scope {scope}: make a token with it on your account page",
    )
