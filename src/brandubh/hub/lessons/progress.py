"""Who finished which stage: an account's stars in PostgreSQL, a guest's in Redis beside
their session. A sign-up adopts the guest's player id (docs/accounts.md), so an account's
first read moves the stars it had as a guest into PostgreSQL."""

from __future__ import annotations

from typing import Final

from redis.asyncio import Redis

from brandubh.hub.accounts import TTL_S
from brandubh.hub.errors import Refusal
from brandubh.hub.redis import keys
from brandubh.store import Store, StoreUnavailable

Star = tuple[str, str]  # (rule set, stage)
SEP: Final = "/"


def _parse(members: set[bytes | str]) -> set[Star]:
    found: set[Star] = set()
    for member in members:
        text = member.decode() if isinstance(member, bytes) else member
        ruleset, _, stage = text.partition(SEP)
        if stage:
            found.add((ruleset, stage))
    return found


class Progress:
    def __init__(self, redis: Redis, store: Store) -> None:
        self.redis = redis
        self.store = store

    async def stars(self, player_id: str, account: bool) -> set[Star]:
        """The player's stars; an account's guest stars moved to PostgreSQL first."""
        key = keys.lesson_stars(player_id)
        guest = _parse(await self.redis.smembers(key))
        if not account:
            return guest
        try:
            if guest:
                await self.store.add_lesson_stars(player_id, guest)
                await self.redis.delete(key)
            return set(await self.store.lesson_stars(player_id))
        except StoreUnavailable:
            raise Refusal("unavailable") from None

    async def add(self, player_id: str, account: bool, star: Star) -> None:
        """Give the player a star (once)."""
        if account:
            try:
                await self.store.add_lesson_stars(player_id, [star])
            except StoreUnavailable:
                raise Refusal("unavailable") from None
            return
        key = keys.lesson_stars(player_id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.sadd(key, SEP.join(star))
        pipe.expire(key, TTL_S)
        await pipe.execute()
