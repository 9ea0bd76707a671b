"""The hub's websocket protocol (hub/wire/transport.py) under a real uvicorn, over real sockets:
what an accepted socket keeps, writing under back-pressure through its lean gate, and a
connection's frames written straight out, or queued while the socket cannot take them."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import socket
import weakref
from collections.abc import AsyncIterator
from typing import Any

import msgpack
import pytest
import uvicorn
import websockets
from starlette.websockets import WebSocket
from websockets.asyncio.client import connect
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.uri import parse_uri

from brandubh.hub.config import Settings
from brandubh.hub.messages import CLOSE_TOO_SLOW
from brandubh.hub.wire.connection import Connection, Services
from brandubh.hub.wire.heartbeat import Heartbeat
from brandubh.hub.wire.inbox import Gate, Inbox
from brandubh.hub.wire.transport import DIRECT, GuardedHttp, GuardedWebSocket, binary_frame
from services import HubProcess
from waiting import wait_for

BURST = 64  # frames of FRAME bytes (4 MiB): far more than the fixed kernel buffers hold
FRAME = 64 * 1024


def numbered(i: int) -> bytes:
    return i.to_bytes(2, "big") * (FRAME // 2)


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Echo; a frame ``burst`` is answered with BURST big numbered frames at once."""
    assert scope["type"] == "websocket"
    assert (await receive())["type"] == "websocket.connect"
    await send({"type": "websocket.accept"})
    while True:
        message = await receive()
        if message["type"] == "websocket.disconnect":
            return
        if message.get("bytes") == b"burst":
            for i in range(BURST):
                await send({"type": "websocket.send", "bytes": numbered(i)})
        else:
            await send({"type": "websocket.send", "bytes": message.get("bytes")})


@pytest.fixture
async def server() -> AsyncIterator[tuple[uvicorn.Server, str]]:
    async with serving(app) as running:
        yield running


@contextlib.asynccontextmanager
async def serving(
    asgi: Any,
    ws: type[asyncio.Protocol] | str = GuardedWebSocket,
    http: type[asyncio.Protocol] | str = "auto",
) -> AsyncIterator[tuple[uvicorn.Server, str]]:
    """uvicorn serving ``asgi`` on a free port, in this loop, with the websocket protocol
    ``ws`` and the HTTP protocol ``http``: the server and its URL."""
    sock = socket.socket()
    # A small send buffer, fixed, which accepted sockets inherit: the kernel would grow it
    # to some MiB on loopback, and hide the pauses the slow-reader tests are after.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 * 1024)
    sock.bind(("127.0.0.1", 0))  # a free port, chosen by the kernel
    config = uvicorn.Config(
        asgi, ws=ws, http=http, lifespan="off", log_level="warning", ws_ping_interval=None
    )
    srv = uvicorn.Server(config)
    task = asyncio.create_task(srv.serve(sockets=[sock]))
    await wait_for(lambda: srv.started, "uvicorn started", every=0.01)
    try:
        yield srv, f"ws://127.0.0.1:{sock.getsockname()[1]}/"
    finally:
        srv.should_exit = True
        await task


def protocols(srv: uvicorn.Server) -> list[GuardedWebSocket]:
    return [c for c in srv.server_state.connections if isinstance(c, GuardedWebSocket)]


async def test_an_accepted_socket_keeps_nothing_of_its_handshake(
    server: tuple[uvicorn.Server, str],
) -> None:
    srv, url = server
    async with connect(url, additional_headers={"X-Padding": "p" * 2000}) as ws:
        await ws.send(b"hello")
        assert await asyncio.wait_for(ws.recv(), 5) == b"hello"
        (proto,) = protocols(srv)
        # The request's headers (held by websockets' parser for the socket's life) are
        # emptied, and the handshake's answer dropped, once the socket is accepted.
        assert len(proto.request.headers) == 0
        assert proto.response is None
        assert list(proto.scope["headers"]) == []  # (the app read them before it accepted)
        assert isinstance(proto.queue, Inbox) and isinstance(proto.writable, Gate)
        # Every attribute uvicorn set is in a slot: no __dict__ table of its own per socket.
        assert vars(proto) == {}


async def test_the_handshake_s_protocol_is_freed_at_once_not_left_to_the_collector() -> None:
    # What a handshake leaves must go by reference counting: left in cycles, the sockets'
    # handshakes came back by the thousand in the collector's pauses (bench/gc_pauses.py).
    made: list[weakref.ref[GuardedHttp]] = []

    class Counted(GuardedHttp):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            made.append(weakref.ref(self))

    gc.collect()
    gc.disable()  # nothing here is freed but by reference counting
    try:
        async with serving(app, http=Counted) as (_, url), connect(url) as ws:
            await ws.send(b"hello")
            assert await asyncio.wait_for(ws.recv(), 5) == b"hello"
            assert len(made) == 1
            assert made[0]() is None, "the HTTP protocol outlived its upgrade"
    finally:
        gc.enable()


