"""Bot strength and speed: matches between levels, the frozen bot and baselines, per rule set.

Run by hand: ``python bench/bot.py [--games N] [--rulesets a,b] [--levels 1,2,...]
[--baselines random,greedy] [--pairs L5-F5@120000,...] [--workers 2] [--log FILE]``.
Players: ``random``, ``greedy``, ``L<n>`` (the bot's level n), ``F<n>`` (the frozen bot of
bench/frozen_bot, as it was before issue 18), either with ``@N`` for a budget of N nodes and
``:field=value+...`` for other fields of its level (``L1:depth=3+blunder=0.02``).
Every pairing plays ``--games`` games per rule set in pairs from one random opening
(``--opening-plies``), each side attacking once; each game has its own seed (replayable).
Prints per rule set, overall and over the slide rule sets alone (newsome is a forced win for
the attackers, so its games measure whether a level finds it): a score table (row's score
against column, in %), Elo differences with a 95 % interval from a normal approximation of
the score, each side's wins, and per player nodes per second and the CPU seconds per move
(mean, median, max; the worker's own CPU, so other load on the machine hardly inflates it)
beside the maximum wall seconds. ``--log`` appends each finished game as a JSON line;
``--summarize FILE`` reports a log. Other modes: ``--speed N`` prints nodes/s per level and
rule set of the frozen and the new search on N fixed suite positions per rule set, the
frozen search as the same-run baseline; ``--calibrate N`` times level 5 alone on N real
positions per rule set.

Baselines: ``random`` plays a uniformly random legal move; ``greedy`` looks one ply ahead
and plays a move that wins at once, else one that captures most, else a random one.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing
import random
import statistics
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field, replace

import frozen_bot
from brandubh.bot import Searcher, decide, evaluation, rng_for, search
from brandubh.bot.levels import Level, level_for
from brandubh.engine import RULESETS, Game

BASELINES = ("random", "greedy")


@dataclass
class GameOutcome:
    """One finished bench game: who played which side, the result and per-player costs."""

    ruleset: str
    attacker: str
    defender: str
    winner: str | None  # "attackers", "defenders" or None
    reason: str
    plies: int
    # player -> [moves, CPU seconds, nodes, max CPU seconds, max wall seconds]
    stats: dict[str, list[float]] = field(default_factory=dict)
    times: dict[str, list[float]] = field(default_factory=dict)  # CPU seconds per move


def random_move(game: Game, rng_seed: bytes, game_id: str) -> int:
    """A uniformly random legal move."""
    moves = game.board.legal_moves()
    return moves[rng_for(rng_seed, game_id, game.ply).randrange(len(moves))]


def greedy_move(game: Game, rng_seed: bytes, game_id: str) -> int:
    """One ply ahead: an immediate win, else the most captures, ties broken at random."""
    board = game.board
    rng = rng_for(rng_seed, game_id, game.ply)
    moves = board.legal_moves()
    rng.shuffle(moves)
    me = "defenders" if board.side else "attackers"
    best, best_key = moves[0], -1
    for m in moves:
        caps = board.captures(m)
        game.push(m, caps)
        result = game.result
        game.pop()
        key = 1000 if result is not None and result.winner == me else len(caps)
        if key > best_key:
            best, best_key = m, key
    return best


def player_level(name: str) -> tuple[bool, Level | frozen_bot.Level]:
    """``L5`` is the bot's level 5, ``F5`` the frozen one; ``@N`` sets its node budget and
    ``:field=value+...`` other fields of its level (``L1@5400:depth=3+noise=40``)."""
    frozen = name.startswith("F")
    head, _, fields = name[1:].partition(":")
    number, _, nodes = head.partition("@")
    level: Level | frozen_bot.Level = (
        frozen_bot.level_for(int(number)) if frozen else level_for(int(number))
    )
    if nodes:
        level = replace(level, nodes=int(nodes))
    for field_value in filter(None, fields.split("+")):
        key, _, value = field_value.partition("=")
        kind = type(getattr(level, key))
        level = replace(level, **{key: kind(value)})
    return frozen, level


def opening(game: Game, ruleset: str, pair: int, plies: int) -> None:
    """Play the pair's opening: ``plies`` random legal moves drawn from the pair's seed, the
    same for both games of a pair (sides swapped), so games vary but each pair is fair."""
    rng = random.Random(f"opening:{ruleset}:{pair}")
    for _ in range(plies):
        if game.result is not None:
            return
        moves = game.board.legal_moves()
        game.push(moves[rng.randrange(len(moves))])


def play_game(task: tuple[str, str, str, int, int]) -> GameOutcome:
    """Play one game to its end; the task is (rule set, attacker, defender, game number,
    opening plies). Games 2k and 2k+1 share their opening."""
    ruleset, attacker, defender, number, opening_plies = task
    seed = f"bench:{ruleset}:{attacker}:{defender}:{number}".encode()
    game_id = f"g{number}"
    game = Game(ruleset)
    opening(game, ruleset, number // 2, opening_plies)
    out = GameOutcome(ruleset, attacker, defender, None, "", 0)
    for name in (attacker, defender):
        out.stats.setdefault(name, [0.0, 0.0, 0.0, 0.0, 0.0])
        out.times.setdefault(name, [])
    levels = {n: player_level(n) for n in (attacker, defender) if n not in BASELINES}
    while game.result is None:
        name = defender if game.board.side else attacker
        t0 = time.process_time()
        w0 = time.perf_counter()
        nodes = 0
        if name == "random":
            code = random_move(game, seed, game_id)
        elif name == "greedy":
            code = greedy_move(game, seed, game_id)
        else:
            frozen, level = levels[name]
            rng = rng_for(seed, game_id, game.ply)
            if frozen:
                code, old = frozen_bot.decide(game, rng, level)  # type: ignore[arg-type]
                nodes = old.nodes
            else:
                code, found = decide(game, rng, level)  # type: ignore[arg-type]
                nodes = found.nodes
        dt = time.process_time() - t0
        wall = time.perf_counter() - w0
        st = out.stats[name]
        st[0] += 1
        st[1] += dt
        st[2] += nodes
        st[3] = max(st[3], dt)
        st[4] = max(st[4], wall)
        out.times[name].append(dt)
        game.push(code)
    assert game.result is not None
    out.winner, out.reason, out.plies = game.result.winner, game.result.reason, game.ply
    return out


def calibration_positions(ruleset: str, count: int) -> list[Game]:
    """Positions of real play: level-2 self-play games, cut at plies spread over the game."""
    out: list[Game] = []
    number = 0
    while len(out) < count:
        seed = f"calibrate:{ruleset}:{number}".encode()
        game = Game(ruleset)
        stop = 4 + (number * 7) % 40
        while game.result is None and game.ply < stop:
            game.push(decide(game, rng_for(seed, "c", game.ply), 2)[0])
        if game.result is None:
            out.append(game)
        number += 1
    return out


def calibrate_ruleset(task: tuple[str, int, int]) -> tuple[str, list[tuple[int, float]]]:
    """Search each calibration position at a level; (nodes, CPU seconds) per search."""
    ruleset, count, level = task
    out = []
    for i, game in enumerate(calibration_positions(ruleset, count)):
        t0 = time.process_time()
        _, found = decide(game, rng_for(b"calibrate", str(i), game.ply), level)
        out.append((found.nodes, time.process_time() - t0))
    return ruleset, out


def calibrate(rulesets: list[str], count: int, workers: int) -> None:
    """Nodes per second per rule set and level 5's CPU seconds per move, on real positions."""
    print(f"calibration: {count} positions per rule set, level 5 budget {level_for(5).nodes:,}")
    print(f"{'rule set':>11} {'nodes/s':>9} {'avg s':>7} {'med s':>7} {'max s':>7} {'p95 s':>7}")
    with multiprocessing.Pool(workers) as pool:
        for ruleset, runs in pool.imap(calibrate_ruleset, [(r, count, 5) for r in rulesets]):
            nodes = sum(n for n, _ in runs)
            secs = sum(t for _, t in runs)
            times = sorted(t for _, t in runs)
            p95 = times[int(0.95 * (len(times) - 1))]
            print(
                f"{ruleset:>11} {nodes / secs:>9,.0f} {secs / len(runs):>7.3f} "
                f"{statistics.median(times):>7.3f} {times[-1]:>7.3f} {p95:>7.3f}"
            )


