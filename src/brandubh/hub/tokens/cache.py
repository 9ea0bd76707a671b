"""The holders of API tokens this hub resolved lately, kept a short while so that a
request need not read PostgreSQL: bounded, the least recently used dropped first. What
makes a kept holder wrong (a revocation, a bot upgrade) reaches every hub through Redis
marks that each request reads (lua/api_request.lua), not through this memory."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from brandubh.store import ApiToken


@dataclass
class Held:
    """A token's holder as PostgreSQL gave it, and when this hub last noted its use."""

    token: ApiToken
    name: str
    bot: bool
    until: float  # on the cache's clock: read PostgreSQL again from then on
    noted: float | None = None  # on the cache's clock: when this hub last noted its use


class HolderCache:
    """Holders by their token's SHA-256, each kept ``keep_s`` seconds, at most ``most``."""

    def __init__(
        self, most: int, keep_s: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if most < 1:
            raise ValueError(f"a holder cache keeps at least one holder, not {most}")
        self.most = most
        self.keep_s = keep_s
        self.clock = clock
        self._held: OrderedDict[bytes, Held] = OrderedDict()

    def __len__(self) -> int:
        return len(self._held)

    def get(self, digest: bytes) -> Held | None:
        """The holder kept for this token, unless none is or it is too old."""
        held = self._held.get(digest)
        if held is None:
            return None
        if self.clock() >= held.until:
            del self._held[digest]
            return None
        self._held.move_to_end(digest)
        return held

    def put(
        self, digest: bytes, token: ApiToken, name: str, bot: bool, asked: float | None = None
    ) -> Held:
        """Keep a holder just read, dropping the least recently used one when full. Its
        time counts from ``asked`` (when it was asked of PostgreSQL) if given, so that a
        slow answer is not kept past a mark set since (service.py's ``MARK_MS``)."""
        start = self.clock() if asked is None else asked
        held = Held(token, name, bot, start + self.keep_s)
        self._held[digest] = held
        self._held.move_to_end(digest)
        while len(self._held) > self.most:
            self._held.popitem(last=False)
        return held

    def drop(self, digest: bytes) -> None:
        self._held.pop(digest, None)
