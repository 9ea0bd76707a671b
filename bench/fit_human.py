"""Fit the analysis's win-chance curve on human games (issue #41 item 4), held out honestly.

Run by hand from the repository root with ``PYTHONPATH=$PWD/src`` (compiled):
``python bench/fit_human.py --csv brandubh.csv [--nodes N] [--workers 1] [--out pairs.jsonl]
[--from pairs.jsonl]``.

The games: the aagenielsen.dk archive's human Brandubh games, as kept in the public
repository bunburya/hnefatafl-rs (``resources/test/games/brandubh.csv``: one game a line,
the moves, each side's captures, the winner, ``Black`` being the attackers). The file is not
shipped here: pass ``--csv`` a copy, or ``--url`` (the default) to read it from GitHub.

Their captures are nielsen's, but the king may go back to the throne and repetition is not
judged, so a game is replayed under each slide rule set and kept under the one it fits
longest (nielsen first on a tie), cut at the first move that rule set forbids or where it
ends the game sooner. Every position of the fitting part gives a pair (the search's score in
the defenders' view at ``--nodes``, the game's result). Lines 1 to ``--train`` (400 at most)
fit ``sigmoid(scale * score + bias)`` per rule set (bench/fit_winchance.py's fit); the rest
are held out, and the held-out log loss is printed beside a constant chance (the training
games' mean) and beside the curve in ``winchance.py`` now.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from brandubh.analysis.analyse import NODES_PER_PLY
from brandubh.analysis.winchance import CURVES
from brandubh.bot import Searcher
from brandubh.bot.evaluation import MATE_BOUND
from brandubh.engine import EngineError, Game

sys.path.insert(0, str(Path(__file__).parent))
from fit_winchance import fit, log_loss  # a sibling bench script

URL = (
    "https://raw.githubusercontent.com/bunburya/hnefatafl-rs/master/"
    "resources/test/games/brandubh.csv"
)
# The slide rule sets, in the order a tie between them is settled.
CANDIDATES = ("nielsen", "federation", "common", "walker")
RESULTS = {"White": 1.0, "Black": 0.0, "Draw": 0.5}  # the defenders' result
MAX_TRAIN = 400


@dataclass(frozen=True, slots=True)
class HumanGame:
    line: int  # 1-based line of the file
    moves: tuple[str, ...]
    result: float


@dataclass(frozen=True, slots=True)
class Fitted:
    """A game replayed under the rule set it fits longest: the plies that fit."""

    line: int
    ruleset: str
    plies: int
    of: int
    result: float


def parse(text: str) -> list[HumanGame]:
    """The games with a result (``Ongoing`` and blank results are left out)."""
    games = []
    for n, raw in enumerate(text.splitlines(), start=1):
        fields = raw.strip().split(",")
        if len(fields) != 4 or fields[3] not in RESULTS:
            continue
        moves = []
        for token in fields[0].split():
            if "-" not in token:  # "timeout" and the like end the moves
                break
            moves.append(token)
        games.append(HumanGame(n, tuple(moves), RESULTS[fields[3]]))
    return games


def fitting_plies(game: HumanGame, ruleset: str) -> int:
    """How many of the game's moves ``ruleset`` replays as recorded (captures included)."""
    board = Game(ruleset)
    for ply, text in enumerate(game.moves):
        if board.result is not None:
            return ply
        try:
            played = board.play(text)
        except EngineError:
            return ply
        # A capture the record does not write is a capture the players' rules did not make
        # (the engine takes a move text without one as "whatever it captures").
        if sorted(str(played).split("x")[1:]) != sorted(text.split("x")[1:]):
            return ply
    return len(game.moves)


def place(game: HumanGame) -> Fitted:
    """The rule set the game fits longest, and how far."""
    best = max(CANDIDATES, key=lambda rs: (fitting_plies(game, rs), -CANDIDATES.index(rs)))
    return Fitted(game.line, best, fitting_plies(game, best), len(game.moves), game.result)


