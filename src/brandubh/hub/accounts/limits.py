"""Rate limits kept in Redis, shared by every hub: logins, sign-ups, new guest sessions and
the mail a visitor can make the service send.

Each is a set of sliding windows (lua/login_limit.lua for logins, lua/windows.lua for the
rest) under one hash tag (keys.login_limits). The login rule (docs/accounts.md): failures
are counted per account from each address, per account from all, per address and over the
service; an address that has not failed in the window is held up by none of them, only by
its own attempts limit, so a stranger guessing at an account, or a crowd of them, cannot
lock its owner out.
"""

from __future__ import annotations

import hashlib
import math
import secrets
from dataclasses import dataclass
from typing import Final

from brandubh.hub.config import Settings
from brandubh.hub.errors import RateLimited
from brandubh.hub.redis import Scripts, keys

_LOGIN_WHO: Final = ("the service", "your address", "this account from your address")


def duration(seconds: int) -> str:
    if seconds < 60:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    minutes = math.ceil(seconds / 60)
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


def _limited(what: str, wait_ms: int) -> RateLimited:
    wait = max(1, math.ceil(wait_ms / 1000))
    return RateLimited(f"too many {what}: try again in {duration(wait)}", wait)


class Limits:
    def __init__(self, scripts: Scripts, settings: Settings) -> None:
        self.scripts = scripts
        self.settings = settings

    def _login_keys(self, email: str, address: str) -> list[str]:
        base = keys.login_limits()
        acct = hashlib.sha256(email.encode()).hexdigest()[:32]
        return [
            f"{base}:all",
            f"{base}:ip:{address}",
            f"{base}:ipf:{address}",
            f"{base}:pair:{acct}:{address}",
            f"{base}:acct:{acct}",
        ]

    async def _login(self, email: str, address: str, mode: str) -> tuple[int, int]:
        s = self.settings
        reply = await self.scripts.login_limit(
            keys=self._login_keys(email, address),
            args=[
                int(s.login_window_s * 1000),
                secrets.token_hex(8),
                mode,
                s.login_overall,
                s.login_per_address,
                s.login_per_account,
            ],
        )
        return int(reply[0]), int(reply[1])

    async def login_attempt(self, email: str, address: str) -> None:
        """Count a login attempt (by email, known or not), or RateLimited saying whose."""
        who, wait_ms = await self._login(email, address, "check")
        if who:
            raise _limited(f"login attempts for {_LOGIN_WHO[who - 1]}", wait_ms)

    async def login_failed(self, email: str, address: str) -> None:
        await self._login(email, address, "fail")

    async def login_succeeded(self, email: str, address: str) -> None:
        await self._login(email, address, "ok")

    async def _windows(self, name: str, address: str, window_s: float, *limits: int) -> int:
        base = f"{keys.login_limits()}:{name}"
        reply = await self.scripts.windows(
            keys=[f"{base}:ip:{address}", f"{base}:all"][: len(limits)],
            args=[int(window_s * 1000), secrets.token_hex(8), *limits],
        )
        if int(reply[0]):
            return int(reply[1])
        return 0

    async def signup(self, address: str) -> None:
        """Count a sign-up from an address, or RateLimited (per address, then overall)."""
        s = self.settings
        wait_ms = await self._windows(
            "signup", address, s.signup_window_s, s.signup_per_address, s.signup_overall
        )
        if wait_ms:
            raise _limited("sign-ups from your address or in all", wait_ms)

    async def guest(self, address: str) -> bool:
        """Count a new guest session for an address; False when it has made enough."""
        s = self.settings
        return not await self._windows("guest", address, s.guest_window_s, s.guests_per_address)


# -- mail a visitor can make the service send --------------------------------------------
# The per-address window keys on the client's address, the per-account one on the
# normalised email, known or not, so limits say nothing about which addresses have accounts.


@dataclass(frozen=True)
class Limit:
    """``per_address`` and ``per_account`` sends of one kind in ``window_s``."""

    kind: str
    window_s: int
    per_address: int
    per_account: int
    what: str  # "verification mails", for the message


RESEND: Final = Limit("resend", 3600, 20, 3, "verification mails")
FORGOT: Final = Limit("forgot", 3600, 20, 3, "password reset mails")


async def count(scripts: Scripts, limit: Limit, address: str, email: str) -> None:
    """Count one send; RateLimited (nothing counted) when a window is full."""
    base = f"{keys.mail_limits()}:{limit.kind}"
    digest = hashlib.sha256(email.encode()).hexdigest()[:32]
    reply = await scripts.windows(
        keys=[f"{base}:ip:{address}", f"{base}:acct:{digest}"],
        args=[limit.window_s * 1000, secrets.token_hex(8), limit.per_address, limit.per_account],
    )
    which, wait_ms = int(reply[0]), int(reply[1])
    if which:
        wait = max(1, math.ceil(wait_ms / 1000))
        whose = "from your address" if which == 1 else "to this email address"
        raise RateLimited(f"too many {limit.what} {whose}: try again in {duration(wait)}", wait)
