"""Follows and blocks: making and undoing them under the limits, a follower's list with
who is online and the games they may watch, and the questions other rooms ask (whose chat
lines a player never sees, whom a player is never paired with).

The relations live in PostgreSQL (store/social.py); online markers and each player's games
in progress in Redis (keys.online, keys.player_active). Whom a player blocks is cached
here a short while, as every socket's catch-up asks it (chat filtering).
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Final, TypedDict, TypeVar

from redis.asyncio import Redis

from brandubh.hub.errors import RateLimited, Refusal
from brandubh.hub.live import GameService, mygames
from brandubh.hub.redis import Scripts, keys
from brandubh.hub.social import rules
from brandubh.store import Related, Store, StoreUnavailable

log = logging.getLogger(__name__)
T = TypeVar("T")

BLOCKED_FRESH_S: Final = 30.0  # a cached list of whom one blocks is used this long
MAX_WITH_GAMES: Final = 50  # followed players whose games are read for one list


class Opponent(TypedDict):
    id: str
    name: str


class WatchableGame(TypedDict):
    """A game a followed player plays now, as their follower's list shows it."""

    id: str
    url: str
    ruleset: str
    move_time: int
    rated: bool
    bot: bool
    opponent: Opponent


class Followed(TypedDict):
    """One followed player in ``GET /api/following``."""

    id: str
    name: str
    bot: bool
    since: int
    online: bool
    games: list[WatchableGame]


class Listed(TypedDict):
    """One blocked player in ``GET /api/blocking``."""

    id: str
    name: str
    bot: bool
    since: int


@dataclass(frozen=True)
class Relation:
    """What a viewer is to a player: following them, blocking them."""

    following: bool
    blocking: bool


def _listed(r: Related) -> Listed:
    return {"id": r.id, "name": r.name, "bot": r.bot, "since": r.since}


def _watchable(card: mygames.Card) -> WatchableGame:
    return {
        "id": card["id"],
        "url": f"/g/{card['id']}",
        "ruleset": card["ruleset"],
        "move_time": card["move_time"],
        "rated": card["rated"],
        "bot": card["bot"],
        "opponent": {"id": card["opponent"]["id"], "name": card["opponent"]["name"]},
    }


class Social:
    def __init__(self, redis: Redis, scripts: Scripts, store: Store, games: GameService) -> None:
        self.redis = redis
        self.scripts = scripts
        self.store = store
        self.games = games
        self._blocked: dict[str, tuple[float, frozenset[str]]] = {}

    # -- acts --------------------------------------------------------------------------

    async def follow(self, actor: str, target: str, name: str) -> None:
        rules.check_other(actor, target, "follow")
        await self._count(actor)
        made = await self._stored(self.store.follow(actor, target, most=rules.MAX_FOLLOWS))
        refusal = rules.follow_refusal(made, name)
        if refusal is not None:
            raise refusal

    async def unfollow(self, actor: str, target: str) -> None:
        rules.check_other(actor, target, "unfollow")
        await self._count(actor)
        await self._stored(self.store.unfollow(actor, target))

    async def block(self, actor: str, target: str) -> None:
        rules.check_other(actor, target, "block")
        await self._count(actor)
        made = await self._stored(self.store.block(actor, target, most=rules.MAX_BLOCKS))
        self._blocked.pop(actor, None)
        refusal = rules.block_refusal(made)
        if refusal is not None:
            raise refusal

    async def unblock(self, actor: str, target: str) -> None:
        rules.check_other(actor, target, "unblock")
        await self._count(actor)
        await self._stored(self.store.unblock(actor, target))
        self._blocked.pop(actor, None)

    # -- reads -------------------------------------------------------------------------

    async def following(self, actor: str) -> list[Followed]:
        """The players ``actor`` follows: online ones first (then latest followed first),
        each with the games in progress they play, which anyone may watch."""
        related = await self._stored(self.store.followed_by(actor))
        pipe = self.redis.pipeline(transaction=False)
        for r in related:
            pipe.exists(keys.online(r.id))
            pipe.zcard(keys.player_active(r.id))
        flags = await pipe.execute() if related else []
        seen = [(r, bool(flags[2 * i]), int(flags[2 * i + 1]) > 0) for i, r in enumerate(related)]
        seen.sort(key=lambda s: (not s[1], not s[2]))  # stable: latest followed first kept
        out: list[Followed] = []
        read = 0
        for r, online, playing in seen:
            games: list[WatchableGame] = []
            if playing and read < MAX_WITH_GAMES:
                read += 1
                cards = await mygames.playing(self.redis, self.games.load, r.id)
                games = [_watchable(c) for c in cards]
            out.append(
                {
                    "id": r.id,
                    "name": r.name,
                    "bot": r.bot,
                    "since": r.since,
                    "online": online,
                    "games": games,
                }
            )
        return out

    async def blocking(self, actor: str) -> list[Listed]:
        """The players ``actor`` blocks, latest blocked first."""
        return [_listed(r) for r in await self._stored(self.store.blocked_by(actor))]

    async def relation(self, viewer: str, other: str) -> Relation:
        following, blocking = await self._stored(self.store.relation(viewer, other))
        return Relation(following, blocking)

    async def blocks(self, blocker: str, blocked: str) -> bool:
        """Whether ``blocker`` blocks ``blocked`` (asked by challenges, both ways)."""
        return (await self._stored(self.store.relation(blocker, blocked)))[1]

    async def blocked_ids(self, viewer: str) -> frozenset[str]:
        """Whose chat lines ``viewer`` never sees: the players they block (cached a short
        while; with PostgreSQL unreachable, the last known list, or none)."""
        now = time.monotonic()
        cached = self._blocked.get(viewer)
        if cached is not None and now - cached[0] < BLOCKED_FRESH_S:
            return cached[1]
        try:
            found = frozenset(await self.store.blocked_ids(viewer))
        except StoreUnavailable:
            return cached[1] if cached else frozenset()
        if len(self._blocked) > 10_000:
            self._blocked.clear()  # bounded: a cache, not a record
        self._blocked[viewer] = (now, found)
        return found

    async def avoided(self, player: str) -> frozenset[str]:
        """Whom ``player`` is never paired with: the players they block or are blocked by.
        With PostgreSQL unreachable, nobody (pairing goes on, as ratings do then)."""
        try:
            return frozenset(await self.store.avoided(player))
        except StoreUnavailable:
            log.warning("PostgreSQL unreachable: pairing %s without their blocks", player)
            return frozenset()

    # -- helpers -----------------------------------------------------------------------

    async def _count(self, actor: str) -> None:
        """Count one act in the account's window, or RateLimited (nothing counted)."""
        reply = await self.scripts.windows(
            keys=[keys.social_window(actor)],
            args=[rules.WINDOW_S * 1000, secrets.token_hex(8), rules.ACTIONS],
        )
        if int(reply[0]):
            wait = max(1, -(-int(reply[1]) // 1000))
            raise RateLimited(
                f"too many follows and blocks: {rules.ACTIONS} in {rules.WINDOW_S // 60} "
                f"minutes at most; try again in {wait} s",
                wait,
            )

    @staticmethod
    async def _stored(work: Awaitable[T]) -> T:
        try:
            return await work
        except StoreUnavailable:
            raise Refusal("unavailable") from None
