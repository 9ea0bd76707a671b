"""Accounts and sessions: guest and account sessions in Redis, sign-up, login and
its limits, logout, password rules and hashing, confirming an address and resetting a
password (the mail of both through ``mail``). Accounts themselves live in PostgreSQL
(``brandubh.store``). It never imports the sockets: ended sessions are announced on the
hubs' channel, and ``wire`` closes their sockets."""

from brandubh.hub.accounts.accounts import (
    Accounts,
    check_signup,
    confirming_logs_in,
    not_logged_in,
    reachable,
)
from brandubh.hub.accounts.resets import Resets
from brandubh.hub.accounts.sessions import COOKIE, TTL_S, Session, Sessions, unsaved_guest
from brandubh.hub.accounts.verification import Verification

__all__ = [
    "COOKIE",
    "TTL_S",
    "Accounts",
    "Resets",
    "Session",
    "Sessions",
    "Verification",
    "check_signup",
    "confirming_logs_in",
    "not_logged_in",
    "reachable",
    "unsaved_guest",
]
