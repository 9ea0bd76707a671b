"""The websocket protocol: frame decoding, the messages a client may send, close codes.

Each client message is decoded (``decode_frame``) and parsed once (``parse``) into an
immutable value of its own class; the sockets dispatch on the class, so a handler reads
typed fields, never a map's keys. docs/protocol.md describes every message exactly as this
module, frames.py (what the server sends) and wire/handlers.py (what each message does)
handle them; change them together.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from operator import call, itemgetter
from typing import Final, Literal, NamedTuple, NoReturn, TypeAlias, cast

import msgpack

from brandubh.hub.errors import ProtocolError

# Close codes (4000-4999 are the application's own).
CLOSE_SERVER_SHUTDOWN: Final = 1001  # standard "going away"
CLOSE_INVALID_DATA: Final = 1007  # standard: a text frame that is not UTF-8
CLOSE_ORIGIN_REFUSED: Final = 1008  # standard "policy violation": a foreign Origin
CLOSE_INTERNAL_ERROR: Final = 1011  # standard "internal error"
CLOSE_TRY_AGAIN_LATER: Final = 1013  # standard: too many sockets from one address, or no store
CLOSE_TOO_MANY_ERRORS: Final = 4001
CLOSE_TOO_SLOW: Final = 4002
CLOSE_HEARTBEAT: Final = 4003
CLOSE_SESSION_ENDED: Final = 4004  # logged out (here or everywhere), or password changed
CLOSE_TOKEN_REFUSED: Final = 4005  # the bot socket: its token unknown, revoked, without bot:play

GAME_ID_RE: Final = re.compile(r"^[A-Za-z0-9_-]{6,32}\Z")
MSG_ID_RE: Final = re.compile(r"^[A-Za-z0-9_.:-]{1,64}\Z")
PLAYER_ID_RE: Final = re.compile(r"^[A-Za-z0-9_-]{1,40}\Z")
MAX_PLY: Final = 10_000
MAX_EVENT: Final = 1 << 31
MAX_DEPTH: Final = 8  # no message nests deeper; deeper values are refused unread
MAX_CHAT: Final = 140  # characters in one chat line
CHAT_ROOMS: Final = ("players", "spectators")


def _reject_ext(code: int, data: bytes) -> NoReturn:
    raise ValueError("msgpack extension types are not accepted")


def decode_frame(data: bytes, max_bytes: int) -> dict[str | bytes, object]:
    """Decode one client frame into a map (for ``parse``); ProtocolError says what was wrong."""
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
    return msg


def _too_deep(value: object) -> bool:
    """Whether maps and arrays nest beyond MAX_DEPTH (walked without recursion: a frame may
    nest a thousand deep, and repr or recursion over it would blow the stack)."""
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > MAX_DEPTH:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False


def preview(value: object) -> str:
    """A short description of a value for an error message (never a deep repr)."""
    if isinstance(value, dict):
        return f"a map of {len(value)} entries"
    if isinstance(value, list):
        return f"an array of {len(value)} items"
    return f"{value!r:.40}"


# -- field checks -------------------------------------------------------------------------
#
# A check is truthy for a good value, falsy for a bad one, and may raise TypeError for a
# value of the wrong type (a pattern's ``match`` given anything but a string): ``parse``
# reads that as bad too. The patterns' own ``match`` serves as the check of ids, so the
# usual message is checked from C with no Python frame per id.

Check = Callable[[object], object]


def _matches(pattern: re.Pattern[str]) -> Check:
    return cast(Check, pattern.match)


_game_id: Final = _matches(GAME_ID_RE)
_msg_id: Final = _matches(MSG_ID_RE)
_token: Final = _matches(GAME_ID_RE)


def _ply(v: object) -> bool:
    return type(v) is int and 0 <= v <= MAX_PLY


def _event_no(v: object) -> bool:
    return type(v) is int and 0 <= v <= MAX_EVENT


def _move_text(v: object) -> bool:
    return isinstance(v, str) and 0 < len(v) <= 32


def _lines(v: object) -> bool:
    # The shape only: how many lines, how long, and whether legal is the game's to say
    # (live/conditional.py); the frame's size limit bounds the work.
    return isinstance(v, list) and all(
        isinstance(line, list) and all(map(_move_text, line)) for line in v
    )


def _ruleset(v: object) -> bool:
    return isinstance(v, str)  # which rule sets and move times: live/terms.py refuses others


def _move_time(v: object) -> bool:
    return type(v) is int


def _side(v: object) -> bool:
    return v in ("attackers", "defenders")


def _room(v: object) -> bool:
    return v in CHAT_ROOMS


def _chat_text(v: object) -> bool:
    return isinstance(v, str) and 0 < len(v) <= MAX_CHAT


def _bool(v: object) -> bool:
    return isinstance(v, bool)


def _counter(v: object) -> bool:
    return type(v) is int and 0 <= v <= MAX_EVENT


def _good(check: Check, value: object) -> bool:
    try:
        return bool(check(value))
    except TypeError:
        return False


Value: TypeAlias = object  # any value a decoded frame may hold
REQUIRED: Final = object()  # a Field's default when the field must be sent


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a client message: its key, its check, what a person should send
    instead, and the value it takes when left out (``REQUIRED``: it may not be)."""

    name: str
    check: Check
    expect: str
    default: Value = REQUIRED

    def __reduce__(self) -> tuple[type[Field], tuple[str, Check, str, Value]]:
        # Pickled by its fields: compiled (mypyc), the default would set them on a frozen instance.
        return Field, (self.name, self.check, self.expect, self.default)


