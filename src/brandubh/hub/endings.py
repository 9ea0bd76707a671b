"""What follows a game's end, exactly once in effect: archiving and rating it, and moving
its match on. Driven durably by the finished-games queue.

commit.lua queues every game that ends in its bucket's finished-games set (keys.finished),
claimable after a grace period. Two paths then run the steps (``Rater.finish``,
``MatchService.advance``), and either may run any number of times for a game, so every
step is idempotent:

- live: the hub that committed the ending runs the steps at once (a commit hook);
- sweep: every hub claims due entries of the queue for a lease and runs their steps, so
  nothing is lost when the hub that saw the event dies, or a step failed half-way.

The entry leaves the queue only once every step has succeeded.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Final, cast

from redis.asyncio import Redis

from brandubh.hub import keys
from brandubh.hub.changes import Change
from brandubh.hub.scripts import Scripts

log = logging.getLogger("brandubh.endings")

CLAIM_LEASE_MS: Final = 30_000
CLAIM_BATCH: Final = 50
# At most this many endings followed up at once from events; more wait for the sweep, so
# that a burst of endings (a wave of timeouts) cannot crowd out the hub's other work.
MAX_LIVE: Final = 8

# One step after an ending, given the game's id; it raises if it must be tried again.
Step = Callable[[str], Awaitable[object]]


class Endings:
    def __init__(self, redis: Redis, scripts: Scripts, steps: Sequence[Step]) -> None:
        self.redis = redis
        self.scripts = scripts
        self.steps = tuple(steps)
        self._live: set[asyncio.Task[bool]] = set()

    def on_commit(self, change: Change, n: int, frame: bytes) -> None:
        """Commit hook: a change this process committed that ended a game starts its
        follow-up at once."""
        if change.new.status != "ended":
            return
        if len(self._live) >= MAX_LIVE:
            return  # a burst of endings: the sweep (which claims, one hub each) takes it
        task = asyncio.create_task(self.finish(change.new.id))
        self._live.add(task)
        task.add_done_callback(self._live.discard)

    async def finish(self, game_id: str) -> bool:
        """Run every step for a game; dequeue it when all succeeded. False if one failed
        (the queue's lease brings it back to a sweep)."""
        for step in self.steps:
            try:
                await step(game_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("after game %s ended, a step failed; the sweep will retry", game_id)
                return False
        await self.redis.zrem(keys.finished(keys.bucket(game_id)), game_id)
        return True

    async def sweep(self) -> int:
        """Claim every queued ending whose grace has passed (one round trip for all buckets)
        and follow it up; how many were finished now."""
        pipe = self.redis.pipeline(transaction=False)
        for b in range(keys.BUCKETS):
            await self.scripts.claim(
                keys=[keys.finished(b)], args=[CLAIM_LEASE_MS, CLAIM_BATCH], client=pipe
            )
        claimed = cast(list[list[bytes]], await pipe.execute())
        done = 0
        for batch in claimed:
            for raw in batch:
                done += await self.finish(raw.decode())
        return done

    async def stop(self) -> None:
        tasks = list(self._live)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