class SlowClient:
    """A client on websockets' sans-I/O protocol over a plain socket with a small receive
    buffer, fixed: nothing is read while the test does not read."""

    def __init__(self, url: str) -> None:
        self.ws = ClientProtocol(parse_uri(url), max_size=2 * FRAME)
        self.url = url
        self.got: list[bytes] = []  # the data frames read so far
        self.close_code: int | None = None

    async def open(self) -> SlowClient:
        client = socket.socket()
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
        client.connect(("127.0.0.1", int(self.url.rsplit(":", 1)[1].strip("/"))))
        self.reader, self.writer = await asyncio.open_connection(sock=client)
        self.ws.send_request(self.ws.connect())
        self.writer.write(b"".join(self.ws.data_to_send()))
        while self.ws.state is not State.OPEN:
            self.ws.receive_data(await asyncio.wait_for(self.reader.read(4096), 10))
        return self

    def send(self, data: bytes) -> None:
        self.ws.send_binary(data)
        self.writer.write(b"".join(self.ws.data_to_send()))

    async def read(self, count: int) -> list[bytes]:
        """Read until ``count`` data frames in all, or the server's close."""
        while True:
            for event in self.ws.events_received():  # (some came with the handshake)
                if isinstance(event, Frame) and event.opcode is Opcode.CLOSE:
                    self.close_code = int.from_bytes(event.data[:2], "big")
                elif isinstance(event, Frame) and event.opcode is Opcode.BINARY:
                    self.got.append(bytes(event.data))
            if len(self.got) >= count or self.close_code is not None:
                return self.got
            data = await asyncio.wait_for(self.reader.read(1 << 20), 10)
            if not data:
                return self.got
            self.ws.receive_data(data)

    def drop(self) -> None:
        self.writer.close()


async def test_writes_wait_for_a_slow_reader_and_lose_nothing(
    server: tuple[uvicorn.Server, str],
) -> None:
    srv, url = server
    client = await SlowClient(url).open()
    client.send(b"burst")
    await wait_for(lambda: protocols(srv), "the connection")
    (proto,) = protocols(srv)
    # The client reads nothing: the server's writes must pause.
    await wait_for(lambda: not proto.writable.is_set(), "the transport to pause writing", 10)
    assert await client.read(BURST) == [numbered(i) for i in range(BURST)]
    assert proto.writable.is_set()
    client.drop()


async def test_only_ws_is_a_socket_of_the_hub(hub: HubProcess) -> None:
    with pytest.raises(websockets.InvalidStatus) as refused:
        async with connect(hub.ws_url + "x", origin=websockets.Origin(hub.url)):
            pass
    assert refused.value.response.status_code == 403


# -- a raw client: frames the websockets client will not send (issue 28) ---------------------


def masked(opcode: int, payload: bytes, fin: bool = True) -> bytes:
    """A client frame (masked with a zero key, payload under 126 bytes)."""
    assert len(payload) < 126
    return bytes([(0x80 if fin else 0) | opcode, 0x80 | len(payload), 0, 0, 0, 0]) + payload


