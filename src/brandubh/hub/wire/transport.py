"""uvicorn's HTTP and websocket protocols with the limits a public server needs.

uvicorn closes an idle keep-alive connection, but not one that never sends a byte or
sends its headers a byte at a time (slowloris), and it takes any number of connections
from one address. ``GuardedHttp`` closes a connection whose request headers do not
arrive within ``header_timeout_s`` (counted from the connection, or from a later
request's first byte) and refuses a peer that holds ``connections_per_address`` already.
``GuardedWebSocket`` says "going away" (1001) when the server stops, as docs/protocol.md
promises, where uvicorn says 1012, and keeps little while a socket sits idle: nothing of
its handshake once accepted, its attributes in slots, and inbox.py's queue and gate. A
reverse proxy in front still has its own part to play (docs/accounts.md, "Behind a
reverse proxy").

``GuardedWebSocket`` also lets the app write a binary frame straight to the transport
(``write_frame``, found in the socket's scope by ``direct_writer``): the bytes uvicorn's
ASGI send would write, without its coroutines or a task woken to await them.
``GuardedHttp`` does the same for a streamed answer to a GET (``write_chunk``, found by
``chunk_writer``): one chunk of its body, framed as uvicorn frames it, once its headers
are out and while its transport takes writes.
"""

from __future__ import annotations

import asyncio
import struct
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar, Final

from starlette.types import Scope
from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle
from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.http11 import Request
from websockets.protocol import State

from brandubh.hub.config import Settings
from brandubh.hub.messages import CLOSE_INVALID_DATA, CLOSE_SERVER_SHUTDOWN
from brandubh.hub.wire.inbox import Gate, Inbox

if TYPE_CHECKING:
    from uvicorn._types import ASGISendEvent

# What runs when the server begins its graceful stop (uvicorn asks each connection to shut
# down): answers that stream until their client leaves end then, rather than be cut at the
# end of the stop's grace (the Bot API's game streams: hub/botapi/).
_ON_STOP: set[Callable[[], None]] = set()


def on_server_stop(hook: Callable[[], None]) -> None:
    """Call ``hook`` when this process's server begins to stop (once per open connection:
    it must not mind being called again)."""
    _ON_STOP.add(hook)


SETTINGS = Settings.from_env()  # read in each worker process, as create_app does
# What a peer may send after the hub's close frame before the connection is dropped: the
# frames it had in flight and its close (a few hundred bytes) fit many times over.
LATE_BYTES: Final = 16 * 1024
# The scope extension under which a socket's protocol offers ``write_frame`` to the app
# (``{"write": write_frame}``, an extension's data being a map, as ASGI has it), and an
# HTTP request's its ``write_chunk`` (``{"write_chunk": ...}``).
DIRECT: Final = "brandubh.direct"

# Writes one binary frame (or body chunk) now if the connection can take it; False if not
# (queue it instead).
DirectWriter = Callable[[bytes], bool]


def direct_writer(scope: Scope) -> DirectWriter | None:
    """The socket's direct writer, taken out of its scope (so the scope does not keep the
    protocol alive); None under another websocket protocol than ``GuardedWebSocket``,
    whose frames then go through the ASGI send."""
    extensions = scope.get("extensions")
    entry = extensions.pop(DIRECT, None) if isinstance(extensions, dict) else None
    return entry.get("write") if isinstance(entry, dict) else None


def chunk_writer(scope: Scope) -> DirectWriter | None:
    """The direct writer of an HTTP answer's body chunks, taken out of its scope; None
    under another HTTP protocol than ``GuardedHttp``, or for another method than GET."""
    extensions = scope.get("extensions")
    entry = extensions.pop(DIRECT, None) if isinstance(extensions, dict) else None
    return entry.get("write_chunk") if isinstance(entry, dict) else None


class _ChunkWriter:
    """Writes one chunk of a request's answer now, framed as uvicorn's send frames it
    (``<size in hex>\\r\\n<bytes>\\r\\n``), if its headers went out chunked, its body is not
    complete, its client is there and its transport is not paused; False otherwise (the
    caller sends it through the ASGI send, which waits)."""

    __slots__ = ("_cycle",)

    def __init__(self, cycle: RequestResponseCycle) -> None:
        # The cycle holds the scope that holds this writer: held weakly, no reference cycle
        # (nor one through its transport, which holds the protocol that holds the scope).
        self._cycle = weakref.ref(cycle)

    def __call__(self, data: bytes) -> bool:
        cycle = self._cycle()
        if (
            cycle is None
            or not cycle.response_started
            or cycle.response_complete
            or cycle.disconnected
            or not cycle.chunked_encoding
            or cycle.flow.write_paused
            or cycle.transport.is_closing()
        ):
            return False
        cycle.transport.write(b"%x\r\n%b\r\n" % (len(data), data))
        return True


