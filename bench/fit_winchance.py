"""Fit the analysis's win-chance curve per rule set on self-play results (Texel's method).

Run by hand from the repository root with ``PYTHONPATH=$PWD/src`` (compiled, it is three to
four times faster): ``python bench/fit_winchance.py [--games 4] [--nodes N] [--workers 1]
[--out pairs.jsonl] [--from pairs.jsonl ...]``.

Plays ``--games`` self-play games per rule set: a random opening of 2 to 5 plies drawn from
the game's number, then both sides play the analysis's search (``NODES_PER_PLY`` nodes a
move, the root order drawn from the game and ply). Every searched position gives a pair
(score in the defenders' view, the game's result: 1 the defenders won, 0 the attackers,
1/2 a draw); proved scores are left out (they map to 1 or 0 anyway), and so are games that
reach ``--max-plies``. Then per rule set it fits ``scale`` and ``bias`` of
``sigmoid(scale * score + bias)`` by minimising the log loss (Newton's method, with a weak
ridge on both so that one-sided data such as newsome's stays finite), and prints the
constants to paste into ``src/brandubh/analysis/winchance.py`` with the log loss of the
fit against a constant chance. ``--out`` keeps the pairs; ``--from`` fits saved ones
(add ``--games 0`` to play none).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import time

from brandubh.analysis.analyse import NODES_PER_PLY
from brandubh.bot import Searcher
from brandubh.bot.evaluation import MATE_BOUND
from brandubh.engine import RULESETS, Game

Pair = tuple[str, int, float]  # (rule set, defenders' score, the game's result)
RIDGE = 1.0  # the weak prior's weight, in log-loss units, on scale (per 100 points) and bias


def play(task: tuple[str, int, int, int]) -> tuple[list[Pair], int, float]:
    """One self-play game: its pairs (none if cut at ``max_plies``), its plies, CPU seconds."""
    ruleset, number, nodes, max_plies = task
    t0 = time.process_time()
    rng = random.Random(f"winchance:{ruleset}:{number}")
    game = Game(ruleset)
    for _ in range(rng.randint(2, 5)):
        if game.result is None:
            moves = game.board.legal_moves()
            game.push(moves[rng.randrange(len(moves))])
    scores: list[int] = []
    while game.result is None and game.ply < max_plies:
        found = Searcher(Game.from_snapshot(game.snapshot()), nodes).run(
            random.Random(rng.getrandbits(64))
        )
        if abs(found.score) < MATE_BOUND:
            scores.append(found.score if game.board.side else -found.score)
        game.push(found.move)
    secs = time.process_time() - t0
    if game.result is None:
        return [], game.ply, secs
    winner = game.result.winner
    result = 0.5 if winner is None else 1.0 if winner == "defenders" else 0.0
    return [(ruleset, s, result) for s in scores], game.ply, secs


def log_loss(pairs: list[tuple[int, float]], scale: float, bias: float) -> float:
    """Mean log loss of sigmoid(scale * score + bias) against the results."""
    total = 0.0
    for score, result in pairs:
        p = min(max(_sigmoid(scale * score + bias), 1e-12), 1 - 1e-12)
        total -= result * math.log(p) + (1 - result) * math.log(1 - p)
    return total / len(pairs)


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def fit(pairs: list[tuple[int, float]]) -> tuple[float, float]:
    """(scale, bias) minimising the summed log loss plus RIDGE * (a^2 + b^2), with the
    score in hundreds (a = 100 * scale) for a well-conditioned Newton step."""
    a, b = 0.4, 0.0
    for _ in range(100):
        ga, gb = RIDGE * 2 * a, RIDGE * 2 * b
        haa, hab, hbb = RIDGE * 2, 0.0, RIDGE * 2
        for score, result in pairs:
            x = score / 100
            p = _sigmoid(a * x + b)
            ga += (p - result) * x
            gb += p - result
            w = p * (1 - p)
            haa += w * x * x
            hab += w * x
            hbb += w
        det = haa * hbb - hab * hab
        da = (hbb * ga - hab * gb) / det
        db = (haa * gb - hab * ga) / det
        a, b = a - da, b - db
        if abs(da) < 1e-9 and abs(db) < 1e-9:
            break
    return a / 100, b


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="self-play games per rule set")
    parser.add_argument("--nodes", type=int, default=NODES_PER_PLY, help="nodes per move")
    parser.add_argument("--max-plies", type=int, default=200, help="games cut here are dropped")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--rulesets", default=",".join(RULESETS))
    parser.add_argument("--first-game", type=int, default=0, help="number of the first game")
    parser.add_argument("--out", help="append the pairs to this JSON-lines file")
    parser.add_argument("--from", dest="sources", nargs="*", default=[], help="saved pairs")
    args = parser.parse_args()
    rulesets = args.rulesets.split(",")
    pairs: list[Pair] = []
    for path in args.sources:
        with open(path) as f:
            pairs += [tuple(json.loads(line)) for line in f if line.strip()]
    tasks = [
        (rs, n, args.nodes, args.max_plies)
        for n in range(args.first_game, args.first_game + args.games)
        for rs in rulesets
    ]
    with multiprocessing.Pool(args.workers) as pool:
        for found, plies, secs in pool.imap_unordered(play, tasks):
            label = found[0][0] if found else "cut"
            print(f"game: {label}, {plies} plies, {len(found)} pairs, {secs:.0f} s", flush=True)
            pairs += found
            if args.out and found:
                with open(args.out, "a") as f:
                    f.writelines(json.dumps(p) + "\n" for p in found)
    for rs in rulesets:
        mine = [(s, r) for name, s, r in pairs if name == rs]
        if not mine:
            print(f"{rs}: no pairs")
            continue
        scale, bias = fit(mine)
        mean = sum(r for _, r in mine) / len(mine)
        clipped = min(max(mean, 1e-6), 1 - 1e-6)
        base = log_loss(mine, 0.0, math.log(clipped / (1 - clipped)))
        print(
            f'    "{rs}": Curve({scale:.6f}, {bias:.4f}),  # {len(mine)} positions, '
            f"defenders' mean {mean:.2f}, log loss {log_loss(mine, scale, bias):.4f} "
            f"(a constant chance: {base:.4f})"
        )


if __name__ == "__main__":
    main()
