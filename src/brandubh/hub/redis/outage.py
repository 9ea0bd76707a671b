"""One line per Redis outage, not one traceback per socket, request and loop turn.

Everything in a hub that meets a Redis connection error reports it here. The first report
of a run is logged (one line, no traceback); the rest are only counted until Redis answers
again (``recovered``, called by whatever next succeeds), which is logged once too.
"""

from __future__ import annotations

import logging
import time
from typing import Final

from redis.exceptions import (
    AskError,
    BusyLoadingError,
    ClusterDownError,
    MovedError,
    RedisClusterException,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger(__name__)

# The errors that mean "Redis cannot be reached now" rather than a bug; the second line:
# a Redis Cluster whose layout is changing (a master lost, its replica not yet promoted).
UNREACHABLE: Final = (
    *(RedisConnectionError, RedisTimeoutError, BusyLoadingError, OSError),
    *(ClusterDownError, TryAgainError, MovedError, AskError, RedisClusterException),
)
# What redis-py's asyncio cluster client can raise instead of a ConnectionError when the
# connection under a command is torn down by a node going away (its writer gone, its
# transport closed): on a cluster a socket's message that meets one is answered
# 'unavailable' (connection.py), like any lost connection.
TORN: Final = (AttributeError, RuntimeError)
REMIND_S: Final = 60.0  # a long outage is logged again this often, one line each time


class _Outage:
    def __init__(self) -> None:
        self.since: float | None = None
        self.count = 0
        self.reminded = 0.0

    def report(self, where: str, exc: BaseException) -> None:
        now = time.monotonic()
        self.count += 1
        if self.since is None:
            self.since = self.reminded = now
            log.error("Redis unreachable (%s: %s); retrying", where, exc or type(exc).__name__)
        elif now - self.reminded >= REMIND_S:
            self.reminded = now
            log.error(
                "Redis still unreachable after %.0f s (%d errors)", now - self.since, self.count
            )

    def recovered(self) -> None:
        if self.since is not None:
            log.warning(
                "Redis reachable again after %.1f s (%d errors)",
                time.monotonic() - self.since,
                self.count,
            )
            self.since = None
            self.count = 0

    @property
    def active(self) -> bool:
        return self.since is not None


OUTAGE: Final = _Outage()


def report(where: str, exc: BaseException) -> None:
    """Note that Redis could not be reached (logged once per outage)."""
    OUTAGE.report(where, exc)


def recovered() -> None:
    """Note that Redis answered (ends an outage, logged once)."""
    OUTAGE.recovered()
