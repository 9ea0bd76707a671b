"""Plays the bot's turns: claims them from Redis for a lease, commits like any player.

Any hub process may take any bot turn. A commit that makes it the bot's turn queues the
game in its bucket's job set; every worker wakes on that event and on a slow poll (which
also picks up turns left by a worker that died: their lease runs out). The move is
committed with the message id ``bot-<ply>``, so two workers racing on one turn apply it
once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from brandubh.bot import choose_move, rng_for
from brandubh.hub import keys
from brandubh.hub.config import Settings
from brandubh.hub.protocol import ProtocolError
from brandubh.hub.state import BOT_ID

if TYPE_CHECKING:
    from brandubh.hub.app import Hub

log = logging.getLogger("brandubh.bot")


class BotWorker:
    def __init__(self, hub: Hub, settings: Settings) -> None:
        self.hub = hub
        self.settings = settings
        self.wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="bot-worker")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

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
            claimed = await self.hub.scripts.claim(keys=[keys.bot_jobs(b)], args=[lease_ms, 16])
            for raw in claimed:
                await self._play(raw.decode())

    async def _play(self, game_id: str) -> None:
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
        game = state.game()
        move = choose_move(game, rng_for(seed, game_id, state.ply), state.bot_level)
        try:
            await games.move(BOT_ID, game_id, state.ply, str(move), f"bot-{state.ply}")
        except ProtocolError as exc:
            # Someone else played this turn, or the game ended meanwhile: nothing to do.
            log.info("bot move in %s not applied: %s", game_id, exc.message)
