"""The archive and the ratings: every finished game is archived into PostgreSQL, and
rated when it counts, exactly once. ``finish`` is one of the steps endings.py runs after
a game ends, on its live path and its sweep alike, any number of times for a game.

The guard is ``Store.archive_game``: one transaction inserts the game (idempotent on its
id) and applies both players' rating changes, so a second run answers ``dup`` and changes
nothing. Only after it commits do the game's Redis keys get an expiry (the live grace,
``BRANDUBH_LIVE_GRACE_S``). PostgreSQL down: ``finish`` raises ``StoreUnavailable``, the
game stays queued, and endings.py retries with a growing pause while games go on ending
live in Redis.

A game counts for ratings when it was created rated, was played between two accounts
(the bot never; a guest never), and has a result other than an abort
(``store.archive.counts_for_rating``). Every game is one Glicko-2 rating period
(brandubh.ratings), computed from both players' ratings before it.
"""

from __future__ import annotations

import logging
from typing import Protocol, cast

import msgpack
from redis.asyncio import Redis

from brandubh.engine import format_record
from brandubh.hub.config import LIVE_GRACE_S
from brandubh.hub.live import stored
from brandubh.hub.live.games import GameService
from brandubh.hub.live.state import BOT_ID, GameState, Hash
from brandubh.hub.redis import keys
from brandubh.ratings import Rating
from brandubh.store import FinishedGame, Seat, Store, StoreUnavailable

log = logging.getLogger(__name__)


def finished_game(state: GameState, raw: Hash, seed: str, record: str) -> FinishedGame:
    """What the archive keeps of an ended game, from its live hash (pure)."""
    assert state.result is not None
    humans = [p for p in (state.creator, state.joiner) if p is not None and p.id != BOT_ID]
    if state.result.reason == "aborted" and state.ply == 0:
        humans = []  # nothing was played (or a withdrawn invitation): kept from every list
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
        origin=state.origin_or_guess(),
    )


class ChatArchive(Protocol):
    """Where a finished game's player chat is kept (``brandubh.hub.chat.ChatService``)."""

    async def archive(self, game_id: str) -> None: ...


class Rater:
    def __init__(
        self,
        redis: Redis,
        games: GameService,
        store: Store,
        chat: ChatArchive,
        grace_s: float = LIVE_GRACE_S,
    ) -> None:
        self.redis = redis
        self.games = games
        self.store = store
        self.chat = chat
        self.grace_ms = max(1, int(grace_s * 1000))

    # -- archiving one game ------------------------------------------------------------------

    async def finish(self, game_id: str) -> str:
        """Archive a finished game, rating it if it counts: "ok" when this call did it,
        "dup" when it was done before, "gone"/"not_ended" when there is nothing to do.
        StoreUnavailable when PostgreSQL cannot be reached (the game stays queued)."""
        state, raw = await stored.read_final(self.games.scripts, game_id)
        if state is None:
            # Let go after the grace (or never there): nothing left to archive from.
            await self.redis.zrem(keys.finished(keys.bucket(game_id)), game_id)
            return "dup" if await self.store.is_archived(game_id) else "gone"
        if state.status != "ended" or state.result is None:
            return "not_ended"
        seed = (await self.games.seed(game_id)).hex()
        record = format_record(await self.games.record(state))
        done = await self.store.archive_game(finished_game(state, raw, seed, record))
        if state.opponent != "bot":
            await self.chat.archive(game_id)  # after the game's row, which its lines name
        await self.let_go(game_id)
        return done.outcome

    async def let_go(self, game_id: str) -> None:
        """The game is in PostgreSQL: its live keys expire after the grace, and it leaves
        the finished-games queue."""
        pipe = self.redis.pipeline(transaction=False)
        for key in (*keys.live_keys(game_id), keys.watchers(game_id)):
            # LT: a later run (a second hub, a retry) never pushes the expiry back.
            pipe.pexpire(key, self.grace_ms, lt=True)
        pipe.zrem(keys.finished(keys.bucket(game_id)), game_id)
        await pipe.execute()

    # -- reading -----------------------------------------------------------------------------

    async def ratings(self, player_id: str) -> dict[str, dict[str, object]]:
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
    ) -> tuple[list[dict[str, object]], int | None]:
        """A page of the player's finished games, newest first, and the offset of the next
        page (None at the end)."""
        return await self.store.player_games(player_id, offset, limit)

    async def leaderboard(self, ruleset: str, *, bots: bool = False) -> list[dict[str, object]]:
        """The opted-in players with a non-provisional rating, best first: people, or with
        ``bots`` the bot accounts (a list of their own)."""
        return await self.store.leaderboard(ruleset, bots=bots)
