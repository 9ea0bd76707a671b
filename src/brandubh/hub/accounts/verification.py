"""Confirmed addresses: the link sent at sign-up, the mail for a taken address, and what
needs a confirmed address.

A new account's address is unconfirmed until its link (48 h, single use) is followed:
the page shows the account and the reader presses a button; that confirms the address,
ends every other link of it and every session that spoke for the account, and logs in a
browser that held no other player's session (Accounts.confirmed). Outside the browser
that signed up the page also asks for a password, which becomes the account's, so that
nobody who signed up with someone else's address keeps a way in. Until then the
account cannot log in (Accounts.login), so that signing up says nothing about whether the
address had an account. A sign-up for a taken address mails its owner instead
(``signed_up_again``). Playing people (friend games, seeks, quick pairing) and the
leaderboards need a confirmed address (``verification_required``), but for the one game
a newcomer signed up from on its invitation (docs/accounts.md); only games between
confirmed accounts are rated (store.archive). A sign-up never confirmed is deleted after
7 days, releasing its address (``sweep``, claimed like every background job, so one hub
does each).
"""

from __future__ import annotations

import logging
from typing import Final, cast

from redis.asyncio import Redis

from brandubh.hub.accounts import limits
from brandubh.hub.accounts.accounts import Accounts, signed_here
from brandubh.hub.accounts.passwords import check_password
from brandubh.hub.accounts.sessions import Session
from brandubh.hub.errors import RateLimited, Refusal
from brandubh.hub.mail import Holder, Outbox, Tokens, mails
from brandubh.hub.redis import Scripts, keys

log = logging.getLogger(__name__)

SWEEP_LEASE_MS: Final = 60_000
SWEEP_BATCH: Final = 100


class Verification:
    def __init__(
        self,
        redis: Redis,
        scripts: Scripts,
        accounts: Accounts,
        tokens: Tokens,
        outbox: Outbox,
        public_url: str,
    ) -> None:
        self.redis = redis
        self.scripts = scripts
        self.accounts = accounts
        self.tokens = tokens
        self.outbox = outbox
        self.public_url = public_url

    async def signed_up(self, account_id: str) -> None:
        """A new account: mail its link, and release the address in 7 days unless followed."""
        now_ms = int(await self._redis_ms())
        await self.redis.zadd(
            keys.unverified(), {account_id: now_ms + keys.RELEASE_AFTER_S * 1000}, nx=True
        )
        await self._mail(account_id)

    async def signed_up_again(self, account_id: str, address: str) -> None:
        """A sign-up for a taken address: mail its owner a reset link (limited like resends;
        past the limit no mail, and the same answer). A confirmed owner is told someone
        tried, and may log in; an unconfirmed sign-up is finished by choosing the password,
        so that whoever signed up first, perhaps with someone else's address, does not keep
        a password of the account the owner confirms. Nothing changes until the link is used.
        """
        account = await self.accounts.get(account_id)
        if account is None:
            return
        try:
            await limits.count(self.scripts, limits.RESEND, address, account.email)
        except RateLimited:
            return  # answered the same as any sign-up: the limit must not show either
        token = await self.tokens.issue(
            "reset", keys.RESET_TOKEN_S, Holder(account.id, account.email)
        )
        reset = f"{self.public_url}/reset-password/{token}"
        if await self.accounts.is_verified(account.id):
            mail = mails.signup_taken(
                account.email, account.name, f"{self.public_url}/login", reset, keys.RESET_TOKEN_S
            )
        else:
            mail = mails.signup_pending(account.email, account.name, reset, keys.RESET_TOKEN_S)
        await self.outbox.send(mail)

    async def resend(self, account_id: str, address: str) -> None:
        """Mail a new link (rate-limited per client address and per account)."""
        account = await self.accounts.get(account_id)
        if account is None:
            raise Refusal("not_logged_in")
        if await self.accounts.is_verified(account_id):
            raise Refusal("already_verified", f"{account.email} is confirmed already")
        await limits.count(self.scripts, limits.RESEND, address, account.email)
        await self._mail(account_id)

    async def check(self, token: object) -> Holder:
        """Whom a verification link is for, without using it (Refusal if it is not good)."""
        return await self.tokens.check("verify", token)

    def asks_password(self, holder: Holder, current: Session | None) -> bool:
        """Whether confirming this link from ``current``'s browser needs a password (which
        it then sets): everywhere but in the browser that signed up (``signed_here``)."""
        return not signed_here(holder.account, current)

    async def confirm(
        self, token: object, password: object = None, current: Session | None = None
    ) -> Holder:
        """Follow a verification link: the address is confirmed, the link used up. Outside
        the browser that signed up, the confirmer types a password, which becomes the
        account's: only the person who confirms can log in, never whoever signed up with
        their address (docs/accounts.md, "Who can log in after a confirmation")."""
        holder = await self.tokens.check("verify", token)
        if password is None and self.asks_password(holder, current):
            raise Refusal(
                "weak_password",
                "confirming here sets the account's password: type the one you chose "
                "when signing up, or a new one",
            )
        if password is not None:
            # Checked (a weak one keeps the link good) and set while the address is still
            # unconfirmed, so nobody logs in with the old one between; a failure here
            # leaves the link good too.
            await self.accounts.set_password(holder.account, check_password(password, holder.email))
        holder = await self.tokens.use("verify", token)
        if not await self.accounts.mark_verified(holder.account, holder.email):
            raise Refusal(
                "token_unknown",
                "this link is for an account that no longer exists (an address not confirmed "
                f"within {mails.lifetime(keys.RELEASE_AFTER_S)} is released): sign up again",
            )
        await self.redis.zrem(keys.unverified(), holder.account)
        await self.tokens.void("verify", holder.account)  # the address's other links end
        return holder

    async def sweep(self) -> int:
        """Release the addresses of sign-ups never confirmed within 7 days; how many."""
        due = cast(
            list[bytes],
            await self.scripts.claim(keys=[keys.unverified()], args=[SWEEP_LEASE_MS, SWEEP_BATCH]),
        )
        released = 0
        for raw in due:
            account_id = raw.decode()
            if await self.accounts.release_unverified(account_id):
                released += 1
            # Released, confirmed meanwhile, or gone: either way it leaves the index.
            await self.redis.zrem(keys.unverified(), account_id)
        if released:
            log.info("released %d unconfirmed sign-ups' addresses", released)
        return released

    async def _mail(self, account_id: str) -> None:
        account = await self.accounts.get(account_id)
        if account is None:
            return
        token = await self.tokens.issue(
            "verify", keys.VERIFY_TOKEN_S, Holder(account.id, account.email)
        )
        link = f"{self.public_url}/verify-email/{token}"
        await self.outbox.send(
            mails.verification(account.email, account.name, link, keys.VERIFY_TOKEN_S)
        )

    async def _redis_ms(self) -> int:
        sec, usec = await self.redis.time()
        return int(sec) * 1000 + int(usec) // 1000
