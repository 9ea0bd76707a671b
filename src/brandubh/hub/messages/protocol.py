"""The websocket protocol: frame decoding, the shapes of client messages, close codes.

docs/protocol.md describes every message exactly as this module, frames.py (what the
server sends) and connection.py (one handler per message type) handle them; change them
together.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import msgpack

from brandubh.hub.errors import ProtocolError

# Close codes (4000-4999 are the application's own).
CLOSE_SERVER_SHUTDOWN: Final = 1001  # standard "going away"
CLOSE_ORIGIN_REFUSED: Final = 1008  # standard "policy violation": a foreign Origin
CLOSE_INTERNAL_ERROR: Final = 1011  # standard "internal error"
CLOSE_TRY_AGAIN_LATER: Final = 1013  # standard: too many sockets from one address, or no store
CLOSE_TOO_MANY_ERRORS: Final = 4001
CLOSE_TOO_SLOW: Final = 4002
CLOSE_HEARTBEAT: Final = 4003
CLOSE_SESSION_ENDED: Final = 4004  # logged out (here or everywhere), or password changed

GAME_ID_RE: Final = re.compile(r"^[A-Za-z0-9_-]{6,32}$")
MSG_ID_RE: Final = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
PLAYER_ID_RE: Final = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
MAX_PLY: Final = 10_000
MAX_EVENT: Final = 1 << 31
MAX_DEPTH: Final = 8  # no message nests deeper; deeper values are refused unread


def _reject_ext(code: int, data: bytes) -> Any:
    raise ValueError("msgpack extension types are not accepted")


def decode_frame(data: bytes, max_bytes: int) -> dict[str, Any]:
    """Decode one client frame into a message map; ProtocolError says what was wrong."""
    if len(data) > max_bytes:
        raise ProtocolError(
            "frame_too_large", f"frame of {len(data)} bytes exceeds the limit of {max_bytes}"
        )
    try:
        msg = msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            ext_hook=_reject_ext,
            max_str_len=max_bytes,
            max_bin_len=max_bytes,
            max_array_len=max_bytes,
            max_map_len=max_bytes,
            max_ext_len=0,
        )
    except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError) as exc:
        why = str(exc) or f"{type(exc).__name__}: the bytes do not decode"
        raise ProtocolError("bad_frame", f"frame is not one msgpack value: {why}") from None
    if not isinstance(msg, dict):
        raise ProtocolError("bad_frame", "a message must be a msgpack map with a 't' field")
    if _too_deep(msg):
        raise ProtocolError(
            "bad_frame", f"a message nests maps and arrays at most {MAX_DEPTH} deep"
        )
    if not isinstance(msg.get("t"), str):
        raise ProtocolError("bad_frame", "a message needs a 't' field naming its type")
    return msg


def _too_deep(value: Any) -> bool:
    """Whether maps and arrays nest beyond MAX_DEPTH (walked without recursion: a frame may
    nest a thousand deep, and repr or recursion over it would blow the stack)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > MAX_DEPTH:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False


def preview(value: Any) -> str:
    """A short description of a value for an error message (never a deep repr)."""
    if isinstance(value, dict):
        return f"a map of {len(value)} entries"
    if isinstance(value, list):
        return f"an array of {len(value)} items"
    return f"{value!r:.40}"


# -- message shapes -----------------------------------------------------------------------

Check = Callable[[Any], bool]


def _game_id(v: Any) -> bool:
    return isinstance(v, str) and GAME_ID_RE.match(v) is not None


def _msg_id(v: Any) -> bool:
    return isinstance(v, str) and MSG_ID_RE.match(v) is not None


def _ply(v: Any) -> bool:
    return type(v) is int and 0 <= v <= MAX_PLY


def _event_no(v: Any) -> bool:
    return type(v) is int and 0 <= v <= MAX_EVENT


def _move_text(v: Any) -> bool:
    return isinstance(v, str) and 0 < len(v) <= 32


def _ruleset(v: Any) -> bool:
    return isinstance(v, str)  # which rule sets and move times: live/terms.py refuses others


def _move_time(v: Any) -> bool:
    return type(v) is int


def _token(v: Any) -> bool:
    return isinstance(v, str) and GAME_ID_RE.match(v) is not None


