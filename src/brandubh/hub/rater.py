"""The archive and the ratings: every finished game is archived into PostgreSQL, and
rated when it counts, exactly once, driven by its final event.

Two paths lead here, and either may run any number of times for a game:

- live: every hub's fan-out hook sees each game's final event (``state.status ==
  "ended"``) and archives the game at once;
- sweep: commit.lua also queues every game that ends in its bucket's finished-games set
  (keys.finished), claimable after a grace period; every hub claims due entries for a
  lease and archives them, so nothing is lost when the hub that saw the event dies.

The guard is ``Store.archive_game``: one transaction inserts the game (idempotent on its
id) and applies both players' rating changes, so a second run answers ``dup`` and changes
nothing. Only after it commits do the game's Redis keys get an expiry (the live grace,
``BRANDUBH_LIVE_GRACE_S``), and the game leaves the queue. PostgreSQL down: the game
stays queued and the sweep retries with a growing pause (backoff), while games go on
ending live in Redis.

A game counts for ratings when it was created rated, was played between two accounts
(the bot never; a guest never), and has a result other than an abort
(``store.repository.counts_for_rating``). Every game is one Glicko-2 rating period
(ratings.py), computed from both players' ratings before it.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import time
from typing import Any, Final, cast

import msgpack
from redis.asyncio import Redis

from brandubh.engine import format_record
from brandubh.hub import keys
from brandubh.hub.games import GameService
from brandubh.hub.scripts import Scripts
from brandubh.hub.state import BOT_ID, GameState, Hash
from brandubh.ratings import Rating
from brandubh.store import FinishedGame, Seat, Store, StoreUnavailable

log = logging.getLogger("brandubh.rater")

CLAIM_LEASE_MS: Final = 30_000
CLAIM_BATCH: Final = 50
MAX_BACKOFF_S: Final = 30.0  # the longest pause between sweeps while PostgreSQL is down

# At most this many games archived at once from events, so that a burst of endings (a wave
# of timeouts) cannot crowd out the hub's other work; up to BACKLOG more wait in this hub,
# and beyond that they wait for the sweep.
MAX_LIVE = 8
BACKLOG = 2000


def finished_game(state: GameState, raw: Hash, seed: str, record: str) -> FinishedGame:
    """What the archive keeps of an ended game, from its live hash (pure)."""
    assert state.result is not None
    humans = [p for p in (state.creator, state.joiner) if p is not None and p.id != BOT_ID]
    if state.result.reason == "aborted" and state.ply == 0:
        humans = []  # nothing was played: kept from the players' lists
    seats = []
    for side, pid in (("attackers", state.attacker), ("defenders", state.defender)):
        p = state.player(pid)
        if p is not None:
            seats.append(Seat(p.id, p.name, side))
    by_id = {s.id: s for s in seats}
    return FinishedGame(
        id=state.id,
        ruleset=state.ruleset,
        wants_rating=state.rated,
        opponent=state.opponent,
        bot_level=state.bot_level if state.opponent == "bot" else None,
        seats=tuple(seats),
        humans=tuple(by_id.get(p.id, Seat(p.id, p.name, "")) for p in humans),
        winner=state.result.winner,
        reason=state.result.reason,
        plies=state.ply,
        move_time=state.move_time,
        created=state.created,
        ended=int(raw.get(b"updated", b"0") or 0),
        moves=state.moves,
        seed=seed,
        commitment=state.commitment,
        record=record,
        final=cast(bytes, msgpack.packb(raw, use_bin_type=True)),
        final_seq=state.seq,
        match_id=state.match or None,
        match_no=state.match_no or None,
    )


class Rater:
    def __init__(
        self,
        redis: Redis,
        scripts: Scripts,
        games: GameService,
        store: Store,
        poll_s: float = 2.0,
        grace_s: float = 600.0,
    ) -> None:
        self.redis = redis
        self.scripts = scripts
        self.games = games
        self.store = store
        self.poll_s = poll_s
        self.grace_ms = max(1, int(grace_s * 1000))
        self.pause_s = poll_s  # grows while PostgreSQL is down
        self._task: asyncio.Task[None] | None = None
        self._live: set[asyncio.Task[str]] = set()
        self._backlog: collections.deque[str] = collections.deque()
        # Games this hub's live path holds (running or in the backlog): its sweep leaves
        # them alone instead of archiving them a second time at once.
        self._held: set[str] = set()

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="rater")

    async def stop(self) -> None:
        tasks = [t for t in (self._task, *self._live) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task

    # -- the two paths ----------------------------------------------------------------------

    def on_event(self, event: dict[str, Any]) -> None:
        """Fan-out hook: a game's final event archives (and rates) the game."""
        state = event.get("state")
        if not isinstance(state, dict) or state.get("status") != "ended":
            return
        if self.pause_s > self.poll_s:
            return  # PostgreSQL is down: the sweep takes it when it is back
        game_id = str(event["game"])
        if game_id in self._held:
            return
        if len(self._live) < MAX_LIVE:
            self._held.add(game_id)
            task = asyncio.create_task(self._drain(game_id))
            self._live.add(task)
            task.add_done_callback(self._live.discard)
        elif len(self._backlog) < BACKLOG:
            self._held.add(game_id)
            self._backlog.append(game_id)
        # else: a burst beyond the backlog: the sweep (which claims, one hub each) takes it

    async def _drain(self, game_id: str) -> str:
        """Archive a game, then those waiting in the backlog; the first one's outcome."""
        first = outcome = await self._finish_held(game_id)
        while self._backlog and outcome != "unavailable":
            outcome = await self._finish_held(self._backlog.popleft())
        if outcome == "unavailable":
            self._held.difference_update(self._backlog)
            self._backlog.clear()  # they stay queued in Redis: the sweep retries them
        return first

    async def _finish_held(self, game_id: str) -> str:
        try:
            return await self._finish_logged(game_id)
        finally:
            self._held.discard(game_id)

    async def _finish_logged(self, game_id: str) -> str:
        try:
            return await self.finish(game_id)
        except asyncio.CancelledError:
            raise
        except StoreUnavailable:
            log.warning("PostgreSQL unreachable: game %s waits for the sweep", game_id)
            return "unavailable"
        except Exception:
            log.exception("archiving game %s failed; the sweep will retry", game_id)
            return "failed"

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.pause_s)
            try:
                await self.sweep()
                self.pause_s = self.poll_s
            except asyncio.CancelledError:
                raise
            except StoreUnavailable as exc:
                self.pause_s = min(MAX_BACKOFF_S, self.pause_s * 2)
                log.warning(
                    "PostgreSQL unreachable (%s): archiving again in %.0f s",
                    exc.detail,
                    self.pause_s,
                )
            except Exception:
                log.exception("archive sweep failed; trying again")

    async def sweep(self) -> int:
        """Archive every queued game whose grace has passed, MAX_LIVE at once; how many
        were archived now. StoreUnavailable as soon as PostgreSQL cannot be reached: the
        games claimed and not archived become due again after the next pause, not after
        the lease."""
        done = 0
        for b in range(keys.BUCKETS):
            claimed = [
                game_id
                for raw in await self.scripts.claim(
                    keys=[keys.finished(b)], args=[CLAIM_LEASE_MS, CLAIM_BATCH]
                )
                if (game_id := raw.decode()) not in self._held
            ]
            for i in range(0, len(claimed), MAX_LIVE):
                batch = claimed[i : i + MAX_LIVE]
                results = await asyncio.gather(
                    *(self.finish(g) for g in batch), return_exceptions=True
                )
                for game_id, result in zip(batch, results, strict=True):
                    if isinstance(result, asyncio.CancelledError):
                        raise result
                    if isinstance(result, BaseException) and not isinstance(
                        result, StoreUnavailable
                    ):
                        log.error("archiving game %s failed (%r); it stays queued", game_id, result)
                done += sum(r == "ok" for r in results)
                lost = [
                    g
                    for g, r in zip(batch, results, strict=True)
                    if isinstance(r, StoreUnavailable)
                ]
                if lost:
                    await self._release(b, lost + claimed[i + MAX_LIVE :])
                    raise next(r for r in results if isinstance(r, StoreUnavailable))
        return done

    async def _release(self, bucket: int, game_ids: list[str]) -> None:
        """Make claimed games due again after the next pause (they stay queued)."""
        due = int((time.time() + min(MAX_BACKOFF_S, self.pause_s * 2)) * 1000)
        await self.redis.zadd(keys.finished(bucket), dict.fromkeys(game_ids, due), xx=True)

    # -- archiving one game ------------------------------------------------------------------

    async def finish(self, game_id: str) -> str:
        """Archive a finished game, rating it if it counts: "ok" when this call did it,
        "dup" when it was done before, "gone"/"not_ended" when there is nothing to do.
        StoreUnavailable when PostgreSQL cannot be reached (the game stays queued)."""
        raw = cast(Hash, await self.redis.hgetall(keys.game(game_id)))
        if not raw:
            # Let go after the grace (or never there): nothing left to archive from.
            await self.redis.zrem(keys.finished(keys.bucket(game_id)), game_id)
            return "dup" if await self.store.is_archived(game_id) else "gone"
        state = GameState.from_hash(game_id, raw)
        if state.status != "ended" or state.result is None:
            return "not_ended"
        seed = (await self.games.seed(game_id)).hex()
        record = format_record(await self.games.record(state))
        done = await self.store.archive_game(finished_game(state, raw, seed, record))
        await self.let_go(game_id)
        return done.outcome

    async def let_go(self, game_id: str) -> None:
        """The game is in PostgreSQL: its live keys expire after the grace, and it leaves
        the finished-games queue."""
        pipe = self.redis.pipeline(transaction=False)
        for key in (
            keys.game(game_id),
            keys.events(game_id),
            keys.acks(game_id),
            keys.seed(game_id),
            keys.watchers(game_id),
        ):
            pipe.pexpire(key, self.grace_ms)
        pipe.zrem(keys.finished(keys.bucket(game_id)), game_id)
        await pipe.execute()

    # -- reading -----------------------------------------------------------------------------

    async def ratings(self, player_id: str) -> dict[str, dict[str, Any]]:
        """The player's rating in each rule set they have played rated, with its history."""
        return await self.store.ratings(player_id)

    async def lookup(self, player_id: str, ruleset: str) -> tuple[float, bool]:
        """(rating, provisional) in a rule set: for the lobby's pairing and lists. With
        PostgreSQL down, a new player's: pairing goes on, a little less well matched."""
        try:
            rating, _ = await self.store.rating(player_id, ruleset)
        except StoreUnavailable:
            log.warning("PostgreSQL unreachable: pairing %s as a new player", player_id)
            rating, _ = Rating(), 0
        return rating.rating, rating.provisional

    async def player_games(
        self, player_id: str, offset: int, limit: int
    ) -> tuple[list[dict[str, Any]], int | None]:
        """A page of the player's finished games, newest first, and the offset of the next
        page (None at the end)."""
        return await self.store.player_games(player_id, offset, limit)

    async def leaderboard(self, ruleset: str) -> list[dict[str, Any]]:
        """The opted-in players with a non-provisional rating, best first."""
        return await self.store.leaderboard(ruleset)
