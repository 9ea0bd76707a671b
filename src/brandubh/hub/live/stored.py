"""A live game as Redis holds it, read at one instant: its hash, its moves and its
repetition counts (lua/read.lua), into a ``GameState``.

The three live in keys of their own so that a commit carries only what changed: the move
is appended, its position counted (commit.lua). One script reads them together, so no
commit falls between the reads.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from redis.asyncio import Redis

from brandubh.hub.live.state import GameState, Hash
from brandubh.hub.redis import Lane, Scripts, keys
from brandubh.hub.redis import client as redis_client

__all__ = ["Read", "read", "read_final", "read_many", "state_of"]

# A game's state (None when Redis holds no such game) and the ack or seed asked for.
Read = tuple[GameState | None, bytes | None]


def _pairs(flat: Sequence[bytes]) -> Hash:
    return dict(zip(flat[::2], flat[1::2], strict=True))


def _call(game_id: str, ack: str | None, seed: bool) -> tuple[list[str], list[str]]:
    read_keys = [keys.game(game_id), keys.moves(game_id), keys.repetitions(game_id)]
    if ack is not None:
        return [*read_keys, keys.acks(game_id)], ["ack", ack]
    if seed:
        return [*read_keys, keys.seed(game_id)], ["seed"]
    return read_keys, []


def state_of(game_id: str, reply: Sequence[redis_client.Reply]) -> Read:
    """read.lua's reply as a state, and the ack or seed it read."""
    flat, moves, counts, extra = reply
    if not flat:
        return None, extra
    return GameState.from_hash(game_id, _pairs(flat), moves, _pairs(counts)), extra


async def read(
    scripts: Scripts,
    game_id: str,
    *,
    lane: Lane | None = None,
    ack: str | None = None,
    seed: bool = False,
) -> Read:
    """A game's state, with the ack stored under ``ack`` (``actor:msg_id``) or its seed."""
    keys_, args = _call(game_id, ack, seed)
    if lane is not None:
        reply = await lane.script(scripts.read, keys_, args)
    else:
        reply = await redis_client.script(scripts.read, keys_, args)
    return state_of(game_id, reply)


async def read_many(
    redis: Redis,
    scripts: Scripts,
    game_ids: Sequence[str],
    *,
    lane: Lane | None = None,
    seed: bool = False,
) -> list[Read]:
    """Many games' states at once (one round trip; on a cluster one per node), with their
    seeds if asked; (None, None) where a cluster node could not answer."""
    calls = [_call(game_id, None, seed) for game_id in game_ids]
    replies: list[redis_client.Reply]
    if lane is not None:
        replies = await asyncio.gather(*(lane.script(scripts.read, k, a) for k, a in calls))
    else:
        replies = await redis_client.run_scripts(redis, [(scripts.read, k, a) for k, a in calls])
    return [
        state_of(game_id, reply) if reply is not None else (None, None)
        for game_id, reply in zip(game_ids, replies, strict=True)
    ]


async def read_final(scripts: Scripts, game_id: str) -> tuple[GameState | None, Hash]:
    """An ended game's state and its hash with its moves written in: what the archive keeps
    as its last live fields (``GameState.from_hash`` reads them back alone)."""
    keys_, args = _call(game_id, None, False)
    reply = await redis_client.script(scripts.read, keys_, args)
    state, _ = state_of(game_id, reply)
    if state is None:
        return None, {}
    return state, {**_pairs(reply[0]), b"moves": " ".join(state.moves).encode()}
