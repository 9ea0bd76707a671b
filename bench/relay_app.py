"""A baseline for bench/load.py: a bare relay on the hub's own stack (Starlette under
uvicorn, websockets-sansio, uvloop, deflate off) that forwards each message to the three
sockets of its room, with no validation and no storage. A socket's first message names
its room (any bytes); every later one goes to all the room's sockets, itself included."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

ROOMS: dict[bytes, set[WebSocket]] = {}


async def relay(ws: WebSocket) -> None:
    await ws.accept()
    room = await ws.receive_bytes()
    members = ROOMS.setdefault(room, set())
    members.add(ws)
    try:
        while True:
            data = await ws.receive_bytes()
            for member in list(members):
                await member.send_bytes(data)
    except WebSocketDisconnect:
        pass
    finally:
        members.discard(ws)


app = Starlette(routes=[WebSocketRoute("/ws", relay)])
