"""Sliding-window limits on the mail a visitor can make the service send.

Each limit is a few windows counted at once, or not at all (lua/login_limit.lua, the same
script as the login limits): the per-address window keys on the client's address, the
per-account one on the normalised email, known or not, so limits say nothing about which
addresses have accounts.
"""

from __future__ import annotations

import hashlib
import math
import secrets
from dataclasses import dataclass
from typing import Final

from brandubh.hub import keys
from brandubh.hub.errors import RateLimited
from brandubh.hub.scripts import Scripts


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
    reply = await scripts.login_limit(
        keys=[f"{base}:ip:{address}", f"{base}:acct:{digest}"],
        args=[limit.window_s * 1000, secrets.token_hex(8), limit.per_address, limit.per_account],
    )
    which, wait_ms = int(reply[0]), int(reply[1])
    if which:
        wait = max(1, math.ceil(wait_ms / 1000))
        whose = "from your address" if which == 1 else "to this email address"
        minutes = math.ceil(wait / 60)
        raise RateLimited(
            f"too many {limit.what} {whose}: try again in {minutes} minute"
            f"{'s' if minutes != 1 else ''}",
            wait,
        )
