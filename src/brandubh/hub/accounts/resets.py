"""Forgotten passwords: a single-use link valid for 30 minutes, then a new password.

Asking gives the same answer whether or not the address has an account (the mail goes
only where there is one), and is limited per client address and per address asked for.
Using the link sets the new password (passwords.check_password's rules) and ends every
session of the account, whose sockets close with 4004; the link cannot be used twice, and
any password change or reset ends every other outstanding reset link of the account.
Following it proves the address is the reader's, so it also confirms the address.
"""

from __future__ import annotations

from brandubh.hub.accounts import limits
from brandubh.hub.accounts.accounts import Accounts
from brandubh.hub.accounts.passwords import check_password, normalize_email
from brandubh.hub.mail import Holder, Outbox, Tokens, mails
from brandubh.hub.redis import Scripts, keys


class Resets:
    def __init__(
        self,
        scripts: Scripts,
        accounts: Accounts,
        tokens: Tokens,
        outbox: Outbox,
        public_url: str,
    ) -> None:
        self.scripts = scripts
        self.accounts = accounts
        self.tokens = tokens
        self.outbox = outbox
        self.public_url = public_url

    async def forgot(self, email_raw: object, address: str) -> str:
        """Mail a reset link if the address has an account; the normalised address."""
        email = normalize_email(email_raw)
        await limits.count(self.scripts, limits.FORGOT, address, email)
        account_id = await self.accounts.account_of(email)
        if account_id is not None:
            token = await self.tokens.issue("reset", keys.RESET_TOKEN_S, Holder(account_id, email))
            link = f"{self.public_url}/reset-password/{token}"
            await self.outbox.send(mails.reset(email, link, keys.RESET_TOKEN_S))
        return email

    async def check(self, token: object) -> Holder:
        """Whom a reset link is for, without using it (Refusal if it is not good)."""
        return await self.tokens.check("reset", token)

    async def reset(self, token: object, password: object) -> int:
        """Set a new password with a reset link; how many sessions ended."""
        holder = await self.tokens.check("reset", token)
        check_password(password, holder.email)  # a weak password keeps the link good
        holder = await self.tokens.use("reset", token)
        ended = await self.accounts.reset_password(holder.account, password)  # password_set
        # The link reached the address: that confirms it too, so the owner of an address
        # someone else signed up with takes the account over at once, and no confirmation
        # link of the first sign-up is left to log anyone in.
        if await self.accounts.mark_verified(holder.account, holder.email):
            await self.tokens.void("verify", holder.account)
        return ended

    async def password_set(self, account_id: str) -> None:
        """The account's password changed or was reset: every outstanding reset link of
        it ends (an older link after a newer one was used, a link after a change)."""
        await self.tokens.void("reset", account_id)
