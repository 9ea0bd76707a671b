"""The compiled modules (mypyc) against the same code uncompiled: the bot's nodes per
second, and the engine's µs per move as the hub uses it (play, legal move texts, snapshot).

Run by hand: ``python bench/compiled.py [--positions 8] [--nodes 40000] [--rounds 3]``.
Searches bench/bot.py's fixed suite positions of the slide rule sets and newsome at one
node budget, and replays seeded random games of every rule set, in fresh interpreters that
alternate round by round between the compiled modules and their sources
(``brandubh.native.uncompiled``), so load on the machine falls on both alike; prints each round,
the totals and the ratios. Both must find the same nodes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

RULESETS = ("nielsen", "federation", "common", "walker", "newsome")


def engine_moves(games: int) -> tuple[int, float]:
    """Moves and CPU seconds to replay seeded random games of every rule set, each move
    played from its text, then its legal move texts and snapshot taken (the hub's work)."""
    import random

    from brandubh.engine import RULESETS as ALL
    from brandubh.engine import Game

    played = []
    for ruleset in ALL:
        for number in range(games):
            rng, game = random.Random(f"{ruleset}:{number}"), Game(ruleset)
            while game.result is None:
                game.play(rng.choice(game.legal_texts()))
            played.append((ruleset, [str(move) for move in game.moves]))
    moves, t0 = 0, time.process_time()
    for ruleset, texts in played:
        game = Game(ruleset)
        for text in texts:
            game.play(text)
            game.legal_texts()
            game.snapshot()
        moves += len(texts)
    return moves, time.process_time() - t0


def child(which: str, positions: int, nodes: int) -> None:
    """In a fresh interpreter: search the suite and replay the games; print (nodes, CPU
    seconds, moves, CPU seconds) as JSON."""
    if which == "uncompiled":
        import brandubh.native.uncompiled

        brandubh.native.uncompiled.install()
    import random

    import bot
    from brandubh import native
    from brandubh.bot import Searcher
    from brandubh.engine import Game

    assert native.all_compiled() == (which == "compiled"), which
    games = [g for rs in RULESETS for g in bot.suite(rs, positions)]
    total, secs = 0, 0.0
    for i, game in enumerate(games):
        bot.fresh_caches()
        work = Game.from_snapshot(game.snapshot())
        t0 = time.process_time()
        total += Searcher(work, nodes).run(random.Random(i)).nodes
        secs += time.process_time() - t0
    print(json.dumps([total, secs, *engine_moves(20)]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=8, help="suite positions per set")
    parser.add_argument("--nodes", type=int, default=40_000, help="node budget per search")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", choices=("compiled", "uncompiled"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.positions, args.nodes)
        return
    sums = {"compiled": [0, 0.0, 0, 0.0], "uncompiled": [0, 0.0, 0, 0.0]}
    print(f"{args.positions} suite positions per rule set, {args.nodes:,} nodes each")
    limits = ["--positions", str(args.positions), "--nodes", str(args.nodes)]
    for r in range(args.rounds):
        for which in ("compiled", "uncompiled"):
            done = subprocess.run(
                [sys.executable, __file__, "--child", which, *limits],
                capture_output=True,
                text=True,
                check=True,
                cwd=Path(__file__).parent,
            )
            nodes, secs, moves, move_secs = json.loads(done.stdout.splitlines()[-1])
            sums[which] = [
                a + b for a, b in zip(sums[which], (nodes, secs, moves, move_secs), strict=True)
            ]
            print(
                f"  round {r + 1} {which:>10}: {nodes:>10,} nodes {nodes / secs:>9,.0f} n/s, "
                f"{moves:,} moves {move_secs / moves * 1e6:6.1f} µs/move"
            )
    (cn, cs, cm, cms), (un, us, um, ums) = sums["compiled"], sums["uncompiled"]
    assert cn == un, f"the builds searched different trees: {cn:,} against {un:,} nodes"
    assert cm == um, f"the builds replayed different games: {cm:,} against {um:,} moves"
    print(f"bot: compiled {cn / cs:,.0f} n/s, uncompiled {un / us:,.0f} n/s: {us / cs:.2f}x")
    print(
        f"engine (play + legal texts + snapshot): compiled {cms / cm * 1e6:.1f} µs/move, "
        f"uncompiled {ums / um * 1e6:.1f} µs/move: {ums / cms:.2f}x"
    )


if __name__ == "__main__":
    main()
