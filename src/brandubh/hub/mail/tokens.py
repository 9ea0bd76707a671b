"""Mailed tokens: random, single use, expiring; Redis keeps only their SHA-256.

A token is 32 random bytes (base64url) sent in a link. Redis stores, under the hash of
the token, the account and address it was made for, when it expires and whether it was
used (lua/token.lua), for the token's lifetime and a week more, so that a link opened
late can be told "used" from "expired"; a token Redis never saw is "unknown" (forged,
mistyped, or older than that week). A copy of Redis holds no usable link. Each account's
live tokens of a kind are listed by digest (keys.account_tokens), so that they can be
ended at once (``void``).
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from typing import Final, Literal, cast

from redis.asyncio import Redis

from brandubh.hub.errors import CODES, Refusal
from brandubh.hub.mail.mails import lifetime
from brandubh.hub.redis import Scripts, keys

Kind = Literal["verify", "reset", "unsubscribe"]
TOKEN_RE: Final = re.compile(r"^[A-Za-z0-9_-]{43}\Z")


@dataclass(frozen=True)
class Holder:
    """Whom a good token was made for."""

    account: str
    email: str


# How long a link of each kind works (keys.py), and how a person calls it.
LIFETIMES: Final[dict[Kind, int]] = {
    "verify": keys.VERIFY_TOKEN_S,
    "reset": keys.RESET_TOKEN_S,
    "unsubscribe": keys.UNSUBSCRIBE_TOKEN_S,
}
_NAMES: Final[dict[Kind, str]] = {
    "verify": "a confirmation link",
    "reset": "a password-reset link",
    "unsubscribe": "an unsubscribe link",
}


def refusal(state: str, kind: Kind) -> Refusal:
    """The refusal for a token that is not good (``state``: lua/token.lua's ``used``,
    ``expired`` or ``unknown``): the code's message, the link's real lifetime when age may
    be why, then where to get a new link."""
    code = f"token_{state}"
    again = {
        "verify": "ask for a new one from your account page",
        "reset": "ask for a new one on the 'forgot password' page",
        "unsubscribe": "you can turn reminders off on your account page",
    }[kind]
    message = CODES[code].message
    if state in ("unknown", "expired"):
        message += f" ({_NAMES[kind]} works for {lifetime(LIFETIMES[kind])})"
    return Refusal(code, f"{message}; {again}")


class Tokens:
    def __init__(self, redis: Redis, scripts: Scripts) -> None:
        self.redis = redis
        self.scripts = scripts

    async def issue(self, kind: Kind, lifetime_s: float, holder: Holder) -> str:
        """A new token for this holder, good for ``lifetime_s``."""
        token = secrets.token_urlsafe(32)
        digest = _digest(token)
        await self.scripts.token(
            keys=[keys.token(kind, digest)],
            args=[
                "issue",
                int(lifetime_s * 1000),
                "account",
                holder.account,
                "email",
                holder.email,
            ],
        )
        listed = keys.account_tokens(kind, holder.account)
        pipe = self.redis.pipeline(transaction=False)
        pipe.sadd(listed, digest)
        pipe.expire(listed, int(lifetime_s) + 1)  # the newest token's lifetime
        await pipe.execute()
        return token

    async def void(self, kind: Kind, account: str) -> int:
        """End every outstanding token of this kind of an account (they answer ``used``
        from now on): a password change or reset ends every reset link, a confirmed
        address every confirmation link. How many were still good."""
        listed = keys.account_tokens(kind, account)
        digests = cast(set[bytes], await self.redis.smembers(listed))
        ended = 0
        for raw in digests:
            reply = await self.scripts.token(keys=[keys.token(kind, raw.decode())], args=["use"])
            ended += reply[0] == b"ok"
        if digests:
            await self.redis.srem(listed, *digests)
        return ended

    async def check(self, kind: Kind, token: object) -> Holder:
        """The holder of a good token, leaving it good; Refusal saying why if it is not."""
        return await self._run("peek", kind, token)

    async def use(self, kind: Kind, token: object) -> Holder:
        """The holder of a good token, which is used up by this; Refusal if it is not good."""
        return await self._run("use", kind, token)

    async def _run(self, op: str, kind: Kind, token: object) -> Holder:
        if not isinstance(token, str) or not TOKEN_RE.match(token):
            raise refusal("unknown", kind)
        reply = await self.scripts.token(keys=[keys.token(kind, _digest(token))], args=[op])
        state = reply[0].decode()
        if state != "ok":
            raise refusal(state, kind)
        return Holder(reply[1].decode(), reply[2].decode())


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
