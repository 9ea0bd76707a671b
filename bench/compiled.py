"""The bot's search compiled (mypyc) against the same code uncompiled: nodes per second.

Run by hand: ``python bench/compiled.py [--positions 8] [--nodes 40000] [--rounds 3]``.
Searches bench/bot.py's fixed suite positions of the slide rule sets and newsome at one
node budget, in fresh interpreters that alternate round by round between the compiled
modules and their sources (``brandubh.uncompiled_bot``), so load on the machine falls on
both alike; prints each round, the totals and the ratio. Both must find the same nodes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

RULESETS = ("nielsen", "federation", "common", "walker", "newsome")


def child(which: str, positions: int, nodes: int) -> None:
    """In a fresh interpreter: search the suite, print (nodes, CPU seconds) as JSON."""
    if which == "uncompiled":
        import brandubh.uncompiled_bot

        brandubh.uncompiled_bot.install()
    import random

    import bot
    from brandubh.bot import Searcher, search_is_compiled
    from brandubh.engine import Game

    assert search_is_compiled() == (which == "compiled"), which
    games = [g for rs in RULESETS for g in bot.suite(rs, positions)]
    total, secs = 0, 0.0
    for i, game in enumerate(games):
        bot.fresh_caches()
        work = Game.from_snapshot(game.snapshot())
        t0 = time.process_time()
        total += Searcher(work, nodes).run(random.Random(i)).nodes
        secs += time.process_time() - t0
    print(json.dumps([total, secs]))


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
    sums = {"compiled": [0, 0.0], "uncompiled": [0, 0.0]}
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
            nodes, secs = json.loads(done.stdout.splitlines()[-1])
            sums[which][0] += nodes
            sums[which][1] += secs
            print(f"  round {r + 1} {which:>10}: {nodes:>10,} nodes {nodes / secs:>9,.0f} n/s")
    (cn, cs), (un, us) = sums["compiled"], sums["uncompiled"]
    assert cn == un, f"the builds searched different trees: {cn:,} against {un:,} nodes"
    print(f"compiled {cn / cs:,.0f} n/s, uncompiled {un / us:,.0f} n/s: {us / cs:.2f}x")


if __name__ == "__main__":
    main()
