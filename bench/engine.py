"""Engine speed per rule set: random-playout plies per second and perft nodes per second.

Run: ``python bench/engine.py [--seconds S] [--depth D]``. Each figure is printed next to a
baseline measured in the same run: a bare loop that picks a random element of a fixed
40-move list and appends it (what a playout would cost with free rules), so the ratio shows
what the rules themselves cost on this machine today.
"""

from __future__ import annotations

import argparse
import random
import time

from brandubh.engine import RULESETS, Game, perft


def playout_core(ruleset: str, seconds: float, rng: random.Random) -> tuple[int, int]:
    """Plies and games of random playouts on the fast path: int moves, push, result check."""
    plies = games = 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        game = Game(ruleset)
        board = game.board
        while game.result is None:
            moves = board.legal_moves()
            game.push(moves[rng.randrange(len(moves))])
            plies += 1
        games += 1
    return plies, games


def playout_public(ruleset: str, seconds: float, rng: random.Random) -> tuple[int, int]:
    """Plies of random playouts on the public API: Move objects with captures, play(text)."""
    plies = games = 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        game = Game(ruleset)
        while game.result is None:
            moves = game.legal_moves()
            game.play(moves[rng.randrange(len(moves))])
            plies += 1
        games += 1
    return plies, games


def baseline(seconds: float, rng: random.Random) -> int:
    """Iterations per second of the loop skeleton with no rules at all."""
    fixed = list(range(40))
    n = 0
    out: list[int] = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        for _ in range(1000):
            out.append(fixed[rng.randrange(len(fixed))])
        out.clear()
        n += 1000
    return n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per measurement")
    parser.add_argument("--depth", type=int, default=4, help="perft depth")
    args = parser.parse_args()
    rng = random.Random(1)

    base = baseline(args.seconds, rng) / args.seconds
    print(f"baseline: bare random-pick loop {base:,.0f} iterations/s")
    print()
    header = (
        f"{'rule set':<11} {'core plies/s':>13} {'public plies/s':>15} "
        f"{'plies/game':>10} {'perft d' + str(args.depth):>12} {'nodes/s':>11} {'vs base':>8}"
    )
    print(header)
    print("-" * len(header))
    for name in RULESETS:
        plies, games = playout_core(name, args.seconds, rng)
        core = plies / args.seconds
        pub_plies, _ = playout_public(name, args.seconds, rng)
        public = pub_plies / args.seconds
        game = Game(name)
        t0 = time.perf_counter()
        nodes = perft(game, args.depth)
        dt = time.perf_counter() - t0
        print(
            f"{name:<11} {core:>13,.0f} {public:>15,.0f} {plies / max(games, 1):>10.1f} "
            f"{nodes:>12,} {nodes / dt:>11,.0f} {core / base:>8.3f}"
        )
    print()
    print("goal: at least 20,000 core playout plies/s for the slide rule sets on one core")


if __name__ == "__main__":
    main()
