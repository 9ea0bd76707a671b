"""Plays the bot's turns: claims them from Redis for a lease, commits like any player.

The search runs in a process pool (``BRANDUBH_BOT_PROCESSES`` processes per hub), never
on the event loop, so a thinking bot delays no other game's push. Any hub process may
take any bot turn, so bot work scales by adding hub processes.

A commit that makes it the bot's turn queues the game in its bucket's job set; every
worker wakes on that event and on a slow poll (which also picks up turns left by a worker
that died: their lease runs out). The move is committed with the message id
``bot-<ply>``, so two workers racing on one turn apply it once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING, Any

from brandubh.bot import think
from brandubh.hub import keys
from brandubh.hub.config import Settings
from brandubh.hub.protocol import ProtocolError
from brandubh.hub.state import BOT_ID, unpack_snapshot

if TYPE_CHECKING:
    from brandubh.hub.app import Hub

log = logging.getLogger("brandubh.bot")


class BotWorker:
    def __init__(self, hub: Hub, settings: Settings) -> None:
        self.hub = hub
        self.settings = settings
        self.wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        # Spawned, not forked: a fork of a process running an event loop and threads is
        # not safe. Started on first use, so hubs that never see a bot game pay nothing.
        self._pool: ProcessPoolExecutor | None = None
        self._busy: set[str] = set()  # games this process is thinking about now
        self._running: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="bot-worker")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
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

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), self.settings.bot_poll_s)
            self.wake.clear()
            try:
                await self._sweep()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("bot sweep failed; retrying at the next poll")

    async def _sweep(self) -> None:
        lease_ms = int(self.settings.bot_lease_s * 1000)
        for b in range(keys.BUCKETS):
            if len(self._busy) >= self.settings.bot_processes * 2:
                return  # enough thinking queued here; other hubs take the rest
            claimed = await self.hub.scripts.claim(keys=[keys.bot_jobs(b)], args=[lease_ms, 4])
            for raw in claimed:
                game_id = raw.decode()
                if game_id in self._busy:
                    continue
                self._busy.add(game_id)
                task = asyncio.create_task(self._play(game_id))
                self._running.add(task)
                task.add_done_callback(self._running.discard)

    async def _play(self, game_id: str) -> None:
        try:
            await self._think_and_move(game_id)
        finally:
            self._busy.discard(game_id)
            self.wake.set()  # room for another turn here

    async def _think_and_move(self, game_id: str) -> None:
        games = self.hub.games
        try:
            state = await games.load(game_id)
        except ProtocolError:
            await self.hub.redis.zrem(keys.bot_jobs(keys.bucket(game_id)), game_id)
            return
        if state.status != "active" or state.turn != BOT_ID:
            await self.hub.redis.zrem(keys.bot_jobs(keys.bucket(game_id)), game_id)
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
        except ProtocolError as exc:
            # Someone else played this turn, or the game ended meanwhile: nothing to do.
            log.info("bot move in %s not applied: %s", game_id, exc.message)
