"""Plays due conditional replies: claims them from Redis for a lease, commits like a player.

commit.lua queues a game in its bucket's job set (keys.conditional_jobs) with the move
that a stored line answers, so a hub killed right after that commit loses nothing. Every
hub may take the job: the one that committed wakes at once (a commit hook), every other on a
slow poll, and a claim is a lease (lua/claim.lua) that comes due again if its hub dies.
The reply is committed as the owner's move with the message id ``cond-<ply>``: two hubs
racing on one reply apply it once, and the commit of it dequeues the job.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Final

from redis.asyncio import Redis

from brandubh.hub.background import Tasks
from brandubh.hub.errors import Refusal
from brandubh.hub.live.changes import Change
from brandubh.hub.live.clock import Marks, RedisClock
from brandubh.hub.live.conditional import parse
from brandubh.hub.live.games import GameService
from brandubh.hub.live.terms import is_live
from brandubh.hub.redis import Scripts, keys
from brandubh.hub.redis import client as redis_client

log = logging.getLogger(__name__)

LEASE_MS: Final = 3_000  # a claimed reply is due again this long after its claim
CLAIM_BATCH: Final = 16
POLL_S: Final = 1.0  # how often a hub looks for replies other hubs queued


class ConditionalWorker:
    def __init__(
        self,
        redis: Redis,
        scripts: Scripts,
        games: GameService,
        clock: RedisClock,
        marks: Marks | None = None,
        *,
        enabled: bool = True,
    ) -> None:
        self.redis = redis
        self.scripts = scripts
        self.games = games
        self.clock = clock
        self.marks = marks
        self.enabled = enabled  # BRANDUBH_CONDITIONAL_REPLIES: off, other hubs play them
        self.wake = asyncio.Event()  # set when a move this process committed may call for one
        self._busy: set[str] = set()  # games whose reply this process is committing
        self._running = Tasks()

    async def stop(self) -> None:
        await self._running.cancel()

    def on_commit(self, change: Change, n: int, frame: bytes) -> None:
        """Commit hook: a move in a correspondence game may have queued a reply (a live
        game's never does: the move path of live games stays free of it)."""
        new = change.new
        if change.played is not None and new.status == "active" and not is_live(new.move_time):
            self.wake.set()

    async def sweep(self) -> None:
        """Claim due replies of every bucket in one round trip and play them."""
        if not self.enabled:
            return
        sets = [keys.conditional_jobs(b) for b in range(keys.BUCKETS)]
        args = [LEASE_MS, CLAIM_BATCH]
        claims = await redis_client.claim_buckets(self.redis, self.scripts.claim, sets, args)
        for ids in claims:
            for raw in ids:
                game_id = raw.decode()
                if game_id not in self._busy:
                    self._busy.add(game_id)
                    self._running.start(self._reply(game_id))

    async def _reply(self, game_id: str) -> None:
        try:
            await self._play(game_id)
        finally:
            self._busy.discard(game_id)

    async def _play(self, game_id: str) -> None:
        """Commit the reply due in this game, or drop the job if none is due any more."""
        try:
            state = await self.games.load(game_id)
        except Refusal:
            await self._done(game_id, -1)
            return
        owner = state.turn
        tree = parse(await self.redis.get(keys.conditional(game_id, owner))) if owner else None
        if state.status != "active" or tree is None or not tree.due or tree.ply != state.ply:
            await self._done(game_id, state.ply)
            return
        reply = tree.lines[0][0]  # every line agrees on it (conditional.check_lines)
        in_use = self.marks.in_use() if self.marks is not None else contextlib.nullcontext()
        try:
            async with in_use:  # (an idle hub marks first: clock.py)
                received = self.clock.stamp()
                with self.clock.hold(received):
                    await self.games.move(
                        owner,
                        game_id,
                        state.ply,
                        reply,
                        f"cond-{state.ply}",
                        received,
                        takebacks=state.takebacks,
                    )
        except Refusal as exc:
            # The owner moved first, or the game ended meanwhile: nothing left to do.
            log.info("conditional reply in %s not applied: %s", game_id, exc.code)
            await self._done(game_id, state.ply)

    async def _done(self, game_id: str, ply: int) -> None:
        """Drop the job, unless a move since the game was read at ``ply`` queued a new one."""
        await redis_client.script(
            self.scripts.conditional,
            [keys.game(game_id), keys.conditional_jobs(keys.bucket(game_id))],
            ["done", ply, game_id],
        )
