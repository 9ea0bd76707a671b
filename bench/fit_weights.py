"""Fit the slide rule sets' evaluation weights on self-play results (Texel's method).

Three steps, run by hand from the repository root with ``PYTHONPATH=$PWD/src``:

- ``python bench/fit_weights.py generate --games 200 --out pos.jsonl``: self-play games of
  the bot (``--nodes`` per move, random openings of 2-4 plies) in every slide rule set; each
  quiet position (no capture for the side to move, no open lane) is written with the game's
  result (1 the defenders won, 0 the attackers, 0.5 a draw).
- ``python bench/fit_weights.py fit pos.jsonl --out fitted.json``: per rule set, the scale K
  and bias of ``sigmoid(K * eval + bias)`` that best predict the results under today's
  ``WEIGHTS``, then coordinate descent on one change of every slide weight shared by the
  four rule sets (the attacker's value stays 100: it sets the unit; each weight stays
  within 0 and three times today's) to lower the mean squared error; prints the error
  before and after, on the positions fitted and on held-out games (every fifth);
  ``--each`` fits each rule set on its own instead; ``--target search`` fits the search's
  score at each position (the 8,000-node search that chose the move there) instead of the
  game's result.
- ``python bench/fit_weights.py match fitted.json --nodes 40000 --games 8``: the fitted
  weights against today's at the same search and nodes, pairs of games from one random
  opening, each side attacking once: the fitted side's score and its wins by side.

docs/bot.md ("Attack weights") has the figures.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
from collections.abc import Callable
from dataclasses import fields, replace

from bot import elo, opening
from brandubh.bot import Searcher, rng_for
from brandubh.bot.evaluation import WEIGHTS, SlideEvaluator, Weights, open_lanes
from brandubh.engine import RULESETS, Game

SLIDE_RULESETS = [name for name, rs in RULESETS.items() if rs.slides]
# The weights a slide evaluator reads; ``attacker`` is the unit and stays fixed.
FITTED = [
    "defender",
    "king_mobility",
    "king_corner_distance",
    "king_route",
    "king_fork",
    "king_fork_to_move",
    "unstoppable",
    "unstoppable_pair",
    "unstoppable_to_move",
    "corner_two_moves",
    "king_adjacent_attacker",
    "king_hostile_neighbour",
    "corner_guard",
    "corner_guard_second",
    "defender_near_king",
]
assert set(FITTED) < {f.name for f in fields(Weights)}

# A proved win or loss counts as this much in a search label: certain, not infinite.
SCORE_CAP = 2_000
Row = tuple[int, int, int, int, float]  # attackers, defenders, king, side, label
Sample = tuple[int, int, int, int, float, int]  # ... the result, the search's score


def quiet(game: Game) -> bool:
    """No capture for the side to move and no lane open to the king: the evaluation alone
    should judge such a position, with no tactic pending."""
    if open_lanes(game.board):
        return False
    return not any(m.captures for m in game.legal_moves())


def self_play(task: tuple[str, int, int]) -> tuple[str, int, list[Sample]]:
    """One self-play game of ``nodes`` a move; its quiet positions, each with the result and
    the score of the search that chose the move there."""
    ruleset, number, nodes = task
    game = Game(ruleset)
    opening(game, ruleset, number, 2 + number % 3)
    seen: list[tuple[int, int, int, int, int]] = []
    seed = f"fit:{ruleset}:{number}".encode()
    while game.result is None:
        board = game.board
        position = (board.att, board.dfn, board.king, board.side)
        work = Game.from_snapshot(game.snapshot())
        found = Searcher(work, nodes, 64, 2).run(rng_for(seed, "g", game.ply))
        if game.ply >= 4 and quiet(game):
            # The search's score too, in the defenders' view, for --target search.
            seen.append((*position, found.score if board.side else -found.score))
        game.push(found.move)
    winner = game.result.winner
    result = 1.0 if winner == "defenders" else 0.0 if winner == "attackers" else 0.5
    return ruleset, number, [(*s[:4], result, s[4]) for s in seen]


def generate(args: argparse.Namespace) -> None:
    tasks = [(rs, i, args.nodes) for i in range(args.games) for rs in args.rulesets.split(",")]
    done = 0
    with open(args.out, "w") as out, multiprocessing.Pool(args.workers) as pool:
        for ruleset, number, rows in pool.imap_unordered(self_play, tasks):
            for row in rows:
                out.write(json.dumps({"rs": ruleset, "g": number, "p": row}) + "\n")
            done += 1
            if done % 20 == 0:
                print(f"{done}/{len(tasks)} games", flush=True)


def load(path: str, target: str) -> dict[str, list[tuple[int, Row]]]:
    """Each rule set's (game number, row); the label is the game's result, or with
    ``target`` "search" the search's score there, made a probability by the scale that best
    fits today's weights to the results (``fit_scale``)."""
    by_rs: dict[str, list[tuple[int, Row]]] = {}
    scores: dict[str, list[int]] = {}
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            att, dfn, king, side, result = d["p"][:5]
            by_rs.setdefault(d["rs"], []).append((d["g"], (att, dfn, king, side, result)))
            if target == "search":
                if len(d["p"]) < 6:
                    raise SystemExit(f"{path} holds no search scores: generate it again")
                scores.setdefault(d["rs"], []).append(d["p"][5])
    if target == "search":
        for rs, rows in by_rs.items():
            k, _ = fit_scale(rs, WEIGHTS[rs], [r for _, r in rows])
            by_rs[rs] = [
                (g, (*r[:4], 1 / (1 + math.exp(-k * max(-SCORE_CAP, min(SCORE_CAP, score))))))
                for (g, r), score in zip(rows, scores[rs], strict=True)
            ]
    return by_rs


