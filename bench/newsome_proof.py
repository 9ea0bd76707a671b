"""Is newsome's start a forced win for the barons? An exhaustive check, judged by the engine.

``python bench/newsome_proof.py [--plies 7]``: every prince reply is tried; for the barons the
search's choice is tried first, then every other move, so "True" is a proof that the barons
win within ``--plies`` plies whatever the princes do. Prints the main line as well.
"""

from __future__ import annotations

import argparse
import random

from brandubh.bot import Searcher
from brandubh.engine import Game
from brandubh.engine.notation import make_move


def barons_win(game: Game, plies: int, seen: list[int]) -> bool:
    """Whether the barons (attackers) win within ``plies`` plies against every defence."""
    seen[0] += 1
    if game.result is not None:
        return game.result.winner == "attackers"
    if plies == 0:
        return False
    moves = game.board.legal_moves()
    if game.board.side == 0:
        best = Searcher(Game.from_snapshot(game.snapshot()), 3_000).run(random.Random(0)).move
        moves.sort(key=lambda m: m != best)
        for m in moves:
            game.push(m)
            won = barons_win(game, plies - 1, seen)
            game.pop()
            if won:
                return True
        return False
    for m in moves:
        game.push(m)
        won = barons_win(game, plies - 1, seen)
        game.pop()
        if not won:
            return False
    return True


def main_line() -> str:
    """Both sides playing the search's move (exact root scores), to the end."""
    game = Game("newsome")
    line = []
    while game.result is None:
        found = Searcher(Game.from_snapshot(game.snapshot()), 100_000).run(random.Random(0))
        board = game.board
        king = bool(board.side) and found.move & 63 == board.king
        line.append(str(make_move(found.move, king, board.captures(found.move))))
        game.push(found.move)
    return f"{' '.join(line)}  ({game.result})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=7)
    args = parser.parse_args()
    seen = [0]
    won = barons_win(Game("newsome"), args.plies, seen)
    print(f"barons force a win within {args.plies} plies: {won} ({seen[0]:,} positions)")
    print(f"main line: {main_line()}")


if __name__ == "__main__":
    main()
