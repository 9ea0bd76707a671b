"""Movement and capture for ``newsome``: one-step moves and capture by replacement.

The rules are docs/rules.md §newsome and §Decisions 5: every piece steps one square
orthogonally, or one square diagonally from a white square; princes and barons may instead
jump two squares diagonally along white squares over an empty square onto an empty one.
Moving onto an enemy captures it (diagonally: princes and barons only); the king is never
captured. Only the king stops on or passes over the throne.
"""

from __future__ import annotations

from typing import Final

from brandubh.engine.rules import Position, Rules
from brandubh.engine.rulesets import RuleSet
from brandubh.engine.squares import (
    DIAGONAL_JUMPS,
    DIAGONAL_NEIGHBOURS,
    NEIGHBOURS,
    NUM_SQUARES,
    THRONE,
    is_light,
    squares_of,
)

_LIGHT: Final = tuple(is_light(sq) for sq in range(NUM_SQUARES))
# Diagonal steps and jumps exist only from white squares.
_DIAG: Final = tuple(DIAGONAL_NEIGHBOURS[sq] if _LIGHT[sq] else () for sq in range(NUM_SQUARES))
_JUMPS: Final = tuple(
    tuple((mid, end) for mid, end in DIAGONAL_JUMPS[sq] if THRONE not in (mid, end))
    if _LIGHT[sq]
    else ()
    for sq in range(NUM_SQUARES)
)


class StepRules(Rules):
    """Move generation and capture for newsome."""

    __slots__ = ("ruleset",)

    def __init__(self, ruleset: RuleSet) -> None:
        self.ruleset = ruleset

    def moves(self, board: Position) -> list[int]:
        """Every legal move of the side to move."""
        out: list[int] = []
        self._generate(board, out, stop_at_first=False)
        return out

    def has_move(self, board: Position) -> bool:
        """Whether the side to move has any legal move."""
        out: list[int] = []
        self._generate(board, out, stop_at_first=True)
        return bool(out)

    def _generate(self, board: Position, out: list[int], *, stop_at_first: bool) -> None:
        king = board.king
        if board.side:
            own, enemy = board.dfn, board.att
        else:
            own, enemy = board.att, board.dfn
        occ = board.att | board.dfn | (1 << king if king >= 0 else 0)
        empty_or_enemy = ~occ | enemy
        if board.side and king >= 0:
            # The king steps orthogonally (capturing) or diagonally (not capturing).
            for n in NEIGHBOURS[king]:
                if empty_or_enemy >> n & 1:
                    out.append(king | n << 6)
            for n in _DIAG[king]:
                if not occ >> n & 1:
                    out.append(king | n << 6)
            if stop_at_first and out:
                return
        for sq in squares_of(own):
            for n in NEIGHBOURS[sq]:
                if empty_or_enemy >> n & 1 and n != THRONE:
                    out.append(sq | n << 6)
            for n in _DIAG[sq]:
                if empty_or_enemy >> n & 1 and n != THRONE:
                    out.append(sq | n << 6)
            for mid, end in _JUMPS[sq]:
                if not (occ >> mid & 1 or occ >> end & 1):
                    out.append(sq | end << 6)
            if stop_at_first and out:
                return

    def capture_zone(self, board: Position) -> int:
        """Squares a move must end on to capture: the enemy's (the king is never taken)."""
        return board.att if board.side else board.dfn

    def captures(self, board: Position, move: int) -> list[int]:
        """The square captured by replacement, if the destination holds an enemy."""
        dest = move >> 6
        enemy = board.att if board.side else board.dfn
        return [dest] if enemy >> dest & 1 else []
