"""Puzzles: the solver's speed by depth, generation with one and two workers, the shipped set.

Run by hand: ``python bench/puzzles.py [--positions N] [--games N] [--prove-all]``.

Prints, each beside a baseline measured in the same run on the same machine:
- the solver's nodes per second (positions made by the bitboard kernel) and the seconds per
  candidate position when asked for a win within 1, 2 and 3 moves, on ``--positions``
  positions of seeded self-play games; the baseline is the engine's perft rate (moves made
  by ``Game.push`` per second) from the start position;
- generation: games and positions per second with ``--workers 1`` and ``--workers 2`` on the
  same ``--games`` self-play games (nielsen, depth 3);
- the shipped set: puzzles by rule set, theme and depth; with ``--prove-all`` every one is
  proved again (unique at every move of its line) and the count of failures printed.
"""

from __future__ import annotations

import argparse
import collections
import io
import tempfile
import time
from pathlib import Path

from brandubh.bot import search_is_compiled
from brandubh.engine import Game, perft
from brandubh.puzzles import (
    SUPPORTED_RULESETS,
    Solver,
    generate,
    load_shipped,
    prove_puzzle,
    selfplay_sources,
)
from brandubh.puzzles.generate import play_selfplay
from brandubh.run import worker_pool


def perft_rate() -> float:
    """Moves made per second by the engine's perft from the start (the baseline)."""
    game = Game()
    started = time.perf_counter()
    perft(game, 4)
    made = perft(game, 3)  # depth 4 makes the moves of depth 3 and counts the last ply
    return made / (time.perf_counter() - started)


def candidate_positions(count: int) -> list[str]:
    """Positions of seeded nielsen self-play games, the last plies of each."""
    out: list[str] = []
    for source in selfplay_sources(["nielsen"], 100, seed=77):
        game = Game("nielsen")
        positions = []
        for move in play_selfplay(source):
            positions.append(game.position)
            game.play(move)
        out += positions[-12:]
        if len(out) >= count:
            return out[:count]
    return out


def solver_figures(positions: list[str]) -> None:
    print(f"engine perft (baseline): {perft_rate():,.0f} moves/s")
    for depth in (1, 2, 3):
        solver = Solver("nielsen")  # a fresh table per depth: no proof carried over
        started = time.perf_counter()
        wins = 0
        for position in positions:
            wins += solver.win_depth(position, depth) is not None
        spent = time.perf_counter() - started
        per = len(positions)
        print(
            f"solver, win within {depth}: {solver.nodes / spent:,.0f} nodes/s, "
            f"{spent / per * 1000:.1f} ms and {solver.nodes / per:,.0f} nodes a position, "
            f"{wins}/{per} won"
        )


def generation_figures(games: int) -> None:
    sources = selfplay_sources(["nielsen"], games, seed=78)
    for workers in (1, 2):
        with tempfile.TemporaryDirectory() as tmp:
            started = time.perf_counter()
            summary = generate(
                sources,
                Path(tmp) / "p.jsonl",
                max_depth=3,
                pool=worker_pool(workers),
                log=io.StringIO(),
            )
            spent = time.perf_counter() - started
        print(
            f"generation, {workers} worker(s): {games / spent:.2f} games/s, "
            f"{summary.positions / spent:.1f} positions/s, {summary.found} puzzles "
            f"in {spent:.1f} s"
        )


def shipped_figures(prove_all: bool) -> None:
    puzzles = load_shipped()
    counts = collections.Counter((p.ruleset, p.theme, p.depth) for p in puzzles)
    print(f"shipped: {len(puzzles)} puzzles")
    for (ruleset, theme, depth), n in sorted(counts.items()):
        print(f"  {ruleset:<10} {theme:<8} depth {depth}: {n}")
    if prove_all:
        solvers = {rs: Solver(rs) for rs in SUPPORTED_RULESETS}
        started = time.perf_counter()
        failed = [p.id for p in puzzles if prove_puzzle(p, solvers[p.ruleset]) is not None]
        spent = time.perf_counter() - started
        print(f"proved again: {len(puzzles) - len(failed)} of {len(puzzles)} in {spent:.1f} s")
        for puzzle_id in failed:
            print(f"  FAILED {puzzle_id}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--prove-all", action="store_true")
    args = parser.parse_args()
    print(f"bot kernel compiled: {search_is_compiled()}")
    solver_figures(candidate_positions(args.positions))
    generation_figures(args.games)
    shipped_figures(args.prove_all)


if __name__ == "__main__":
    main()
