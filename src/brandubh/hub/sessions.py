"""Server-side sessions: a random token in an HttpOnly cookie, the player in Redis.

Until accounts exist every visitor is a guest with a random id and display name.
"""

from __future__ import annotations

import secrets
from typing import Final, cast

from redis.asyncio import Redis

from brandubh.hub import keys
from brandubh.hub.state import Player

COOKIE: Final = "bd_session"
TTL_S: Final = 30 * 24 * 3600

_ADJECTIVES: Final = (
    "Amber",
    "Bold",
    "Brave",
    "Bright",
    "Calm",
    "Clever",
    "Swift",
    "Grey",
    "Keen",
    "Quiet",
    "Red",
    "Silver",
    "Steady",
    "Wild",
    "Wise",
    "Young",
    "Green",
    "Iron",
    "Lucky",
    "Noble",
)
_NOUNS: Final = (
    "Raven",
    "Otter",
    "Heron",
    "Hound",
    "Hare",
    "Stag",
    "Salmon",
    "Wren",
    "Falcon",
    "Badger",
    "Fox",
    "Owl",
    "Boar",
    "Crane",
    "Seal",
    "Wolf",
    "Lark",
    "Eagle",
    "Pike",
    "Swan",
)


def guest_name() -> str:
    """A friendly random display name such as "Swift Raven 42"."""
    return f"{secrets.choice(_ADJECTIVES)} {secrets.choice(_NOUNS)} {secrets.randbelow(90) + 10}"


class Sessions:
    def __init__(self, redis: Redis) -> None:
        self.redis = redis

    async def get(self, token: str | None) -> Player | None:
        """The player of a session token, or None for a missing or unknown one."""
        if not token or len(token) > 64:
            return None
        pid, name = cast(
            list[bytes | None], await self.redis.hmget(keys.session(token), ["id", "name"])
        )
        if pid is None or name is None:
            return None
        return Player(pid.decode(), name.decode())

    async def create_guest(self) -> tuple[str, Player]:
        """A new guest session: its token and player."""
        token = secrets.token_urlsafe(32)
        player = Player(f"g_{secrets.token_urlsafe(9)}", guest_name())
        key = keys.session(token)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(key, mapping={"id": player.id, "name": player.name, "kind": "guest"})
        pipe.expire(key, TTL_S)
        await pipe.execute()
        return token, player