def suite(ruleset: str, count: int) -> list[Game]:
    """The fixed position suite: frozen level-2 self-play games cut at plies spread over the
    game (the frozen bot, so the suite does not move when the bot changes)."""
    out: list[Game] = []
    number = 0
    while len(out) < count:
        seed = f"suite:{ruleset}:{number}".encode()
        game = Game(ruleset)
        stop = 4 + (number * 7) % 40
        while game.result is None and game.ply < stop:
            game.push(frozen_bot.decide(game, rng_for(seed, "s", game.ply), 2)[0])
        if game.result is None:
            out.append(game)
        number += 1
    return out


def fresh_caches() -> None:
    """Empty the bot's per-process caches, so no suite search profits from an earlier one."""
    search._EVAL_CACHES.clear()
    evaluation._RUNS.clear()
    evaluation.evaluator_for.cache_clear()


def speed_ruleset(task: tuple[str, int, list[int], int]) -> list[tuple[str, int, str, int, float]]:
    """Each level's search, frozen and new, on the suite: (rule set, level, which, nodes, s).

    Both searchers get the same limits (the frozen level's nodes, depth and root mode), and
    run interleaved position by position, so machine load falls on both alike.
    """
    ruleset, count, levels, rounds = task
    out = []
    games = suite(ruleset, count)
    for n in levels:
        old = frozen_bot.level_for(n)
        for _ in range(rounds):
            for i, game in enumerate(games):
                for which in ("frozen", "new"):
                    fresh_caches()
                    work = Game.from_snapshot(game.snapshot())
                    rng = random.Random(i)
                    t0 = time.process_time()
                    if which == "frozen":
                        found_nodes = (
                            frozen_bot.Searcher(
                                work, old.nodes, old.depth, old.q_checks, exact_root=old.exact_root
                            )
                            .run(rng)
                            .nodes
                        )
                    else:
                        found_nodes = (
                            Searcher(
                                work, old.nodes, old.depth, old.q_checks, exact_root=old.exact_root
                            )
                            .run(rng)
                            .nodes
                        )
                    out.append((ruleset, n, which, found_nodes, time.process_time() - t0))
    return out


