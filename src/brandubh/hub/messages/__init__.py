"""What travels on a socket, and nothing else: the messages a client may send, each
parsed once into a typed value (``protocol``), and every frame the server sends, each
built by a named function (``frames``). Pure: it imports the engine and the refusals,
no I/O, so the games in play can build the frames they store without knowing sockets."""

from brandubh.hub.messages import frames
from brandubh.hub.messages.protocol import (
    CLOSE_HEARTBEAT,
    CLOSE_INTERNAL_ERROR,
    CLOSE_ORIGIN_REFUSED,
    CLOSE_SERVER_SHUTDOWN,
    CLOSE_SESSION_ENDED,
    CLOSE_TOO_MANY_ERRORS,
    CLOSE_TOO_SLOW,
    CLOSE_TRY_AGAIN_LATER,
    GAME_ID_RE,
    MESSAGES,
    PLAYER_ID_RE,
    decode_frame,
    validate,
)

__all__ = [
    "CLOSE_HEARTBEAT",
    "CLOSE_INTERNAL_ERROR",
    "CLOSE_ORIGIN_REFUSED",
    "CLOSE_SERVER_SHUTDOWN",
    "CLOSE_SESSION_ENDED",
    "CLOSE_TOO_MANY_ERRORS",
    "CLOSE_TOO_SLOW",
    "CLOSE_TRY_AGAIN_LATER",
    "GAME_ID_RE",
    "MESSAGES",
    "PLAYER_ID_RE",
    "decode_frame",
    "frames",
    "validate",
]
