"""Which positions stand on a running game's board, or one move past it: the positions no
board evaluation is given of, for anyone (docs/fair-play.md, "Engine help"). Pure.

A board is compared in all eight of its forms (turned, mirrored) and with either side to
move, since the rules treat those alike. "One move past" is read from the pieces alone:
one piece of a side moved to an empty square and the other side's pieces the same or
fewer (its captures). That is a little wider than the legal moves (it does not check the
path or which captures the rules allow), so now and then a position near a running game
is refused that no legal move reaches: the cheaper side to err on.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from brandubh.engine import RULESETS, Game, parse_position

__all__ = ["START_BOARDS", "Board", "board", "forms", "in_play", "one_move_apart"]

# (attackers, defenders, king): a square's bit in each, the king's bit or 0 once captured.
Board = tuple[int, int, int]

SIZE: Final = 7
# The board's eight symmetries (turns and mirrors), each as where every square goes.
_SYMMETRIES: Final = tuple(
    tuple(
        to_r * SIZE + to_c
        for r in range(SIZE)
        for c in range(SIZE)
        for to_r, to_c in [
            ((r, c), (c, SIZE - 1 - r), (SIZE - 1 - r, SIZE - 1 - c), (SIZE - 1 - c, r))[turn]
        ]
        for to_r, to_c in [(to_r, SIZE - 1 - to_c) if mirror else (to_r, to_c)]
    )
    for turn in range(4)
    for mirror in (False, True)
)


def _moved(bits: int, where: tuple[int, ...]) -> int:
    out = 0
    while bits:
        low = bits & -bits
        out |= 1 << where[low.bit_length() - 1]
        bits ^= low
    return out


def board(position: str) -> Board:
    """The pieces of a position text, whoever is to move (EngineError if no position)."""
    att, dfn, king, _ = parse_position(position)
    return att, dfn, (1 << king) if king >= 0 else 0


def forms(position: str) -> frozenset[Board]:
    """The eight forms of a position's board: every turn and mirror of it."""
    att, dfn, king = board(position)
    return frozenset((_moved(att, to), _moved(dfn, to), _moved(king, to)) for to in _SYMMETRIES)


# Every rule set's start: its board stands in every new game, and its evaluation (like the
# opening explorer's counts) is everyone's knowledge, so it is never refused, and a game
# still at its start makes no position after it refused either.
START_BOARDS: Final = frozenset().union(*(forms(Game(name).position) for name in RULESETS))


def _one_piece_moved(before: int, after: int) -> bool:
    gone, came = before & ~after, after & ~before
    return bool(gone and came) and gone & (gone - 1) == 0 and came & (came - 1) == 0


def one_move_apart(running: Board, asked: Board) -> bool:
    """Whether ``asked`` is ``running`` or could follow it by one move of either side."""
    if asked == running:
        return True
    a, d, k = running
    a2, d2, k2 = asked
    # The attackers moved: one attacker elsewhere, the defenders and king kept or captured.
    if _one_piece_moved(a, a2) and d2 & ~d == 0 and k2 == k:
        return True
    # The defenders moved (a defender or the king); attackers kept or captured.
    if a2 & ~a:
        return False
    if k2 == k:
        return _one_piece_moved(d, d2)
    return d2 == d and _one_piece_moved(k, k2)


def in_play(asked: str, running: Iterable[Board]) -> bool:
    """Whether a position (any form, either side to move) stands on one of the ``running``
    boards or one move past it; a rule set's start never counts."""
    shapes = forms(asked)
    if shapes & START_BOARDS:
        return False
    for now in running:
        if now in START_BOARDS:
            continue
        if any(one_move_apart(now, shape) for shape in shapes):
            return True
    return False
