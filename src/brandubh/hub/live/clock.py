"""Redis's clock as this process sees it, and the moves it holds between receipt and commit.

Deadlines are judged by Redis's clock (``TIME``), never a hub's. A hub estimates it as its
own monotonic clock plus an offset measured against ``TIME`` (``measured``, refreshed by the
scheduler's beat), and stamps each move with that estimate when the move arrives. A move
stamped before its deadline is played even if its commit reaches Redis after it, because
Redis, the hub or the scheduler stalled in between (docs/fair-play.md): commit.lua accepts
the stamp, and no scheduler fires a deadline while a hub may still hold such a move.

For that each hub publishes a *watermark* (``Marks``): a time before which it holds no
uncommitted move. Every stamp it gives later is at or after it, so once every live hub's
watermark is past a deadline, no move received before that deadline can still arrive.
The scheduler fires a deadline only then (``Marks.safe``). A hub is live while its marks
connection is open in Redis (a killed process's is closed at once by its kernel); a hub
that is connected but has written no mark for ``STALLED_MS`` while others did is taken as
stalled for good and ignored, so one wedged process cannot hold every game's clock.

Only a hub in use writes real marks, every few tens of ms. Whatever can stamp a move (a
socket, from before it is accepted until it is closed; a bot turn) runs inside
``Marks.in_use``. A hub with none, holding nothing, writes "idle" instead, about once a
second, and the first user after that waits until a real mark is in Redis. Why that is
as safe as marking all the time: a scheduler reads Redis's ``TIME`` (T) and then the
marks, and judges nothing past T. If it read an idle mark, that hub's next real mark was
written after the read, so after T; every stamp the hub gives from then on is at or after
that mark's own writing time (``RedisClock.not_before``), so after T: no move it can
still receive counts as received before a deadline the scheduler may fire. (Where commits
wait for replicas, that first real mark does too: a failover must not bring back "idle".)
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import AsyncIterator
from typing import Final, cast

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from brandubh.hub.redis import Scripts, keys
from brandubh.hub.redis import client as redis_client

log = logging.getLogger(__name__)

# A hub whose last mark is this much older than the newest mark of any hub is ignored.
STALLED_MS: Final = 10_000
# The offset is measured again after this long even from a slow reading.
REMEASURE_S: Final = 30.0
# Every this many marks, the marks connection's id is read again.
CHECK_ID_EVERY: Final = 40
# A round trip slower than this gives too loose an estimate of the offset to use it.
GOOD_RTT_MS: Final = 20.0
# How often a hub in use writes its watermark (a deadline fires about this long after it
# passed), and how often an idle hub says again that it is idle.
MARK_S: Final = 0.025
IDLE_MARK_S: Final = 1.0
IDLE: Final = "idle"  # the mark of a hub that holds nothing and stamps nothing before marking


class RedisClock:
    """This process's estimate of Redis's clock (ms) and its uncommitted stamped moves."""

    def __init__(self) -> None:
        self.offset_ms: float | None = None  # Redis's clock minus time.monotonic(), ms
        self._used_rtt = float("inf")  # the round trip of the reading in use
        self._measured_at = 0.0
        self._wall_offset = time.time() * 1000 - time.monotonic() * 1000
        self._last = 0
        self._held: dict[int, int] = {}
        self._tokens = itertools.count()

    def now_ms(self) -> int:
        """The estimate of Redis's ``TIME`` now (before the first measure: this host's clock)."""
        offset = self._wall_offset if self.offset_ms is None else self.offset_ms
        return int(time.monotonic() * 1000 + offset)

    def measured(self, redis_ms: int, sent: float, received: float) -> None:
        """A reading of ``TIME`` taken between ``sent`` and ``received`` (time.monotonic()).

        The offset is off by at most half the round trip: a reading is used when its round
        trip was short, or no longer than that of the reading in use, or when the one in
        use is old (so that a busy machine still follows drift)."""
        rtt = (received - sent) * 1000
        if rtt <= max(GOOD_RTT_MS, self._used_rtt) or received - self._measured_at > REMEASURE_S:
            self.offset_ms = redis_ms - (sent + received) * 500
            self._measured_at = received
            self._used_rtt = rtt

    def stamp(self) -> int:
        """The receipt time of something arriving now: never before an earlier stamp or mark."""
        self._last = max(self._last, self.now_ms())
        return self._last

    def not_before(self, redis_ms: int) -> None:
        """No later stamp is before this Redis time, a moment that has already passed (a
        mark's writing): the estimate may lag Redis's clock, a stamp then never does."""
        self._last = max(self._last, redis_ms)

    def holding(self) -> bool:
        """Whether a stamped move is uncommitted here."""
        return bool(self._held)

    def hold(self, stamp: int) -> Hold:
        """Count a stamped move as uncommitted for the duration (watermark stays at or below)."""
        return Hold(self._held, next(self._tokens), stamp)

    def watermark(self) -> int:
        """A time before which this process holds no uncommitted move."""
        now = self.stamp()
        return min(self._held.values(), default=now)


class Hold:
    """What ``RedisClock.hold(stamp)`` returns, for a ``with``: a plain class, as every move
    enters two (a generator context manager costs several times as much)."""

    __slots__ = ("_held", "_stamp", "_token")

    def __init__(self, held: dict[int, int], token: int, stamp: int) -> None:
        self._held, self._token, self._stamp = held, token, stamp

    def __enter__(self) -> None:
        self._held[self._token] = self._stamp

    def __exit__(self, *exc: object) -> None:
        del self._held[self._token]


class Marks:
    """Each hub's watermark in Redis (keys.hub_marks), and the time safe to judge up to."""

    def __init__(
        self,
        url: str,
        scripts: Scripts,
        clock: RedisClock,
        hub_id: str,
        cluster: RedisCluster | None = None,
        *,
        replicas: int = 0,
        wait_ms: int = 0,
    ) -> None:
        self.url = url
        self.scripts = scripts
        self.clock = clock
        self.hub_id = hub_id
        # On a cluster the marks hash, its writes and CLIENT LIST are all on the master
        # that holds the hash's slot: connections are listed by the node they are open on.
        self.cluster = cluster
        # A first real mark after idleness waits for this many replicas (up to wait_ms):
        # a failover must not bring back the idle mark it replaced.
        self.replicas, self.wait_ms = replicas, wait_ms
        self._node = ""
        self._redis: Redis | None = None
        self._client_id = 0
        self._writes = 0
        self.every_s = MARK_S  # the marks loop's pause (app.py)
        self.users = 0  # sockets and bot turns here (in_use)
        # Writes one at a time, each deciding idle or not just before it goes: an idle mark
        # decided before a user came must not land after that user's real mark.
        self._lock = asyncio.Lock()
        self._unmarked = True  # Redis may hold no real mark of ours: a new user marks first
        self._idle_at = 0.0  # when the idle mark was last written (time.monotonic())
        self._used = asyncio.Event()  # a user came: the idle wait ends

    def _connection(self) -> Redis:
        """Its own connection, held open: Redis sees it close when this process dies."""
        if self._redis is None:
            if self.cluster is None:
                self._redis = Redis.from_url(self.url, single_connection_client=True)
            else:
                self._node = redis_client.node_of(self.cluster, keys.hub_marks())
                self._redis = redis_client.plain_client(
                    self.cluster, self._node, single_connection_client=True
                )
            self._client_id = 0
        return self._redis

    def idle(self) -> bool:
        """No socket, no bot turn and no uncommitted move here: nothing can be stamped."""
        return not self.users and not self.clock.holding()

    @contextlib.asynccontextmanager
    async def in_use(self) -> AsyncIterator[None]:
        """Around whatever may stamp a move (a bot turn; a socket's life uses ``enter`` and
        ``leave``, lighter than this generator for as long as the socket lives)."""
        await self.enter()
        try:
            yield
        finally:
            self.leave()

    async def enter(self) -> None:
        """A user begins: when the hub was idle, it first waits until its real watermark is
        in Redis (the module's proof). Each return is matched by one ``leave``."""
        self.users += 1
        self._used.set()
        try:
            if self._unmarked:
                async with self._lock:
                    if self._unmarked:  # (unless another user marked meanwhile)
                        self._client_id = 0  # an idle connection may have been renewed
                        await self._write(confirm=True)
        except BaseException:
            self.users -= 1
            raise

    def leave(self) -> None:
        """A user that ``enter`` admitted ends."""
        self.users -= 1

    async def tick(self) -> None:
        """The marks loop's step (every MARK_S): write the watermark while in use; when
        idle, say so about once a second and otherwise wait for a user."""
        self._used.clear()
        if self.idle() and self._unmarked:
            wait = IDLE_MARK_S - (time.monotonic() - self._idle_at)
            if wait > 0:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(wait):
                        await self._used.wait()
                return
        await self.write()

    async def write(self) -> None:
        """Publish this hub's watermark, or that it is idle."""
        async with self._lock:
            await self._write()

    async def _write(self, confirm: bool = False) -> None:
        self._writes += 1
        redis = self._connection()
        try:
            if not self._client_id or self._writes % CHECK_ID_EVERY == 0:
                # The id of the connection the marks are written on: Redis drops it when
                # this process dies. (Checked now and then: a reconnect gives a new one.)
                self._client_id = int(await redis.client_id())
            # Decided here, with nothing awaited before the script goes out.
            idle = self.idle()
            mark: str | int = IDLE if idle else self.clock.watermark()
            if idle:
                self._unmarked, self._idle_at = True, time.monotonic()
            args: list[str | int] = [self.hub_id, mark, self._client_id]
            written = await self.scripts.mark(keys=[keys.hub_marks()], args=args, client=redis)
            if confirm and self.replicas:
                await redis.wait(self.replicas, self.wait_ms)
            if not idle:
                self.clock.not_before(int(written))
                self._unmarked = False
        except redis_client.MOVED_OR_DOWN:
            if self.cluster is not None:  # its node may be lost: find the hash's new master
                self._redis = None
                with contextlib.suppress(Exception):
                    await redis.aclose()
                await redis_client.reread_layout(self.cluster)
            raise

    def _reader(self, redis: Redis) -> Redis:
        if self.cluster is None:
            return redis
        return redis_client.node_client(
            self.cluster, redis_client.node_of(self.cluster, keys.hub_marks())
        )

    async def safe(self, redis: Redis) -> int:
        """The latest time no live hub can still hold an uncommitted move received before.

        Deadlines up to it may be judged. This process's own watermark is read fresh; an
        idle hub holds nothing before the moment the marks were read (Redis's TIME, read
        first in the same round trip: the module's proof). A stamp may equal a watermark
        (both in ms) and a move stamped at its deadline is in time: hence the ms before.
        """
        own = self.clock.watermark()
        redis = self._reader(redis)
        async with redis.pipeline(transaction=False) as pipe:
            pipe.time()
            pipe.hgetall(keys.hub_marks())
            (sec, usec), raw = cast(
                tuple[tuple[int, int], dict[bytes, bytes]], await pipe.execute()
            )
        safe = min(own, int(sec) * 1000 + int(usec) // 1000)
        marks: dict[str, tuple[int | None, int, int]] = {}
        for name, value in raw.items():
            with contextlib.suppress(ValueError):
                text, at, conn = value.decode().split(":")
                marks[name.decode()] = (None if text == IDLE else int(text), int(at), int(conn))
        marks.pop(self.hub_id, None)
        if not marks:
            return safe - 1
        alive = {
            str(c["id"]) for c in await redis.client_list(client_id=[m[2] for m in marks.values()])
        }
        newest = max(m[1] for m in marks.values())
        gone = []
        for hub, (mark, written, client) in marks.items():
            if str(client) not in alive:
                gone.append(hub)
            elif mark is not None and newest - written <= STALLED_MS:
                safe = min(safe, mark)
        if gone:
            await redis.hdel(keys.hub_marks(), *gone)
        return safe - 1

    async def close(self) -> None:
        redis, self._redis = self._redis, None
        if redis is None:
            return
        with contextlib.suppress(Exception):
            await redis.hdel(keys.hub_marks(), self.hub_id)
        await redis.aclose()