def error(ruleset: str, weights: Weights, rows: list[Row], k: float, bias: float) -> float:
    """Mean squared error of sigmoid(k * eval + bias), eval from the defenders' view, against
    the results. The bias stands for how often the defenders win whatever the position (a
    constant the search never sees): without it the fit would inflate every term that
    favours them."""
    evaluate = SlideEvaluator(RULESETS[ruleset], weights)
    total = 0.0
    for att, dfn, king, side, result in rows:
        score = evaluate(att, dfn, king, side, (0, 0, 0, 0))
        if not side:
            score = -score  # the defenders' view
        x = max(-50.0, min(50.0, k * score + bias))
        total += (result - 1 / (1 + math.exp(-x))) ** 2
    return total / len(rows)


def _golden(f: Callable[[float], float], lo: float, hi: float) -> float:
    for _ in range(25):
        a, b = lo + (hi - lo) * 0.382, lo + (hi - lo) * 0.618
        if f(a) < f(b):
            hi = b
        else:
            lo = a
    return (lo + hi) / 2


def fit_scale(ruleset: str, weights: Weights, rows: list[Row]) -> tuple[float, float]:
    """The scale k and bias that best fit these weights (alternating golden-section
    searches, k on a log scale)."""

    def err(k: float, bias: float) -> float:
        return error(ruleset, weights, rows, k, bias)

    k, bias = 0.004, 0.0
    for _ in range(3):
        k = math.exp(_golden(lambda x: err(math.exp(x), bias), -12.0, -2.0))  # noqa: B023
        bias = _golden(lambda b: err(k, b), -4.0, 4.0)  # noqa: B023 (called at once)
    return k, bias


def fit(args: argparse.Namespace) -> None:
    """One change of the weights for every slide rule set at once (each keeps its own
    differences from the others, and its own scale and bias): pooled, the positions of all
    four hold the fit steadier than each rule set's alone. ``--each`` fits them apart."""
    data = load(args.positions, args.target)
    names = [rs for rs in args.rulesets.split(",") if data.get(rs)]
    fitted: dict[str, dict[str, int]] = {}
    for group in [[rs] for rs in names] if args.each else [names]:
        fitted.update(_fit(data, group))
    with open(args.out, "w") as f:
        json.dump(fitted, f, indent=1, sort_keys=True)


def _fit(data: dict[str, list[tuple[int, Row]]], names: list[str]) -> dict[str, dict[str, int]]:
    train = {rs: [r for g, r in data[rs] if g % 5] for rs in names}
    test = {rs: [r for g, r in data[rs] if not g % 5] for rs in names}

    def weights(rs: str, delta: dict[str, int]) -> Weights:
        base = WEIGHTS[rs]
        return replace(base, **{n: getattr(base, n) + d for n, d in delta.items()})

    def allowed(delta: dict[str, int]) -> bool:
        for rs in names:  # a bound: few games must not drive a weight wild
            for n, d in delta.items():
                start = getattr(WEIGHTS[rs], n)
                if not 0 <= start + d <= max(3 * start, start + 60):
                    return False
        return True

    def scales(delta: dict[str, int]) -> dict[str, tuple[float, float]]:
        return {rs: fit_scale(rs, weights(rs, delta), train[rs]) for rs in names}

    def total(delta: dict[str, int], sc: dict[str, tuple[float, float]]) -> float:
        err = sum(
            len(train[rs]) * error(rs, weights(rs, delta), train[rs], *sc[rs]) for rs in names
        )
        return err / sum(len(train[rs]) for rs in names)

    before = scales({})
    delta: dict[str, int] = {}
    sc = before
    best_err = total(delta, sc)
    for step in (16, 8, 4, 2):
        improved = True
        while improved:
            improved = False
            for name in FITTED:
                for sign in (1, -1):
                    trial = {**delta, name: delta.get(name, 0) + sign * step * _unit(name)}
                    if not allowed(trial):
                        continue
                    err = total(trial, sc)
                    if err < best_err - 1e-7:
                        delta, best_err, improved = trial, err, True
        sc = scales(delta)
        best_err = total(delta, sc)
        print(f"step {step}: error {best_err:.5f}", flush=True)
    fitted: dict[str, dict[str, int]] = {}
    for rs in names:
        w0, w1 = WEIGHTS[rs], weights(rs, delta)
        print(
            f"{rs}: {len(train[rs])} positions fitted, {len(test[rs])} held out; "
            f"error {error(rs, w0, train[rs], *before[rs]):.5f} -> "
            f"{error(rs, w1, train[rs], *sc[rs]):.5f} (held out "
            f"{error(rs, w0, test[rs], *before[rs]):.5f} -> {error(rs, w1, test[rs], *sc[rs]):.5f})"
        )
        fitted[rs] = {n: getattr(w1, n) for n in FITTED}
    for n, d in delta.items():
        if d:
            print(f"  {n}: {d:+d}")
    return fitted


