"""The hub's websocket protocol (hub/wire/transport.py) under a real uvicorn, over real sockets:
what an accepted socket keeps, and writing under back-pressure through its lean gate."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from typing import Any

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
