"""Weight variants as attackers against one defender: the attackers' win rate per variant.

``python bench/tune_attack.py [--games N] [--nodes N] [--workers 2]``: each variant attacks
from the same ``--games`` openings per rule set against the default evaluation defending,
both at ``--nodes``; the variant with the most attacker wins is the better attacker. Used to
choose ``evaluation.WEIGHTS`` (issue 18); the figures are in docs/bot.md.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
from dataclasses import replace

from bot import opening
from brandubh.bot import Searcher, rng_for
from brandubh.bot.evaluation import WEIGHTS, Weights
from brandubh.engine import Game

VARIANTS: dict[str, dict[str, int]] = {
    "default": {},
    "open-king": {"king_mobility": 10, "corner_two_moves": 30, "king_route": 60},
    # The first weights had 120/250/450 here; this variant's are the defaults now.
    "closers-low": {"unstoppable": 120, "unstoppable_pair": 250, "unstoppable_to_move": 450},
    "cheap-men": {"defender": 100, "king_mobility": 8, "corner_two_moves": 25},
}


def play(task: tuple[str, str, int, int]) -> tuple[str, str, str | None, int]:
    """One game: the variant attacks, the default defends; (variant, rule set, winner, plies)."""
    variant, ruleset, number, nodes = task
    game = Game(ruleset)
    opening(game, ruleset, number, 2)
    base = WEIGHTS[ruleset]
    mine = replace(base, **VARIANTS[variant])
    while game.result is None:
        weights: Weights = mine if game.board.side == 0 else base
        rng = rng_for(f"tune:{number}".encode(), "t", game.ply)
        work = Game.from_snapshot(game.snapshot())
        found = Searcher(work, nodes, weights=weights).run(rng)
        game.push(found.move)
    return variant, ruleset, game.result.winner, game.ply


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6, help="openings per rule set")
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--rulesets", default="nielsen,federation,common,walker")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    tasks = [
        (v, rs, i, args.nodes)
        for v in args.variants.split(",")
        for rs in args.rulesets.split(",")
        for i in range(args.games)
    ]
    random.Random(0).shuffle(tasks)
    wins: dict[str, list[int]] = {v: [0, 0] for v in args.variants.split(",")}
    with multiprocessing.Pool(args.workers) as pool:
        for variant, ruleset, winner, plies in pool.imap_unordered(play, tasks):
            wins[variant][0] += winner == "attackers"
            wins[variant][1] += 1
            print(variant, ruleset, winner, plies, flush=True)
    for v, (w, n) in wins.items():
        print(f"{v:>10}: attackers won {w}/{n}")


if __name__ == "__main__":
    main()
