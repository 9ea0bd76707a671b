"""Analysis by the bot, measured: ``python bench/analysis.py plies``, ``exercise`` and
``explorer``.

``plies [--rulesets nielsen,walker] [--plies 12] [--nodes N] [--rounds 1]``: plies analysed
per CPU second by one worker (``analyse_game`` at ``NODES_PER_PLY`` nodes a position), the
compiled modules (mypyc) against the same code uncompiled (``brandubh.native.uncompiled``), each in
a fresh interpreter, alternating round by round so that load on the machine falls on both
alike (as bench/compiled.py does); printed side by side with the CPU a 60-ply game takes.
Both builds must give the same analyses. The games are seeded: a random opening of four
plies, then level 2 on both sides, cut at ``--plies``. Without a compiled install the
compiled column says so.

``exercise [--rulesets nielsen,walker] [--plies 40] [--nodes N] [--tries 4]``: the cost of
judging one move tried in place of a judged one (``try_move``: nodes and CPU seconds) beside
the analysis of one ply in the same run (the search of the position after the move played,
as ``analyse_game`` searches it), for each judged move of the seeded games and of a fixed
nielsen game whose sides blunder; in whichever build is installed. Printed only.

``explorer [--sizes 1e4,1e5,1e6] [--playouts 3000] [--scan-up-to 1e6]``: the opening
explorer's query time on generated archives of each size, against a same-run scan of the
archive computing the same answer (bench/analysis_explorer.py says how).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
import time
from pathlib import Path


def sample_game(ruleset: str, plies: int) -> list[str]:
    """A seeded game: four random plies, then level 2 for both sides, cut at ``plies``."""
    from brandubh.bot import choose_move
    from brandubh.engine import Game

    rng, game = random.Random(f"bench-analysis:{ruleset}"), Game(ruleset)
    while game.result is None and game.ply < plies:
        if game.ply < 4:
            game.play(rng.choice(game.legal_texts()))
        else:
            game.play(choose_move(game, rng, 2))
    return [str(m) for m in game.moves]


def plies_child(which: str, rulesets: list[str], plies: int, nodes: int) -> None:
    """In a fresh interpreter: analyse each rule set's game; print JSON [[rule set, plies,
    CPU seconds, digest of the analysis], ...] or {"unavailable": why}."""
    if which == "uncompiled":
        import brandubh.native.uncompiled

        brandubh.native.uncompiled.install()
    from brandubh import native

    if native.all_compiled() != (which == "compiled"):
        print(json.dumps({"unavailable": f"this install does not run {which}"}))
        return
    from brandubh.analysis import analyse_game

    rows = []
    for ruleset in rulesets:
        moves = sample_game(ruleset, plies)
        t0 = time.process_time()
        analysis = analyse_game(ruleset, moves, nodes=nodes)
        secs = time.process_time() - t0
        digest = hashlib.sha256(json.dumps(analysis.to_dict()).encode()).hexdigest()[:12]
        rows.append([ruleset, len(moves), secs, digest])
    print(json.dumps(rows))


def plies_main(args: argparse.Namespace) -> None:
    from brandubh.analysis import NODES_PER_PLY

    nodes = args.nodes or NODES_PER_PLY
    print(f"plies analysed per CPU second, one worker, {nodes:,} nodes a position")
    limits = ["--rulesets", args.rulesets, "--plies", str(args.plies), "--nodes", str(nodes)]
    totals: dict[str, dict[str, list[float]]] = {"compiled": {}, "uncompiled": {}}
    digests: dict[str, dict[str, str]] = {"compiled": {}, "uncompiled": {}}
    missing: dict[str, str] = {}
    for _ in range(args.rounds):
        for which in ("compiled", "uncompiled"):
            if which in missing:
                continue
            done = subprocess.run(
                [sys.executable, __file__, "plies", "--child", which, *limits],
                capture_output=True,
                text=True,
                check=True,
                cwd=Path(__file__).parent,
            )
            found = json.loads(done.stdout.splitlines()[-1])
            if isinstance(found, dict):
                missing[which] = found["unavailable"]
                continue
            for ruleset, count, secs, digest in found:
                row = totals[which].setdefault(ruleset, [0.0, 0.0])
                row[0] += count
                row[1] += secs
                digests[which][ruleset] = digest
    both = [w for w in ("compiled", "uncompiled") if w not in missing]
    if len(both) == 2:
        assert digests["compiled"] == digests["uncompiled"], "the builds analysed differently"
    print(f"{'rule set':<12}{'compiled':>22}{'uncompiled':>22}{'ratio':>8}")
    for ruleset in args.rulesets.split(","):
        cells, rates = [], []
        for which in ("compiled", "uncompiled"):
            if which in missing:
                cells.append(f"{'—':>22}")
                continue
            count, secs = totals[which][ruleset]
            rate = count / secs
            rates.append(rate)
            cells.append(f"{rate:>7.2f}/s ({60 / rate:5.1f} s/60)")
        ratio = f"{rates[0] / rates[1]:>7.2f}x" if len(rates) == 2 else f"{'':>8}"
        print(f"{ruleset:<12}{cells[0]:>22}{cells[1]:>22}{ratio}")
    for which, why in missing.items():
        print(f"{which}: {why}")


# nielsen: the attackers let the king out, the defenders let it be taken, and back.
BLUNDERS = ["g4-g3", "d5-g5", "g3-g2", "Kd4-d5", "g2-g3", "Kd5-a5", "g3-g2", "Ka5-a7"]


def exercise_main(args: argparse.Namespace) -> None:
    from brandubh import native
    from brandubh.analysis import NODES_PER_PLY, analyse_game, exercises, try_move
    from brandubh.analysis.analyse import search_game
    from brandubh.analysis.board import replay

    nodes = args.nodes or NODES_PER_PLY
    build = "compiled" if native.all_compiled() else "uncompiled"
    print(f"a tried move against one ply of the analysis, {nodes:,} nodes, {build}, CPU s")
    print(f"{'game':<20}{'ply':>4}{'judged':>12}{'ply: nodes':>12}{'s':>7}{'tries':>7}")
    print(f"{'':<20}{'':>4}{'':>12}{'try: nodes':>12}{'s':>7}{'good':>7}")
    games = [(f"{r} (seeded)", r, sample_game(r, args.plies)) for r in args.rulesets.split(",")]
    games.append(("nielsen (blunders)", "nielsen", BLUNDERS))
    ply_secs, try_secs, ply_nodes, try_nodes = [], [], [], []
    for label, ruleset, moves in games:
        analysis = analyse_game(ruleset, moves, nodes=nodes)
        for exercise in exercises(analysis):
            before = moves[: exercise.ply - 1]
            after = replay(ruleset, None, [*before, exercise.played])
            t0 = time.process_time()
            _, spent = search_game(after, nodes)
            secs = time.process_time() - t0
            ply_secs.append(secs)
            ply_nodes.append(spent)
            others = [
                m
                for m in replay(ruleset, None, before).legal_texts()
                if m not in (exercise.best, exercise.played)
            ][: args.tries]
            rows = []
            for move in others:
                t0 = time.process_time()
                verdict = try_move(exercise, ruleset, before, move, nodes=nodes)
                rows.append((verdict.nodes, time.process_time() - t0, verdict.good))
            try_secs += [r[1] for r in rows]
            try_nodes += [r[0] for r in rows]
            mean_n = sum(r[0] for r in rows) / max(1, len(rows))
            mean_s = sum(r[1] for r in rows) / max(1, len(rows))
            good = sum(r[2] for r in rows)
            print(
                f"{label:<20}{exercise.ply:>4}{exercise.judgment:>12}{spent:>12,}{secs:>7.2f}"
                f"{len(rows):>7}\n{'':<20}{'':>4}{'':>12}{mean_n:>12,.0f}{mean_s:>7.2f}{good:>7}"
            )
    if ply_secs and try_secs:
        print(
            f"mean: one ply {sum(ply_nodes) / len(ply_nodes):,.0f} nodes "
            f"{sum(ply_secs) / len(ply_secs):.2f} s; one tried move "
            f"{sum(try_nodes) / len(try_nodes):,.0f} nodes {sum(try_secs) / len(try_secs):.2f} s "
            f"({len(try_secs)} tries)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    plies = sub.add_parser("plies", help="plies analysed per second, compiled and uncompiled")
    plies.add_argument("--rulesets", default="nielsen,walker")
    plies.add_argument("--plies", type=int, default=12, help="plies per game")
    plies.add_argument("--nodes", type=int, default=0, help="nodes a position (NODES_PER_PLY)")
    plies.add_argument("--rounds", type=int, default=1)
    plies.add_argument("--child", choices=("compiled", "uncompiled"), help=argparse.SUPPRESS)
    ex = sub.add_parser("exercise", help="a tried move's judging against one analysed ply")
    ex.add_argument("--rulesets", default="nielsen,walker")
    ex.add_argument("--plies", type=int, default=40, help="plies per seeded game")
    ex.add_argument("--nodes", type=int, default=0, help="nodes a position (NODES_PER_PLY)")
    ex.add_argument("--tries", type=int, default=4, help="moves tried per judged move")
    sub.add_parser(
        "explorer",
        help="the opening explorer's query time at 1e4-1e6 games against a scan (see --help)",
        add_help=False,
    )
    args, rest = parser.parse_known_args()  # the explorer's options are its own (cli)
    if rest and args.command != "explorer":
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.command == "plies":
        if args.child:
            plies_child(args.child, args.rulesets.split(","), args.plies, args.nodes)
        else:
            plies_main(args)
    elif args.command == "exercise":
        exercise_main(args)
    elif args.command == "explorer":
        # Imported here only: a plies child must start without the package loaded.
        from analysis_explorer import cli

        cli(rest)


if __name__ == "__main__":
    main()