# -- the messages a client may send ---------------------------------------------------------
#
# One immutable class each, its fields typed; MESSAGES gives each its type on the wire and
# how each field is checked. The handlers (wire/handlers.py) take these values, never a map.
# Named tuples, not frozen dataclasses: a move's is built in a third of the time (a frozen
# dataclass sets each field through object.__setattr__), and every move is parsed here.
# Like any tuples they compare by value alone: compare their types too.


class Watch(NamedTuple):
    """Follow a game: its events after ``since`` (None: a snapshot), and who is connected."""

    game: str
    since: int | None


class Unwatch(NamedTuple):
    game: str


class Move(NamedTuple):
    game: str
    ply: int  # the ply the move is for
    move: str  # move text, checked by the engine
    id: str


class SetConditional(NamedTuple):
    """The ``conditional`` message: replace the player's conditional moves in a game."""

    game: str
    ply: int  # the ply the lines start at (the state's 'ply')
    lines: list[list[str]]  # each a sequence of move texts; none clears them
    id: str


class GetConditional(NamedTuple):
    """The ``get_conditional`` message: the player's own conditional moves in a game."""

    game: str
    id: str


class Resign(NamedTuple):
    game: str
    id: str


class Abort(NamedTuple):
    game: str
    id: str


class OfferDraw(NamedTuple):
    game: str
    id: str


class AnswerDraw(NamedTuple):
    game: str
    accept: bool
    id: str


class Takeback(NamedTuple):
    """Take back one's last move against the bot (and its reply), asked at ``ply``."""

    game: str
    ply: int
    id: str


class OfferTakeback(NamedTuple):
    """Ask the opponent (a person, in a casual game) to let one's last move be taken back."""

    game: str
    id: str


class AnswerTakeback(NamedTuple):
    game: str
    accept: bool
    id: str


class Claim(NamedTuple):
    """End a live game whose opponent left: a win, or a draw (``draw``)."""

    game: str
    draw: bool
    id: str


class Rematch(NamedTuple):
    game: str
    id: str


class DeclineRematch(NamedTuple):
    game: str
    id: str


class Chat(NamedTuple):
    """Say a line in one of a game's chat rooms (chat/service.py says who may, and where)."""

    game: str
    room: Literal["players", "spectators"]
    text: str
    id: str


class Report(NamedTuple):
    """Report line ``line`` of a game's chat room to the moderators."""

    game: str
    room: Literal["players", "spectators"]
    line: int
    id: str


class FollowLobby(NamedTuple):
    """The ``lobby`` message: follow the lobby's seeks and games (``on``), or stop."""

    on: bool


class FollowAnalysis(NamedTuple):
    """Follow a game's analysis (its progress, then its completion), or stop (``on``)."""

    game: str
    on: bool


class FollowTournament(NamedTuple):
    """The ``follow_tournament`` message: follow a tournament's changes (``on``), or stop."""

    tournament: str
    on: bool


class Seek(NamedTuple):
    ruleset: str
    move_time: int
    rated: bool
    match: bool  # a two-game match
    id: str


class CancelSeek(NamedTuple):
    seek: str
    id: str


class AcceptSeek(NamedTuple):
    seek: str
    id: str


class Quick(NamedTuple):
    ruleset: str
    move_time: int
    id: str


class CancelQuick(NamedTuple):
    id: str


class ChooseSides(NamedTuple):
    match: str
    side: Literal["attackers", "defenders"]
    id: str


class Ping(NamedTuple):
    n: int


class Pong(NamedTuple):
    n: int


