"""The lists to browse, kept in step with commits: the watch list of games in progress
(``keys.live_games``) and each player's index of their games in progress
(``keys.player_active``, read by mygames.py). Games that start join them, games that end
leave them. Only lists: a lapse changes no game, and their readers drop ended games."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

from redis.asyncio import Redis

from brandubh.hub.background import Tasks
from brandubh.hub.live.changes import Change
from brandubh.hub.live.state import BOT_ID
from brandubh.hub.redis import keys

log = logging.getLogger(__name__)


def lists(change: Change) -> bool:
    """Whether a change starts or ends its game (a move does neither: the usual case)."""
    return change.new.status == "ended" or change.event.get("kind") == "start"


async def update(redis: Redis, changes: Sequence[Change]) -> None:
    """List the games these changes started and unlist those they ended, in one round trip."""
    pipe = redis.pipeline(transaction=False)
    started: dict[str, float] = {}
    ended: list[str] = []
    for change in changes:
        new = change.new
        if new.status == "ended":
            ended.append(new.id)
        elif change.event.get("kind") == "start":
            started[new.id] = time.time() * 1000
        else:
            continue
        for pid in (new.attacker, new.defender):
            if not pid or pid == BOT_ID:
                continue
            if new.status == "ended":
                pipe.zrem(keys.player_active(pid), new.id)
            else:
                pipe.zadd(keys.player_active(pid), {new.id: new.created})
    if started:
        pipe.zadd(keys.live_games(), started)
    if ended:
        pipe.zrem(keys.live_games(), *ended)
    if started or ended:
        await pipe.execute()


class Listings:
    """Commit hook: the changes of one turn of the event loop that start or end games
    (a wave of timeouts, say) update the lists in one background round trip."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self._pending: list[Change] = []
        self._tasks = Tasks()

    def on_commit(self, change: Change, n: int, frame: bytes) -> None:
        if not lists(change):
            return
        if not self._pending:
            self._tasks.start(self._flush())  # runs after this turn's other commits
        self._pending.append(change)

    async def _flush(self) -> None:
        changes, self._pending = self._pending, []
        try:
            await update(self.redis, changes)
        except Exception as exc:  # the lists' readers drop ended games, and go on
            log.warning("could not update the lists of %d games: %s", len(changes), exc)

    async def stop(self) -> None:
        await self._tasks.cancel()