def _unit(name: str) -> int:
    """How far one step moves a weight: five times as far for the large terms."""
    return 5 if name in ("defender", "king_fork_to_move", "unstoppable_pair",
                         "unstoppable", "unstoppable_to_move", "king_fork") else 1  # fmt: skip


def play(task: tuple[str, int, int, bool, dict[str, int]]) -> tuple[str, str | None, bool]:
    """One game of a pair: the fitted weights attack (``fitted_attacks``) or defend."""
    ruleset, number, nodes, fitted_attacks, values = task
    game = Game(ruleset)
    opening(game, ruleset, number, 2)
    base = WEIGHTS[ruleset]
    mine = replace(base, **values)
    seed = f"fitmatch:{ruleset}:{number}".encode()
    while game.result is None:
        attackers = game.board.side == 0
        weights = mine if attackers == fitted_attacks else base
        work = Game.from_snapshot(game.snapshot())
        found = Searcher(work, nodes, 64, 2, weights=weights).run(rng_for(seed, "m", game.ply))
        game.push(found.move)
    return ruleset, game.result.winner, fitted_attacks


def match(args: argparse.Namespace) -> None:
    with open(args.weights) as f:
        fitted: dict[str, dict[str, int]] = json.load(f)
    tasks = [
        (rs, i, args.nodes, attacks, fitted[rs])
        for i in range(args.first, args.first + args.games)
        for rs in args.rulesets.split(",")
        if rs in fitted
        for attacks in (True, False)
    ]
    random.Random(0).shuffle(tasks)
    score: dict[str, list[float]] = {}
    wins = {"attacking": 0, "defending": 0}
    with multiprocessing.Pool(args.workers) as pool:
        for ruleset, winner, attacks in pool.imap_unordered(play, tasks):
            side = "attackers" if attacks else "defenders"
            points = 1.0 if winner == side else 0.5 if winner is None else 0.0
            score.setdefault(ruleset, []).append(points)
            if points == 1:
                wins["attacking" if attacks else "defending"] += 1
            print(ruleset, "fitted attacks" if attacks else "fitted defends", winner, flush=True)
    total = [p for ps in score.values() for p in ps]
    for ruleset, ps in sorted(score.items()):
        print(f"{ruleset}: fitted {sum(ps)}/{len(ps)}")
    points, n = sum(total), len(total)
    d, margin = elo(points / n, n)
    print(
        f"fitted against today's: {points}/{n} = {100 * points / n:.0f} %, "
        f"Elo {d:+.0f} ± {margin:.0f}; fitted won {wins['attacking']} attacking, "
        f"{wins['defending']} defending"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="step", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--games", type=int, default=200, help="games per rule set")
    g.add_argument("--nodes", type=int, default=8_000)
    g.add_argument("--out", required=True)
    f = sub.add_parser("fit")
    f.add_argument("positions")
    f.add_argument("--out", required=True)
    f.add_argument("--each", action="store_true", help="fit each rule set on its own")
    f.add_argument("--target", choices=("results", "search"), default="results")
    m = sub.add_parser("match")
    m.add_argument("weights")
    m.add_argument("--nodes", type=int, default=40_000)
    m.add_argument("--games", type=int, default=4, help="pairs per rule set")
    m.add_argument("--first", type=int, default=0, help="first opening")
    for p in (g, f, m):
        p.add_argument("--rulesets", default=",".join(SLIDE_RULESETS))
        p.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    {"generate": generate, "fit": fit, "match": match}[args.step](args)


if __name__ == "__main__":
    main()
