"""What follows a game's end, exactly once in effect: archiving and rating it, and moving
its match on. Driven durably by the finished-games queue.

commit.lua queues every game that ends in its bucket's finished-games set (keys.finished),
claimable after a grace period. Two paths then run the steps (``Rater.finish``,
``MatchService.advance``), and either may run any number of times for a game, so every
step is idempotent:

- live: every hub's fan-out hook sees each game's final event and runs the steps at once;
- sweep: every hub claims due entries of the queue for a lease and runs their steps, so
  nothing is lost when the hub that saw the event dies, or a step failed half-way.

The entry leaves the queue only once every step has succeeded.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final

from redis.asyncio import Redis

from brandubh.hub import keys, redis_client
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

    def on_event(self, event: dict[str, Any]) -> None:
        """Fan-out hook: a game's final event starts its follow-up at once."""
        state = event.get("state")
        if not isinstance(state, dict) or state.get("status") != "ended":
            return
        if len(self._live) >= MAX_LIVE:
            return  # a burst of endings: the sweep (which claims, one hub each) takes it
        task = asyncio.create_task(self.finish(str(event["game"])))
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
        claims: list[redis_client.Call] = [
            (self.scripts.claim, [keys.finished(b)], [CLAIM_LEASE_MS, CLAIM_BATCH])
            for b in range(keys.BUCKETS)
        ]
        # A bucket whose node cannot answer now (None) is claimed again next turn.
        claimed = [c or [] for c in await redis_client.run_scripts(self.redis, claims)]
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
