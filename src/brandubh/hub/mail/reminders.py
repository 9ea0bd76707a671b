"""Move reminders by mail, for games against people with an hour or more per move.

Two per move at most, to the player on turn: "your move", shortly after it became their
move if they have no socket open on any hub, and "a quarter of your time is left". None
once they have moved, none for an account that turned them off (every reminder carries a
one-click unsubscribe link and the List-Unsubscribe headers of RFC 8058).

The index: the hub that commits a change (a commit hook, commit.py) writes the move's two
entries into its bucket's reminder index (``keys.reminders``, ZADD NX: the first write's
time stands) and drops the previous move's. Every hub's loop claims due entries for a short
lease (lua/claim.lua, ``CLAIM_LEASE_MS``), re-reads the game, and queues the mail under an
id fixed by game, ply and kind: the outbox takes each id once (lua/mail.lua), so a hub dying
mid-way, or two firing at once, still sends one mail. The index is written after the commit,
apart from the commit script: a hub dying between the two loses that move's reminders, never
a move.

Presence: each hub marks the players with a socket open on it (``keys.online``, a
30 s TTL): every second it marks those new since the last turn and renews those marked
10 s ago, in one pipeline, so a player costs one SET per 10 s and "not connected" is
one EXISTS.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from typing import Final, Literal, Protocol

from redis.asyncio import Redis

from brandubh.hub.background import Tasks
from brandubh.hub.errors import Refusal
from brandubh.hub.live import Change, GameService, GameState, is_live
from brandubh.hub.mail import mails
from brandubh.hub.mail.outbox import Outbox
from brandubh.hub.mail.tokens import Holder, Tokens
from brandubh.hub.redis import Scripts, keys
from brandubh.hub.redis import client as redis_client
from brandubh.store import Account

log = logging.getLogger(__name__)

MOVE_DELAY_MAX_MS: Final = 60_000  # "your move" waits this long (less for short moves)
# Short: firing takes milliseconds, and a reminder fired twice (a lease run out under a slow
# hub) is still one mail, since the outbox takes each mail id once. A hub killed holding a
# claim delays that reminder by this much, not by a fraction of the move.
CLAIM_LEASE_MS: Final = 5_000
EARLY_MS: Final = 30_000  # a "quarter" claimed this much before its time is put back
CLAIM_BATCH: Final = 100
PRESENCE_EVERY_S: Final = 1.0  # how often a hub looks for players to mark
PRESENCE_RENEW_S: Final = 10.0  # how often one player's marker is renewed
KINDS: Final = ("move", "quarter")


def entries(state: GameState, now_ms: int, time_scale: float) -> dict[str, int]:
    """The reminder entries a game's state calls for: member -> due (ms). Pure."""
    if (
        state.status != "active"
        or state.opponent != "friend"
        or is_live(state.move_time)  # reminders are for correspondence
        or not state.deadline
        or not state.turn
    ):
        return {}
    window = max(1, int(state.move_time * 1000 * time_scale))
    return {
        f"{state.id}|{state.ply}|move": now_ms + min(MOVE_DELAY_MAX_MS, window // 60),
        f"{state.id}|{state.ply}|quarter": state.deadline - window // 4,
    }


class ReminderAccounts(Protocol):
    """What reminders need of the accounts (accounts.Accounts is one): given by app.py, so
    that mail does not import the accounts, which send their own mail through it."""

    async def get(self, account_id: str) -> Account | None: ...
    async def reminders_on(self, account_id: str) -> bool: ...
    async def set_reminders(self, account_id: str, on: bool) -> None: ...


class Reminders:
    def __init__(
        self,
        redis: Redis,
        scripts: Scripts,
        games: GameService,
        committed: Callable[[str], GameState | None],
        accounts: ReminderAccounts,
        tokens: Tokens,
        outbox: Outbox,
        connected: Callable[[], Iterable[str]],
        public_url: str,
        clock: Callable[[], int],
    ) -> None:
        self.redis = redis
        self.scripts = scripts
        self.games = games
        self.committed = committed  # a state just committed here, with its deadline
        self.accounts = accounts
        self.tokens = tokens
        self.outbox = outbox
        self.connected = connected  # the players with a socket on this hub
        self.public_url = public_url
        self.clock = clock  # this process's estimate of Redis's clock, ms
        self._writes = Tasks()
        self._marked: dict[str, float] = {}  # player -> when this hub last marked them
        self.sent = 0

    # -- presence ----------------------------------------------------------------------

    async def beat(self) -> None:
        """Mark the players with a socket here as connected: the new ones, and those
        whose marker was set 10 s ago (it lasts 30 s)."""
        now = time.monotonic()
        here = set(self.connected())
        self._marked = {pid: at for pid, at in self._marked.items() if pid in here}
        due = [p for p in here if now - self._marked.get(p, -PRESENCE_RENEW_S) >= PRESENCE_RENEW_S]
        if not due:
            return
        pipe = self.redis.pipeline(transaction=False)
        for pid in due:
            pipe.set(keys.online(pid), "1", ex=keys.PRESENCE_S)
        await pipe.execute()
        self._marked.update(dict.fromkeys(due, now))

    # -- the index ---------------------------------------------------------------------

    def on_commit(self, change: Change, n: int, frame: bytes) -> None:
        """Commit hook: index this move's reminders and drop the last move's (only the hub
        that committed the change does: once per change)."""
        new = change.new
        if new.opponent != "friend" or is_live(new.move_time):
            return
        # The state as committed, with the deadline Redis set (``new`` has the one before).
        self._writes.start(self._index(self.committed(new.id) or new))

    async def _index(self, state: GameState) -> None:
        game, ply = state.id, state.ply
        key = keys.reminders(keys.bucket(game))
        stale = [f"{game}|{ply - 1}|{k}" for k in KINDS]
        if state.status == "ended":
            stale += [f"{game}|{ply}|{k}" for k in KINDS]
        due = entries(state, self.clock(), self.games.time_scale)
        try:
            pipe = self.redis.pipeline(transaction=False)
            pipe.zrem(key, *stale)
            if due:
                pipe.zadd(key, due, nx=True)
            await pipe.execute()
        except Exception:
            log.exception("could not index the reminders of game %s", game)

    # -- firing ------------------------------------------------------------------------

    async def tick(self) -> int:
        """One turn of the loop: claim due reminders of every bucket and send them."""
        sets = [keys.reminders(b) for b in range(keys.BUCKETS)]
        args = [CLAIM_LEASE_MS, CLAIM_BATCH]
        # (On a cluster a bucket whose node cannot answer now is claimed next turn.)
        due = await redis_client.claim_buckets(self.redis, self.scripts.claim, sets, args)
        fired = 0
        for raw in (raw for batch in due for raw in batch):
            member = raw.decode()
            outcome = await self.fire(member)
            if outcome == "later":
                continue  # fire() put it back with its new time
            fired += outcome == "sent"
            await self.redis.zrem(keys.reminders(keys.bucket(member.rsplit("|", 2)[0])), member)
        self.sent += fired
        return fired

    async def fire(self, member: str) -> Literal["sent", "dropped", "later"]:
        """Send one reminder if it is still due: "sent" (queued now, or before by another
        hub), "dropped" (moved, ended, connected, opted out), or "later" (put back)."""
        game_id, ply_text, kind = member.rsplit("|", 2)
        try:
            state = await self.games.load(game_id)
        except Refusal:
            return "dropped"
        if state.status != "active" or state.ply != int(ply_text) or not state.turn:
            return "dropped"  # moved already, or the game ended
        window = max(1, int(state.move_time * 1000 * self.games.time_scale))
        now = self.clock()
        if kind == "quarter" and now < state.deadline - window // 4 - EARLY_MS:
            # The deadline moved (an outage was made good): due later.
            await self.redis.zadd(
                keys.reminders(keys.bucket(game_id)), {member: state.deadline - window // 4}
            )
            return "later"
        player = state.turn
        if kind == "move" and await self.redis.exists(keys.online(player)):
            return "dropped"  # on the site: they see the move
        account = await self.accounts.get(player)
        if account is None or not await self.accounts.reminders_on(player):
            return "dropped"
        other = state.player(state.defender if player == state.attacker else state.attacker)
        token = await self.tokens.issue(
            "unsubscribe", keys.UNSUBSCRIBE_TOKEN_S, Holder(account.id, account.email)
        )
        mail = mails.reminder(
            mails.Reminder(
                to=account.email,
                name=account.name,
                opponent=other.name if other else "your opponent",
                ruleset=state.ruleset,
                move_time_s=state.move_time,
                deadline_ms=state.deadline,
                now_ms=now,
                game_link=f"{self.public_url}/g/{game_id}",
                unsubscribe_page=f"{self.public_url}/unsubscribe/{token}",
                unsubscribe_post=f"{self.public_url}/api/unsubscribe/{token}",
                quarter=kind == "quarter",
            )
        )
        await self.outbox.send(mail, mail_id=f"rem-{game_id}-{ply_text}-{kind}")
        return "sent"

    # -- the setting -------------------------------------------------------------------

    async def unsubscribe(self, token: object) -> Holder:
        """Follow an unsubscribe link: that account's reminders stop (the link stays good)."""
        holder = await self.tokens.check("unsubscribe", token)
        await self.accounts.set_reminders(holder.account, False)
        return holder

    async def stop(self) -> None:
        await self._writes.cancel()
