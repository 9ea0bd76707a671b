"""The scheduler: ends games whose move deadline passed, exactly once, from any hub.

Every hub runs one (``tick`` is one of the lifespan's loops). Each polls its buckets'
deadline indexes (sorted sets scored by the deadline, written by commit.lua) and hands
every due game to ``GameService.expire``, which commits the timeout through the one
commit path. commit.lua re-checks the deadline against Redis's clock and the game's
version, so two schedulers firing at once, or a move racing the deadline, end in exactly
one change: no lock is needed.

About once a second each scheduler also beats (lua/heartbeat.lua). A gap between beats
longer than the outage threshold means no hub ran at all: that interval is recorded as an
outage, and a deadline that fell inside it is extended by it (docs/fair-play.md).
"""

from __future__ import annotations

import logging
import time
from typing import cast

from redis.asyncio import Redis

from brandubh.hub import keys, redis_client
from brandubh.hub.games import GameService
from brandubh.hub.scripts import Scripts

log = logging.getLogger("brandubh.scheduler")

OUTAGES_KEPT = 100
FIRING_BATCH = 200  # due games read and committed in one pipeline each
CLAIM_LEASE_MS = 1000


class Scheduler:
    def __init__(
        self,
        redis: Redis,
        scripts: Scripts,
        games: GameService,
        *,
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
        self.outages: list[tuple[int, int]] = []
        self.offset_ms = 0.0  # Redis clock minus this process's clock
        self.fired = 0
        self._next_beat = 0.0

    def redis_now_ms(self) -> int:
        """This process's estimate of Redis's clock (only to choose what to look at)."""
        return int(time.time() * 1000 + self.offset_ms)

    async def beat(self) -> None:
        local = time.time() * 1000
        now, started = await self.scripts.heartbeat(
            keys=[keys.alive(), keys.outages()],
            args=[int(self.outage_after_s * 1000), OUTAGES_KEPT],
        )
        self.offset_ms = int(now) - local
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
        claims: list[redis_client.Call] = [
            (self.scripts.claim, [keys.deadlines(b)], [CLAIM_LEASE_MS, FIRING_BATCH])
            for b in range(keys.BUCKETS)
        ]
        # A bucket whose node cannot answer now (None) is claimed again next turn.
        due = [c or [] for c in await redis_client.run_scripts(self.redis, claims)]
        ids = [raw.decode() for batch in due for raw in batch]
        done = 0
        for start in range(0, len(ids), FIRING_BATCH):
            done += await self.games.expire_many(ids[start : start + FIRING_BATCH], self.outages)
        self.fired += done
        return done
