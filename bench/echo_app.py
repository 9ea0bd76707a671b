"""The ceiling for bench/load.py: a bare websocket echo on the hub's own stack
(Starlette under uvicorn, websockets-sansio, uvloop, deflate off). Run by load.py."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect


async def echo(ws: WebSocket) -> None:
    await ws.accept()
    try:
        while True:
            await ws.send_bytes(await ws.receive_bytes())
    except WebSocketDisconnect:
        pass


app = Starlette(routes=[WebSocketRoute("/ws", echo)])
