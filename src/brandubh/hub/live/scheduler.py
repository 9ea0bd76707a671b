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

One sweep claims every bucket's due deadlines with one script call on one Redis (on a
cluster, where a script may touch one slot, one call a bucket, pipelined per node). The
sweep polls about once a second (``poll_s``): every deadline is set at least a minute
ahead (terms.MIN_MOVE_TIME), so polling catches it long before it is due. What makes a
timeout prompt is the planned wake-up: each sweep learns when the earliest deadline left
falls due (claim.lua's "next"), and every deadline this process commits (a move's, an
outage's extension) is noted as it is set (``on_commit``); the loop wakes just after the
earliest, once every hub's watermark can have passed it (``wake_delay``). A deadline
that is due but held back (a hub's watermark behind it, more due than one claim takes)
is looked at again after a watermark interval; less and less often only while the
watermarks do not move on (a stalled hub), not while they merely trail a wave of deadlines.

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

from brandubh.hub.live.changes import Change
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
# A planned wake-up comes this long after the deadline: by then every live hub in use has
# written a watermark past it (clock.MARK_S is 25 ms), so the claim can take it.
WAKE_AFTER_DUE_MS = 30
WAKE_MIN_S = 0.005  # never sooner
# A due deadline held back is looked at again after this long, doubling with each sweep
# in a row that finds the watermarks no further on, up to the poll: a stalled hub costs a
# few sweeps. (In a wave of deadlines the watermarks trail by a few tens of ms, but move.)
HELD_BACK_RETRY_S = 0.025


def wake_delay(
    next_due_ms: int | None, now_ms: int, poll_s: float, held_back: int = 0
) -> float | None:
    """How long after now to sweep again for the earliest deadline left, or None when the
    poll comes first. A deadline due already was held back (a watermark behind it, or more
    due than a claim takes): it is retried after HELD_BACK_RETRY_S, doubled for each of
    the ``held_back`` sweeps in a row that found the watermarks stuck."""
    if next_due_ms is None:
        return None
    delay = (next_due_ms + WAKE_AFTER_DUE_MS - now_ms) / 1000
    if delay < WAKE_MIN_S:
        delay = HELD_BACK_RETRY_S * 2 ** min(held_back, 16)
    return delay if delay < poll_s else None


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
        poll_s: float = 1.0,
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
        self._held_back = 0  # sweeps in a row that left a due deadline, the marks stuck
        self._safe: int | None = None  # the time safe to judge up to at the last sweep
        self._sets = [keys.deadlines(b) for b in range(keys.BUCKETS)]

    async def beat(self) -> None:
        """Beat, and measure this process's clock against Redis's on the way."""
        sent = time.monotonic()
        now, started, *raw = cast(
            list[bytes],
            await self.scripts.heartbeat(
                keys=[keys.alive(), keys.outages()],
                args=[int(self.outage_after_s * 1000), OUTAGES_KEPT],
            ),
        )
        self.clock.measured(int(now), sent, time.monotonic())
        if int(started):
            log.warning(
                "the whole service was down for %.1f s: extending deadlines",
                (int(now) - int(started)) / 1000,
            )
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
        if self.lane is not None:  # on one Redis: the claims' round trip, as the commits'
            reply = await self.lane.script(self.scripts.claim, self._sets, args)
            replies = [cast(list[bytes], reply)]
        else:
            claim = self.scripts.claim
            replies = await redis_client.claim_buckets(self.redis, claim, self._sets, args)
        nexts = [int(float(reply[0])) for reply in replies if reply and reply[0]]
        next_due = min(nexts, default=None)
        now = self.clock.now_ms()
        held = next_due is not None and next_due + WAKE_AFTER_DUE_MS - now < WAKE_MIN_S * 1000
        stuck = held and safe is not None and self._safe is not None and safe <= self._safe
        self._held_back = self._held_back + 1 if stuck else 0
        self._safe = safe
        self._plan(wake_delay(next_due, now, self.poll_s, self._held_back))
        ids = [raw.decode() for reply in replies for raw in reply[1:]]
        done = 0
        for start in range(0, len(ids), FIRING_BATCH):
            batch = ids[start : start + FIRING_BATCH]
            done += await self.games.expire_many(batch, self.outages, safe)
        self.fired += done
        if done:
            self._busy_until = time.monotonic() + BUSY_AFTER_FIRING_S
        return done

    def on_commit(self, change: Change, n: int, frame: bytes) -> None:
        """Commit hook: a deadline this process just set that falls due before the next
        poll (a minute's never does, but for tests' scaled times and outage extensions) is
        planned for at once; other hubs' are found by the sweeps, or fired by their own."""
        if change.deadline_change == "at":
            due = change.deadline_ms
        elif change.deadline_change == "set" and change.deadline_ms < self.poll_s * 1000:
            due = self.clock.now_ms() + change.deadline_ms  # (Redis's clock, within a ms)
        else:
            return
        self._plan(wake_delay(due, self.clock.now_ms(), self.poll_s))

    def _plan(self, delay: float | None) -> None:
        """Sweep again after ``delay`` s, unless a sweep is planned sooner already."""
        if delay is None:
            return
        loop = asyncio.get_running_loop()
        at = loop.time() + delay
        if self._timer is not None:
            if self._timer.when() <= at:
                return
            self._timer.cancel()
        self._timer = loop.call_at(at, self._ring)

    def _ring(self) -> None:
        self._timer = None
        self.wake.set()

    def busy(self) -> bool:
        """Whether deadlines fell due just now (more may follow): work that can wait should."""
        return time.monotonic() < self._busy_until
