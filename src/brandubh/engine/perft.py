"""Perft: the number of move sequences of a given length, to pin move generation down."""

from __future__ import annotations

from brandubh.engine.game import Game


def perft(game: Game, depth: int) -> int:
    """Count the positions reached by every sequence of ``depth`` legal moves.

    A game that has ended has no moves, so a line that ends early adds nothing.
    """
    if depth == 0:
        return 1
    if game.result is not None:
        return 0
    moves = game.board.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for code in moves:
        game.push(code)
        total += perft(game, depth - 1)
        game.pop()
    return total
