"""One request of a personal API token as Redis checks it (lua/token_check.lua): its keys,
its arguments and, once run, its answer. Made by the tokens' guard (hub/tokens/service.py)
and run either by its own call (lua/api_request.lua) or, for a Bot API move on one Redis,
by the move's commit (lua/commit.lua, hub/live/commit.py), so that the move is one call."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from brandubh.hub.redis.client import Reply


@dataclass(frozen=True, slots=True)
class TokenAnswer:
    """What the check found: ``state`` -1 revoked, 1 the window full (``wait_ms`` until it
    has room; nothing counted), 0 counted; ``bot`` the account's bot upgrade marked."""

    state: int
    wait_ms: int
    bot: bool


@dataclass(slots=True)
class TokenCheck:
    """A token request's check, to be run once: ``judge`` (the guard's) is given its
    answer and raises the token's refusal, if any."""

    requests: str  # keys.api_requests: the token's window
    revoked: str  # keys.api_revoked: its revoked mark
    bot: str  # keys.api_bot: its account's bot mark
    window_ms: int
    nonce: str  # the request's member of the window: sent again, counted once
    most: int  # requests a window (0: no limit)
    judge: Callable[[TokenAnswer], None]
    answer: TokenAnswer | None = None

    @property
    def keys(self) -> list[str]:
        return [self.requests, self.revoked, self.bot]

    def answered(self, reply: Reply) -> TokenAnswer:
        """token_check's reply (or the first three values of commit.lua's), kept and
        judged: raises the token's refusal when it refused the request."""
        answer = TokenAnswer(int(reply[0]), int(reply[1]), bool(int(reply[2])))
        self.answer = answer
        self.judge(answer)
        return answer
