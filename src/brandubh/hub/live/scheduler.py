"""The scheduler: ends games whose move deadline passed, exactly once, from any hub.

Every hub runs one (``tick`` is one of the lifespan's loops). Each polls its buckets'
deadline indexes (sorted sets scored by the deadline, written by commit.lua) and hands
every due game to ``GameService.expire``, which commits the timeout through the one
commit path. commit.lua re-checks the deadline against Redis's clock and the game's
version, so two schedulers firing at once, or a move racing the deadline, end in exactly
one change: no lock is needed.

A deadline is fired only once no live hub can still hold a move received before it
(clock.Marks.safe): a move a hub received in time is never beaten by the timeout because
Redis, that hub or this scheduler stalled (docs/fair-play.md).

Besides polling, each sweep learns when the earliest deadline left falls due (claim.lua's
"next") and wakes the loop just after it, once the other hubs' watermarks can have
passed it (``wake_delay``): a deadline is fired tens of ms after it passed, not whenever
the next poll happens to come.

About once a second each scheduler also beats (lua/heartbeat.lua). A gap between beats
longer than the outage threshold means no hub ran at all: that interval is recorded as an
outage, and a deadline that fell inside it is extended by it (docs/fair-play.md).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import cast

from redis.asyncio import Redis

from brandubh.hub.live.clock import Marks, RedisClock
from brandubh.hub.live.games import GameService
from brandubh.hub.redis import Lane, Scripts, keys
from brandubh.hub.redis import client as redis_client

log = logging.getLogger(__name__)

OUTAGES_KEPT = 100
FIRING_BATCH = 200  # due games read and committed in one pipeline each
CLAIM_LEASE_MS = 300  # a sweep takes tens of ms; a dead hub's claims wait this long
# After a sweep that fired deadlines, the follow-up of endings (archive, ratings) waits
# this long before taking more CPU: in a wave of timeouts the clock comes first.
BUSY_AFTER_FIRING_S = 0.25
# A planned wake-up comes this long after the deadline: by then every live hub has
# written a watermark past it (app.MARK_S is 25 ms), so the claim can take it.
WAKE_AFTER_DUE_MS = 30
WAKE_MIN_S = 0.005  # never sooner: a deadline held back longer waits for the poll


def wake_delay(next_due_ms: int | None, now_ms: int, poll_s: float) -> float | None:
    """How long after now to wake for the earliest deadline left (due, or due already but
    not yet past every hub's watermark), or None when the poll comes first, or when it
    is held back longer than a watermark takes (a stalled hub: the poll rechecks)."""
    if next_due_ms is None:
        return None
    delay = (next_due_ms + WAKE_AFTER_DUE_MS - now_ms) / 1000
    return delay if WAKE_MIN_S <= delay < poll_s else None


class Scheduler:
    def __init__(
        self,
        redis: Redis,
        scripts: Scripts,
        games: GameService,
        clock: RedisClock,
        marks: Marks | None = None,
        *,
        lane: Lane | None = None,
        poll_s: float = 0.05,
        beat_s: float = 1.0,
        outage_after_s: float = 30.0,
    ) -> None:
        self.redis = redis
        self.scripts = scripts
        self.games = games
        self.poll_s = poll_s
        self.beat_s = beat_s
        self.outage_after_s = outage_after_s
        self.clock = clock
        self.marks = marks
        self.lane = lane  # the claims' round trip, as the commits' (lane.py)
        self.outages: list[tuple[int, int]] = []
        self.fired = 0
        self._busy_until = 0.0
        self._next_beat = 0.0
        self.wake = asyncio.Event()  # the loop's wake-up: set when a deadline falls due
        self._timer: asyncio.TimerHandle | None = None

    async def beat(self) -> None:
        """Beat, and measure this process's clock against Redis's on the way."""
        sent = time.monotonic()
        now, started = await self.scripts.heartbeat(
            keys=[keys.alive(), keys.outages()],
            args=[int(self.outage_after_s * 1000), OUTAGES_KEPT],
        )
        self.clock.measured(int(now), sent, time.monotonic())
        if int(started):
            log.warning(
                "the whole service was down for %.1f s: extending deadlines",
                (int(now) - int(started)) / 1000,
            )
        raw = cast(list[bytes], await self.redis.lrange(keys.outages(), 0, -1))
        self.outages = [(int(a), int(b)) for a, b in (item.decode().split(":") for item in raw)]
        self._next_beat = time.monotonic() + self.beat_s

    async def tick(self) -> None:
        """One turn of the scheduler's loop: beat when it is time, then fire what is due."""
        if time.monotonic() >= self._next_beat:
            await self.beat()
        await self.sweep()

    async def sweep(self) -> int:
        """Fire every deadline due now; return how many games it ended or extended.

        Due entries are claimed for a short lease (lua/claim.lua) so that two schedulers
        do not both work on them; one that dies only delays what it claimed until the
        lease runs out, and commit.lua would refuse a second firing anyway.
        """
        safe = await self.marks.safe(self.redis) if self.marks is not None else None
        args = [CLAIM_LEASE_MS, FIRING_BATCH, "" if safe is None else safe, "next"]
        lane = self.lane
        if lane is not None:  # every bucket's claim written at once: one round trip
            claims = (
                lane.script(self.scripts.claim, [keys.deadlines(b)], args)
                for b in range(keys.BUCKETS)
            )
            due = cast(list[list[bytes]], await asyncio.gather(*claims))
        else:  # one pipeline (on a cluster, one per node; None where a node cannot answer)
            calls: list[redis_client.Call] = [
                (self.scripts.claim, [keys.deadlines(b)], args) for b in range(keys.BUCKETS)
            ]
            due = [c or [] for c in await redis_client.run_scripts(self.redis, calls)]
        nexts = [int(float(batch[0])) for batch in due if batch and batch[0]]
        self._plan(min(nexts, default=None))
        ids = [raw.decode() for batch in due for raw in batch[1:]]
        done = 0
        for start in range(0, len(ids), FIRING_BATCH):
            batch = ids[start : start + FIRING_BATCH]
            done += await self.games.expire_many(batch, self.outages, safe)
        self.fired += done
        if done:
            self._busy_until = time.monotonic() + BUSY_AFTER_FIRING_S
        return done

    def _plan(self, next_due_ms: int | None) -> None:
        """Wake the loop for the earliest deadline left, if it comes before the poll."""
        delay = wake_delay(next_due_ms, self.clock.now_ms(), self.poll_s)
        if delay is None:
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(delay, self.wake.set)

    def busy(self) -> bool:
        """Whether deadlines fell due just now (more may follow): work that can wait should."""
        return time.monotonic() < self._busy_until
