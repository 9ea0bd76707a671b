"""Server-side sessions: a random token in an HttpOnly cookie, the player in Redis.

A visitor's first act that needs a player (starting a bot game; reading never does) gets
a guest session: a random player id and display name. Following a sign-up's link or
logging in replaces it with an account session under a new token (the token rotates on
every login). Redis keys a session by the SHA-256 of its token, so a copy of
the data holds no usable cookie; an account's sessions are listed (keys.account_sessions)
so that they can all be ended at once (docs/accounts.md), and so is a guest session whose
player id a sign-up adopted: it speaks for that id, and so ends with the account's.

A guest session is made with a short life (an hour) and the game it was made for gives
it an account's (``keep``), so that a first act that fails leaves nothing behind for long.
A newcomer who signs up on an invitation's card gets a guest session that may join that
game (``seat_newcomer``) and lives as long as an unconfirmed sign-up, account or none.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, cast

from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError

from brandubh.hub.live import Player
from brandubh.hub.redis import Lane, keys

log = logging.getLogger(__name__)

COOKIE: Final = "bd_session"
TTL_S: Final = 30 * 24 * 3600
GUEST_PREFIX: Final = "g_"

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


def session_id(token: str) -> str:
    """The id a session is stored under: the SHA-256 of its token, hex."""
    return hashlib.sha256(token.encode()).hexdigest()


def unsaved_guest() -> tuple[str, Session]:
    """A new guest's token and session, not yet stored."""
    token = secrets.token_urlsafe(32)
    player = Player(f"{GUEST_PREFIX}{secrets.token_urlsafe(9)}", guest_name())
    return token, Session(session_id(token), player, False)


@dataclass(frozen=True)
class Session:
    id: str  # session_id(token)
    player: Player
    account: bool  # False for a guest
    # A guest session that signed up from an invitation (docs/accounts.md, "Seated from an
    # invitation"): the address it gave, and the one game it may join before confirming.
    pending: str = ""
    invited: str = ""


class Sessions:
    def __init__(self, redis: Redis, lane: Lane | None = None) -> None:
        self.redis = redis
        self.lane = lane  # one Redis: where an acting socket's one check goes (lane.py)

    async def get(self, token: str | None) -> Player | None:
        """The player of a session token, or None for a missing or unknown one."""
        session = await self.get_session(token)
        return session.player if session else None

    async def get_session(self, token: str | None) -> Session | None:
        """The session of a token, or None for a missing, malformed or unknown one."""
        if not token or len(token) > 64:
            return None
        sid = session_id(token)
        pid, name, kind, pending, invited = cast(
            list[bytes | None],
            await self.redis.hmget(keys.session(sid), ["id", "name", "kind", "pending", "invited"]),
        )
        if pid is None or name is None:
            return None
        return Session(
            sid,
            Player(pid.decode(), name.decode()),
            kind == b"account",
            pending.decode() if pending else "",
            invited.decode() if invited else "",
        )

    async def create_guest(self, ttl_s: int = TTL_S) -> tuple[str, Player]:
        """A new guest session: its token and player. It lives ``ttl_s`` unless ``keep``
        gives it the full life (a visitor who only looked costs an hour of memory)."""
        token, session = unsaved_guest()
        player = session.player
        key = keys.session(session.id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(key, mapping={"id": player.id, "name": player.name, "kind": "guest"})
        pipe.expire(key, ttl_s)
        await pipe.execute()
        return token, session.player

    async def seat_newcomer(self, session: Session, name: str, email: str, game: str) -> Session:
        """Store a guest session that signed up from an invitation to ``game``: named as it
        chose, it may join that game, and it lives no longer than an unconfirmed sign-up
        (keys.RELEASE_AFTER_S), whether or not the sign-up made an account."""
        key = keys.session(session.id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(
            key,
            mapping={
                "id": session.player.id,
                "name": name,
                "kind": "guest",
                "pending": email,
                "invited": game,
            },
        )
        pipe.expire(key, keys.RELEASE_AFTER_S)
        await pipe.execute()
        return Session(session.id, Player(session.player.id, name), False, email, game)

    async def keep(self, token: str) -> None:
        """Give a session that was used (a game was started) its full life; a newcomer's
        keeps the life of its sign-up (seat_newcomer), or it would outlive a released one."""
        key = keys.session(session_id(token))
        if not await self.redis.hexists(key, "pending"):
            await self.redis.expire(key, TTL_S)

    async def list_with_account(self, session: Session) -> None:
        """List a guest session with the account that adopted its player id (a sign-up),
        so that whatever ends the account's sessions ends it too. The list lives as long
        as the session (a guest session's life is set once, when it is made)."""
        listed = keys.account_sessions(session.player.id)
        pipe = self.redis.pipeline(transaction=False)
        pipe.sadd(listed, session.id)
        pipe.expire(listed, TTL_S)
        await pipe.execute()

    async def create_account_session(self, player: Player) -> tuple[str, Session]:
        """A new session, under a new token, for an account; listed with the account's."""
        token = secrets.token_urlsafe(32)
        sid = session_id(token)
        key = keys.session(sid)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(key, mapping={"id": player.id, "name": player.name, "kind": "account"})
        pipe.expire(key, TTL_S)
        pipe.sadd(keys.account_sessions(player.id), sid)
        pipe.expire(keys.account_sessions(player.id), TTL_S)
        await pipe.execute()
        return token, Session(sid, player, True)

    async def end(self, session: Session) -> None:
        """End one session (log out here)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.delete(keys.session(session.id))
        # A guest session is listed too once a sign-up adopted its player id.
        pipe.srem(keys.account_sessions(session.player.id), session.id)
        await pipe.execute()

    async def end_all(self, account_id: str, keep: str | None = None) -> list[str]:
        """End every session of an account but ``keep``; the ids of those ended."""
        listed = cast(set[bytes], await self.redis.smembers(keys.account_sessions(account_id)))
        ended = [raw.decode() for raw in listed if raw.decode() != keep]
        if ended:
            pipe = self.redis.pipeline(transaction=False)
            for sid in ended:
                pipe.delete(keys.session(sid))
            pipe.srem(keys.account_sessions(account_id), *ended)
            await pipe.execute()
        return ended

    def probe(self, sid: str) -> asyncio.Future[object] | None:
        """Whether a session exists (its EXISTS reply, truthy if so), asked on the lane and
        not waited for here: it goes out with what the caller commits next. None without
        a lane (a cluster): the caller waits for ``alive`` instead."""
        if self.lane is None:
            return None
        return asyncio.ensure_future(self.lane.call("EXISTS", keys.session(sid)))

    async def alive(self, sids: Iterable[str]) -> set[str]:
        """Which of these sessions still exist."""
        ids = list(sids)
        if not ids:
            return set()
        if len(ids) == 1 and self.lane is not None:
            # An acting socket's check, about once a second per player: the cheap path.
            with contextlib.suppress(RedisConnectionError):
                return set(ids) if await self.lane.call("EXISTS", keys.session(ids[0])) else set()
        pipe = self.redis.pipeline(transaction=False)
        for sid in ids:
            pipe.exists(keys.session(sid))
        found = await pipe.execute()
        return {sid for sid, n in zip(ids, found, strict=True) if n}
