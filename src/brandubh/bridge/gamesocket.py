"""One game over the bot socket (docs/protocol.md §2.9.1), the bridge's ``transport =
"socket"``: the socket's frames read as the game stream's lines, and the engine's moves
sent as frames whose answers come back among them (docs/bridge.md, "Transport")."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Mapping
from typing import Any, Final

import msgpack
import websockets

from brandubh.bridge.client import REQUEST_SECONDS, Fatal, StreamRefused

__all__ = ["GameSocket", "SocketLost", "line_of_frame"]

log = logging.getLogger(__name__)

PATH: Final = "/api/bot/socket"
CLOSE_TOKEN_REFUSED: Final = 4005  # docs/protocol.md §3.2
MAX_FRAME: Final = 1 << 20


class SocketLost(Exception):
    """The socket closed or could not be opened: open it again (with ``since``)."""


def line_of_frame(game_id: str, msg: Mapping[str, object]) -> dict[str, Any] | None:
    """The game stream's line that a frame of the socket stands for (``gameFull``,
    ``gameState``), an ``answer`` to a move (``id``, ``ok``, and a refusal's ``code`` and
    ``message``), or None for a frame the bridge need not see; pure."""
    kind = msg.get("t")
    if kind in ("snapshot", "event") and msg.get("game") != game_id:
        return None
    state = msg.get("state")
    if kind == "snapshot" and isinstance(state, dict):
        return {
            "type": "gameFull",
            "id": game_id,
            "ruleset": state.get("ruleset"),
            "players": state.get("players"),
            "state": state,
            "moves": msg.get("moves") or [],
            "n": msg["n"],
        }
    if kind == "event":
        event = {k: v for k, v in msg.items() if k not in ("t", "game", "n", "state")}
        return {"type": "gameState", "n": msg["n"], "event": event, "state": state}
    if kind == "ack" and "id" in msg:
        return {"type": "answer", "id": msg["id"], "ok": True}
    if kind == "error" and "id" in msg:
        said = {"code": msg.get("code"), "message": msg.get("message")}
        return {"type": "answer", "id": msg["id"], "ok": False, **said}
    if kind == "error":
        return {"type": "error", "code": msg.get("code"), "message": msg.get("message")}
    return None


class GameSocket:
    """The bot socket for one game at a time: ``lines`` opens it and follows the game,
    ``send_move`` plays on it while it is open."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url.replace("https://", "wss://", 1).replace("http://", "ws://", 1) + PATH
        self.headers = {"Authorization": f"Bearer {token}", "User-Agent": "brandubh-engine-bridge"}
        self._ws: websockets.ClientConnection | None = None

    async def lines(self, game_id: str, since: int | None) -> AsyncIterator[dict[str, Any]]:
        """The game's lines from ``since`` (None: its state now), then each as it comes,
        until the socket closes: SocketLost then (Fatal for a refused token, StreamRefused
        when the site will not let it follow the game)."""
        refused: dict[str, object] = {}
        try:
            async with websockets.connect(
                self.url,
                additional_headers=self.headers,
                open_timeout=REQUEST_SECONDS,
                max_size=MAX_FRAME,
                ping_interval=None,  # the site's own pings are the heartbeat, answered here
            ) as ws:
                # The first frame is the hello, or the refusal of the token (then 4005).
                first = msgpack.unpackb(await ws.recv(), raw=False)
                if isinstance(first, dict) and first.get("t") == "error":
                    refused = {"code": first.get("code"), "message": first.get("message")}
                    _lost(CLOSE_TOKEN_REFUSED, refused)
                self._ws = ws
                watch: dict[str, object] = {"t": "watch", "game": game_id}
                if since is not None:
                    watch["since"] = since
                await ws.send(msgpack.packb(watch))
                async for frame in ws:
                    if not isinstance(frame, bytes):
                        continue
                    msg = msgpack.unpackb(frame, raw=False)
                    if not isinstance(msg, dict):
                        continue
                    if msg.get("t") == "ping":
                        await ws.send(msgpack.packb({"t": "pong", "n": msg.get("n")}))
                        continue
                    line = line_of_frame(game_id, msg)
                    if line is None:
                        continue
                    if line["type"] == "error":
                        if msg.get("game") == game_id:  # the watch itself was refused
                            raise StreamRefused(400, str(line["code"]), str(line["message"]))
                        refused = line
                        continue
                    yield line
        except websockets.ConnectionClosed as closed:
            _lost(closed.rcvd.code if closed.rcvd is not None else None, refused)
        except (OSError, TimeoutError, websockets.InvalidHandshake) as exc:
            raise SocketLost(f"the bot socket cannot be opened: {exc}") from None
        finally:
            self._ws = None
        _lost(ws.close_code, refused)

    async def send_move(self, game_id: str, ply: int, text: str) -> bool:
        """Send a move at ``ply`` (its id ``m<ply>``: sent again, it is played once);
        whether it went out (not while the socket is closed)."""
        ws = self._ws
        if ws is None:
            return False
        move = {"t": "move", "game": game_id, "ply": ply, "move": text, "id": f"m{ply}"}
        try:
            await ws.send(msgpack.packb(move))
        except websockets.ConnectionClosed:
            return False
        return True


def _lost(code: int | None, refused: Mapping[str, object]) -> None:
    """Raise why the socket ended: Fatal for its token refused (4005), else SocketLost."""
    if code == CLOSE_TOKEN_REFUSED:
        said = f"{refused.get('code')}: {refused.get('message')}" if refused else "4005"
        raise Fatal(f"the site refuses the token: {said}")
    raise SocketLost(f"the bot socket closed ({code})")
