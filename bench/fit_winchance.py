"""Fit the analysis's win-chance curve per rule set on self-play results (Texel's method).

Run by hand from the repository root with ``PYTHONPATH=$PWD/src`` (compiled, it is three to
four times faster): ``python bench/fit_winchance.py [--games 4] [--nodes N] [--workers 1]
[--out pairs.jsonl] [--from pairs.jsonl ...]``.

Plays ``--games`` self-play games per rule set: a random opening of 2 to 5 plies drawn from
the game's number, then both sides play the analysis's search (``NODES_PER_PLY`` nodes a
move, the root order drawn from the game and ply). Every searched position gives a pair
(score in the defenders' view, the game's result: 1 the defenders won, 0 the attackers,
1/2 a draw); proved scores are left out (they map to 1 or 0 anyway), and so are games that
reach ``--max-plies``. Then it fits ``sigmoid(scale * score + bias)`` by minimising the
log loss (Newton's method, with a weak prior on both so that one-sided data such as
newsome's stays finite): one scale for the four slide rule sets, which share an
evaluation, and a bias each (their balance differs); newsome on its own. It prints the
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

SLIDE = [name for name, rs in RULESETS.items() if rs.slides]
Pair = tuple[str, int, float]  # (rule set, defenders' score, the game's result)
# A weak prior, in summed log-loss units: the scale (per 100 points) near PRIOR_SCALE and the
# bias near 0, so that one-sided data (every game won by one side) stays finite and rising.
RIDGE = 1.0
PRIOR_SCALE = 0.4  # a soldier ahead (100 points) is a 60 % chance, with no bias


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


def fit(groups: dict[str, list[tuple[int, float]]]) -> tuple[float, dict[str, float]]:
    """One scale shared by the groups and a bias each, minimising the summed log loss plus
    RIDGE * ((a - PRIOR_SCALE)^2 + sum of b^2); the score in hundreds (a = 100 * scale).

    Newton's method; the Hessian is an arrow (the scale against each bias), so a step
    solves it through the Schur complement.
    """
    a, bias = PRIOR_SCALE, dict.fromkeys(groups, 0.0)
    for _ in range(100):
        ga, haa = RIDGE * 2 * (a - PRIOR_SCALE), RIDGE * 2
        gb, hab, hbb = {}, {}, {}
        for name, pairs in groups.items():
            g, hx, hb = RIDGE * 2 * bias[name], 0.0, RIDGE * 2
            for score, result in pairs:
                x = score / 100
                p = _sigmoid(a * x + bias[name])
                w = p * (1 - p)
                ga += (p - result) * x
                haa += w * x * x
                g += p - result
                hx += w * x
                hb += w
            gb[name], hab[name], hbb[name] = g, hx, hb
        da = (ga - sum(hab[n] * gb[n] / hbb[n] for n in groups)) / (
            haa - sum(hab[n] ** 2 / hbb[n] for n in groups)
        )
        step = abs(da)
        a -= da
        for name in groups:
            db = (gb[name] - hab[name] * da) / hbb[name]
            bias[name] -= db
            step = max(step, abs(db))
        if step < 1e-9:
            break
    return a / 100, bias


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
    groups = {rs: [(s, r) for name, s, r in pairs if name == rs] for rs in rulesets}
    # The slide rule sets share one evaluation, so one scale (their balance differs: a bias
    # each); newsome's evaluation is its own.
    curves: dict[str, tuple[float, float]] = {}
    for family in (SLIDE, [rs for rs in rulesets if rs not in SLIDE]):
        family_pairs = {rs: groups[rs] for rs in family if groups.get(rs)}
        if family_pairs:
            scale, biases = fit(family_pairs)
            curves |= {rs: (scale, b) for rs, b in biases.items()}
    for rs in rulesets:
        mine = groups[rs]
        if rs not in curves:
            print(f"{rs}: no pairs")
            continue
        scale, bias = curves[rs]
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
