"""The bot's search on a time budget: seconds turned into nodes at the rate measured so far.

The bot's levels count nodes, never seconds (brandubh.bot.levels); an OTEP host gives a
clock. ``Thinker`` keeps the nodes per second of its last searches and gives each search
as many nodes as the seconds allow, never more than its level's budget.
"""

from __future__ import annotations

import time
from dataclasses import replace

from brandubh.bot import Level, Searcher, decide, level_for, rng_for, search_is_compiled
from brandubh.engine import Game, Move, make_move

__all__ = ["Thinker"]

# A first guess of nodes per second before any search is measured (docs/bot.md's figures).
_FIRST_RATE = {True: 600_000.0, False: 150_000.0}
# Never fewer nodes than this: the first pass of a search always finishes anyway.
_MIN_NODES = 1_000


class Thinker:
    """Chooses and analyses moves at a level, held to the seconds each call is given."""

    def __init__(self, level: int = 5, seed: bytes = b"otep") -> None:
        self.level: Level = level_for(level)
        self.seed = seed
        self.rate = _FIRST_RATE[search_is_compiled()]  # nodes per second, measured

    def _level(self, seconds: float) -> Level:
        nodes = max(_MIN_NODES, min(self.level.nodes, int(self.rate * seconds * 0.8)))
        return replace(self.level, nodes=nodes)

    def _measure(self, nodes: int, started: float) -> None:
        elapsed = time.perf_counter() - started
        if elapsed > 0.05 and nodes > 0:
            # Averaged: one search's rate varies with the position (quiescence, endings).
            self.rate = 0.5 * self.rate + 0.5 * nodes / elapsed

    def choose(self, game: Game, seconds: float) -> Move:
        """The bot's move in ``game`` within about ``seconds``."""
        started = time.perf_counter()
        code, found = decide(game, rng_for(self.seed, "otep", game.ply), self._level(seconds))
        self._measure(found.nodes, started)
        return _move(game, code)

    def analyse(self, game: Game, number: int, seconds: float) -> list[tuple[Move, int]]:
        """Up to ``number`` moves, best first, with the search's scores (side to move's view,
        a soldier about 100)."""
        started = time.perf_counter()
        lv = self._level(seconds)
        # Every root move searched with a full window: their scores are exact, not bounds.
        work = Game.from_snapshot(game.snapshot())
        searcher = Searcher(work, lv.nodes, lv.depth, lv.q_checks, exact_root=True)
        found = searcher.run(rng_for(self.seed, "otep", game.ply))
        self._measure(found.nodes, started)
        scored = sorted(found.scores.items(), key=lambda ms: ms[1], reverse=True) or [
            (found.move, found.score)
        ]
        return [(_move(game, code), score) for code, score in scored[:number]]


def _move(game: Game, code: int) -> Move:
    board = game.board
    return make_move(code, bool(board.side) and code & 63 == board.king, board.captures(code))