# What a socket's player does in a game it plays (each checked against the game).
GameAction = (
    Move
    | Resign
    | Abort
    | OfferDraw
    | AnswerDraw
    | Takeback
    | OfferTakeback
    | AnswerTakeback
    | Claim
    | Rematch
    | DeclineRematch
    | SetConditional
    | GetConditional
)
# What an account says in a game's chat, played or watched.
ChatAction = Chat | Report
# What an account does in the lobby: seeks, quick pairing, a match's sides.
LobbyAction = Seek | CancelSeek | AcceptSeek | Quick | CancelQuick | ChooseSides
# What acts for the socket's player: stamped on arrival, and the session must be alive.
Acting = GameAction | LobbyAction | ChatAction
# What any socket may send, with or without a player: following, and the heartbeat.
Following = Watch | Unwatch | FollowLobby | FollowAnalysis | FollowTournament | Ping | Pong
ClientMessage = Acting | Following


class Shape(NamedTuple):
    """One message type: its type on the wire, its class, its fields in the class's order,
    and what ``parse`` reads it with (a tuple, so ``parse`` unpacks it in one step)."""

    size: int  # the keys of a message that sends every field: its fields and 't'
    values: Callable[[dict[str | bytes, object]], tuple[object, ...]]  # KeyError if one is out
    checks: tuple[Check, ...]
    make: Callable[..., ClientMessage]
    kind: str
    fields: tuple[Field, ...]


def _shape(kind: str, cls: type[ClientMessage], *fields: Field) -> Shape:
    names = [f.name for f in fields]
    values = itemgetter(*names) if len(names) > 1 else lambda msg: (msg[names[0]],)
    return Shape(len(fields) + 1, values, tuple(f.check for f in fields), cls, kind, fields)


_GAME: Final = Field("game", _game_id, "a game id")
_ID: Final = Field("id", _msg_id, "a message id")
_SEEK: Final = Field("seek", _token, "a seek id")
_RULESET: Final = Field("ruleset", _ruleset, "a rule set id such as 'nielsen'")
_ROOM: Final = Field("room", _room, "'players' or 'spectators'")
_MOVE_TIME: Final = Field("move_time", _move_time, "seconds per move, a whole number")

# Every message a client may send, by its type on the wire: its class and its fields, each
# required unless it has a default.
MESSAGES: Final[dict[str, Shape]] = {
    shape.kind: shape
    for shape in (
        _shape(
            "watch",
            Watch,
            Field("game", _game_id, "a game id (6-32 letters, digits, '-' or '_')"),
            Field("since", _event_no, "the last event number seen, 0 for none", None),
        ),
        _shape("unwatch", Unwatch, _GAME),
        _shape(
            "move",
            Move,
            _GAME,
            Field("ply", _ply, "the ply the move is for (the state's 'ply')"),
            Field("move", _move_text, "move text such as 'd1-c1' (at most 32 characters)"),
            Field("id", _msg_id, "a message id of 1-64 letters, digits or '_.:-'"),
        ),
        _shape("resign", Resign, _GAME, _ID),
        _shape("abort", Abort, _GAME, _ID),
        _shape("offer_draw", OfferDraw, _GAME, _ID),
        _shape(
            "answer_draw",
            AnswerDraw,
            _GAME,
            Field("accept", _bool, "true to accept the draw, false to decline it"),
            _ID,
        ),
        _shape(
            "takeback",
            Takeback,
            _GAME,
            Field("ply", _ply, "the ply the game is at (the state's 'ply')"),
            _ID,
        ),
        _shape("takeback_offer", OfferTakeback, _GAME, _ID),
        _shape(
            "takeback_answer",
            AnswerTakeback,
            _GAME,
            Field("accept", _bool, "true to accept the takeback, false to decline it"),
            _ID,
        ),
        _shape(
            "claim",
            Claim,
            _GAME,
            Field("draw", _bool, "false to claim victory, true to call it a draw"),
            _ID,
        ),
        _shape("rematch", Rematch, _GAME, _ID),
        _shape("decline_rematch", DeclineRematch, _GAME, _ID),
        _shape(
            "conditional",
            SetConditional,
            _GAME,
            Field("ply", _ply, "the ply the lines start at (the state's 'ply')"),
            Field("lines", _lines, "an array of lines, each an array of move texts"),
            _ID,
        ),
        _shape("get_conditional", GetConditional, _GAME, _ID),
        _shape(
            "chat",
            Chat,
            _GAME,
            _ROOM,
            Field("text", _chat_text, f"the line: text of 1-{MAX_CHAT} characters"),
            _ID,
        ),
        _shape(
            "report",
            Report,
            _GAME,
            _ROOM,
            Field("line", _counter, "the number ('n') of the chat line reported"),
            _ID,
        ),
        _shape("lobby", FollowLobby, Field("on", _bool, "true to follow the lobby, false to stop")),
        _shape(
            "follow_analysis",
            FollowAnalysis,
            _GAME,
            Field("on", _bool, "true to follow the game's analysis, false to stop"),
        ),
        _shape(
            "follow_tournament",
            FollowTournament,
            Field("tournament", _token, "a tournament id"),
            Field("on", _bool, "true to follow the tournament, false to stop"),
        ),
        _shape(
            "seek",
            Seek,
            _RULESET,
            _MOVE_TIME,
            Field("rated", _bool, "true for a rated game", True),
            Field("match", _bool, "true for a two-game match", False),
            _ID,
        ),
        _shape("cancel_seek", CancelSeek, _SEEK, _ID),
        _shape("accept_seek", AcceptSeek, _SEEK, _ID),
        _shape("quick", Quick, _RULESET, _MOVE_TIME, _ID),
        _shape("cancel_quick", CancelQuick, _ID),
        _shape(
            "choose_sides",
            ChooseSides,
            Field("match", _token, "a match id"),
            Field("side", _side, "'attackers' or 'defenders'"),
            _ID,
        ),
        _shape("ping", Ping, Field("n", _counter, "a counter", 0)),
        _shape("pong", Pong, Field("n", _counter, "the counter of the ping answered", 0)),
    )
}
# Keyed by any value a frame's 't' may be (only a type's name is found).
_SHAPES: Final[dict[object, Shape]] = dict(MESSAGES.items())
_ABSENT: Final = object()


