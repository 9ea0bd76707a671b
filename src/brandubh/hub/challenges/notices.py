"""Account notices: what the event streams and the site's sockets of an account hear of
its challenges and games, on whichever hub they are. A notice is delivered at once to
this hub's streams and sockets, and published on the hubs' channel (keys.hub_channel,
``frames.account_notice``) for the others, each of which hands it to its own
(``on_notice``; the publishing hub skips its own). Like every notice it may be missed:
reopening a stream gives the open challenges and games in progress again."""

from __future__ import annotations

import logging
from collections.abc import Mapping

from redis.asyncio import Redis

from brandubh.hub.background import Tasks
from brandubh.hub.challenges import records
from brandubh.hub.challenges.streams import EventStreams
from brandubh.hub.live import BOT_ID, Change
from brandubh.hub.messages import frames
from brandubh.hub.redis import keys
from brandubh.hub.wire import Sockets

log = logging.getLogger(__name__)


class AccountNotices:
    """Publishes account notices and hands those of every hub to this hub's streams and
    sockets."""

    def __init__(self, redis: Redis, hub_id: str, sockets: Sockets, streams: EventStreams) -> None:
        self.redis = redis
        self.hub = hub_id
        self.sockets = sockets
        self.streams = streams
        self._tasks = Tasks()

    async def publish(self, players: list[str], kind: str, body: Mapping[str, object]) -> None:
        """Tell these accounts, here at once and on every other hub."""
        self.deliver(players, kind, body)
        try:
            await self.redis.publish(
                keys.hub_channel(), frames.account_notice(self.hub, players, kind, body)
            )
        except Exception as exc:  # only a notice: reopening a stream or a page reads it all
            log.warning("an account notice (%s) reached this hub only: %s", kind, exc)

    def deliver(self, players: list[str], kind: str, body: Mapping[str, object]) -> None:
        """A notice to this hub's event streams and sockets of these accounts."""
        frame = None
        if kind == records.CHALLENGE:
            frame = frames.challenge(body)
        elif kind in records.CHALLENGE_KINDS:
            frame = frames.challenge_gone(body)
        for player in players:
            if self.streams.has(player):
                text = records.line(kind, body, player)
                if text is not None:
                    self.streams.tell(player, text)
            if frame is not None:
                self.sockets.tell([player], frame)

    def on_notice(self, msg: dict[str, object]) -> None:
        """Hook of the hubs' channel: another hub's account notice."""
        if msg.get("t") != "account_notice" or msg.get("hub") == self.hub:
            return
        players, kind, body = msg.get("players"), msg.get("kind"), msg.get("body")
        if isinstance(players, list) and isinstance(kind, str) and isinstance(body, dict):
            self.deliver([str(p) for p in players], kind, body)

    def on_commit(self, change: Change, n: int, frame: bytes) -> None:
        """Commit hook: a game that started (gameStart) or ended (gameFinish), to both
        players; an invitation ended unstarted (withdrawn, declined) is neither."""
        new = change.new
        if change.event.get("kind") == "start":
            kind = records.GAME_START
        elif new.status == "ended" and not new.withdrawn():
            kind = records.GAME_FINISH
        else:
            return
        players = [p for p in (new.attacker, new.defender) if p and p != BOT_ID]
        if players:
            self._tasks.start(self.publish(players, kind, records.game_view(new)))

    async def stop(self) -> None:
        await self._tasks.cancel()
