"""What a socket may spend: token buckets for its messages and its errors, the budget
one session's sockets share on this hub, and how many sockets each client address holds
here (capped)."""

from __future__ import annotations

import time

from brandubh.hub.config import Settings


class TokenBucket:
    """``capacity`` tokens, refilled continuously at ``rate`` per second."""

    __slots__ = ("capacity", "rate", "stamp", "tokens")  # two per socket

    def __init__(self, capacity: float, rate: float) -> None:
        self.capacity = capacity
        self.rate = rate
        self.tokens = capacity
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class SharedBudgets:
    """What one session's sockets on this hub share (a message budget), and how many
    sockets each client address holds here (capped)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._sessions: dict[str, tuple[TokenBucket, int]] = {}
        self._addresses: dict[str, int] = {}

    def admit(self, address: str) -> bool:
        """Count a new socket of this address, unless it holds its share already."""
        held = self._addresses.get(address, 0)
        cap = self.settings.sockets_per_address
        if cap and held >= cap:
            return False
        self._addresses[address] = held + 1
        return True

    def release(self, address: str) -> None:
        held = self._addresses.get(address, 0) - 1
        if held > 0:
            self._addresses[address] = held
        else:
            self._addresses.pop(address, None)

    def join(self, session_id: str) -> TokenBucket:
        """The session's shared budget (one per session on this hub), for one more socket."""
        s = self.settings
        bucket, users = self._sessions.get(session_id) or (
            TokenBucket(s.session_credits, s.session_credits / s.credit_window_s),
            0,
        )
        self._sessions[session_id] = (bucket, users + 1)
        return bucket

    def leave(self, session_id: str) -> None:
        bucket, users = self._sessions[session_id]
        if users > 1:
            self._sessions[session_id] = (bucket, users - 1)
        else:
            del self._sessions[session_id]
