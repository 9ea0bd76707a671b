"""Plays the bot's turns: claims them from Redis for a lease, commits like any player.

The search runs in a process pool (``BRANDUBH_BOT_PROCESSES`` processes per hub), never
on the event loop, so a thinking bot delays no other game's push. Any hub process may
take any bot turn, so bot work scales by adding hub processes.

A commit that makes it the bot's turn queues the game in its bucket's job set; every
worker wakes on that event and on a slow poll, and claims due turns of all buckets in one
pipelined call. A claim is a short lease (``LEASE_MS``) that the worker renews while it
thinks; a worker that dies stops renewing, so its turns are due again within a lease and
another hub plays them. The move is committed with the message id ``bot-<ply>``, so two
workers racing on one turn apply it once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Final

from redis.asyncio import Redis

from brandubh.bot import think
from brandubh.hub import keys, redis_client
from brandubh.hub.config import Settings
from brandubh.hub.errors import Refusal
from brandubh.hub.games import GameService
from brandubh.hub.scripts import Scripts
from brandubh.hub.state import BOT_ID, unpack_snapshot

log = logging.getLogger("brandubh.bot")


LEASE_MS: Final = 3_000  # a claimed turn is due again this long after its last renewal
RENEW_S: Final = 1.0
CLAIM_BATCH: Final = 4


class BotWorker:
    def __init__(
        self,
        redis: Redis,
        scripts: Scripts,
        games: GameService,
        settings: Settings,
        clock: Callable[[], int],
    ) -> None:
        self.redis = redis
        self.clock = clock  # this process's estimate of Redis's clock, ms
        self.scripts = scripts
        self.games = games
        self.settings = settings
        self.wake = asyncio.Event()  # set when an event makes it the bot's turn somewhere
        # Spawned, not forked: a fork of a process running an event loop and threads is
        # not safe. Started on first use, so hubs that never see a bot game pay nothing.
        self._pool: ProcessPoolExecutor | None = None
        self._busy: set[str] = set()  # games this process is thinking about now
        self._running: set[asyncio.Task[None]] = set()

    async def stop(self) -> None:
        for task in list(self._running):
            task.cancel()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.settings.bot_processes,
                mp_context=multiprocessing.get_context("spawn"),
            )
        return self._pool

    def on_event(self, event: dict[str, Any]) -> None:
        """Fan-out hook: wake when an event makes it the bot's turn."""
        state = event.get("state") or {}
        turn = state.get("turn")
        players = state.get("players") or {}
        if turn and (players.get(turn) or {}).get("id") == BOT_ID:
            self.wake.set()

    async def sweep(self) -> None:
        """Claim due bot turns of every bucket in one round trip and start thinking."""
        room = self.settings.bot_processes * 2 - len(self._busy)
        if room <= 0:
            return  # enough thinking queued here; other hubs take the rest
        claims: list[redis_client.Call] = [
            (self.scripts.claim, [keys.bot_jobs(b)], [LEASE_MS, min(room, CLAIM_BATCH)])
            for b in range(keys.BUCKETS)
        ]
        for batch in await redis_client.run_scripts(self.redis, claims):
            for raw in batch or ():  # None: its node cannot answer now; next turn
                game_id = raw.decode()
                if game_id in self._busy:
                    continue
                self._busy.add(game_id)
                task = asyncio.create_task(self._play(game_id))
                self._running.add(task)
                task.add_done_callback(self._running.discard)

    async def _play(self, game_id: str) -> None:
        renew = asyncio.create_task(self._renew(game_id))
        try:
            await self._think_and_move(game_id)
        finally:
            renew.cancel()
            self._busy.discard(game_id)
            self.wake.set()  # room for another turn here

    async def _renew(self, game_id: str) -> None:
        """Keep the claim on a turn while thinking about it (only while it is queued)."""
        key = keys.bot_jobs(keys.bucket(game_id))
        while True:
            await asyncio.sleep(RENEW_S)
            with contextlib.suppress(Exception):
                await self.redis.zadd(key, {game_id: self.clock() + LEASE_MS}, xx=True, gt=True)

    async def _think_and_move(self, game_id: str) -> None:
        games = self.games
        try:
            state = await games.load(game_id)
        except Refusal:
            await self.redis.zrem(keys.bot_jobs(keys.bucket(game_id)), game_id)
            return
        if state.status != "active" or state.turn != BOT_ID:
            await self.redis.zrem(keys.bot_jobs(keys.bucket(game_id)), game_id)
            return
        seed = await games.seed(game_id)
        snapshot = unpack_snapshot(state.snap)
        loop = asyncio.get_running_loop()
        try:
            text = await loop.run_in_executor(
                self.pool(), think, snapshot, seed, game_id, max(1, state.bot_level)
            )
        except Exception:
            log.exception("the bot failed to think in %s; its turn goes back to the queue", game_id)
            return
        try:
            await games.move(BOT_ID, game_id, state.ply, text, f"bot-{state.ply}")
        except Refusal as exc:
            # Someone else played this turn, or the game ended meanwhile: nothing to do.
            log.info("bot move in %s not applied: %s", game_id, exc.message)
