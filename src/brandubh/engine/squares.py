"""Squares of the 7×7 board: names, indices and the precomputed geometry the rules use.

A square is an int 0..48: ``rank * 7 + file`` with a1 = 0, g1 = 6, a7 = 42, g7 = 48.
A set of squares is an int bitboard with bit ``1 << square``.
"""

from __future__ import annotations

from typing import Final

SIZE: Final = 7
NUM_SQUARES: Final = SIZE * SIZE
FILES: Final = "abcdefg"

SQUARE_NAMES: Final[tuple[str, ...]] = tuple(
    f"{FILES[sq % SIZE]}{sq // SIZE + 1}" for sq in range(NUM_SQUARES)
)
_INDEX: Final[dict[str, int]] = {name: sq for sq, name in enumerate(SQUARE_NAMES)}

THRONE: Final = 3 * SIZE + 3  # d4
CORNERS: Final[tuple[int, ...]] = (0, SIZE - 1, NUM_SQUARES - SIZE, NUM_SQUARES - 1)
THRONE_BB: Final = 1 << THRONE
CORNERS_BB: Final = sum(1 << sq for sq in CORNERS)
ALL_BB: Final = (1 << NUM_SQUARES) - 1


def parse_square(text: str) -> int:
    """The square index of a name such as ``"d4"`` (case-insensitive); ValueError if none."""
    sq = _INDEX.get(text.strip().lower())
    if sq is None:
        raise ValueError(f"{text!r} is not a square: files are a-g and ranks 1-7, as in d4")
    return sq


def square_name(sq: int) -> str:
    """The name of a square index, such as ``"d4"``."""
    return SQUARE_NAMES[sq]


def file_of(sq: int) -> int:
    return sq % SIZE


def rank_of(sq: int) -> int:
    return sq // SIZE


def is_light(sq: int) -> bool:
    """True for the "white" squares of newsome: file + rank even, so corners and throne."""
    return (file_of(sq) + rank_of(sq)) % 2 == 0


def _step(sq: int, df: int, dr: int) -> int | None:
    f, r = file_of(sq) + df, rank_of(sq) + dr
    if 0 <= f < SIZE and 0 <= r < SIZE:
        return r * SIZE + f
    return None


ORTHOGONAL: Final[tuple[tuple[int, int], ...]] = ((0, 1), (1, 0), (0, -1), (-1, 0))
DIAGONAL: Final[tuple[tuple[int, int], ...]] = ((1, 1), (1, -1), (-1, -1), (-1, 1))


def _ray(sq: int, df: int, dr: int) -> tuple[int, ...]:
    out = []
    cur = _step(sq, df, dr)
    while cur is not None:
        out.append(cur)
        cur = _step(cur, df, dr)
    return tuple(out)


# RAYS[sq] holds the four orthogonal rays leaving sq, nearest square first.
RAYS: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(
    tuple(_ray(sq, df, dr) for df, dr in ORTHOGONAL) for sq in range(NUM_SQUARES)
)

# CAPTURE_LINES[sq]: (neighbour, square beyond it) in each orthogonal direction where both
# exist; a piece arriving on sq captures on the neighbour against the square beyond.
CAPTURE_LINES: Final[tuple[tuple[tuple[int, int], ...], ...]] = tuple(
    tuple((ray[0], ray[1]) for ray in RAYS[sq] if len(ray) >= 2) for sq in range(NUM_SQUARES)
)

NEIGHBOURS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(ray[0] for ray in RAYS[sq] if ray) for sq in range(NUM_SQUARES)
)
NEIGHBOURS_BB: Final[tuple[int, ...]] = tuple(
    sum(1 << n for n in NEIGHBOURS[sq]) for sq in range(NUM_SQUARES)
)

DIAGONAL_NEIGHBOURS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(n for df, dr in DIAGONAL if (n := _step(sq, df, dr)) is not None)
    for sq in range(NUM_SQUARES)
)

# (square passed over, destination) for each two-square diagonal move from sq.
DIAGONAL_JUMPS: Final[tuple[tuple[tuple[int, int], ...], ...]] = tuple(
    tuple(
        (mid, end)
        for df, dr in DIAGONAL
        if (mid := _step(sq, df, dr)) is not None and (end := _step(sq, 2 * df, 2 * dr)) is not None
    )
    for sq in range(NUM_SQUARES)
)


def squares_of(bb: int) -> list[int]:
    """The squares of a bitboard, in ascending order."""
    out = []
    while bb:
        low = bb & -bb
        out.append(low.bit_length() - 1)
        bb ^= low
    return out
