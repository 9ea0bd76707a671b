"""The commit call: the only module that knows ``lua/commit.lua``'s arguments.

A change is built (changes.py) against this process's last known state of the game
(cache.py), or against Redis's; the script then re-checks that nothing moved since and
writes the state, the numbered event (events.py), the ack, the deadline and bot indexes
and the publication at once. A concurrent change makes the script answer ``retry``; the
change is then built again against the new state. A refusal is only ever given on Redis's
word, never on the cache's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, cast

import msgpack
from redis.asyncio import Redis

from brandubh.hub.errors import Refusal, no_game
from brandubh.hub.live import events, stored
from brandubh.hub.live.cache import GameCache
from brandubh.hub.live.changes import Build, Change, script_refusal
from brandubh.hub.live.state import GameState, counts_of
from brandubh.hub.live.terms import is_live
from brandubh.hub.redis import Lane, Orphan, Scripts, TokenCheck, keys
from brandubh.hub.redis import client as redis_client

_RETRIES: Final = 16
# An ended game waits this long in its bucket's finished-games queue before a sweep may
# take it; the hubs' live path (endings.py, fed by the final event) normally does first.
ARCHIVE_GRACE_MS: Final = 5_000
# A move's receipt stamp older than this when its commit runs is not believed: the
# deadline is then judged by Redis's clock alone (docs/fair-play.md).
STAMP_MAX_AGE_MS: Final = 30_000


@dataclass(frozen=True, slots=True)
class Committed:
    """A change that is in Redis: its event number, and whether it was a resend."""

    n: int
    duplicate: bool = False


def _ack(raw: bytes, fingerprint: str, msg_id: str) -> Committed:
    """A stored ack (``n:fingerprint``) for a message id seen before: a resend of the same
    action is acknowledged again; the id reused for another action is refused."""
    n, _, stored = raw.decode().partition(":")
    if stored and stored != fingerprint:
        raise Refusal("id_reused", msg_id=msg_id)
    return Committed(int(n), duplicate=True)


# Called after each change this process committed (not a resend): the change, its event
# number and the event frame as stored. Fan-out delivers it to local sockets, endings,
# the bot worker and the lists follow up. Must not block.
CommitHook = Callable[[Change, int, bytes], None]
# commit.lua's reply: a tag and its values, as bytes (but the event number of an 'ok',
# an integer). See the script's header.
Reply = list[bytes | int]
# Called with a game's id when a commit's reply was lost with the lane's connection: the
# change may be in Redis, unseen here (fan-out then has the game's sockets catch up).
LostHook = Callable[[str], None]


def _token_part(reply: Reply, check: TokenCheck) -> Reply:
    """commit.lua's reply given a token's check: the check's answer judged (its refusal
    raised, nothing committed), then the commit's own reply."""
    check.answered(reply)
    return cast(Reply, reply[3])


def _text(value: bytes | int) -> str:
    """A value of a refusal's reply, as text."""
    return value.decode() if isinstance(value, bytes) else str(value)


def arguments(
    old: GameState,
    change: Change,
    frame: bytes,
    actor: str,
    msg_id: str,
    fingerprint: str,
    hub_id: str,
    received: int | None = None,
    safe: int | None = None,
    check: TokenCheck | None = None,
) -> tuple[list[str], list[bytes]]:
    """The keys and the two arguments of commit.lua (see the script's header): the map of
    what to check and write, and the event ``frame`` (events.py); with ``check``, a Bot
    API move's token request, which the script checks and counts first."""
    new = change.new
    fields = new.fields(change.write)
    params: dict[str, object] = {
        "actor": actor,
        "id": msg_id,
        "fp": fingerprint,
        "status": change.status,
        "seq": old.seq,
        "turn": change.require_turn,
        "check": change.deadline_check,
        "change": change.deadline_change,
        "ms": change.deadline_ms,
        "bot": change.bot_job,
        "game": old.id,
        "channel": keys.game_channel_stem(old.id),
        "hub": hub_id,
        # (Redis's Lua msgpack reads no bin type: bytes go as raw strings.)
        "fields": [x for name in change.write for x in (name, fields[name])],
    }
    if change.ply is not None:
        params["ply"] = change.ply
    if received is not None:
        params["stamp"] = received
        params["max_age"] = STAMP_MAX_AGE_MS
    if safe is not None:
        params["safe"] = safe
    if check is not None:
        params["token_window"] = check.window_ms
        params["token_nonce"] = check.nonce
        params["token_most"] = check.most
    if change.deadline_change == "set":
        params["placeholder"] = events.PLACEHOLDER
    if new.status == "ended":
        params["archive_after"] = ARCHIVE_GRACE_MS
    played = change.played
    if played is not None:  # the move alone: the commit does not grow with the game
        params["append"] = played.text + " "
        params["rep"] = str(played.position)
        params["rep_reset"] = played.new_run
        if not is_live(old.move_time):
            # Correspondence: each player's conditional moves follow the move (commit.lua
            # prunes them, queueing a reply due from the player now on turn).
            params["cond"] = new.turn
    absent = change.absent
    if absent is not None:
        params.update(
            absent=absent.player,
            grace=absent.grace_ms,
            after=absent.after,
            beat=absent.beat,
            gap=absent.gap_ms,
        )
    if change.back_to is not None:  # a takeback: the moves and counts that remain, whole
        params["moves_all"] = "".join(m + " " for m in new.moves)
        params["reps_all"] = counts_of(new.recent)
        params["back_to"] = change.back_to
    elif old.legacy:  # stored before keys.moves and keys.repetitions: move them there
        params["moves_all"] = "".join(m + " " for m in old.moves)
        params["reps_all"] = counts_of(old.recent)
    bucket = keys.bucket(old.id)
    keys_ = [
        keys.game(old.id),
        keys.events(old.id),
        keys.acks(old.id),
        keys.bot_jobs(bucket),
        keys.deadlines(bucket),
        keys.finished(bucket),
        keys.game_hubs(old.id),
        keys.moves(old.id),
        keys.repetitions(old.id),
        keys.conditional(old.id, old.attacker),
        keys.conditional(old.id, old.defender),
        keys.conditional_jobs(bucket),
        keys.presence(old.id),
        keys.gone(old.id),
    ]
    if check is not None:
        keys_ += check.keys
    return keys_, [cast(bytes, msgpack.packb(params, use_bin_type=False)), frame]


