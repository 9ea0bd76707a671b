"""Fan-out between hub processes: the pub/sub connections of a process, and the local
registry of which sockets follow which game.

A process subscribes (SSUBSCRIBE) to its own sharded channel of a game
(keys.game_channel: the game's and this hub's) when its first socket follows the game, and
enters its id in the game's set of hubs (keys.game_hubs); after its last socket leaves it
unsubscribes and leaves the set. Whatever concerns the game is published on the channel of
each hub in the set (lua/publish.lua): each event as "<n> <frame>", except to the committing
hub (commit.lua), each notice as "0 <frame>", each presence as "p <version> <frame>"
(lua/presence.lua), each chat line as
"c <room> <author> <muted> <frame>" (lua/chat.lua: no event number, so it never
disturbs the events). So a hub receives only the events of games it
holds sockets for, each once, and a game followed on one hub only costs no publication.
``add`` returns once the subscription is in effect and the hub is in the set: what the
caller then reads from the event list (its catch-up) and what pub/sub brings overlap, and
leave no gap between them. Pub/sub is at-most-once, so each subscription also numbers what
it delivered and fills any gap from the game's event list (``subscription.Subscription``).

On one Redis a process holds one pub/sub connection for everything. On a Redis Cluster a
sharded channel is served only by the master holding its slot, so a process holds one
connection per master (a *shard*) for the games it follows there, each a plain client of
that node that gives up at once when its node is lost: the cluster's layout is then read
again, its games move to their new master, and their subscribers catch up. The lobby's
and the hubs' own channels stay ordinary channels (PUBLISH reaches every node of a
cluster): one more connection, to any node, listens to them.

A change this process commits is delivered to its own sockets at once (``deliver``, a
commit hook), even when its caller was cancelled meanwhile (lane.py's orphan replies);
when the commit's reply is lost with its connection, the game's subscribers here catch up
from the event list instead (``resync``). Leaving the set is ordered after any earlier
join of the same game, per game, so a hub that follows a game is always in its set. An
entry holds for MEMBER_TTL_MS and is renewed every RENEW_S (``renew``), so the entry of a
hub that dies runs out and costs no publication after that; a hub whose own entry ran out
(it stalled that long) finds it so at the next renewal, and those games' subscribers catch
up. The set is entered again whenever a pub/sub connection is opened (a Redis restarted
without its data, a failover that lost the last writes).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Final, Protocol

import msgpack
from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript
from redis.crc import key_slot
from redis.exceptions import ResponseError

from brandubh.hub.background import Tasks
from brandubh.hub.redis import client as redis_client
from brandubh.hub.redis import keys, outage

log = logging.getLogger(__name__)

# How long ``add`` waits for Redis to confirm a subscription before going on regardless
# (then a gap, if any, is filled when the next event shows it).
SUBSCRIBE_WAIT_S: Final = 5.0
RECONNECT_S: Final = 0.2  # the pause before a lost pub/sub connection is opened again
# A hub's entry in a game's set of hubs holds this long unless renewed, and it is renewed
# every RENEW_S while the hub follows the game: the entry of a hub that died runs out, and
# costs no publication after that.
MEMBER_TTL_MS: Final = 60_000
RENEW_S: Final = 15.0

# What ends a pub/sub connection: Redis out of reach, or (on a cluster) a node that no
# longer holds a channel's slot (MOVED, or a sunsubscribe we did not ask for).
_LOST: Final = (*outage.UNREACHABLE, *redis_client.MOVED_OR_DOWN, ResponseError)
# A (un)subscribe sent while the reading task tears the same connection down meets a
# connection with no writer (redis-py raises AttributeError): the connection is lost too.
_SEND_LOST: Final = (*_LOST, AttributeError)
# On a cluster redis-py may also tear a connection down under a read in a failover
# (AttributeError, RuntimeError): the node is lost, as far as a listener can tell.
_NODE_LOST: Final = (*_LOST, *outage.TORN)


class Listener(Protocol):
    """Something that follows one game on this process (a socket's subscription)."""

    def on_frame(self, n: int, frame: bytes) -> None: ...
    def on_chat(self, room: str, author: str, muted: bool, frame: bytes) -> None: ...
    def on_presence(self, version: int, frame: bytes) -> None: ...
    def resync(self) -> None: ...


# Called with (game id, event number) for every event pub/sub brings; must not block.
EventHook = Callable[[str, int], None]


class _Dropped(ConnectionError):
    """The server unsubscribed a followed game's channel itself (its slot moved)."""


class _Shard:
    """One pub/sub connection for the game channels of one node ('' on one Redis)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.games: set[str] = set()  # followed games whose channel is routed here
        self.pubsub: PubSub | None = None  # while connected and subscribed
        self.moved: set[str] = set()  # games moved here while it was not connected
        self.leaving: dict[str, int] = {}  # our own SUNSUBSCRIBEs not yet confirmed
        self.task: asyncio.Task[None] | None = None


class _PerGame:
    """Runs what is held for one game one at a time, in the order asked (FIFO locks, kept
    only while in use)."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, list[int]]] = {}

    @contextlib.asynccontextmanager
    async def hold(self, game_id: str) -> AsyncIterator[None]:
        entry = self._locks.get(game_id)
        if entry is None:
            entry = self._locks[game_id] = (asyncio.Lock(), [0])
        lock, users = entry
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if not users[0]:
                del self._locks[game_id]


class Fanout:
    """The process's pub/sub connections and its registry of local subscriptions."""

    def __init__(
        self, redis: Redis, hub_id: str, member: AsyncScript, member_ttl_ms: int = MEMBER_TTL_MS
    ) -> None:
        self.redis = redis
        # This process in the games' sets of hubs (keys.game_hubs); commit.py names the same.
        self.hub_id = hub_id
        self.member = member  # lua/member.lua: enter or stay in a game's set of hubs
        self.member_ttl_ms = member_ttl_ms
        self.cluster: RedisCluster | None = redis_client.cluster_of(redis)
        self.games: dict[str, set[Listener]] = {}
        self.hooks: list[EventHook] = []
        # Frames of the lobby channel: (decoded map, raw frame).
        self.lobby_hooks: list[Callable[[dict[str, object], bytes], None]] = []
        # Notices of the hubs' own channel (keys.hub_channel): sessions that ended.
        self.hub_hooks: list[Callable[[dict[str, object]], None]] = []
        self.ready = asyncio.Event()
        self.received = 0  # game-channel messages received (bench/load.py reads it)
        self._shards: dict[str, _Shard] = {}  # by node name; '' on one Redis
        self._shard_of: dict[str, _Shard] = {}  # followed game -> its shard
        # SSUBSCRIBEs sent and not yet confirmed, per game, and who waits for them.
        self._unconfirmed: dict[str, int] = {}
        self._joined: dict[str, asyncio.Future[None]] = {}
        # Per followed game: this hub entering its set of hubs (done once it is in).
        self._member: dict[str, asyncio.Future[None]] = {}
        self._membership = _PerGame()  # a game's join and leave of its set of hubs, in order
        self._undoing = Tasks()
        self._listening = False

    # -- the local registry ------------------------------------------------------------

    async def add(self, game_id: str, listener: Listener) -> None:
        """Follow a game; returns once this hub is in its set of hubs and its channel's
        subscription is in effect. Raises (following nothing) if Redis cannot take the
        hub into the set."""
        listeners = self.games.get(game_id)
        if listeners is None:
            shard = self._route(game_id)  # first: a cluster that cannot route it changes nothing
            self.games[game_id] = {listener}
            joined = self._joined[game_id] = asyncio.get_running_loop().create_future()
            shard.games.add(game_id)
            self._shard_of[game_id] = shard
            member: asyncio.Future[None] = asyncio.ensure_future(self._join(game_id))
            self._member[game_id] = member
            await self._subscribe(shard, [game_id])
        else:
            listeners.add(listener)
            joined = self._joined.get(game_id) or _done()
            member = self._member.get(game_id) or _done()
        try:
            await asyncio.shield(member)
        except BaseException:
            # Not in the set, other hubs' events would not come: follow nothing.
            self._undoing.start(self.remove(game_id, listener))
            raise
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(joined), SUBSCRIBE_WAIT_S)

    async def remove(self, game_id: str, listener: Listener) -> None:
        listeners = self.games.get(game_id)
        if listeners is None:
            return
        listeners.discard(listener)
        if not listeners:
            del self.games[game_id]
            self._joined.pop(game_id, None)
            self._member.pop(game_id, None)
            shard = self._shard_of.pop(game_id, None)
            if shard is None:
                return
            shard.games.discard(game_id)
            if shard.pubsub is not None:
                shard.leaving[game_id] = shard.leaving.get(game_id, 0) + 1
                with contextlib.suppress(*_SEND_LOST):
                    await shard.pubsub.sunsubscribe(keys.game_channel(game_id, self.hub_id))
            await self._leave(game_id)

    async def _join(self, game_id: str) -> None:
        async with self._membership.hold(game_id):
            await self.member(keys=[keys.game_hubs(game_id)], args=self._entry())

    def _entry(self) -> list[str | int]:
        return [self.hub_id, self.member_ttl_ms]

    async def _leave(self, game_id: str) -> None:
        """Leave the game's set of hubs, unless a socket here followed it again meanwhile
        (its join is ordered after this, or done before and seen here)."""
        try:
            async with self._membership.hold(game_id):
                if game_id not in self.games:
                    await self.redis.zrem(keys.game_hubs(game_id), self.hub_id)
        except outage.UNREACHABLE as exc:  # left in the set: unread publications until it runs out
            outage.report("fan-out", exc)

    async def _rejoin(self, games: Iterable[str]) -> list[str]:
        """Enter (or stay in) the sets of hubs of games followed here, one round trip per
        node; the games this hub was not in. Unordered with the games' leaves: an extra
        entry only costs publications until it runs out. Raises if a node cannot answer."""
        games = list(games)
        calls: list[redis_client.Call] = [
            (self.member, [keys.game_hubs(game_id)], self._entry()) for game_id in games
        ]
        replies = await redis_client.run_scripts(self.redis, calls)
        if any(reply is None for reply in replies):
            raise ConnectionError("a node of the cluster could not take this hub's entries")
        return [game_id for game_id, added in zip(games, replies, strict=True) if added]

    async def renew(self) -> None:
        """Renew this hub's entries in the sets of hubs of the games it follows (a loop's
        step, every RENEW_S). An entry that had run out (this hub stalled past
        MEMBER_TTL_MS) missed what was published meanwhile: those subscribers catch up."""
        joined = [g for g, member in self._member.items() if member.done()]
        if joined:
            self._resync([g for g in await self._rejoin(joined) if g in self.games])

    def resync(self, game_id: str) -> None:
        """This process's subscribers of a game catch up from its event list (a commit's
        reply was lost: its event may not have been delivered here)."""
        self._resync([game_id])

    def deliver(self, game_id: str, n: int, frame: bytes) -> None:
        """Hand an event to this process's sockets that follow its game."""
        for listener in list(self.games.get(game_id, ())):
            listener.on_frame(n, frame)

    def _route(self, game_id: str) -> _Shard:
        """The shard a game's channel belongs on now (made, and on a cluster started)."""
        name = ""
        if self.cluster is not None:
            name = redis_client.node_of(self.cluster, keys.game_channel_stem(game_id))
        shard = self._shards.get(name)
        if shard is None:
            shard = self._shards[name] = _Shard(name)
            if self.cluster is not None and self._listening:
                shard.task = asyncio.create_task(self._listen_node(shard), name=f"fan-out {name}")
        return shard

    async def _subscribe(self, shard: _Shard, games: Iterable[str]) -> None:
        pubsub = shard.pubsub
        if pubsub is None:
            return  # connecting: the new connection subscribes to every game routed to it
        # One SSUBSCRIBE per slot: a cluster refuses channels of several slots in one.
        by_slot: dict[int, list[str]] = {}
        for game_id in games:
            self._unconfirmed[game_id] = self._unconfirmed.get(game_id, 0) + 1
            channel = keys.game_channel(game_id, self.hub_id)
            by_slot.setdefault(key_slot(channel.encode()), []).append(channel)
        # On failure the shard reconnects, subscribes again and resyncs everyone.
        with contextlib.suppress(*_SEND_LOST):
            for channels in by_slot.values():
                await pubsub.ssubscribe(*channels)

    def _confirmed(self, channel: bytes) -> None:
        game_id = keys.game_of_channel(channel)
        left = self._unconfirmed.get(game_id, 0) - 1
        if left > 0:
            self._unconfirmed[game_id] = left
            return
        self._unconfirmed.pop(game_id, None)
        joined = self._joined.get(game_id)
        if joined is not None and not joined.done():
            joined.set_result(None)

    def _resync(self, games: Iterable[str]) -> None:
        """Whatever was published while a game's channel was not heard reaches nobody:
        its subscribers catch up from the event list."""
        for game_id in games:
            for listener in list(self.games.get(game_id, ())):
                listener.resync()

    # -- listening ----------------------------------------------------------------------

    async def listen(self) -> None:
        """Listen for ever (the lifespan's task group runs it); ``ready`` once subscribed."""
        self._listening = True
        if self.cluster is None:
            await self._listen_single()
            return
        for shard in self._shards.values():  # games followed before listening began
            shard.task = asyncio.create_task(self._listen_node(shard), name="fan-out")
        try:
            await self._listen_broadcast(self.cluster)
        finally:
            for shard in list(self._shards.values()):
                if shard.task is not None:
                    shard.task.cancel()

    async def _listen_single(self) -> None:
        """One Redis: one connection for the lobby, the hubs' and every game's channel."""
        shard = self._route("")
        first = True
        while True:
            pubsub = self.redis.pubsub()
            try:
                await pubsub.subscribe(keys.lobby_channel(), keys.hub_channel())
                await self._connected(shard, pubsub, first)
                first = False
                self.ready.set()
                await self._read(shard, pubsub)
            except _LOST as exc:
                outage.report("fan-out", exc)  # one line per outage, not per retry
                await asyncio.sleep(RECONNECT_S)
            finally:
                shard.pubsub = None
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    async def _listen_broadcast(self, cluster: RedisCluster) -> None:
        """A cluster: the lobby's and the hubs' channels, from any node (the next one
        known after a node is lost)."""
        turn = 0
        while True:
            nodes = cluster.get_nodes()
            client = redis_client.plain_client(cluster, nodes[turn % len(nodes)].name)
            turn += 1
            pubsub = client.pubsub()
            try:
                await pubsub.subscribe(keys.lobby_channel(), keys.hub_channel())
                self.ready.set()
                await self._read(None, pubsub)
            except _NODE_LOST as exc:
                outage.report("fan-out", exc)
                await redis_client.reread_layout(cluster)
                await asyncio.sleep(RECONNECT_S)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
                    await client.aclose()

    async def _listen_node(self, shard: _Shard) -> None:
        """A cluster: the channels of the games followed here whose slots one node holds.
        When the node is lost its games go to their new owners; it ends with no game."""
        cluster = self.cluster
        assert cluster is not None
        first = True
        failing = False  # reported once per loss of the node, not once per retry
        while True:
            client = redis_client.plain_client(cluster, shard.name)
            pubsub = client.pubsub()
            try:
                await pubsub.connect()  # type: ignore[no-untyped-call]
                await self._connected(shard, pubsub, first)
                first = failing = False
                await self._read(shard, pubsub)  # returns once it follows no channel
                if not shard.games:
                    self._forget(shard)
                    return
            except _NODE_LOST as exc:
                if not failing:
                    outage.report("fan-out", exc)
                failing = True
                await redis_client.reread_layout(cluster)
                await self._reroute(shard)
                if not shard.games:
                    self._forget(shard)
                    return
                await asyncio.sleep(RECONNECT_S)
            finally:
                shard.pubsub = None
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
                    await client.aclose()

    def _forget(self, shard: _Shard) -> None:
        if self._shards.get(shard.name) is shard:
            del self._shards[shard.name]

    async def _connected(self, shard: _Shard, pubsub: PubSub, first: bool) -> None:
        """A shard's connection is open: subscribe to its games, release whoever waits for
        them, and (after a reconnect, or for games moved here) catch their subscribers up."""
        games = list(shard.games)
        for game_id in games:
            self._unconfirmed.pop(game_id, None)
        shard.leaving.clear()
        await self._rejoin(games)
        shard.pubsub = pubsub
        await self._subscribe(shard, games)
        for game_id in games:
            joined = self._joined.get(game_id)
            if joined is not None and not joined.done():
                joined.set_result(None)  # the ones that need it resync below anyway
        self._resync(games if not first else shard.moved)
        shard.moved.clear()

    async def _reroute(self, shard: _Shard) -> None:
        """Move the games whose slot another node holds now to that node's shard."""
        moved: dict[str, _Shard] = {}
        for game_id in list(shard.games):
            try:
                target = self._route(game_id)
            except redis_client.MOVED_OR_DOWN:
                continue  # no node holds it yet: tried again on this shard's next failure
            if target is not shard:
                shard.games.discard(game_id)
                target.games.add(game_id)
                self._shard_of[game_id] = target
                moved[game_id] = target
        for game_id, target in moved.items():
            if target.pubsub is None:
                target.moved.add(game_id)  # the target's connection rejoins and resyncs it
            else:
                with contextlib.suppress(*_NODE_LOST):  # (retried on the next failure)
                    await self._rejoin([game_id])
                await self._subscribe(target, [game_id])
                self._resync([game_id])

    async def _read(self, shard: _Shard | None, pubsub: PubSub) -> None:
        lobby = keys.lobby_channel().encode()
        hubs = keys.hub_channel().encode()
        async for message in pubsub.listen():
            kind = message["type"]
            if kind == "smessage":
                self._dispatch(message["channel"], message["data"])
            elif kind == "message":
                if message["channel"] == lobby:
                    self._dispatch_lobby(message["data"])
                elif message["channel"] == hubs:
                    self._dispatch_hub(message["data"])
            elif kind == "ssubscribe":
                self._confirmed(message["channel"])
            elif kind == "sunsubscribe" and shard is not None:
                game_id = keys.game_of_channel(message["channel"])
                left = shard.leaving.get(game_id, 0)
                if left > 1:
                    shard.leaving[game_id] = left - 1
                elif left == 1:
                    del shard.leaving[game_id]
                elif game_id in shard.games:
                    # Not asked for: a cluster node drops a channel whose slot it lost.
                    raise _Dropped(f"the channel of game {game_id} was dropped by its node")

    def _dispatch(self, channel: bytes, data: bytes) -> None:
        self.received += 1
        if data.startswith(b"c "):
            self._dispatch_chat(channel, data)
            return
        if data.startswith(b"p "):
            self._dispatch_presence(channel, data)
            return
        head, _, frame = data.partition(b" ")
        try:
            n = int(head)
        except ValueError:
            log.error("unreadable message on a game channel; dropped")
            return
        game_id = keys.game_of_channel(channel)
        for listener in list(self.games.get(game_id, ())):
            listener.on_frame(n, frame)
        if n:
            for hook in self.hooks:
                hook(game_id, n)

    def _dispatch_chat(self, channel: bytes, data: bytes) -> None:
        """A chat line, "c <room> <author> <muted> <frame>" (lua/chat.lua): each listener
        decides whether its socket may see it. It takes no event number."""
        try:
            _, room, author, muted, frame = data.split(b" ", 4)
        except ValueError:
            log.error("unreadable chat line on a game channel; dropped")
            return
        game_id = keys.game_of_channel(channel)
        for listener in list(self.games.get(game_id, ())):
            listener.on_chat(room.decode(), author.decode(), muted == b"1", frame)

    def _dispatch_presence(self, channel: bytes, data: bytes) -> None:
        """Who is connected, "p <version> <frame>" (lua/presence.lua): each listener sends
        it unless its socket already has a newer one."""
        try:
            _, version, frame = data.split(b" ", 2)
            number = int(version)
        except ValueError:
            log.error("unreadable presence on a game channel; dropped")
            return
        game_id = keys.game_of_channel(channel)
        for listener in list(self.games.get(game_id, ())):
            listener.on_presence(number, frame)

    def _dispatch_lobby(self, data: bytes) -> None:
        try:
            msg = msgpack.unpackb(data, raw=False)
        except ValueError:
            log.error("unreadable frame on the lobby channel; dropped")
            return
        for hook in self.lobby_hooks:
            hook(msg, data)

    def _dispatch_hub(self, data: bytes) -> None:
        try:
            msg = msgpack.unpackb(data, raw=False)
        except ValueError:
            log.error("unreadable frame on the hubs' channel; dropped")
            return
        if isinstance(msg, dict):
            for hook in self.hub_hooks:
                hook(msg)


def _done() -> asyncio.Future[None]:
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    done.set_result(None)
    return done