def parse(msg: dict[str | bytes, object]) -> ClientMessage:
    """The typed message a decoded map is (known type, exact keys, right types), or a
    ProtocolError naming what is wrong: the first unexpected key, else the first field
    missing or wrong, in the order of the type's fields."""
    try:
        shape = _SHAPES[msg["t"]]
    except (KeyError, TypeError):
        raise _unknown(msg.get("t")) from None
    size, values, checks, make, _, _ = shape
    # The usual message sends every field and no other, each good: fetched by one C call
    # and checked by another (every move is), else it is read field by field.
    if len(msg) == size:
        try:
            fields = values(msg)
            if all(map(call, checks, fields)):
                return make(*fields)
        except (KeyError, TypeError):
            pass
    return _parse_fields(shape, msg)


def _unknown(kind: object) -> ProtocolError:
    if not isinstance(kind, str):
        return ProtocolError("bad_frame", "a message needs a 't' field naming its type")
    known = ", ".join(sorted(MESSAGES))
    return ProtocolError("unknown_type", f"unknown message type {preview(kind)}: one of {known}")


def _parse_fields(shape: Shape, msg: dict[str | bytes, object]) -> ClientMessage:
    """``parse`` field by field: a field left out takes its default, else the error."""
    kind = shape.kind
    names = [f.name for f in shape.fields]
    for key in msg:
        if key != "t" and key not in names:
            raise ProtocolError(
                "bad_field",
                f"{kind}: unexpected field {preview(key)}; fields: {', '.join(names)}",
                _id_of(msg),
            )
    values: list[object] = []
    for field in shape.fields:
        value = msg.get(field.name, _ABSENT)
        if value is _ABSENT:
            if field.default is REQUIRED:
                raise ProtocolError(
                    "bad_field",
                    f"{kind}: missing field {field.name!r}: {field.expect}",
                    _id_of(msg),
                )
            value = field.default
        elif not _good(field.check, value):
            raise ProtocolError(
                "bad_field",
                f"{kind}: field {field.name!r} must be {field.expect}, got {preview(value)}",
                _id_of(msg),
            )
        values.append(value)
    return shape.make(*values)


def _id_of(msg: dict[str | bytes, object]) -> str | None:
    """The message's id, if it has a good one: a refusal of the message names it."""
    msg_id = msg.get("id")
    return msg_id if isinstance(msg_id, str) and _good(_msg_id, msg_id) else None


def reply_to(msg: ClientMessage | None) -> tuple[str | None, str | None]:
    """What an error answering this message names: its id, and its game."""
    if isinstance(msg, GameAction | ChatAction):
        return msg.id, msg.game
    if isinstance(msg, LobbyAction):
        return msg.id, None
    if isinstance(msg, Watch | Unwatch):
        return None, msg.game
    return None, None
