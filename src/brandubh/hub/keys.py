"""Every Redis key and channel name the service uses, in one place.

A game's keys share one hash tag, ``{p<bucket>}``, with ``bucket = crc32(game_id) % BUCKETS``,
so that a game, its event list, its acks and its bucket's job indexes live in one slot and
one Lua script may touch them all, on a single Redis or in a Redis Cluster (DESIGN.md).
"""

from __future__ import annotations

import zlib
from typing import Final

BUCKETS: Final = 16
PREFIX: Final = "bd"  # so the service can share a Redis with others


def bucket(game_id: str) -> int:
    """The bucket of a game: a stable function of its id."""
    return zlib.crc32(game_id.encode()) % BUCKETS


def tag(n: int) -> str:
    return f"{{p{n}}}"


def game(game_id: str) -> str:
    """Hash: the game's public and private fields (see store.py)."""
    return f"{PREFIX}:{tag(bucket(game_id))}:g:{game_id}"


def events(game_id: str) -> str:
    """List: event n (1-based) at index n-1, each the msgpack frame sent to clients."""
    return f"{PREFIX}:{tag(bucket(game_id))}:ev:{game_id}"


def acks(game_id: str) -> str:
    """Hash: ``<player>:<client message id>`` -> the event number it produced."""
    return f"{PREFIX}:{tag(bucket(game_id))}:ack:{game_id}"


def seed(game_id: str) -> str:
    """String: the game's secret seed; read by nothing that reaches a client before the end."""
    return f"{PREFIX}:{tag(bucket(game_id))}:seed:{game_id}"


def watchers(game_id: str) -> str:
    """Sorted set: spectator connection id -> expiry (ms, Redis clock)."""
    return f"{PREFIX}:{tag(bucket(game_id))}:w:{game_id}"


def bot_jobs(n: int) -> str:
    """Sorted set per bucket: game id -> when a bot worker may claim its turn (ms)."""
    return f"{PREFIX}:{tag(n)}:bot"


def deadlines(n: int) -> str:
    """Sorted set per bucket: game id -> its move deadline (ms, Redis clock)."""
    return f"{PREFIX}:{tag(n)}:dl"


def alive() -> str:
    """String: when a scheduler last ran (ms, Redis clock); see lua/heartbeat.lua."""
    return f"{PREFIX}:alive"


def outages() -> str:
    """List: outages of the whole service as "start:end" (ms, Redis clock)."""
    return f"{PREFIX}:outages"


def channel(n: int) -> str:
    """Pub/sub channel per bucket: every event and notice of that bucket's games."""
    return f"{PREFIX}:{tag(n)}:chan"


def game_channel(game_id: str) -> str:
    return channel(bucket(game_id))


def session(token: str) -> str:
    """Hash: a browser session (player id, display name, kind)."""
    return f"{PREFIX}:s:{token}"