def binary_frame(data: bytes) -> bytes:
    """An unmasked, final binary frame (RFC 6455, 5.2), as websockets serializes one for a
    server with no extension."""
    n = len(data)
    if n < 126:
        return bytes((0x82, n)) + data
    if n < 65536:
        return struct.pack("!BBH", 0x82, 126, n) + data
    return struct.pack("!BBQ", 0x82, 127, n) + data


class _Peers:
    """The open transports of each peer address in this process."""

    open: ClassVar[dict[str, set[asyncio.BaseTransport]]] = {}

    @classmethod
    def admit(cls, transport: asyncio.BaseTransport) -> bool:
        peer = transport.get_extra_info("peername")
        host = str(peer[0]) if isinstance(peer, tuple) and peer else "unix"
        held = cls.open.setdefault(host, set())
        cap = SETTINGS.connections_per_address
        if cap and len(held) >= cap:
            if not held:
                del cls.open[host]
            return False
        held.add(transport)
        return True

    @classmethod
    def release(cls, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        host = str(peer[0]) if isinstance(peer, tuple) and peer else "unix"
        held = cls.open.get(host)
        if held is not None:
            held.discard(transport)
            if not held:
                del cls.open[host]


class GuardedHttp(HttpToolsProtocol):
    """HttpToolsProtocol with a header deadline and a per-address connection cap."""

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, object],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self._header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if not _Peers.admit(transport):
            transport.abort()
            return
        self._arm()

    def _arm(self) -> None:
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(
                SETTINGS.header_timeout_s, self._headers_too_slow
            )

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm()

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()
        cycle = self.cycle
        # (Not for an upgrade, which makes no cycle: the cycle is this request's own.)
        if cycle is not None and cycle.scope is self.scope and self.scope["method"] == "GET":
            entry: dict[object, object] = {"write_chunk": _ChunkWriter(cycle)}
            self.scope.setdefault("extensions", {})[DIRECT] = entry

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        _Peers.release(self.transport)
        super().connection_lost(exc)

    def shutdown(self) -> None:
        for hook in list(_ON_STOP):
            hook()
        super().shutdown()

    def handle_websocket_upgrade(self) -> None:
        self._disarm()
        super().handle_websocket_upgrade()
        # The transport now speaks to the websocket protocol and never calls this one
        # again (not even connection_lost, which is where uvicorn drops its parser). The
        # parser holds this protocol's bound callbacks: a cycle of about 20 objects per
        # socket, left for the collector, which found them by the thousand when sockets
        # came or went together (bench/gc_pauses.py). Dropped here, they go at once.
        self.parser = None  # type: ignore[assignment]