class RawClient:
    """A websocket on a blocking socket: the test decides exactly what is read and sent."""

    def __init__(self, url: str) -> None:
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.settimeout(15)  # only so that a hung test ends; nothing is timed
        self.sock.sendall(
            b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            self._more()
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        assert head.startswith(b"HTTP/1.1 101"), head

    def _more(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise EOFError
        self.buf += chunk

    def frame(self) -> tuple[int, bytes]:
        """The next server frame (unmasked): its opcode and payload; EOFError at the end,
        ConnectionResetError if the server dropped the connection."""
        while True:
            if len(self.buf) >= 2:
                size, at = self.buf[1] & 0x7F, 2
                if size == 126 and len(self.buf) >= 4:  # a 16-bit length (a hello, say)
                    size, at = int.from_bytes(self.buf[2:4], "big"), 4
                if (at == 4 or size < 126) and len(self.buf) >= at + size:
                    opcode, payload = self.buf[0] & 0x0F, self.buf[at : at + size]
                    self.buf = self.buf[at + size :]
                    return opcode, payload
            self._more()

    def close_code(self) -> int:
        """Read until the server's close frame; its code."""
        while True:
            opcode, payload = self.frame()
            if opcode == 0x8:
                return int.from_bytes(payload[:2], "big")


@pytest.mark.parametrize(
    "frames",
    [
        [masked(0x1, b"\xff\xfe\xfd")],
        # Split inside a character: neither fragment alone says it is not UTF-8.
        [masked(0x1, b"ok \xe2", fin=False), masked(0x0, b"\x28\xa1")],
    ],
    ids=["one frame", "fragmented"],
)
def test_a_text_frame_that_is_not_utf8_is_closed_with_1007(
    hub: HubProcess, frames: list[bytes]
) -> None:
    client = RawClient(hub.ws_url)
    assert client.frame()[0] == 0x2  # hello
    client.sock.sendall(b"".join(frames))
    assert client.close_code() == 1007  # RFC 6455, 8.1
    client.sock.close()
    # A text frame that is UTF-8 is the application's to refuse (bad_frame), not closed.
    client = RawClient(hub.ws_url)
    client.frame()
    client.sock.sendall(masked(0x1, b'{"t": "ping"}'))
    opcode, payload = client.frame()
    assert opcode == 0x2 and b"bad_frame" in payload
    client.sock.close()


def test_a_peer_that_never_answers_the_close_is_dropped(hub: HubProcess) -> None:
    # Unasked pongs, fast: the hub refuses them (rate_limited) until it closes with 4001.
    pong = masked(0x2, msgpack.packb({"t": "pong", "n": 1}))
    client = RawClient(hub.ws_url)
    client.frame()  # hello
    client.sock.sendall(pong * 150)
    assert client.close_code() == 4001
    # It goes on and never answers the close. Each batch ends with a websocket ping, whose
    # pong says the hub read the batch: count how much it reads before it drops the
    # connection (before the fix: all of it, until its 10 s close timeout).
    read_after_close = 0
    try:
        for batch in range(200):
            tag = batch.to_bytes(4, "big")
            client.sock.sendall(pong * 50 + masked(0x9, tag))
            while client.frame() != (0xA, tag):
                pass
            read_after_close += 51
    except (EOFError, ConnectionResetError, BrokenPipeError):
        pass  # dropped
    else:
        pytest.fail(f"still open after {read_after_close} frames read after the close")
    assert read_after_close <= 2_000, read_after_close
    client.sock.close()


# -- a connection's frames: straight out, or queued while the socket cannot take them ------

QUEUE = 16  # the outbound queue's bound in these tests (BRANDUBH_OUTBOUND_QUEUE)


def bare_services() -> Services:
    """What a socket's run needs of the services, nothing else."""
    given: dict[str, Any] = dict.fromkeys(f.name for f in dataclasses.fields(Services))
    given["settings"] = Settings(outbound_queue=QUEUE)
    given["clock"] = lambda: 0
    given["heartbeat"] = Heartbeat(2.5)
    return Services(**given)


@contextlib.asynccontextmanager
async def connections(
    ws: type[asyncio.Protocol] | str = GuardedWebSocket,
) -> AsyncIterator[tuple[uvicorn.Server, str, list[Connection]]]:
    """The hub's Connection on each socket of a real uvicorn (what a socket's run needs
    of the services, nothing else): the server, its URL, the connections as made."""
    made: list[Connection] = []
    services = bare_services()

    async def hub_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        conn = Connection(services, WebSocket(scope, receive, send), None, False)
        made.append(conn)
        await conn.run()

    async with serving(hub_app, ws) as (srv, url):
        yield srv, url, made


def small(i: int) -> bytes:
    return b"f%d" % i


async def test_frames_go_straight_out_in_order_with_no_task(caplog: Any) -> None:
    async with connections() as (srv, url, made), connect(url) as ws:
        assert msgpack.unpackb(await ws.recv())["t"] == "hello"
        (conn,) = made
        # (This client asks for compression, which uvicorn's default allows: the frames
        # are websockets' own; SlowClient's, below, are framed by binary_frame.)
        assert protocols(srv)[0].conn.extensions
        tasks = len(asyncio.all_tasks())
        for i in range(200):
            conn.send(small(i))
            assert not conn.out  # written, not queued
        assert len(asyncio.all_tasks()) == tasks  # and no writer started
        assert [await ws.recv() for _ in range(200)] == [small(i) for i in range(200)]
    assert "failed" not in caplog.text


async def test_another_websocket_protocol_sends_through_the_queue() -> None:
    """uvicorn's own protocol offers no direct writes: every frame takes the ASGI send."""
    async with connections("websockets-sansio") as (_, url, made), connect(url) as ws:
        assert msgpack.unpackb(await ws.recv())["t"] == "hello"
        (conn,) = made
        for i in range(QUEUE):
            conn.send(small(i))
        assert conn.out  # queued for the writer
        assert [await ws.recv() for _ in range(QUEUE)] == [small(i) for i in range(QUEUE)]
        assert not conn.out


async def test_frames_queued_while_writes_pause_keep_their_order_with_direct_ones() -> None:
    async with connections() as (srv, url, made):
        client = await SlowClient(url).open()
        (conn,) = made
        await client.read(1)  # hello
        sent = 0
        while not conn.out and sent < 1000:  # direct until the transport pauses, then queued
            conn.send(numbered(sent))
            sent += 1
        assert conn.out, "the transport never paused writing"
        for _ in range(QUEUE // 2):
            conn.send(numbered(sent))
            sent += 1
        assert conn.closing is None
        (proto,) = protocols(srv)
        reading = asyncio.create_task(client.read(1 + sent + 100))
        for _ in range(50):  # as writes resume, before the writer has sent the queue on
            await wait_for(
                lambda: not conn.out or proto.writable.is_set(), "writes resumed", every=0
            )
            conn.send(numbered(sent))
            sent += 1
            await asyncio.sleep(0)
        await wait_for(lambda: not conn.out, "the queue sent", every=0.01)
        direct = 0
        for _ in range(50):  # the queue sent, the client reading: straight out again
            conn.send(numbered(sent))
            sent += 1
            direct += not conn.out
            await asyncio.sleep(0.005)
        got = await reading
        assert got[1:] == [numbered(i) for i in range(sent)]
        assert direct > 0 and not conn.out
        client.drop()


async def test_a_reader_that_never_reads_is_closed_at_the_queue_s_bound(caplog: Any) -> None:
    async with connections() as (_, url, made):
        client = await SlowClient(url).open()
        (conn,) = made
        await client.read(1)  # hello
        sent = 0
        while conn.closing is None and sent < 1000:
            conn.send(numbered(sent))
            sent += 1
        assert conn.closing == (CLOSE_TOO_SLOW, "too slow: outbound queue full")
        assert len(conn.out) == QUEUE
        conn.send(b"dropped")  # a closing socket takes nothing more, and does not raise
        got = await client.read(1 + sent)
        # What was written or queued arrives in order (what the second allowed for the
        # flush did not send is dropped), then the close.
        assert got[1:] == [numbered(i) for i in range(len(got) - 1)]
        assert client.close_code == CLOSE_TOO_SLOW
        client.drop()
    assert "failed" not in caplog.text


@pytest.mark.parametrize("how", ["close", "drop"])
async def test_frames_to_a_socket_that_went_away_do_not_raise(how: str, caplog: Any) -> None:
    async with connections() as (_, url, made):
        client = await SlowClient(url).open()
        (conn,) = made
        await client.read(1)  # hello
        if how == "close":
            client.ws.send_close(1000)
            client.writer.write(b"".join(client.ws.data_to_send()))
        else:
            client.writer.transport.abort()
        for _ in range(100):
            conn.send(small(0))  # direct, then refused and queued, then dropped: no raise
            await asyncio.sleep(0.002)
        await wait_for(
            lambda: conn.ws.client_state.name == "DISCONNECTED", "the disconnect", every=0.01
        )
        client.drop()
    assert "failed" not in caplog.text and "Traceback" not in caplog.text


@pytest.mark.parametrize("size", [0, 1, 125, 126, 65535, 65536, 70000])
def test_a_direct_frame_is_what_websockets_would_write(size: int) -> None:
    data = bytes(range(256)) * (size // 256) + bytes(size % 256)
    assert binary_frame(data) == Frame(Opcode.BINARY, data).serialize(mask=False)


async def test_a_frame_queued_as_the_writer_ends_is_written_too() -> None:
    """The writer's task is done a turn of the loop before its callback forgets it: a
    frame queued in between (writes paused by the writer's last frame) starts another."""
    sent: list[bytes] = []

    class Paused:
        def __init__(self) -> None:
            self.scope = {"extensions": {DIRECT: {"write": lambda frame: False}}}

        async def send_bytes(self, frame: bytes) -> None:
            sent.append(frame)

    conn = Connection(bare_services(), Paused(), None, False)  # type: ignore[arg-type]
    conn._accepted = True  # (run() sets it once the socket is accepted)
    conn.send(b"a")
    await asyncio.sleep(0)  # the writer sends a and ends; its callback waits a turn
    conn.send(b"b")
    await wait_for(lambda: not conn.out, "the queue sent", every=0.01)
    assert sent == [b"a", b"b"]
