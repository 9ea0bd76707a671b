"""A minimal websocket client for the load generator: binary frames only, on an asyncio
protocol, so that the generator costs less CPU per message than the server it measures.

RFC 6455 framing without extensions: the client masks what it sends; the server's frames
arrive unmasked. Pings are answered; a close ends the connection. Not for anything but
the benchmarks (no fragmentation, no text frames).
"""

from __future__ import annotations

import asyncio
import base64
import os
import struct
from collections.abc import Callable
from urllib.parse import urlsplit

OnMessage = Callable[["RawSocket", bytes], None]


class RawSocket(asyncio.Protocol):
    """One client websocket; ``on_message`` is called with each binary message."""

    def __init__(self, on_message: OnMessage) -> None:
        self.on_message = on_message
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.upgraded: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.tag: object = None  # for the caller

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # (uvloop's is its own class)

    def data_received(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        if not self.upgraded.done():
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(buf[:end])
            del buf[: end + 4]
            if not head.startswith(b"HTTP/1.1 101"):
                self.upgraded.set_exception(ConnectionError(head.split(b"\r\n")[0].decode()))
                return
            self.upgraded.set_result(None)
        while len(buf) >= 2:
            b0, b1 = buf[0], buf[1] & 0x7F
            at = 2
            if b1 == 126:
                if len(buf) < 4:
                    return
                (b1,) = struct.unpack_from(">H", buf, 2)
                at = 4
            elif b1 == 127:
                if len(buf) < 10:
                    return
                (b1,) = struct.unpack_from(">Q", buf, 2)
                at = 10
            if len(buf) < at + b1:
                return
            payload = bytes(buf[at : at + b1])
            del buf[: at + b1]
            opcode = b0 & 0x0F
            if opcode == 2:
                self.on_message(self, payload)
            elif opcode == 9:
                self._frame(0xA, payload)
            elif opcode == 8:
                self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.upgraded.done():
            self.upgraded.set_exception(ConnectionError("closed before the upgrade"))
        if not self.closed.done():
            self.closed.set_result(None)

    def _frame(self, opcode: int, payload: bytes) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        n = len(payload)
        if n < 126:
            head = bytes((0x80 | opcode, 0x80 | n))
        elif n < 65536:
            head = bytes((0x80 | opcode, 0x80 | 126)) + struct.pack(">H", n)
        else:
            head = bytes((0x80 | opcode, 0x80 | 127)) + struct.pack(">Q", n)
        mask = os.urandom(4)
        key = int.from_bytes((mask * (n // 4 + 1))[:n], "big")
        masked = (int.from_bytes(payload, "big") ^ key).to_bytes(n, "big") if n else b""
        self.transport.write(head + mask + masked)

    def send(self, payload: bytes) -> None:
        self._frame(0x2, payload)

    def close(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self._frame(0x8, struct.pack(">H", 1000))
            self.transport.close()


async def connect(url: str, on_message: OnMessage, cookie: str | None = None) -> RawSocket:
    """Open ``url`` (http://host:port/path) as a websocket."""
    parts = urlsplit(url)
    loop = asyncio.get_running_loop()
    _, sock = await loop.create_connection(
        lambda: RawSocket(on_message), parts.hostname or "127.0.0.1", parts.port or 80
    )
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [
        f"GET {parts.path or '/'} HTTP/1.1",
        f"Host: {parts.netloc}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {key}",
        "Sec-WebSocket-Version: 13",
    ]
    if cookie:
        lines.append(f"Cookie: {cookie}")
    assert sock.transport is not None
    sock.transport.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    await sock.upgraded
    return sock