class GuardedWebSocket(WebSocketsSansIOProtocol):
    """The websocket protocol: 1001 at shutdown, its peer slot released, lean when idle."""

    # uvicorn's protocol sets more attributes than a dict shares keys for (30), so each
    # socket's __dict__ would be a table of its own, about 1.5 KiB; as slots, 8 bytes each.
    # (One uvicorn adds later lands in the __dict__, which still works.)
    __slots__ = (
        "app",
        "app_state",
        "asgi_version",
        "client",
        "close_sent",
        "close_timeout",
        "close_timer",
        "config",
        "conn",
        "connections",
        "curr_msg_data_type",
        "default_headers",
        "disconnected",
        "frames",
        "handshake_complete",
        "handshake_initiated",
        "initial_response",
        "last_ping_rtt",
        "late_bytes",
        "logger",
        "loop",
        "pending_ping_payload",
        "ping_interval",
        "ping_sent_at",
        "ping_timeout",
        "ping_timer",
        "pong_timer",
        "queue",
        "read_paused",
        "request",
        "response",
        "root_path",
        "scheme",
        "scope",
        "server",
        "tasks",
        "transport",
        "writable",
    )

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, object],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.queue = Inbox()  # type: ignore[assignment]
        self.writable = Gate()  # type: ignore[assignment]
        self.writable.set()
        self.late_bytes = 0  # received after the hub's close frame

    def shutdown(self) -> None:
        if self.handshake_complete and not self.close_sent:
            self.stop_keepalive()
            self.queue.put_nowait({"type": "websocket.disconnect", "code": CLOSE_SERVER_SHUTDOWN})
            self.conn.send_close(CLOSE_SERVER_SHUTDOWN, "server shutting down")
            self.close_sent = True
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.transport.close()
            return
        super().shutdown()

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        # The app reads its own copy (scope["headers"]); this one would otherwise live as
        # long as the socket, held by websockets' parser.
        event.headers.clear()
        if self.handshake_initiated and not self.close_sent:  # the app's task is started
            self.scope.setdefault("extensions", {})[DIRECT] = {"write": self.write_frame}

    def write_frame(self, data: bytes) -> bool:
        """Write one binary message now, framed as ``send`` would, if the socket is open
        and its transport not paused; False otherwise (paused, closing, closed, not yet
        accepted), when the caller queues it for the ASGI send, which waits."""
        conn = self.conn
        if (
            not self.writable.is_set()
            or self.close_sent
            or conn.state is not State.OPEN
            or self.transport.is_closing()
        ):
            return False
        if conn.extensions:  # (none is configured: serve.py turns deflate off)
            conn.send_binary(data)
            self.transport.write(b"".join(conn.data_to_send()))
        else:
            self.transport.write(binary_frame(data))
        return True

    def connection_lost(self, exc: Exception | None) -> None:
        _Peers.release(self.transport)
        scope = getattr(self, "scope", None)
        if scope is not None:  # a socket the app never took its writer from
            scope.get("extensions", {}).pop(DIRECT, None)
        super().connection_lost(exc)

    async def send(self, message: ASGISendEvent) -> None:
        if message["type"] == "websocket.send" and self.close_sent:
            # The protocol closed the socket itself (1007, 1009) while the app still had a
            # frame to send: the socket is gone, as if the peer had left, not an app error.
            raise ClientDisconnected()
        await super().send(message)
        if message["type"] == "websocket.accept":
            # Sent: the handshake's answer is not needed again, nor its headers, which the
            # app read before it accepted (memory per idle socket).
            self.response = None  # type: ignore[assignment]
            headers = self.scope["headers"]
            if isinstance(headers, list):  # (emptied in place: a view of it may be cached)
                headers.clear()

    def handle_parser_exception(self) -> None:
        # uvicorn closes the transport at once after its close frame (1007, 1009). With the
        # peer's bytes still unread in the kernel's buffer that close is a reset, and a peer
        # still sending loses the close frame it was meant to read (seen under load: a
        # frame past the limit closed with no code). So the close frame, then a half-close;
        # what still comes is discarded (data_received, up to LATE_BYTES) until the peer
        # closes too, or the close timeout.
        if self.close_sent:  # (websockets reports the same failure for every later read)
            return
        assert self.conn.close_sent is not None
        close = self.conn.close_sent
        self.queue.put_nowait(
            {"type": "websocket.disconnect", "code": close.code, "reason": close.reason}
        )
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        if self.transport.can_write_eof():
            self.transport.write_eof()
        # (As close_timer, so that the app's end, which follows at once, leaves the
        # transport to it: uvicorn closes the transport then only when there is none.)
        self.close_timer = self.loop.call_later(self.close_timeout, self.transport.close)

    def send_receive_event_to_app(self) -> None:
        # A text message that is not UTF-8 is closed with 1007 (RFC 6455, 8.1), as uvicorn
        # does, but without the traceback uvicorn logs for it. (The app refuses a text
        # frame that is UTF-8 with bad_frame: docs/protocol.md.)
        if self.curr_msg_data_type == "text" and not self.close_sent:
            data = b"".join(self.frames)
            try:
                data.decode()
            except UnicodeDecodeError:
                self.frames = []
                self.conn.fail(CLOSE_INVALID_DATA, "text frame is not UTF-8")
                self.handle_parser_exception()
                return
        super().send_receive_event_to_app()

    def data_received(self, data: bytes) -> None:
        if self.close_sent and self.handshake_complete:
            # After its close frame the hub reads only to see the peer's close: a peer
            # that keeps sending instead (a flood never answering the close) is cut off
            # after LATE_BYTES, not read and discarded until the close timeout.
            self.late_bytes += len(data)
            if self.late_bytes > LATE_BYTES:
                self.transport.abort()
                return
        super().data_received(data)
