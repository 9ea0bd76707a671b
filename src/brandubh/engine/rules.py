"""What the board and a rule set's movement module (slide.py, newsome.py) ask of each other.

In a module of its own, below both: the board imports the movement modules, and they see
a board only as a ``Position``, so neither imports the other for its types.
"""

from __future__ import annotations

from typing import Protocol


class Position(Protocol):
    """What move generation reads of a board (``board.Board`` is one): the pieces as
    bitboards, the king's square (-1 once captured) and the side to move (0: attackers)."""

    att: int
    dfn: int
    king: int
    side: int


class Rules(Protocol):
    """What a rule set's movement module provides to the board."""

    def moves(self, board: Position) -> list[int]: ...
    def has_move(self, board: Position) -> bool: ...
    def captures(self, board: Position, move: int) -> list[int]: ...
    def capture_zone(self, board: Position) -> int: ...