def score(
    task: tuple[Fitted, tuple[str, ...], int, int],
) -> list[tuple[int, str, int, int, float]]:
    """(line, rule set, ply, defenders' score, result) for every ``every``-th position that
    fits (the first included)."""
    fitted, moves, nodes, every = task
    board = Game(fitted.ruleset)
    out = []
    for ply in range(fitted.plies + 1):
        if board.result is not None:
            break
        if ply % every:
            if ply < fitted.plies:
                board.play(moves[ply])
            continue
        found = Searcher(Game.from_snapshot(board.snapshot()), nodes).run(random.Random(ply))
        if abs(found.score) < MATE_BOUND:
            s = found.score if board.board.side else -found.score
            out.append((fitted.line, fitted.ruleset, ply, s, fitted.result))
        if ply < fitted.plies:
            board.play(moves[ply])
    return out


def constant_loss(train: list[tuple[int, float]], test: list[tuple[int, float]]) -> float:
    mean = min(max(sum(r for _, r in train) / len(train), 1e-6), 1 - 1e-6)
    return log_loss(test, 0.0, math.log(mean / (1 - mean)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv", help="a copy of brandubh.csv (else read from --url)")
    parser.add_argument("--url", default=URL)
    parser.add_argument(
        "--nodes", type=int, default=NODES_PER_PLY, help="nodes per position (the analysis's)"
    )
    parser.add_argument("--train", type=int, default=MAX_TRAIN, help="lines to fit on (<= 400)")
    parser.add_argument("--every", type=int, default=1, help="search every n-th position")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", help="append the pairs to this JSON-lines file")
    parser.add_argument("--from", dest="source", help="fit saved pairs; search nothing")
    args = parser.parse_args()
    train_lines = min(args.train, MAX_TRAIN)
    if args.csv:
        text = Path(args.csv).read_text()
    else:
        with urllib.request.urlopen(args.url, timeout=30) as answer:
            text = answer.read().decode()
    games = parse(text)
    placed = [place(g) for g in games]
    by_line = {g.line: g for g in games}
    print(f"{len(games)} games with a result, of {len(text.splitlines())} lines")
    for rs in CANDIDATES:
        mine = [f for f in placed if f.ruleset == rs]
        whole = sum(f.plies == f.of for f in mine)
        plies = sum(f.plies for f in mine)
        print(f"  {rs}: {len(mine)} games ({whole} whole, the rest cut), {plies} plies")
    pairs: list[tuple[int, str, int, int, float]] = []
    if args.source:
        with open(args.source) as f:
            pairs = [tuple(json.loads(line)) for line in f if line.strip()]
    else:
        tasks = [(f, by_line[f.line].moves, args.nodes, args.every) for f in placed]
        t0 = time.perf_counter()
        with multiprocessing.Pool(args.workers) as pool:
            for i, found in enumerate(pool.imap_unordered(score, tasks), start=1):
                pairs += found
                if args.out:
                    with open(args.out, "a") as f:
                        f.writelines(json.dumps(p) + "\n" for p in found)
                if i % 25 == 0:
                    print(
                        f"  {i}/{len(tasks)} games, {len(pairs)} positions, "
                        f"{time.perf_counter() - t0:.0f} s",
                        flush=True,
                    )
    print(f"\nfit on lines 1-{train_lines}, held out: the rest")
    print(
        "| rule set | positions fit / held out | scale | bias | held-out log loss: "
        "fitted | constant | self-play curve |"
    )
    for rs in CANDIDATES:
        train = [(s, r) for line, name, _, s, r in pairs if name == rs and line <= train_lines]
        test = [(s, r) for line, name, _, s, r in pairs if name == rs and line > train_lines]
        if len(train) < 50 or not test:
            print(f"| {rs} | {len(train)} / {len(test)} | too few to fit |")
            continue
        scale, biases = fit({rs: train})
        bias = biases[rs]
        old = CURVES[rs]
        print(
            f"| {rs} | {len(train)} / {len(test)} | {scale:.6f} | {bias:.4f} | "
            f"{log_loss(test, scale, bias):.3f} | {constant_loss(train, test):.3f} | "
            f"{log_loss(test, old.scale, old.bias):.3f} |"
        )


if __name__ == "__main__":
    main()