def speed(rulesets: list[str], levels: list[int], count: int, rounds: int, workers: int) -> None:
    """Print nodes/s per level and rule set, the frozen search beside as the baseline."""
    print(f"speed: {count} suite positions per rule set, {rounds} round(s), same limits for both")
    print(f"{'level':>5} {'rule set':>11} {'frozen n/s':>11} {'new n/s':>9} {'ratio':>6}")
    totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    with multiprocessing.Pool(workers) as pool:
        tasks = [(r, count, levels, rounds) for r in rulesets]
        results = [row for rows in pool.imap(speed_ruleset, tasks) for row in rows]
    for n in levels:
        for rs in rulesets:
            agg: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
            for r, lv, which, nodes, secs in results:
                if r == rs and lv == n:
                    agg[which][0] += nodes
                    agg[which][1] += secs
                    totals[which][0] += nodes
                    totals[which][1] += secs
            old_nps = agg["frozen"][0] / agg["frozen"][1]
            new_nps = agg["new"][0] / agg["new"][1]
            print(f"{n:>5} {rs:>11} {old_nps:>11,.0f} {new_nps:>9,.0f} {new_nps / old_nps:>6.2f}")
    old_nps = totals["frozen"][0] / totals["frozen"][1]
    new_nps = totals["new"][0] / totals["new"][1]
    print(f"{'all':>5} {'':>11} {old_nps:>11,.0f} {new_nps:>9,.0f} {new_nps / old_nps:>6.2f}")


def elo(score: float, n: int) -> tuple[float, float]:
    """Elo difference for a score fraction over n games, with a 95 % half-interval."""
    if n == 0:
        return 0.0, float("inf")
    s = min(max(score, 0.5 / n), 1 - 0.5 / n)
    diff = -400 * math.log10(1 / s - 1)
    se = math.sqrt(s * (1 - s) / n)
    half = 1.96 * se * 400 / math.log(10) / (s * (1 - s))
    return diff, half


