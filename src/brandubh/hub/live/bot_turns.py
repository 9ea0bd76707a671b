"""Plays the bot's turns: claims them from Redis for a lease, commits like any player.

The search runs in a process pool (``BRANDUBH_BOT_PROCESSES`` processes per hub), never
on the event loop, so a thinking bot delays no other game's push. Every hub process may
take any bot turn, so bot work scales by adding hub processes.

A commit that makes it the bot's turn queues the game in its bucket's job set; the
worker of the hub that committed it wakes at once (a commit hook), every other on a slow
poll, and claims due turns of all buckets in one script call. A claim is a short
lease (``LEASE_MS``) that the worker renews while it thinks; a worker that dies stops
renewing, so its turns are due again within a lease and another hub plays them. The move
is committed with the message id ``bot-<ply>``, so two workers racing on one turn apply
it once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from typing import Final

from redis.asyncio import Redis

from brandubh.bot import search_is_compiled, think
from brandubh.hub.background import Tasks
from brandubh.hub.config import Settings
from brandubh.hub.errors import Refusal
from brandubh.hub.live.changes import Change
from brandubh.hub.live.clock import Marks, RedisClock
from brandubh.hub.live.games import GameService
from brandubh.hub.live.state import BOT_ID, GameState
from brandubh.hub.redis import Scripts, keys
from brandubh.hub.redis import client as redis_client
from brandubh.run import end_with_parent, sigint_held_back

log = logging.getLogger(__name__)


LEASE_MS: Final = 3_000  # a claimed turn is due again this long after its last renewal
RENEW_S: Final = 1.0
CLAIM_BATCH: Final = 4
FAIR_DELAY_MS: Final = 250  # a player's further turn waits this long while one is thinking


def whom_of(state: GameState) -> set[str]:
    """Whom a bot game's turn is for: its player, and the client address that created it
    ("@" + GameState.source). A player is one id, whichever of its account's sessions
    plays; many guests from one address (or one /64) share the address's turn."""
    human = state.attacker if state.defender == BOT_ID else state.defender
    return {human, f"@{state.source}"} if state.source else {human}


class BotWorker:
    def __init__(
        self,
        redis: Redis,
        scripts: Scripts,
        games: GameService,
        settings: Settings,
        clock: RedisClock,
        marks: Marks | None = None,
    ) -> None:
        self.redis = redis
        self.clock = clock
        self.marks = marks  # a bot turn stamps a move: the hub is in use meanwhile
        self.scripts = scripts
        self.games = games
        self.settings = settings
        self.wake = asyncio.Event()  # set when an event makes it the bot's turn somewhere
        # Spawned, not forked: a fork of a process running an event loop and threads is
        # not safe. Started on first use, so hubs that never see a bot game pay nothing.
        self._pool: ProcessPoolExecutor | None = None
        self._busy: set[str] = set()  # games this process is thinking about now
        # Whom the games being thought about are for: their players and the client
        # addresses that created them ("@" + GameState.source).
        self._thinking_for: set[str] = set()
        self._running = Tasks()

    async def stop(self) -> None:
        await self._running.cancel()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            log.info(
                "bot: %d processes, search %s",
                self.settings.bot_processes,
                "compiled (mypyc)"
                if search_is_compiled()
                else "uncompiled: the same moves, 3-4 times slower (docs/bot.md, Compiled)",
            )
            self._pool = ProcessPoolExecutor(
                max_workers=self.settings.bot_processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=end_with_parent,
                initargs=(os.getpid(),),
            )
        return self._pool

    def on_commit(self, change: Change, n: int, frame: bytes) -> None:
        """Commit hook: wake when a change this process committed made it the bot's turn."""
        if change.bot_job == "add":
            self.wake.set()

    async def sweep(self) -> None:
        """Claim due bot turns of every bucket in one round trip and start thinking."""
        room = self.settings.bot_processes * 2 - len(self._busy)
        if room <= 0:
            return  # enough thinking queued here; other hubs take the rest
        sets = [keys.bot_jobs(b) for b in range(keys.BUCKETS)]
        args: list[int | str] = [LEASE_MS, CLAIM_BATCH, "", "scores"]
        claimed: list[tuple[float, str]] = []
        # (On a cluster a bucket whose node cannot answer now is claimed next turn.)
        for pairs in await redis_client.claim_buckets(self.redis, self.scripts.claim, sets, args):
            claimed += [
                (float(due), raw.decode()) for raw, due in zip(pairs[::2], pairs[1::2], strict=True)
            ]
        claimed.sort()  # the longest waiting first, whatever its bucket
        # Fair turns, decided here where the cache knows the game: a turn of a player or
        # an address thinking here already waits a moment and takes no room, so one sweep
        # gets past all of a flooding address's turns to the next player's. At most
        # ``room`` are started; the rest go back at once with the time they fell due, so
        # they keep their place in the line.
        now = self.clock.now_ms()
        started = 0
        for due, game_id in claimed:
            if game_id in self._busy:
                continue
            key = keys.bot_jobs(keys.bucket(game_id))
            cached = self.games.cache.get(game_id)
            if cached is not None and whom_of(cached) & self._thinking_for:
                await self.redis.zadd(key, {game_id: now + FAIR_DELAY_MS}, xx=True)
            elif started < room:
                started += 1
                self._busy.add(game_id)
                self._running.start(self._play(game_id))
            else:
                await self.redis.zadd(key, {game_id: due}, xx=True)

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
                lease = {game_id: self.clock.now_ms() + LEASE_MS}
                await self.redis.zadd(key, lease, xx=True, gt=True)

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
        whom = whom_of(state)
        if whom & self._thinking_for:
            # Fair turns: one game of a player, and of a client address, at a time here, so
            # one player's (or one address's) many games cannot hold up everyone else's;
            # this one is due again shortly.
            await self.redis.zadd(
                keys.bot_jobs(keys.bucket(game_id)),
                {game_id: self.clock.now_ms() + FAIR_DELAY_MS},
                xx=True,
            )
            return
        # Taken before the next await: turns of one player or address started side by
        # side (one sweep starts many) would otherwise all pass the check above.
        self._thinking_for |= whom
        try:
            seed = await games.seed(game_id)
            snapshot = state.snapshot()
            loop = asyncio.get_running_loop()
            with sigint_held_back():  # submit spawns the pool's processes as needed
                thought = loop.run_in_executor(
                    self.pool(), think, snapshot, seed, game_id, max(1, state.bot_level)
                )
            text = await thought
        except Exception:
            log.exception("the bot failed to think in %s; its turn goes back to the queue", game_id)
            return
        finally:
            self._thinking_for -= whom
        in_use = self.marks.in_use() if self.marks is not None else contextlib.nullcontext()
        try:
            async with in_use:  # (an idle hub marks first: clock.py)
                received = self.clock.stamp()
                # Held, as a socket's move is (connection.py), until committed or refused.
                with self.clock.hold(received):
                    await games.move(
                        BOT_ID,
                        game_id,
                        state.ply,
                        text,
                        f"bot-{state.ply}",
                        received,
                        takebacks=state.takebacks,
                    )
        except Refusal as exc:
            # Someone else played this turn, or the game ended meanwhile: nothing to do.
            log.info("bot move in %s not applied: %s", game_id, exc.message)