class Committer:
    """Commits changes to live games; the cache learns each committed state, ``on_commit``
    each committed change, ``on_lost`` each game whose commit's reply was lost (both
    given at construction: the composition root's, which hands them on)."""

    def __init__(
        self,
        redis: Redis,
        scripts: Scripts,
        cache: GameCache,
        lane: Lane | None = None,
        replicas: redis_client.ReplicaWait | None = None,
        hub_id: str = "",
        on_commit: CommitHook | None = None,
        on_lost: LostHook | None = None,
    ) -> None:
        self.redis = redis
        self.scripts = scripts
        self.cache = cache
        self.lane = lane
        # When set, every commit of an action waits for replicas before its ack (WAIT).
        self.replicas = replicas
        # On the lane this process hands every change it commits to its own sockets, even
        # under a cancelled caller (lane.py's orphans): commit.lua need not publish it back
        # here. Elsewhere ('') pub/sub's copy also covers a reply this process never read.
        self.hub_id = hub_id if lane is not None and replicas is None else ""
        self._on_commit = on_commit
        self._on_lost = on_lost

    async def act(
        self,
        actor: str,
        game_id: str,
        msg_id: str,
        fingerprint: str,
        build: Build,
        *,
        cached: bool = False,
        first: GameState | None = None,
        received: int | None = None,
        safe: int | None = None,
        check: TokenCheck | None = None,
    ) -> Committed:
        """Build a change against the game's state and commit it, retrying on a race.

        With ``cached``, the first attempt uses this process's last known state, so the
        usual move costs one round trip. ``received`` is when the move reached this hub
        (Redis clock, RedisClock.stamp; its caller holds the watermark back meanwhile):
        commit.lua judges the deadline by it. ``safe`` is, for a timeout, the time up to
        which the scheduler may judge deadlines (clock.Marks). ``check``, a Bot API move's
        token request, goes with the first commit call (then judged: its refusal raised);
        a path that never calls commit.lua leaves it to its caller.
        """
        cache = self.cache
        state = first or (cache.get(game_id) if cached else None)
        trusted = first is not None
        for _ in range(_RETRIES):
            if state is None:
                ack = f"{actor}:{msg_id}" if msg_id else None
                read, prev = await stored.read(self.scripts, game_id, lane=self.lane, ack=ack)
                if prev is not None:
                    return _ack(prev, fingerprint, msg_id)
                if read is None:
                    raise no_game(game_id, msg_id or None)
                state = cache.remember(read)
                trusted = True
            try:
                change = build(state)
            except Refusal:
                if trusted:
                    raise
                state = None  # the cached state may be stale: ask Redis before refusing
                continue
            seed = await self._seed(change.new.id) if change.new.status == "ended" else b""
            frame = events.frame(change, seed)
            carry = check if check is not None and check.answer is None else None
            keys_, args = arguments(
                state, change, frame, actor, msg_id, fingerprint, self.hub_id, received, safe, carry
            )
            try:
                orphan = self._orphan(change, frame, carry is not None)
                reply = await self._evalsha(keys_, args, orphan)
                if carry is not None:
                    reply = _token_part(reply, carry)
                committed = self.settle(reply, change, frame)
            except Refusal as exc:
                exc.msg_id = exc.msg_id or msg_id or None
                raise
            if committed is not None:
                return committed
            state = None  # the game changed meanwhile: read it again
        raise Refusal("busy", "the game is changing too fast; try again", msg_id or None)

    async def act_many(
        self, actor: str, game_ids: Sequence[str], build: Build, safe: int | None = None
    ) -> list[Committed | None]:
        """Build and commit a change to each game (no message id) in two round trips: read
        every game with its seed, then commit them all. None where a game is gone, refused
        the change or raced: the caller decides those one by one."""
        reads = await stored.read_many(
            self.redis, self.scripts, game_ids, lane=self.lane, seed=True
        )
        out: list[Committed | None] = [None] * len(game_ids)
        built: list[int] = []
        calls: list[tuple[Change, bytes, list[str], list[bytes]]] = []
        for i, (state, seed) in enumerate(reads):
            if state is None:
                continue
            try:
                change = build(state)
            except Refusal:
                continue
            frame = events.frame(change, seed or b"")
            keys_, args = arguments(state, change, frame, actor, "", "", self.hub_id, safe=safe)
            built.append(i)
            calls.append((change, frame, keys_, args))
        for i, committed in zip(built, await self._commit_all(calls), strict=True):
            out[i] = committed
        return out

    async def _commit_all(
        self, calls: Sequence[tuple[Change, bytes, list[str], list[bytes]]]
    ) -> list[Committed | None]:
        """Run many commits at once: each the commit, or None where it raced or refused."""
        if not calls:
            return []
        replies: list[Reply | None]
        if self.lane is not None:  # all written at once: one round trip
            replies = await asyncio.gather(
                *(self._evalsha(k, a, self._orphan(c, f)) for c, f, k, a in calls)
            )
        else:  # one pipeline (on a cluster, one per node; None where a node cannot answer)
            commit = self.scripts.commit
            replies = await redis_client.run_scripts(
                self.redis, [(commit, k, a) for _, _, k, a in calls]
            )
        out: list[Committed | None] = []
        for (change, frame, _, _), reply in zip(calls, replies, strict=True):
            try:
                out.append(None if reply is None else self.settle(reply, change, frame))
            except Refusal:
                out.append(None)
        return out

    async def _evalsha(
        self, keys_: list[str], args: list[bytes], orphan: Orphan | None = None
    ) -> Reply:
        """commit.lua by its sha on the lane (lane.py: this is every move's round trip),
        then WAIT for replicas if asked (on its own connection: a WAIT holds up every
        command behind it), or by the script object (commit.lua is safe to repeat)."""
        if self.replicas is not None:
            return cast(Reply, await self.replicas.call(self.scripts.commit, keys_, args))
        if self.lane is not None:
            commit = self.scripts.commit
            return cast(Reply, await self.lane.script(commit, keys_, args, orphan))
        return cast(Reply, await redis_client.script(self.scripts.commit, keys_, args))

    def _orphan(self, change: Change, frame: bytes, checked: bool = False) -> Orphan | None:
        """What to do with the reply of a commit whose caller is gone (lane.py): settle
        it as the caller would have, so its event still reaches ``on_commit`` (``checked``:
        the reply is a token check's, the commit's inside it if the token let it run)."""
        if not self.hub_id:
            return None  # pub/sub brings every event back here

        def settle_late(reply: Reply | None) -> None:
            if reply is None:  # lost with the connection: maybe committed, maybe not
                if self._on_lost is not None:
                    self._on_lost(change.new.id)
                return
            if checked:
                if len(reply) < 4:  # the token was refused: nothing was committed
                    return
                reply = cast(Reply, reply[3])
            try:
                self.settle(reply, change, frame)
            except Refusal:
                return

        return settle_late

    async def _seed(self, game_id: str) -> bytes:
        """The seed, which the final event reveals; not read for any other change."""
        return cast(bytes, await self.redis.get(keys.seed(game_id)) or b"")

    def settle(self, reply: Reply, change: Change, frame: bytes) -> Committed | None:
        """What commit.lua's reply means: committed, a resend, a race (None) or a refusal.
        A commit is told to ``on_commit`` with the frame as stored (deadline filled in)."""
        tag = reply[0]
        new = change.new
        if tag == b"ok":
            n, deadline = int(reply[1]), int(reply[2])
            self.cache.remember(new.evolve(deadline=deadline))
            frame = events.stored(frame, change, deadline)
            if self._on_commit is not None:
                self._on_commit(change, n, frame)
            return Committed(n)
        if tag == b"dup":
            return Committed(int(reply[1]), duplicate=True)
        if tag == b"retry":
            return None
        self.cache.forget(new.id)
        raise script_refusal(_text(reply[1]), _text(reply[2]), change)
