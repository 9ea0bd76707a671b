"""One Redis connection on which concurrent commands are pipelined: the move's commit path.

Each call writes its command at once and returns a future of its reply. The connection is
opened by redis-py (its handshake: auth, database, TLS), then its transport is handed to
the lane's own protocol, which parses replies as they arrive (hiredis, as redis-py does)
and resolves each caller's future in order: no reader task wakes per reply. This skips
what redis-py does around every call (pool checkout and release, retry wrapper, timeouts,
response callbacks, a stream reader), which cost more than the commit itself. Replies come
back raw (bytes and lists, as commit.lua gives).

A connection error fails the calls in flight with ``ConnectionError``; the next call opens
a new connection. Replies are read with no timeout per read (that cost a timer per move);
instead a watchdog breaks the connection when calls have waited ``timeout_s`` with no reply
at all (a stalled Redis), so they fail within one to two times ``timeout_s``. Callers
fall back to the ordinary client, whose retries then apply: only commands that are safe to
repeat go through a lane (commit.lua is, by its checks).

A call may name an ``orphan`` callback: it receives the reply its caller, cancelled while
waiting, never will, or None when the reply is lost with the connection (the command may
or may not have run). The commit path uses it to hand its own sockets an event that was
committed under a cancelled caller (commit.py).
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Final

import hiredis
from redis._parsers import BaseParser
from redis.asyncio.connection import AbstractConnection, ConnectionPool
from redis.commands.core import AsyncScript
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import InvalidResponse, NoScriptError
from redis.exceptions import TimeoutError as RedisTimeoutError

from brandubh.hub.redis.client import Arg, Reply

log = logging.getLogger(__name__)

# Given the reply a cancelled caller did not take, or None when it was lost (see above).
Orphan = Callable[[Reply], None]
_MORE: Final = object()  # hiredis: no whole reply in what has arrived yet


def pack(args: Sequence[bytes | str | int]) -> list[bytes]:
    """One command in the Redis protocol (RESP), as pieces to join: redis-py's
    pack_command does the same in three times the time (its encoder's checks, its
    buffer cut-off), and this is on every move's path."""
    out = [b"*%d\r\n" % len(args)]
    put = out.append
    for arg in args:
        if isinstance(arg, str):
            arg = arg.encode()
        elif isinstance(arg, int):
            arg = b"%d" % arg
        put(b"$%d\r\n" % len(arg))
        put(arg)
        put(b"\r\n")
    return out


class _Replies(asyncio.Protocol):
    """The lane's connection once open: each whole reply goes to the lane as it arrives."""

    def __init__(self, lane: Lane, stream: asyncio.BaseProtocol) -> None:
        self.lane = lane
        self.stream = stream  # redis-py's own protocol: told of the end, for its close
        self.reader = hiredis.Reader(
            protocolError=InvalidResponse,
            replyError=BaseParser.parse_error,  # NOSCRIPT -> NoScriptError, as redis-py
            notEnoughData=_MORE,
        )

    def data_received(self, data: bytes) -> None:
        reader = self.reader
        reader.feed(data)
        take = self.lane._reply
        try:
            reply = reader.gets()
            while reply is not _MORE:
                take(self, reply)
                reply = reader.gets()
        except InvalidResponse as exc:  # not Redis's protocol: nothing more can be trusted
            self.lane._lost(self, RedisConnectionError(f"unreadable reply: {exc}"))

    def eof_received(self) -> bool:
        return False  # the transport closes: connection_lost follows

    def connection_lost(self, exc: Exception | None) -> None:
        self.lane._lost(self, RedisConnectionError(f"the lane's connection was lost: {exc!r}"))
        self.stream.connection_lost(exc)  # (redis-py's disconnect waits for this)


