"""The archive's reconciliation pass: every ended game still in Redis and not let go is in
the finished-games queue, whatever became of its entry.

The invariant it keeps: a game's live keys get an expiry only from ``Rater.let_go``, which
runs once the game's PostgreSQL transaction has committed (or, for a game that never
started, from its creation: a waiting invitation, which is no ended game). So an ended
game whose hash has no expiry is not archived yet, and must be queued (keys.finished)
for endings.py. The pass scans every game's hash (SCAN: no index to trust) and queues
again any such game missing from its bucket's queue: due at once, an entry under a lease
left alone (``NX``). A game queued twice is harmless: every step after an ending is
idempotent, and the archive answers ``dup``.

It runs at most once per ``EVERY_MS`` across the service: each hub tries to claim the one
entry of ``keys.reconcile`` every ``POLL_S`` with lua/claim.lua, whose lease is the period,
so a hub that dies mid-pass only delays the next. It reads Redis alone: it works, and
matters most, while PostgreSQL is down.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Final

from redis.asyncio import Redis

from brandubh.hub.redis import Scripts, keys

log = logging.getLogger(__name__)

EVERY_MS: Final = 60_000  # the pass, once per this across the service
POLL_S: Final = 10.0  # each hub's attempt to claim it
SCAN_COUNT: Final = 500  # game hashes read in one round trip
PASS: Final = "archive"  # the one entry of keys.reconcile


class Reconciler:
    def __init__(self, redis: Redis, scripts: Scripts, every_ms: int = EVERY_MS) -> None:
        self.redis = redis
        self.scripts = scripts
        self.every_ms = every_ms

    async def tick(self) -> int:
        """Loop step: the pass, when this hub claims it; how many games it queued again."""
        await self.redis.zadd(keys.reconcile(), {PASS: 0}, nx=True)
        if not await self.scripts.claim(keys=[keys.reconcile()], args=[self.every_ms, 1]):
            return 0
        return await self.run()

    async def run(self) -> int:
        """One pass over every game's hash; how many ended games it queued again."""
        queued = 0
        batch: list[str] = []
        async for raw in self.redis.scan_iter(
            match=keys.games_pattern(), count=SCAN_COUNT, _type="hash"
        ):
            batch.append(keys.game_of_key(raw.decode() if isinstance(raw, bytes) else raw))
            if len(batch) >= SCAN_COUNT:
                queued += await self._check(batch)
                batch = []
        if batch:
            queued += await self._check(batch)
        return queued

    async def _check(self, game_ids: Sequence[str]) -> int:
        """Queue again those of these games that ended, are not let go and not queued."""
        pipe = self.redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.hget(keys.game(game_id), "status")
            pipe.pttl(keys.game(game_id))
            pipe.zscore(keys.finished(keys.bucket(game_id)), game_id)
        replies = await pipe.execute()
        lost = [
            game_id
            for game_id, status, ttl, due in zip(
                game_ids, replies[::3], replies[1::3], replies[2::3], strict=True
            )
            if status == b"ended" and ttl == -1 and due is None
        ]
        if not lost:
            return 0
        pipe = self.redis.pipeline(transaction=False)
        for game_id in lost:
            pipe.zadd(keys.finished(keys.bucket(game_id)), {game_id: 0}, nx=True)
        await pipe.execute()
        log.warning("ended games missing from the archive queue, queued again: %s", lost)
        return len(lost)
