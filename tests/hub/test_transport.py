"""The hub's websocket protocol (hub/wire/transport.py) under a real uvicorn, over real sockets:
what an accepted socket keeps, and writing under back-pressure through its lean gate."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from typing import Any

import msgpack
import pytest
import uvicorn
import websockets
from websockets.asyncio.client import connect
from websockets.client import ClientProtocol
from websockets.frames import Frame
from websockets.protocol import State
from websockets.uri import parse_uri

from brandubh.hub.wire.inbox import Gate, Inbox
from brandubh.hub.wire.transport import GuardedWebSocket
from services import HubProcess

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
    sock = socket.socket()
    # A small send buffer, fixed, which accepted sockets inherit: the kernel would grow it
    # to some MiB on loopback, and hide the pauses the slow-reader test is after.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 * 1024)
    sock.bind(("127.0.0.1", 0))  # a free port, chosen by the kernel
    config = uvicorn.Config(
        app, ws=GuardedWebSocket, lifespan="off", log_level="warning", ws_ping_interval=None
    )
    srv = uvicorn.Server(config)
    task = asyncio.create_task(srv.serve(sockets=[sock]))
    while not srv.started:
        await asyncio.sleep(0.01)
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
        assert isinstance(proto.queue, Inbox) and isinstance(proto.writable, Gate)


async def test_writes_wait_for_a_slow_reader_and_lose_nothing(
    server: tuple[uvicorn.Server, str],
) -> None:
    srv, url = server
    # A client on websockets' sans-I/O protocol over a plain socket, so that nothing
    # reads while the test does not, with a small receive buffer, fixed as well.
    client = socket.socket()
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
    client.connect(("127.0.0.1", int(url.rsplit(":", 1)[1].strip("/"))))
    reader, writer = await asyncio.open_connection(sock=client)
    ws = ClientProtocol(parse_uri(url), max_size=2 * FRAME)
    ws.send_request(ws.connect())
    writer.write(b"".join(ws.data_to_send()))
    while ws.state is not State.OPEN:
        ws.receive_data(await asyncio.wait_for(reader.read(4096), 10))
    ws.send_binary(b"burst")
    writer.write(b"".join(ws.data_to_send()))
    await asyncio.sleep(0.5)  # the client reads nothing: the server's writes must pause
    (proto,) = protocols(srv)
    assert not proto.writable.is_set(), "the transport never paused writing"
    got: list[bytes] = []
    while len(got) < BURST:
        ws.receive_data(await asyncio.wait_for(reader.read(1 << 20), 10))
        got += [bytes(e.data) for e in ws.events_received() if isinstance(e, Frame)]
    assert got == [numbered(i) for i in range(BURST)]
    assert proto.writable.is_set()
    writer.close()


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
                if size == 126 and len(self.buf) >= 4:
                    size, at = int.from_bytes(self.buf[2:4], "big"), 4
                if size < 126 and len(self.buf) >= at + size:
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
