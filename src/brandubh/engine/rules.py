"""What the board and a rule set's movement module (slide.py, newsome.py) ask of each other.

In a module of its own, below both: the board imports the movement modules, and they see
a board only as a ``Position``, so neither imports the other for its types. Base classes,
not protocols, so that compiled (mypyc) the movement code reads a board's fields and the
board calls its movement module natively, not through Python's attribute look-up.
"""

from __future__ import annotations


class Position:
    """What move generation reads of a board (``board.Board`` is one): the pieces as
    bitboards, the king's square (-1 once captured) and the side to move (0: attackers)."""

    __slots__ = ("att", "dfn", "king", "side")

    att: int
    dfn: int
    king: int
    side: int


class Rules:
    """What a rule set's movement module provides to the board."""

    __slots__ = ()

    def moves(self, board: Position) -> list[int]:
        """Every legal move of the side to move."""
        raise NotImplementedError

    def has_move(self, board: Position) -> bool:
        """Whether the side to move has any legal move."""
        raise NotImplementedError

    def captures(self, board: Position, move: int) -> list[int]:
        """The squares the move captures on, ascending; the board is the one before it."""
        raise NotImplementedError

    def capture_zone(self, board: Position) -> int:
        """Squares a move must end on to capture anything (a superset will do)."""
        raise NotImplementedError