def _side(v: Any) -> bool:
    return v in ("attackers", "defenders")


def _bool(v: Any) -> bool:
    return isinstance(v, bool)


def _counter(v: Any) -> bool:
    return type(v) is int and 0 <= v <= MAX_EVENT


@dataclass(frozen=True)
class Field:
    check: Check
    expect: str  # what a person should send instead
    required: bool = True


# Every message a client may send: its fields, each required unless marked optional.
MESSAGES: Final[dict[str, dict[str, Field]]] = {
    "watch": {
        "game": Field(_game_id, "a game id (6-32 letters, digits, '-' or '_')"),
        "since": Field(_event_no, "the last event number seen, 0 for none", required=False),
    },
    "unwatch": {"game": Field(_game_id, "a game id")},
    "move": {
        "game": Field(_game_id, "a game id"),
        "ply": Field(_ply, "the ply the move is for (the state's 'ply')"),
        "move": Field(_move_text, "move text such as 'd1-c1' (at most 32 characters)"),
        "id": Field(_msg_id, "a message id of 1-64 letters, digits or '_.:-'"),
    },
    "resign": {"game": Field(_game_id, "a game id"), "id": Field(_msg_id, "a message id")},
    "abort": {"game": Field(_game_id, "a game id"), "id": Field(_msg_id, "a message id")},
    "offer_draw": {"game": Field(_game_id, "a game id"), "id": Field(_msg_id, "a message id")},
    "answer_draw": {
        "game": Field(_game_id, "a game id"),
        "accept": Field(_bool, "true to accept the draw, false to decline it"),
        "id": Field(_msg_id, "a message id"),
    },
    "rematch": {"game": Field(_game_id, "a game id"), "id": Field(_msg_id, "a message id")},
    "decline_rematch": {
        "game": Field(_game_id, "a game id"),
        "id": Field(_msg_id, "a message id"),
    },
    "lobby": {"on": Field(_bool, "true to follow the lobby, false to stop")},
    "seek": {
        "ruleset": Field(_ruleset, "a rule set id such as 'nielsen'"),
        "move_time": Field(_move_time, "seconds per move, a whole number"),
        "rated": Field(_bool, "true for a rated game", required=False),
        "match": Field(_bool, "true for a two-game match", required=False),
        "id": Field(_msg_id, "a message id"),
    },
    "cancel_seek": {"seek": Field(_token, "a seek id"), "id": Field(_msg_id, "a message id")},
    "accept_seek": {"seek": Field(_token, "a seek id"), "id": Field(_msg_id, "a message id")},
    "quick": {
        "ruleset": Field(_ruleset, "a rule set id such as 'nielsen'"),
        "move_time": Field(_move_time, "seconds per move, a whole number"),
        "id": Field(_msg_id, "a message id"),
    },
    "cancel_quick": {"id": Field(_msg_id, "a message id")},
    "choose_sides": {
        "match": Field(_token, "a match id"),
        "side": Field(_side, "'attackers' or 'defenders'"),
        "id": Field(_msg_id, "a message id"),
    },
    "ping": {"n": Field(_counter, "a counter", required=False)},
    "pong": {"n": Field(_counter, "the counter of the ping answered", required=False)},
}


def validate(msg: dict[str, Any]) -> dict[str, Any]:
    """Check a decoded message against its shape: known type, exact keys, right types."""
    kind = msg["t"]
    shape = MESSAGES.get(kind)
    msg_id = msg.get("id") if _msg_id(msg.get("id")) else None
    if shape is None:
        known = ", ".join(sorted(MESSAGES))
        raise ProtocolError("unknown_type", f"unknown message type {preview(kind)}: one of {known}")
    for key in msg:
        if key != "t" and key not in shape:
            raise ProtocolError(
                "bad_field",
                f"{kind}: unexpected field {preview(key)}; fields: {', '.join(shape)}",
                msg_id,
            )
    for key, spec in shape.items():
        if key not in msg:
            if spec.required:
                raise ProtocolError(
                    "bad_field", f"{kind}: missing field {key!r}: {spec.expect}", msg_id
                )
            continue
        if not spec.check(msg[key]):
            raise ProtocolError(
                "bad_field",
                f"{kind}: field {key!r} must be {spec.expect}, got {preview(msg[key])}",
                msg_id,
            )
    return msg
