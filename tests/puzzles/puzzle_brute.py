"""Plain minimax on the engine's Game, for checking the solver: no table, no ordering, no
bitboards of the bot; every move through ``Game.push`` and every ending by ``Game.result``."""

from __future__ import annotations

import random

from brandubh.engine import Game


def wins(game: Game, n: int) -> bool:
    """Whether the side to move forces a win within ``n`` of its moves."""
    me = game.side_to_move
    for code in game.board.legal_moves():
        game.push(code)
        try:
            result = game.result
            won = result.winner == me if result is not None else n > 1 and loses(game, n - 1)
        finally:
            game.pop()
        if won:
            return True
    return False


def loses(game: Game, n: int) -> bool:
    """Whether every move of the side to move loses at once or within ``n`` of the other's."""
    me = game.side_to_move
    for code in game.board.legal_moves():
        game.push(code)
        try:
            result = game.result
            lost = result.winner not in (me, None) if result is not None else wins(game, n)
        finally:
            game.pop()
        if not lost:
            return False
    return True


def winning_moves(game: Game, n: int) -> list[str]:
    """The text of every move that wins within ``n`` of the mover's moves."""
    me = game.side_to_move
    out = []
    for move in game.legal_moves():
        game.push(move.code)
        try:
            result = game.result
            won = result.winner == me if result is not None else n > 1 and loses(game, n - 1)
        finally:
            game.pop()
        if won:
            out.append(move.text)
    return out


def holding_moves(game: Game, n: int) -> list[str]:
    """The text of every move after which the other side has no win within ``n``."""
    me = game.side_to_move
    out = []
    for move in game.legal_moves():
        game.push(move.code)
        try:
            result = game.result
            holds = result.winner in (me, None) if result is not None else not wins(game, n)
        finally:
            game.pop()
        if holds:
            out.append(move.text)
    return out


def late_position(ruleset: str, rng: random.Random) -> str | None:
    """A position with few pieces, drawn at random (None when the draw is already over or
    its side to move has too many moves to check by brute force quickly)."""
    squares = [sq for sq in range(49) if sq not in (0, 6, 24, 42, 48)]
    rng.shuffle(squares)
    king = rng.choice([*squares[:1], 24])
    attackers = squares[1 : 1 + rng.randint(2, 5)]
    defenders = squares[6 : 6 + rng.randint(0, 2)]
    grid = ["."] * 49
    for sq in attackers:
        grid[sq] = "A"
    for sq in defenders:
        if grid[sq] == ".":
            grid[sq] = "D"
    grid[king] = "K"
    ranks = []
    for rank in range(6, -1, -1):
        text, empty = "", 0
        for file in range(7):
            piece = grid[rank * 7 + file]
            if piece == ".":
                empty += 1
            else:
                text += (str(empty) if empty else "") + piece
                empty = 0
        ranks.append(text + (str(empty) if empty else ""))
    position = "/".join(ranks) + " " + rng.choice("ad")
    game = Game.from_position(position, ruleset)
    if game.result is not None or len(game.legal_texts()) > 40:
        return None
    return position
