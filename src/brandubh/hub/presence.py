"""Who is connected: each game's players with a socket following it, pushed as
``presence`` frames (docs/protocol.md §3.4), and the turn notices a player's sockets get
when it becomes their move in any game.

A player counts as connected to a game while at least one of their sockets, on any hub,
follows it. Entries expire after ``PRESENCE_TTL_MS`` unless refreshed, so a hub that dies
does not leave its players shown as connected.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Final, Literal

from redis.asyncio import Redis
from redis.commands.core import AsyncScript

from brandubh.hub import frames, keys
from brandubh.hub.sockets import Sockets

PRESENCE_TTL_MS: Final = 60_000  # refreshed every eight pings (20 s) by each socket

Op = Literal["add", "del", "get"]


class Presence:
    """The players connected to each game, kept in Redis by presence.lua."""

    def __init__(self, script: AsyncScript) -> None:
        self.script = script

    async def update(
        self, game_id: str, conn_id: str, player_id: str, op: Op, *, publish: bool = True
    ) -> list[str]:
        """Add, refresh or drop one socket of a player; the ids connected afterwards."""
        reply = await self.script(
            keys=[keys.presence(game_id)],
            args=[
                f"{conn_id}|{player_id}",
                op,
                PRESENCE_TTL_MS,
                keys.game_channel(game_id),
                game_id,
                "1" if publish else "0",
            ],
        )
        return sorted(r.decode() if isinstance(r, bytes) else str(r) for r in reply or [])

    async def frame(self, game_id: str) -> bytes:
        """The ``presence`` frame for a game as it stands: sent after each catch-up."""
        online = await self.update(game_id, "", "", "get", publish=False)
        return frames.presence(game_id, online)


async def anyone_connected(redis: Redis, game_id: str) -> bool:
    """Whether any player's socket follows the game now (by this machine's clock)."""
    now_ms = int(time.time() * 1000)
    return int(await redis.zcount(keys.presence(game_id), now_ms, "+inf")) > 0


def turn_notices(sockets: Sockets) -> Callable[[dict[str, Any]], None]:
    """A fan-out hook: when an event leaves a game on someone's move, tell that player's
    sockets on this hub with a ``turn`` frame (their games list and the page title change)."""

    def hook(event: dict[str, Any]) -> None:
        found = turn_of(event)
        if found is not None:
            player_id, frame = found
            sockets.tell([player_id], frame)

    return hook


def turn_of(event: dict[str, Any]) -> tuple[str, bytes] | None:
    """(player id, ``turn`` frame) when the event leaves a game on that player's move."""
    state = event.get("state")
    if not isinstance(state, dict) or state.get("status") != "active":
        return None
    side = state.get("turn")
    players = state.get("players") or {}
    mover = players.get(side) if isinstance(players, dict) else None
    if not isinstance(mover, dict) or mover.get("id") in (None, "bot"):
        return None
    other = players.get("defenders" if side == "attackers" else "attackers") or {}
    return str(mover["id"]), frames.turn(
        str(event.get("game")),
        state.get("ply"),
        state.get("last"),
        state.get("deadline"),
        other.get("name") if isinstance(other, dict) else None,
    )
