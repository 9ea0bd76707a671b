"""The Bot API's game stream as lines (docs/protocol.md §2.9): each frame a game's
subscription sends, decoded into its NDJSON line, or into nothing when a bot need not
see it (presence, watcher counts, notices); pure."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Final, cast

import msgpack

from brandubh.hub.errors import Refusal

KEEPALIVE_S: Final = 7.0  # an empty line after this long without one, so proxies keep it


@dataclass(frozen=True, slots=True)
class Line:
    """One or more NDJSON lines of the stream; ``final`` when the stream ends after them
    (the game's final state, or a catch-up that failed: the client reconnects)."""

    text: bytes
    final: bool = False


def _encode(*items: dict[str, object]) -> bytes:
    return b"".join(
        json.dumps(item, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
        for item in items
    )


def _ended(state: object) -> bool:
    return isinstance(state, dict) and state.get("status") == "ended"


def _chat_line(game_id: object, room: object, line: dict[str, object]) -> dict[str, object]:
    kept = {k: v for k, v in line.items() if k in ("n", "from", "text", "at")}
    return {"type": "chatLine", "game": game_id, "room": room, **kept}


def line_of(frame: bytes) -> Line | None:
    """The stream's line(s) for one frame of ``subscription.Subscription``, or None."""
    msg = cast(dict[str, object], msgpack.unpackb(frame, raw=False))
    kind = msg.get("t")
    if kind == "snapshot":
        state = cast(dict[str, object], msg["state"])
        full = {
            "type": "gameFull",
            "id": msg["game"],
            "ruleset": state.get("ruleset"),
            "players": state.get("players"),
            "state": state,
            "moves": msg["moves"],
            "n": msg["n"],
        }
        return Line(_encode(full), _ended(state))
    if kind == "event":
        after = msg["state"]
        event = {k: v for k, v in msg.items() if k not in ("t", "game", "n", "state")}
        line = {"type": "gameState", "n": msg["n"], "event": event, "state": after}
        return Line(_encode(line), _ended(after))
    if kind == "chat":
        return Line(_encode(_chat_line(msg["game"], msg["room"], msg)))
    if kind == "chat_lines":
        lines = cast(list[dict[str, object]], msg.get("lines") or [])
        if not lines:
            return None
        return Line(_encode(*(_chat_line(msg["game"], msg["room"], x) for x in lines)))
    if kind == "error":
        # As the websocket's error frame has it (a code and a message), then the end.
        failed = {"type": "error", "code": msg["code"], "message": msg["message"]}
        return Line(_encode(failed), final=True)
    return None  # presence, watchers, rematch and match notices: not the bot's concern


def too_slow_line(bound: int) -> Line:
    """The last line of a stream whose reader fell ``bound`` lines behind: resume with since."""
    why = Refusal(
        "too_slow",
        f"this stream's reader fell {bound} lines behind, so it ends here: open it again "
        "with since=<the last n you read>",
    )
    said: dict[str, object] = {"type": "error", "code": why.code, "message": why.message}
    return Line(_encode(said), final=True)


def move_id(token_id: str, game_id: str, what: str) -> str:
    """The message id of a Bot API action: the same for the same token, game and action
    (``what``: a move's ply, "resign", ...), so a request sent again is applied once."""
    digest = hashlib.sha256(f"{token_id}/{game_id}/{what}".encode()).hexdigest()[:20]
    return f"bot-{digest}"
