"""What follows a game's end, exactly once in effect: moving its match on, and archiving
and rating it. Driven durably by the finished-games queue.

commit.lua queues every game that ends in its bucket's finished-games set (keys.finished),
claimable after a grace period. Two paths then run the steps (``MatchService.advance``,
``Rater.finish``), and either may run any number of times for a game, so every step is
idempotent:

- live: the hub that committed the ending runs the steps at once (a commit hook; at most
  ``MAX_LIVE`` at a time, up to ``BACKLOG`` more wait their turn in this hub, and a burst
  beyond that waits for the sweep);
- sweep: every hub claims due entries of the queue for a lease and runs their steps, so
  nothing is lost when the hub that saw the event dies, or a step failed half-way.

The entry leaves the queue only once every step has succeeded. PostgreSQL unreachable
(a step raises ``StoreUnavailable``): the claimed games become due again after a pause that
doubles up to ``MAX_BACKOFF_S``, and the live path waits for the sweep meanwhile.

Nothing a hub holds is held for ever: the sweep leaves alone a game this hub follows up
live only for ``HOLD_MAX_S`` (its claim would otherwise renew the game's lease at every
turn, keeping it from every other hub too), and a live follow-up that ends, however it
ends, leaves no game waiting in its backlog unseen (``_drain``). So once PostgreSQL is back,
every queued game is archived within ``MAX_BACKOFF_S`` plus ``CLAIM_LEASE_MS``
(docs/storage.md); an ended game missing from the queue is found by reconcile.py.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Final

from redis.asyncio import Redis

from brandubh.hub.background import Tasks
from brandubh.hub.live.changes import Change
from brandubh.hub.redis import Scripts, keys
from brandubh.hub.redis import client as redis_client
from brandubh.store import StoreUnavailable

log = logging.getLogger(__name__)

CLAIM_LEASE_MS: Final = 30_000
CLAIM_BATCH: Final = 50
# At most this many endings followed up at once, so that a burst of endings (a wave of
# timeouts) cannot crowd out the hub's other work.
MAX_LIVE: Final = 8
# Endings seen live beyond MAX_LIVE wait here for a free slot rather than for the sweep
# (whose queue grace and poll cost seconds of lag in a burst); bounded, so a storm of
# endings costs this hub at most this many game ids of memory.
BACKLOG: Final = 2000
# While the scheduler is firing a wave of deadlines, a follow-up waits for it in steps of
# DEFER_STEP_S, at most DEFER_MAX_S a game (so that a steady overload cannot starve it).
DEFER_STEP_S: Final = 0.05
DEFER_MAX_S: Final = 5.0
FIRST_BACKOFF_S: Final = 1.0
MAX_BACKOFF_S: Final = 30.0  # the longest pause between sweeps while PostgreSQL is down
# The longest a game followed up live here keeps this hub's sweep off it: past it the sweep
# takes it too (idempotent), whatever became of its follow-up.
HOLD_MAX_S: Final = CLAIM_LEASE_MS / 1000

# One step after an ending, given the game's id; it raises if it must be tried again.
Step = Callable[[str], Awaitable[object]]


class Endings:
    def __init__(
        self,
        redis: Redis,
        scripts: Scripts,
        steps: Sequence[Step],
        defer: Callable[[], bool] = lambda: False,
    ) -> None:
        self.redis = redis
        self.scripts = scripts
        self.steps = tuple(steps)
        self.defer = defer  # True while the clock's work comes first (Scheduler.busy)
        self._live = Tasks()
        self._backlog: collections.deque[str] = collections.deque()
        # Live follow-ups that may still read the backlog. Not len(self._live): a task that
        # has returned is counted there until its done-callback runs, a loop turn later,
        # and an ending told in between would wait in a backlog nobody reads any more.
        self._draining = 0
        # Games this hub is following up now -> since when (time.monotonic()): its sweep
        # leaves them alone for HOLD_MAX_S.
        self._held: dict[str, float] = {}
        self.backoff_s = 0.0  # > 0 while PostgreSQL is unreachable
        self._resume = 0.0  # time.monotonic() before which the sweep waits

    def on_commit(self, change: Change, n: int, frame: bytes) -> None:
        """Commit hook: a change this process committed that ended a game starts its
        follow-up at once."""
        if change.new.status != "ended":
            return
        game_id = change.new.id
        if self.backoff_s or game_id in self._held:
            return  # the sweep (which claims, one hub each) takes it
        if self._draining < MAX_LIVE:
            self._held[game_id] = time.monotonic()
            self._draining += 1
            self._live.start(self._drain(game_id))
        elif len(self._backlog) < BACKLOG:
            self._held[game_id] = time.monotonic()
            self._backlog.append(game_id)
        # else: a burst beyond the backlog: the sweep takes it

    async def _drain(self, game_id: str) -> bool:
        """Follow a game up, then those waiting in the backlog; the first one's outcome.
        PostgreSQL unreachable, or this follow-up failed: the backlog is dropped (its games
        stay queued for the sweep, which pauses)."""
        reachable: bool | None = None
        try:
            first = reachable = await self._held_finish(game_id)
            while self._backlog and reachable is not None and not self.backoff_s:
                reachable = await self._held_finish(self._backlog.popleft())
            return bool(first)
        except BaseException:
            reachable = None
            raise
        finally:
            # No await between the backlog's last look and here: an ending told meanwhile
            # either found this follow-up counted, and was read above, or started its own.
            self._draining -= 1
            if reachable is None or self.backoff_s:
                for waiting in self._backlog:
                    self._held.pop(waiting, None)
                self._backlog.clear()

    async def _held_finish(self, game_id: str) -> bool | None:
        """finish(), with None for PostgreSQL unreachable (the game waits for the sweep)."""
        try:
            waited = 0.0
            while self.defer() and waited < DEFER_MAX_S:
                await asyncio.sleep(DEFER_STEP_S)
                waited += DEFER_STEP_S
            return await self.finish(game_id)
        except StoreUnavailable:
            log.warning("PostgreSQL unreachable: game %s waits for the sweep", game_id)
            return None
        finally:
            self._held.pop(game_id, None)

    async def finish(self, game_id: str) -> bool:
        """Run every step for a game; dequeue it when all succeeded. False if one failed
        (the queue's lease brings it back to a sweep); StoreUnavailable is raised."""
        for step in self.steps:
            try:
                await step(game_id)
            except (asyncio.CancelledError, StoreUnavailable):
                raise
            except Exception:
                log.exception("after game %s ended, a step failed; the sweep will retry", game_id)
                return False
        await self.redis.zrem(keys.finished(keys.bucket(game_id)), game_id)
        return True

    async def sweep(self) -> int:
        """Claim every queued ending whose grace has passed (one round trip for all buckets)
        and follow it up, MAX_LIVE at once; how many were finished now."""
        if time.monotonic() < self._resume:
            return 0
        sets = [keys.finished(b) for b in range(keys.BUCKETS)]
        # A bucket whose node cannot answer now (on a cluster) is claimed next turn.
        args = [CLAIM_LEASE_MS, CLAIM_BATCH]
        batches = await redis_client.claim_buckets(self.redis, self.scripts.claim, sets, args)
        since = time.monotonic() - HOLD_MAX_S
        claimed = [
            g
            for batch in batches
            for raw in batch
            if (g := raw.decode()) not in self._held or self._held[g] <= since
        ]
        done = 0
        for i in range(0, len(claimed), MAX_LIVE):
            batch = claimed[i : i + MAX_LIVE]
            # A cancelled sweep raises here (gather cancels its children); a CancelledError
            # among the results is one game's own (a driver's), which must not end the
            # sweep's loop for good: that game's lease brings it back, like any failure.
            results = await asyncio.gather(*(self.finish(g) for g in batch), return_exceptions=True)
            done += sum(r is True for r in results)
            if any(isinstance(r, StoreUnavailable) for r in results):
                await self._pause([g for g, r in zip(batch, results, strict=True) if r is not True]
                                  + claimed[i + MAX_LIVE :])  # fmt: skip
                return done
        # Only a sweep that reached PostgreSQL says it is back: the one just after a pause
        # often claims nothing (the games it put off fall due a moment later).
        if self.backoff_s and claimed:
            log.warning("PostgreSQL reachable again: archiving goes on")
            self.backoff_s = 0.0
        return done

    async def _pause(self, waiting: list[str]) -> None:
        """PostgreSQL is unreachable: the claimed games are due again after the next pause,
        which doubles each time, up to MAX_BACKOFF_S."""
        first = not self.backoff_s
        self.backoff_s = min(MAX_BACKOFF_S, (self.backoff_s * 2) or FIRST_BACKOFF_S)
        self._resume = time.monotonic() + self.backoff_s
        due = int((time.time() + self.backoff_s) * 1000)
        pipe = self.redis.pipeline(transaction=False)
        for game_id in waiting:
            pipe.zadd(keys.finished(keys.bucket(game_id)), {game_id: due}, xx=True)
        await pipe.execute()
        if first:
            log.warning("PostgreSQL unreachable: archiving %d games later", len(waiting))

    async def stop(self) -> None:
        await self._live.cancel()
