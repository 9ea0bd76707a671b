"""Move text: ``d1-c1``, ``Kc5-c7``, ``c4-c7xb7xc6``; lenient in, canonical out.

The notation is docs/rules.md §Move text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from brandubh.engine.errors import InvalidMoveText
from brandubh.engine.squares import NUM_SQUARES, SQUARE_NAMES, parse_square

_MOVE_RE: Final = re.compile(
    r"^\s*(?P<king>[Kk])?\s*(?P<origin>[a-gA-G][1-7])\s*-?\s*(?P<dest>[a-gA-G][1-7])"
    r"(?P<captures>(?:\s*[xX]\s*[a-gA-G][1-7])*)\s*$"
)
_CAPTURE_RE: Final = re.compile(r"[a-gA-G][1-7]")


@dataclass(frozen=True, slots=True)
class Move:
    """A move as played: origin and destination square names, whether the king moved,
    and the squares it captured on in ascending order (file, then rank)."""

    origin: str
    destination: str
    king: bool = False
    captures: tuple[str, ...] = ()
    # The canonical text, made once: moves are printed far more often than made.
    text: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", format_move(self))

    def __str__(self) -> str:
        return self.text

    def __reduce__(self) -> tuple[type[Move], tuple[str, str, bool, tuple[str, ...]]]:
        # Pickled by its fields: compiled (mypyc), the default would set them on a frozen instance.
        return Move, (self.origin, self.destination, self.king, self.captures)

    @property
    def code(self) -> int:
        """The move as the engine's int: ``origin | destination << 6``."""
        return parse_square(self.origin) | parse_square(self.destination) << 6


@dataclass(frozen=True, slots=True)
class MoveText:
    """What a player wrote: squares as indices, and the parts they may leave out."""

    origin: int
    destination: int
    king: bool
    captures: tuple[int, ...] | None  # None when no capture suffix was written

    def __reduce__(self) -> tuple[type[MoveText], tuple[int, int, bool, tuple[int, ...] | None]]:
        # Pickled by its fields: compiled (mypyc), the default would set them on a frozen instance.
        return MoveText, (self.origin, self.destination, self.king, self.captures)


def parse_move(text: str) -> MoveText:
    """Read move text leniently: case, spaces, the ``K`` and the capture suffix are optional."""
    m = _MOVE_RE.match(text)
    if m is None:
        raise InvalidMoveText(
            f"{text!r} is not a move: write origin and destination, such as d1-c1 or Kd4-d7"
        )
    caps = m.group("captures")
    return MoveText(
        origin=parse_square(m.group("origin")),
        destination=parse_square(m.group("dest")),
        king=m.group("king") is not None,
        captures=tuple(parse_square(c) for c in _CAPTURE_RE.findall(caps)) if caps else None,
    )


def format_move(move: Move) -> str:
    """Canonical move text: ``K`` for the king, ``origin-destination``, then ``x`` per capture."""
    text = f"{'K' if move.king else ''}{move.origin}-{move.destination}"
    return text + "".join(f"x{sq}" for sq in move.captures)


def _sort_key(sq: int) -> tuple[int, int]:
    return sq % 7, sq // 7


# Moves without captures are immutable and few (49 × 49 × 2): build each once.
_PLAIN: Final[dict[int, Move]] = {}


def _plain_texts() -> list[str]:
    """The text of every move without captures, indexed by ``code | king << 12``."""
    table = [""] * (1 << 13)
    for origin in range(NUM_SQUARES):
        for dest in range(NUM_SQUARES):
            for king in (False, True):
                table[origin | dest << 6 | king << 12] = (
                    f"{'K' if king else ''}{SQUARE_NAMES[origin]}-{SQUARE_NAMES[dest]}"
                )
    return table


# The service writes every legal move's text after each move: most need only a look-up.
PLAIN_TEXTS: Final = _plain_texts()


def move_text(code: int, king: bool, captures: list[int]) -> str:
    """``format_move(make_move(code, king, captures))``, by look-up when nothing is captured."""
    if captures:
        return format_move(make_move(code, king, captures))
    return PLAIN_TEXTS[code | king << 12]


def make_move(code: int, king: bool, captures: list[int]) -> Move:
    """A Move from the engine's int, whether the king moved, and the captured squares."""
    if not captures:
        key = code | king << 12
        move = _PLAIN.get(key)
        if move is None:
            move = _PLAIN[key] = Move(SQUARE_NAMES[code & 63], SQUARE_NAMES[code >> 6], king)
        return move
    return Move(
        SQUARE_NAMES[code & 63],
        SQUARE_NAMES[code >> 6],
        king,
        tuple(SQUARE_NAMES[sq] for sq in sorted(captures, key=_sort_key)),
    )
