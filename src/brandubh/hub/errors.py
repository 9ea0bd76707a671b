"""The hub's refusals: what the service declines to do, with a stable code and a message a
person can act on. One tree for the websocket and HTTP alike::

    Refusal                  declined: ``code`` (stable, for programs), ``message`` (for people)
    ├── RateLimited          too many attempts: also says when to try again (``retry_after``)
    └── ProtocolError        a frame that is not one msgpack map of a known shape

A websocket answers a refusal with an ``error`` frame carrying the code, the message and the
id of the message refused; HTTP answers with ``{"error": code, "message": message}`` and the
status ``STATUS`` gives the code (400 when it names none). docs/protocol.md lists the codes.
"""

from __future__ import annotations

from typing import Final


class Refusal(Exception):
    """A request or message the service declines; nothing was changed."""

    def __init__(self, code: str, message: str, msg_id: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.msg_id = msg_id  # the refused websocket message's id, when it had one


class RateLimited(Refusal):
    """Too many attempts in a window; ``retry_after`` seconds until one is allowed again."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__("rate_limited", message)
        self.retry_after = retry_after


class ProtocolError(Refusal):
    """A websocket frame that cannot be decoded, or a message that fits no shape."""


# The HTTP status of each code that is not a plain 400 (bad request).
STATUS: Final[dict[str, int]] = {
    "bad_credentials": 401,
    "not_logged_in": 401,
    "bad_invite": 403,
    "not_invited": 403,
    "not_yours": 403,
    "forbidden": 403,
    "account_required": 403,
    "verification_required": 403,
    "token_unknown": 404,
    "token_expired": 410,
    "token_used": 410,
    "already_verified": 409,
    "not_a_player": 403,
    "not_found": 404,
    "payload_too_large": 413,
    "email_taken": 409,
    "game_not_waiting": 409,
    "invitation_withdrawn": 410,
    "too_many_bot_games": 409,
    "session_ended": 401,
    "rate_limited": 429,
    "busy": 503,
    "unavailable": 503,
}


def verification_required() -> Refusal:
    """Playing people and the leaderboards need a confirmed address (accounts/verification.py)."""
    return Refusal(
        "verification_required",
        "confirm your email address first: follow the link we mailed you when you signed "
        "up, or ask for a new one on your account page (the bot needs no confirmation)",
    )


def http_status(code: str) -> int:
    """The HTTP status that answers a refusal with this code."""
    return STATUS.get(code, 400)
