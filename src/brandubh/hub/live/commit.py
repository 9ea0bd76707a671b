"""The commit path: the only module that knows ``lua/commit.lua``'s arguments.

A change is built (changes.py) against this process's last known state of the game, or
against Redis's; the script then re-checks that nothing moved since and writes the state,
the numbered event, the ack, the deadline and bot indexes and the publication at once. A
concurrent change makes the script answer ``retry``; the change is then built again
against the new state. A refusal is only ever given on Redis's word, never on the cache's.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, cast

import msgpack
from redis.asyncio import Redis

from brandubh.engine import Game
from brandubh.hub.background import Tasks
from brandubh.hub.errors import Refusal
from brandubh.hub.live import mygames
from brandubh.hub.live.changes import Build, Change
from brandubh.hub.live.clock import RedisClock
from brandubh.hub.live.state import GameState, Hash
from brandubh.hub.messages import frames
from brandubh.hub.redis import Lane, Orphan, Scripts, keys
from brandubh.hub.redis import client as redis_client

log = logging.getLogger("brandubh.hub")

_RETRIES: Final = 16
CACHE_GAMES: Final = 10_000
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


def not_found(game_id: str, msg_id: str | None = None) -> Refusal:
    return Refusal("not_found", f"there is no game {game_id}", msg_id)


def _ack(raw: bytes, fingerprint: str, msg_id: str) -> Committed:
    """A stored ack (``n:fingerprint``) for a message id seen before: a resend of the same
    action is acknowledged again; the id reused for another action is refused."""
    n, _, stored = raw.decode().partition(":")
    if stored and stored != fingerprint:
        raise Refusal(
            "id_reused",
            f"message id {msg_id!r} was already used for another action: "
            "send each new action with a new id",
            msg_id,
        )
    return Committed(int(n), duplicate=True)


# Called after each change this process committed (not a resend): the change, its event
# number and the event frame as stored. Fan-out delivers it to local sockets, endings and
# the bot worker follow up. Must not block.
CommitHook = Callable[[Change, int, bytes], None]
# Called with a game's id when a commit's reply was lost with the lane's connection: the
# change may be in Redis, unseen here (fan-out then has the game's sockets catch up).
LostHook = Callable[[str], None]


class Committer:
    """Commits changes to live games; keeps the last known state of recent games, and the
    engine's game at that state for those this process moved last."""

    def __init__(
        self,
        redis: Redis,
        scripts: Scripts,
        clock: RedisClock | None = None,
        lane: Lane | None = None,
        replicas: redis_client.ReplicaWait | None = None,
        hub_id: str = "",
    ) -> None:
        self.redis = redis
        self.scripts = scripts
        self.lane = lane
        # When set, every commit of an action waits for replicas before its ack (WAIT).
        self.replicas = replicas
        # On the lane this process hands every change it commits to its own sockets, even
        # under a cancelled caller (lane.py's orphans): commit.lua need not publish it back
        # here. Elsewhere ('') pub/sub's copy also covers a reply this process never read.
        self.hub_id = hub_id if lane is not None and replicas is None else ""
        self.clock = clock or RedisClock()
        self.hooks: list[CommitHook] = []
        self.lost_hooks: list[LostHook] = []
        # Last known state of recently used games; only ever a first guess (see act).
        self._cache: OrderedDict[str, GameState] = OrderedDict()
        # The engine's game at the cached state's ply, to play the next move on instead of
        # rebuilding it from the snapshot; taken out while a change is built on it.
        self._live: dict[str, Game] = {}
        self._listing = Tasks()  # list_live off the firing path

    # -- the cache ------------------------------------------------------------------------

    def remember(self, state: GameState, game: Game | None = None) -> GameState:
        cache = self._cache
        cache[state.id] = state
        cache.move_to_end(state.id)
        if game is not None and game.result is None:
            self._live[state.id] = game
        if len(cache) > CACHE_GAMES:
            gone, _ = cache.popitem(last=False)
            self._live.pop(gone, None)
        return state

    def cached(self, game_id: str) -> GameState | None:
        return self._cache.get(game_id)

    def live_game(self, state: GameState) -> Game | None:
        """Take this process's engine game at ``state``, if it has one (the caller owns it
        now: a move is played on it). Plies only ever advance by committed moves, so a game
        at the state's ply is at its position."""
        game = self._live.pop(state.id, None)
        if game is not None and game.ply == state.ply and game.ruleset.name == state.ruleset:
            return game
        return None

    def observe(self, game_id: str, n: int) -> None:
        """Fan-out hook: forget a cached game once an event newer than it was committed."""
        cached = self._cache.get(game_id)
        if cached is not None and cached.seq < n:
            del self._cache[game_id]

    async def load(self, game_id: str) -> GameState:
        raw = cast(Hash, await self.redis.hgetall(keys.game(game_id)))
        if not raw:
            raise not_found(game_id)
        return self.remember(GameState.from_hash(game_id, raw))

    # -- committing -----------------------------------------------------------------------

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
    ) -> Committed:
        """Build a change against the game's state and commit it, retrying on a race.

        With ``cached``, the first attempt uses this process's last known state, so the
        usual move costs one round trip. ``received`` is when the move reached this hub
        (Redis clock, RedisClock.stamp): until it is committed or refused it holds this
        hub's watermark back, and commit.lua judges the deadline by it. ``safe`` is, for a
        timeout, the time up to which the scheduler may judge deadlines (clock.Marks).
        """
        if received is None:
            return await self._act(
                actor, game_id, msg_id, fingerprint, build, cached, first, None, safe
            )
        with self.clock.hold(received):
            return await self._act(
                actor, game_id, msg_id, fingerprint, build, cached, first, received, safe
            )

    async def _act(
        self,
        actor: str,
        game_id: str,
        msg_id: str,
        fingerprint: str,
        build: Build,
        cached: bool,
        first: GameState | None,
        received: int | None = None,
        safe: int | None = None,
    ) -> Committed:
        state = first or (self._cache.get(game_id) if cached else None)
        trusted = first is not None
        for _ in range(_RETRIES):
            if state is None:
                pipe = self.redis.pipeline(transaction=False)
                pipe.hgetall(keys.game(game_id))
                pipe.hget(keys.acks(game_id), f"{actor}:{msg_id}")
                raw, prev = await pipe.execute()
                if msg_id and prev is not None:
                    return _ack(prev, fingerprint, msg_id)
                if not raw:
                    raise not_found(game_id, msg_id or None)
                state = self.remember(GameState.from_hash(game_id, raw))
                trusted = True
            try:
                change = build(state)
            except Refusal:
                if trusted:
                    raise
                state = None  # the cached state may be stale: ask Redis before refusing
                continue
            seed = await self._seed(change) if change.new.status == "ended" else b""
            keys_, args = self.call(state, actor, msg_id, fingerprint, change, seed, received, safe)
            try:
                reply = await self._evalsha(keys_, args, self._orphan(change, args[1]))
                committed = self.settle(reply, change, args[1])
            except Refusal as exc:
                exc.msg_id = exc.msg_id or msg_id or None
                raise
            if committed is not None:
                if not committed.duplicate:
                    await self.list_live([change])
                return committed
            state = None  # the game changed meanwhile: read it again
        raise Refusal("busy", "the game is changing too fast; try again", msg_id or None)

    async def _evalsha(
        self, keys_: list[str], args: list[bytes], orphan: Orphan | None = None
    ) -> list[Any]:
        """commit.lua by its sha on the lane (lane.py: this is every move's round trip),
        then WAIT for replicas if asked (on its own connection: a WAIT holds up every
        command behind it), or by the script object (commit.lua is safe to repeat)."""
        if self.replicas is not None:
            return cast(list[Any], await self.replicas.call(self.scripts.commit, keys_, args))
        if self.lane is not None:
            commit = self.scripts.commit
            return cast(list[Any], await self.lane.script(commit, keys_, args, orphan))
        return cast(list[Any], await redis_client.script(self.scripts.commit, keys_, args))

    def _orphan(self, change: Change, frame: bytes) -> Orphan | None:
        """What to do with the reply of a commit whose caller is gone (lane.py): settle
        it as the caller would have, so its event still reaches this process's sockets."""
        if not self.hub_id:
            return None  # pub/sub brings every event back here

        def settle_late(reply: Any) -> None:
            if reply is None:  # lost with the connection: maybe committed, maybe not
                for hook in self.lost_hooks:
                    hook(change.new.id)
                return
            try:
                committed = self.settle(reply, change, frame)
            except Refusal:
                return
            if committed is not None and not committed.duplicate:
                self._list_in_background([change])

        return settle_late

    async def commit_pipelined(
        self, items: Sequence[tuple[GameState, Change, bytes]], safe: int | None = None
    ) -> list[Committed | None]:
        """Commit many (state, change, seed) in one round trip, as the server (no message
        id). Each result is the commit, or None where the game raced or refused: the caller
        decides those one by one."""
        calls = [self.call(s, "scheduler", "", "", c, seed, safe=safe) for s, c, seed in items]
        frames_ = [args[1] for _, args in calls]
        replies: list[Any]
        if self.lane is not None:  # all written at once: one round trip
            replies = await asyncio.gather(
                *(
                    self._evalsha(k, a, self._orphan(c, a[1]))
                    for (k, a), (_, c, _) in zip(calls, items, strict=True)
                )
            )
        else:  # one pipeline (on a cluster, one per node; None where a node cannot answer)
            commit = self.scripts.commit
            replies = await redis_client.run_scripts(self.redis, [(commit, k, a) for k, a in calls])
        out: list[Committed | None] = []
        done: list[Change] = []
        for (_, change, _), reply, frame in zip(items, replies, frames_, strict=True):
            try:
                committed = None if reply is None else self.settle(reply, change, frame)
            except Refusal:
                committed = None
            out.append(committed)
            if committed is not None:
                done.append(change)
        if done:
            # Only browsing lists: a wave of timeouts need not wait for them (they took a
            # third of a sweep's time), the next due deadlines do.
            self._list_in_background(done)
        return out

    def _list_in_background(self, changes: list[Change]) -> None:
        self._listing.start(self._list_quietly(changes))

    async def _list_quietly(self, changes: list[Change]) -> None:
        try:
            await self.list_live(changes)
        except Exception as exc:  # a lapse changes no game; the lists' readers drop ended ones
            log.warning("could not update the lists of %d ended games: %s", len(changes), exc)

    async def _seed(self, change: Change) -> bytes:
        """The seed, which the final event reveals; not read for any other change."""
        if change.new.status != "ended":
            return b""
        return cast(bytes, await self.redis.get(keys.seed(change.new.id)) or b"")

    async def list_live(self, changes: list[Change]) -> None:
        """Keep the watch list (keys.live_games) and the players' lists of their games
        (mygames.py) in step: games that start join them, games that end leave them. Only
        lists to browse: a lapse here changes no game."""
        started = {c.new.id: time.time() * 1000 for c in changes if c.event.get("kind") == "start"}
        ended = [c.new.id for c in changes if c.new.status == "ended"]
        if not started and not ended:
            return  # a move that neither starts nor ends its game: the usual case
        if started:
            await self.redis.zadd(keys.live_games(), started)
        if ended:
            await self.redis.zrem(keys.live_games(), *ended)
        await mygames.index_changes(self.redis, [(c.new, c.event.get("kind", "")) for c in changes])

    def call(
        self,
        old: GameState,
        actor: str,
        msg_id: str,
        fingerprint: str,
        change: Change,
        seed: bytes,
        received: int | None = None,
        safe: int | None = None,
    ) -> tuple[list[str], list[bytes]]:
        """The keys and the two arguments of commit.lua (see the script's header)."""
        new = change.new
        shown: int | None = None
        if change.deadline_change == "set":
            shown = frames.DEADLINE_PLACEHOLDER
        elif change.deadline_change == "at":
            shown = change.deadline_ms
        elif change.deadline_change == "del":
            shown = 0
        revealed = seed.hex() if new.status == "ended" and seed else None
        frame = frames.event(
            old.id, new.seq, change.event, new.public(change.game, seed=revealed, deadline=shown)
        )
        fields = new.fields(change.write)
        params: dict[str, Any] = {
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
            "hub": self.hub_id,
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
        if change.deadline_change == "set":
            params["placeholder"] = frames.PLACEHOLDER_BYTES
        if new.status == "ended":
            params["archive_after"] = ARCHIVE_GRACE_MS
        bucket = keys.bucket(old.id)
        return [
            keys.game(old.id),
            keys.events(old.id),
            keys.acks(old.id),
            keys.bot_jobs(bucket),
            keys.deadlines(bucket),
            keys.finished(bucket),
            keys.game_hubs(old.id),
        ], [cast(bytes, msgpack.packb(params, use_bin_type=False)), frame]

    def settle(self, reply: list[Any], change: Change, frame: bytes) -> Committed | None:
        """What commit.lua's reply means: committed, a resend, a race (None) or a refusal.
        A commit is told to the hooks with the frame as stored (deadline filled in)."""
        tag = reply[0]
        new = change.new
        if tag == b"ok":
            n, deadline = int(reply[1]), int(reply[2])
            self.remember(new.evolve(deadline=deadline), change.game)
            if change.deadline_change == "set":
                frame = frame.replace(frames.PLACEHOLDER_BYTES, frames.deadline_bytes(deadline), 1)
            for hook in self.hooks:
                hook(change, n, frame)
            return Committed(n)
        if tag == b"dup":
            return Committed(int(reply[1]), duplicate=True)
        if tag == b"retry":
            return None
        self._cache.pop(new.id, None)
        raise _commit_error(reply[1].decode(), reply[2].decode())


def _commit_error(code: str, detail: str) -> Refusal:
    if code == "deadline_passed":
        return Refusal("deadline_passed", "the time for this move ran out: the game ends on time")
    if code == "stale_ply":
        return Refusal(
            "stale_ply", f"the game has moved on to ply {detail}: the board has been updated"
        )
    if code == "not_your_turn":
        return Refusal("not_your_turn", "it is your opponent's move")
    if code == "wrong_status":
        return Refusal("game_not_active", f"the game is {detail}: no moves now")
    if code == "id_reused":
        return Refusal(
            "id_reused",
            "this message id was already used for another action: "
            "send each new action with a new id",
        )
    if code == "not_found":
        return Refusal("not_found", "there is no such game")
    return Refusal(code, f"the game could not be changed ({code})")
