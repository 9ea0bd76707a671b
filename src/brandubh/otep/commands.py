"""OTEP commands as typed records: what a host sends, read; what the engine sends, written.

Pure. The commands are those of OpenTafl's ``opentafl-engine-protocol.txt`` (docs/otep.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from brandubh.engine import Side

__all__ = [
    "Analyze",
    "BadCommand",
    "Clock",
    "Command",
    "Finish",
    "Goodbye",
    "Hello",
    "HostError",
    "Ignored",
    "MoveAccepted",
    "OpponentMove",
    "Play",
    "Position",
    "Rules",
    "SetSide",
    "format_analysis",
    "format_error",
    "format_move",
    "format_status",
    "parse_command",
]


class BadCommand(ValueError):
    """A line from the host that is not an OTEP command this engine reads."""


@dataclass(frozen=True, slots=True)
class Hello:
    """``hello``: the host is there (the engine says it first)."""


@dataclass(frozen=True, slots=True)
class Rules:
    """``rules <otn rules>``: a new game under these rules, from their start."""

    text: str


@dataclass(frozen=True, slots=True)
class Position:
    """``position <otn position>``: the board now (analysis and replays)."""

    record: str


@dataclass(frozen=True, slots=True)
class SetSide:
    """``side <attackers|defenders>``: the side to move in the position (analysis)."""

    side: Side


@dataclass(frozen=True, slots=True)
class Clock:
    """``clock``: each side's time left in ms (or in the current overtime period, when the
    flag is set), the overtime period's length in seconds, and the periods left each."""

    attacker_ms: int
    attacker_overtime: bool
    defender_ms: int
    defender_overtime: bool
    overtime_seconds: int
    attacker_overtimes: int
    defender_overtimes: int


@dataclass(frozen=True, slots=True)
class Analyze:
    """``analyze <number> <seconds>``: up to ``number`` moves with evaluations, in time."""

    number: int
    seconds: float


@dataclass(frozen=True, slots=True)
class Play:
    """``play <side>``: move for ``side`` now."""

    side: Side


@dataclass(frozen=True, slots=True)
class MoveAccepted:
    """``move <otn position>``: the host took our move; the board after it."""

    record: str


@dataclass(frozen=True, slots=True)
class HostError:
    """``error <code>``: 1 wrong side, 2 illegal move, 3 and 4 berserk (never ours)."""

    code: int


@dataclass(frozen=True, slots=True)
class OpponentMove:
    """``opponent-move <move|move...> <otn position>``: the other side moved."""

    moves: tuple[str, ...]
    record: str


@dataclass(frozen=True, slots=True)
class Finish:
    """``finish <code>``: 0 stopped, 1 draw, 2 attackers win, 3 defenders win."""

    code: int


@dataclass(frozen=True, slots=True)
class Goodbye:
    """``goodbye``: the engine may exit."""


@dataclass(frozen=True, slots=True)
class Ignored:
    """A command the engine has nothing to do for (``dump``, ``simple-moves`` echoed, ...)."""

    name: str


Command = (
    Hello
    | Rules
    | Position
    | SetSide
    | Clock
    | Analyze
    | Play
    | MoveAccepted
    | HostError
    | OpponentMove
    | Finish
    | Goodbye
    | Ignored
)

_IGNORED: Final = frozenset({"dump", "simple-moves", "status", "analysis"})
_MS_RE: Final = re.compile(r"^(\d+)(\*?)$")


def _side(word: str, line: str) -> Side:
    if word == "attackers":
        return "attackers"
    if word == "defenders":
        return "defenders"
    raise BadCommand(f"{line!r}: the side is 'attackers' or 'defenders', not {word!r}")


def _int(word: str, what: str, line: str) -> int:
    if not re.fullmatch(r"-?\d+", word):
        raise BadCommand(f"{line!r}: {what} must be a whole number, not {word!r}")
    return int(word)


def _clock(args: list[str], line: str) -> Clock:
    if len(args) != 5:
        raise BadCommand(
            f"{line!r}: clock takes attacker ms, defender ms (each with * in overtime), "
            "overtime seconds and both sides' overtimes left"
        )
    att, dfn = _MS_RE.match(args[0]), _MS_RE.match(args[1])
    if att is None or dfn is None:
        raise BadCommand(f"{line!r}: times are milliseconds, marked * in overtime")
    return Clock(
        attacker_ms=int(att.group(1)),
        attacker_overtime=bool(att.group(2)),
        defender_ms=int(dfn.group(1)),
        defender_overtime=bool(dfn.group(2)),
        overtime_seconds=_int(args[2], "the overtime length", line),
        attacker_overtimes=_int(args[3], "the attackers' overtimes", line),
        defender_overtimes=_int(args[4], "the defenders' overtimes", line),
    )


def parse_command(line: str) -> Command:
    """Read one line from the host; BadCommand says what is wrong with it."""
    words = line.split()
    if not words:
        raise BadCommand("an empty line is not a command")
    name, args = words[0], words[1:]
    if name == "hello":
        return Hello()
    if name == "goodbye":
        return Goodbye()
    if name in _IGNORED:
        return Ignored(name)
    if name == "rules":
        if not args:
            raise BadCommand("'rules' needs an OTN rules string, as in rules dim:7 ... start:/.../")
        return Rules(" ".join(args))
    if name == "clock":
        return _clock(args, line)
    if len(args) == 1:
        arg = args[0]
        if name == "position":
            return Position(arg)
        if name == "side":
            return SetSide(_side(arg, line))
        if name == "play":
            return Play(_side(arg, line))
        if name == "move":
            return MoveAccepted(arg)
        if name == "error":
            return HostError(_int(arg, "the error code", line))
        if name == "finish":
            return Finish(_int(arg, "the finish code", line))
    if name == "analyze" and len(args) == 2:
        seconds = args[1]
        if not re.fullmatch(r"\d+(\.\d+)?", seconds):
            raise BadCommand(f"{line!r}: the seconds must be a number, not {seconds!r}")
        return Analyze(_int(args[0], "the number of moves", line), float(seconds))
    if name == "opponent-move" and len(args) == 2:
        return OpponentMove(tuple(args[0].split("|")), args[1])
    known = (
        "hello, rules, position, side, clock, analyze, play, move, error, opponent-move, "
        "finish, goodbye"
    )
    if name in known.split(", "):
        raise BadCommand(f"{line!r}: wrong arguments for {name!r} (docs/otep.md)")
    raise BadCommand(f"{name!r} is not an OTEP command this engine reads: {known}")


def format_move(text: str) -> str:
    """``move <otn move>``: the engine's move."""
    return f"move {text}"


def format_analysis(lines: list[tuple[str, int]]) -> str:
    """``analysis <n> <moves> <evaluation> ...``: each line's moves joined by ``|``."""
    return " ".join(["analysis", str(len(lines)), *(f"{m} {e}" for m, e in lines)])


def format_error(code: int, message: str) -> str:
    """``error <code> <message>``: -1 critical (OpenTafl resigns for us), 0 shown and passed."""
    return f"error {code} {' '.join(message.split())}"


def format_status(text: str) -> str:
    """``status <text>``: shown in the host's status display."""
    return f"status {' '.join(text.split())}"