def report(
    outcomes: list[GameOutcome],
    players: list[str],
    title: str,
    shown: list[tuple[str, str]] | None = None,
) -> None:
    """Print the score table and Elo differences for a set of games."""
    points: dict[tuple[str, str], float] = defaultdict(float)
    games: dict[tuple[str, str], int] = defaultdict(int)
    for o in outcomes:
        a_pts = 1.0 if o.winner == "attackers" else 0.0 if o.winner == "defenders" else 0.5
        points[o.attacker, o.defender] += a_pts
        points[o.defender, o.attacker] += 1 - a_pts
        games[o.attacker, o.defender] += 1
        games[o.defender, o.attacker] += 1
    print(f"\n== {title}: score of row against column, % (games) ==")
    print(f"{'':>8}" + "".join(f"{p:>12}" for p in players) + f"{'total':>10}")
    for p in players:
        row = f"{p:>8}"
        tp = tn = 0.0
        for q in players:
            n = games[p, q]
            if p == q or n == 0:
                row += f"{'-':>12}"
            else:
                row += f"{100 * points[p, q] / n:>7.0f} ({n:>2})"
                tp += points[p, q]
                tn += n
        row += f"{100 * tp / tn:>9.0f}%" if tn else f"{'-':>10}"
        print(row)
    print("Elo (row minus column, ±95 %), for the pairings that matter:")
    for p, q in shown or list(itertools.combinations(players, 2)):
        n = games[p, q]
        if n and (
            shown
            or p in BASELINES
            or q in BASELINES
            or abs(players.index(p) - players.index(q)) == 1
        ):
            d, h = elo(points[q, p] / n, n)
            print(f"  {q:>6} vs {p:<6} {d:+7.0f} ± {h:<5.0f}  ({points[q, p]:.1f}/{n})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="games per pairing per rule set")
    parser.add_argument("--rulesets", default=",".join(RULESETS))
    parser.add_argument("--levels", default="1,2,3,4,5")
    parser.add_argument("--baselines", default=",".join(BASELINES))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--pairs", default="", help="only these pairings, e.g. L5-greedy,L4-L5")
    parser.add_argument(
        "--calibrate", type=int, default=0, help="instead: time level 5 on N positions per set"
    )
    parser.add_argument(
        "--speed", type=int, default=0, help="instead: nodes/s on N suite positions per set"
    )
    parser.add_argument("--rounds", type=int, default=1, help="with --speed: repeat the suite")
    parser.add_argument(
        "--first-game", type=int, default=0, help="number games from here (new openings)"
    )
    parser.add_argument("--log", default="", help="append each finished game here (JSON lines)")
    parser.add_argument(
        "--summarize", default="", help="instead: report the games logged in this file"
    )
    parser.add_argument(
        "--opening-plies", type=int, default=2, help="random plies opening each pair of games"
    )
    args = parser.parse_args()
    rulesets = [r for r in args.rulesets.split(",") if r]
    if args.calibrate:
        calibrate(rulesets, args.calibrate, args.workers)
        return
    if args.speed:
        levels = [int(n) for n in args.levels.split(",") if n]
        speed(rulesets, levels, args.speed, args.rounds, args.workers)
        return
    if args.summarize:
        with open(args.summarize) as f:
            logged = [GameOutcome(**json.loads(line)) for line in f if line.strip()]
        pairs = [tuple(p.split("-")) for p in args.pairs.split(",")] if args.pairs else []
        summarize(logged, sorted({o.ruleset for o in logged}, key=list(RULESETS).index), pairs)
        return
    players = [b for b in args.baselines.split(",") if b] + [
        f"L{n}" for n in args.levels.split(",") if n
    ]
    if args.pairs:
        pairs = [tuple(p.split("-")) for p in args.pairs.split(",")]
        players = list(dict.fromkeys(name for pair in pairs for name in pair))
    else:
        pairs = list(itertools.combinations(players, 2))
    tasks = []
    for rs in rulesets:
        for p, q in pairs:
            for i in range(args.first_game, args.first_game + args.games):
                # Sides alternate: even games p attacks, odd games q attacks.
                att, dfn = (p, q) if i % 2 == 0 else (q, p)
                tasks.append((rs, att, dfn, i, args.opening_plies))
    # The slowest games (highest levels) first, so the pool does not end on a straggler.
    tasks.sort(key=lambda t: -max(_weight(t[1]), _weight(t[2])))
    print(f"{len(tasks)} games on {args.workers} workers: {', '.join(rulesets)}")
    t0 = time.perf_counter()
    with multiprocessing.Pool(args.workers) as pool:
        outcomes = []
        for k, o in enumerate(pool.imap_unordered(play_game, tasks), 1):
            outcomes.append(o)
            if args.log:
                with open(args.log, "a") as f:
                    f.write(json.dumps(asdict(o)) + "\n")
            if k % 20 == 0:
                print(f"  {k}/{len(tasks)} games, {time.perf_counter() - t0:.0f} s", flush=True)
    print(f"done in {time.perf_counter() - t0:.0f} s")
    summarize(outcomes, rulesets, pairs if args.pairs else [], players)


def summarize(
    outcomes: list[GameOutcome],
    rulesets: list[str],
    pairs: list[tuple[str, ...]],
    players: list[str] | None = None,
) -> None:
    """Print scores, Elo, sides, speed and CPU per move of a set of finished games."""
    if players is None:
        names = [n for p in pairs for n in p] or [n for o in outcomes for n in o.stats]
        players = list(dict.fromkeys(names))
    shown = [(p[0], p[1]) for p in pairs] or None
    for rs in rulesets:
        report([o for o in outcomes if o.ruleset == rs], players, rs, shown)
    if len(rulesets) > 1:
        report(outcomes, players, "all rule sets", shown)
    slide = [rs for rs in rulesets if RULESETS[rs].slides]
    if len(slide) > 1 and len(slide) < len(rulesets):
        # Newsome is a forced win for the attackers (bench/newsome_proof.py): its games say
        # whether the stronger side found it, not how far apart two levels are.
        report(
            [o for o in outcomes if o.ruleset in slide],
            players,
            "slide rule sets (newsome, a forced win, left out)",
            shown,
        )
    print("\n== sides: attackers' wins, draws, defenders' wins per rule set ==")
    for rs in rulesets:
        mine = [o for o in outcomes if o.ruleset == rs]
        won_a = sum(o.winner == "attackers" for o in mine)
        won_d = sum(o.winner == "defenders" for o in mine)
        n = len(mine)
        print(
            f"{rs:>11}: attackers {won_a}/{n}, draws {n - won_a - won_d}/{n}, defenders {won_d}/{n}"
        )
    print("\n== speed per player and rule set (nodes/s of the search; time per move) ==")
    print(
        f"{'player':>12} {'rule set':>11} {'moves':>7} {'nodes/s':>9} {'avg s':>7} {'med s':>7}"
        f" {'max s':>7} {'max wall':>9}"
    )
    times: dict[tuple[str, str], list[float]] = defaultdict(list)
    for o in outcomes:
        for name, ts in o.times.items():
            times[name, o.ruleset].extend(ts)
    agg: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0] * 5)
    for o in outcomes:
        for name, st in o.stats.items():
            a = agg[name, o.ruleset]
            a[0] += st[0]
            a[1] += st[1]
            a[2] += st[2]
            a[3] = max(a[3], st[3])
            a[4] = max(a[4], st[4])
    for name in players:
        for rs in rulesets:
            moves, secs, nodes, mx, mx_wall = agg[name, rs]
            if moves:
                nps = f"{nodes / secs:>9,.0f}" if nodes and secs else f"{'-':>9}"
                med = statistics.median(times[name, rs])
                print(
                    f"{name:>12} {rs:>11} {moves:>7.0f} {nps} {secs / moves:>7.3f} {med:>7.3f}"
                    f" {mx:>7.3f} {mx_wall:>9.3f}"
                )
    lengths = defaultdict(list)
    for o in outcomes:
        lengths[o.ruleset].append(o.plies)
    print(
        "\nplies per game: " + ", ".join(f"{r} {sum(v) / len(v):.0f}" for r, v in lengths.items())
    )
    reasons: dict[str, int] = defaultdict(int)
    for o in outcomes:
        reasons[o.reason] += 1
    print("endings: " + ", ".join(f"{r} {n}" for r, n in sorted(reasons.items())))


def _weight(name: str) -> int:
    return int(name[1:].partition(":")[0].partition("@")[0]) if name[:1] in ("L", "F") else 0


if __name__ == "__main__":
    main()