class Lane:
    def __init__(self, pool: ConnectionPool, timeout_s: float) -> None:
        self.pool = pool
        self.timeout_s = timeout_s
        self._replies = 0  # replies read so far (the watchdog's measure of progress)
        self._seen = 0
        self._watchdog: asyncio.TimerHandle | None = None
        self._conn: AbstractConnection | None = None
        self._transport: asyncio.WriteTransport | None = None  # while open
        self._protocol: _Replies | None = None
        self._waiting: collections.deque[tuple[asyncio.Future[Reply], Orphan | None]] = (
            collections.deque()
        )
        self._opening: asyncio.Lock = asyncio.Lock()
        self._outgoing: list[bytes] = []  # packed commands of this turn of the loop

    def call(self, *args: bytes | str | int, orphan: Orphan | None = None) -> Awaitable[Reply]:
        """Send one command; await its raw reply (a ResponseError is raised). While the
        connection is open this is the reply's future itself, no coroutine around it."""
        transport = self._transport
        if transport is None:
            return self._open_and_call(args, orphan)
        if transport.is_closing():
            self._broken(RedisConnectionError("the lane's connection is closed"))
            return self._open_and_call(args, orphan)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Reply] = loop.create_future()
        # Queued with the command, so replies match callers in order; the commands of one
        # turn of the loop go out in one write (one system call for a burst of moves). A
        # caller cancelled later cannot tear a write.
        self._waiting.append((future, orphan))
        if self._watchdog is None:
            self._arm(loop)
        if not self._outgoing:
            loop.call_soon(self._flush)
        self._outgoing.extend(pack(args))
        return future

    async def _open_and_call(
        self, args: Sequence[bytes | str | int], orphan: Orphan | None
    ) -> Reply:
        await self._open()
        if self._transport is None or self._transport.is_closing():
            raise RedisConnectionError("the lane's connection is closed")
        return await self.call(*args, orphan=orphan)

    def _arm(self, loop: asyncio.AbstractEventLoop) -> None:
        self._seen = self._replies
        self._watchdog = loop.call_later(self.timeout_s, self._watch)

    def _disarm(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None

    def _watch(self) -> None:
        """Calls waited a whole period: break the connection if no reply came in it."""
        self._watchdog = None
        if not self._waiting:
            return
        if self._replies == self._seen:
            self._broken(RedisTimeoutError(f"Redis did not answer for {self.timeout_s:g} s"))
            return
        self._arm(asyncio.get_running_loop())

    def _flush(self) -> None:
        """Write what this turn of the loop queued, to the connection open now (a broken
        one has failed its callers and dropped its queue)."""
        out, self._outgoing = self._outgoing, []
        transport = self._transport
        if out and transport is not None:
            transport.write(b"".join(out))

    async def script(
        self,
        script: AsyncScript,
        keys: Sequence[str],
        args: Sequence[Arg],
        orphan: Orphan | None = None,
    ) -> Reply:
        """A registered script by its sha on the lane; by the script object (which loads it,
        with the ordinary client's retries) when Redis lacks it or the lane fails. After a
        lane failure, or a cancel while on the fallback, ``orphan`` gets None."""
        lost = False
        try:
            return await self.call("EVALSHA", script.sha, len(keys), *keys, *args, orphan=orphan)
        except NoScriptError:
            pass
        except RedisConnectionError:
            log.warning("the Redis lane's connection failed; using the pool")
            lost = True
        try:
            return await script(keys=keys, args=args)
        except asyncio.CancelledError:
            lost = True
            raise
        finally:
            if lost and orphan is not None:
                _tell(orphan, None)

    async def hgetall(self, key: str) -> dict[bytes, bytes]:
        """HGETALL, raw: field -> value (the lane applies no response callbacks)."""
        reply = await self.call("HGETALL", key)
        if isinstance(reply, dict):  # (a RESP3 map)
            return reply
        return dict(zip(reply[::2], reply[1::2], strict=True))

    async def _open(self) -> None:
        async with self._opening:
            if self._transport is not None:
                return
            conn = self.pool.make_connection()  # type: ignore[no-untyped-call]
            await conn.connect()  # redis-py's handshake; then the lane reads for itself
            writer: asyncio.StreamWriter | None = getattr(conn, "_writer", None)
            if writer is None or writer.is_closing():
                raise RedisConnectionError("the lane's connection closed as it opened")
            protocol = _Replies(self, writer.transport.get_protocol())
            writer.transport.set_protocol(protocol)
            self._conn, self._transport, self._protocol = conn, writer.transport, protocol

    def _reply(self, protocol: _Replies, reply: Reply) -> None:
        """A whole reply read on the lane's connection: its caller's, in order."""
        if protocol is not self._protocol:
            return  # (a connection already given up)
        self._replies += 1
        waiting = self._waiting
        if not waiting:
            self._lost(protocol, RedisConnectionError("a reply that no call waits for"))
            return
        future, orphan = waiting.popleft()
        if future.done():  # its caller was cancelled
            if orphan is not None and not isinstance(reply, Exception):
                _tell(orphan, reply)
        elif isinstance(reply, Exception):  # an error reply (a script's, LOADING...): its own
            future.set_exception(reply)
        else:
            future.set_result(reply)

    def _lost(self, protocol: _Replies, exc: BaseException) -> None:
        if protocol is self._protocol:
            self._broken(exc)

    def _broken(self, exc: BaseException) -> None:
        """Fail every call in flight and forget the connection (the next call reopens)."""
        conn, self._conn = self._conn, None
        self._transport = self._protocol = None
        self._outgoing = []
        self._disarm()
        error = exc if isinstance(exc, RedisConnectionError) else RedisConnectionError(str(exc))
        while self._waiting:
            future, orphan = self._waiting.popleft()
            if not future.done():
                future.set_exception(error)  # its caller falls back, then tells the orphan
            elif orphan is not None:
                _tell(orphan, None)
        if conn is not None:
            task = asyncio.ensure_future(conn.disconnect(nowait=True))
            task.add_done_callback(lambda t: t.exception() if not t.cancelled() else None)

    async def aclose(self) -> None:
        self._disarm()
        conn, self._conn = self._conn, None
        self._transport = self._protocol = None
        if conn is not None:
            await conn.disconnect()


def _tell(orphan: Orphan, reply: Reply) -> None:
    """Hand an orphan its reply; its failure is logged, never the reader's."""
    try:
        orphan(reply)
    except Exception:
        log.exception("a lane call's orphan callback failed")
