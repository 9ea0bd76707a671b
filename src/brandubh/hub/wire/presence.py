"""Who is connected: each game's players with a socket following it, pushed as
``presence`` frames (docs/protocol.md §3.4), and the turn notices a player's sockets get
when it becomes their move in any game.

A player counts as connected to a game while at least one of their sockets, on any hub,
follows it; when their last one goes, presence.lua keeps since when they are gone
(``keys.gone``), which the frames carry and a claim is judged by (changes.claim).
Entries expire after ``PRESENCE_TTL_MS`` unless refreshed, so a hub that dies does not
leave its players shown as connected. Each change has a version: what a socket reads with
its catch-up and what pub/sub brings travel on two connections in no set order, and a
socket is sent only presences no older than the last it had (subscription.py).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Final, Literal

from redis.asyncio import Redis
from redis.commands.core import AsyncScript

from brandubh.hub.background import Tasks
from brandubh.hub.live import BOT_ID, Change, GameState, is_live
from brandubh.hub.messages import frames
from brandubh.hub.redis import keys
from brandubh.hub.wire.sockets import Sockets

PRESENCE_TTL_MS: Final = 60_000  # refreshed every eight pings (20 s) by each socket
# How long a player's "gone since" is kept while the game is played: longer than a live
# game can wait for a move. The game's final change deletes it; after that, a change of
# presence keeps it PRESENCE_TTL_MS only (presence.lua).
GONE_TTL_MS: Final = 2 * 3600 * 1000

Op = Literal["add", "del", "get"]


class Presence:
    """The players connected to each game, kept in Redis by presence.lua."""

    def __init__(self, script: AsyncScript) -> None:
        self.script = script

    async def update(
        self, game_id: str, conn_id: str, player_id: str, op: Op, *, publish: bool = True
    ) -> list[str]:
        """Add, refresh or drop one socket of a player; the ids connected afterwards."""
        return (await self._call(game_id, f"{conn_id}|{player_id}", op, publish))[0]

    async def frame(self, game_id: str) -> tuple[int, bytes]:
        """The ``presence`` frame for a game as it stands, with its version: sent after
        each catch-up."""
        online, gone, version = await self._call(game_id, "|", "get", publish=False)
        return version, frames.presence(game_id, online, gone)

    async def _call(
        self, game_id: str, member: str, op: Op, publish: bool
    ) -> tuple[list[str], dict[str, int], int]:
        """presence.lua: who is connected, since when each player who left is gone, and
        the version of that answer."""
        online, flat, version = await self.script(
            keys=[
                keys.presence(game_id),
                keys.game_hubs(game_id),
                keys.gone(game_id),
                keys.game(game_id),
            ],
            args=[
                member,
                op,
                PRESENCE_TTL_MS,
                keys.game_channel_stem(game_id),
                game_id,
                "1" if publish else "0",
                GONE_TTL_MS,
            ],
        )
        text = [_text(r) for r in flat or []]
        gone = {text[i]: int(text[i + 1]) for i in range(0, len(text) - 1, 2)}
        return sorted(_text(r) for r in online or []), gone, int(version)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class TurnNotices:
    """When a commit of this process leaves a game on a person's move, that player's
    sockets that do not follow the game hear of it (a ``turn`` frame): at once on this hub,
    and, in games of an hour or more per move, on every hub (through the hubs' channel).
    A socket that follows the game has its event, which says the same: one frame less on
    every move. Faster games are followed on the game's own page."""

    def __init__(
        self,
        redis: Redis,
        hub_id: str,
        sockets: Sockets,
        committed: Callable[[str], GameState | None],
    ) -> None:
        self.redis = redis
        self.hub = hub_id  # the app's: this hub skips its own notices
        self.sockets = sockets
        # The state the commit path remembered, with the deadline Redis set: the notice is
        # built from it, not by decoding the event frame on every move.
        self.committed = committed
        self._tasks = Tasks()

    def on_commit(self, change: Change, n: int, frame: bytes) -> None:
        """Commit hook (commit.py)."""
        new = change.new
        if new.status != "active" or not new.turn or new.turn == BOT_ID:
            return
        if change.event.get("kind") not in ("move", "start"):
            return  # the turn did not change hands
        state = self.committed(new.id) or new
        other = state.player(state.defender if state.turn == state.attacker else state.attacker)
        notice = frames.turn(
            state.id,
            state.ply,
            state.moves[-1] if state.moves else None,
            state.deadline or None,
            other.name if other else None,
        )
        self.sockets.tell([state.turn], notice, unless_following=state.id)
        if not is_live(new.move_time):  # correspondence: notices reach every hub
            self._tasks.start(self._publish(state.id, state.turn, notice))

    async def _publish(self, game_id: str, player_id: str, notice: bytes) -> None:
        with contextlib.suppress(Exception):  # only a notice: the games list is the truth
            await self.redis.publish(
                keys.hub_channel(), frames.turn_for(self.hub, game_id, player_id, notice)
            )

    def on_notice(self, msg: dict[str, object]) -> None:
        """Hook of the hubs' channel: another hub's turn notice for a player here."""
        if msg.get("t") == "turn_for" and msg.get("hub") != self.hub:
            frame, game = msg.get("frame"), msg.get("game")
            if isinstance(frame, bytes):
                following = game if isinstance(game, str) else ""
                self.sockets.tell([str(msg.get("player"))], frame, unless_following=following)
