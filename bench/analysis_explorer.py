"""The opening explorer's part of bench/analysis.py: its query time at 10^4, 10^5 and 10^6
archived games, against a same-run baseline that scans the archive for the same answer.

A generated archive in an embedded PostgreSQL (fsync off: nothing here must last): a few
thousand distinct legal playouts of nielsen (the first plies from a narrow choice, so that
openings are shared, as people's are), each archived game one of them picked with Zipf
weights, with a random result; a tenth are games against the bot and a fiftieth aborted
(neither counts), half are rated (the summary's ratings before the game, as the archive
keeps them). Rows go in by COPY; the explorer's table is then made by the backfill
(``Store.rebuild_explorer``: the same ``opening`` the archive path counts per game), and
padded by COPY with ``--pad-rows`` rows a game of random positions: beyond the shared
opening most of a real game's 40 positions are its own, so a real table has about that
many rows a game, which the few thousand playouts here would not make.

Then what the explorer's rows add to ``archive_game``, against ``archive_game`` without
them, in the same run.

For each size, three positions: the start (every game), one four plies into the most
played line (common), one twenty plies into a line few games took (rare). The explorer is
``Store.explorer`` (the route's query), timed as a median of many calls; the baseline reads
every archived game of the rule set and replays its first 40 plies on the engine's board,
as an explorer without its table would have to, once per position. Both answers are
compared, and must be equal.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import func, select, text

from brandubh.engine import Board, Game, get_ruleset, parse_position
from brandubh.engine.squares import parse_square
from brandubh.run.postgres_server import EmbeddedPostgres
from brandubh.store import FinishedGame, Seat, Store, archive, upgrade_url  # archive: a module
from brandubh.store.explorer import (
    EXPLORER_PLIES,
    GAME_FIELDS,
    counts_for_explorer,
    explorer_answer,
    rating_sum,
)
from brandubh.store.tables import explorer_moves, games

RULESET = "nielsen"
SIZES = (10_000, 100_000, 1_000_000)
COPY_BATCH = 50_000
COLUMNS = [c.name for c in games.columns]  # game_records makes rows in this order


def playouts(n: int, seed: int) -> list[tuple[str, ...]]:
    """``n`` random legal games of 20-60 plies; the first four plies from the first three
    legal moves only, so that lines share their openings."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        game = Game(RULESET)
        for ply in range(rng.randrange(20, 61)):
            if game.is_over:
                break
            legal = game.legal_texts()
            game.play(legal[rng.randrange(min(3, len(legal)) if ply < 4 else len(legal))])
        out.append(tuple(m.text for m in game.moves))
    return out


def game_records(
    start: int, count: int, lines: list[tuple[str, ...]], picks: Sequence[int], seed: int
) -> list[tuple[Any, ...]]:
    """``count`` archive rows (COLUMNS order) numbered from ``start``."""
    rng = random.Random(seed)
    rows = []
    for i in range(start, start + count):
        moves = lines[picks[i - start]]
        r = rng.random()
        winner = "attackers" if r < 0.45 else "defenders" if r < 0.9 else None
        reason = "resignation" if winner else "draw_agreed"
        bot = rng.random() < 0.1
        if rng.random() < 0.02:
            winner, reason = None, "aborted"
        rated = not bot and reason != "aborted" and rng.random() < 0.5
        att, dfn = f"p{rng.randrange(5000)}", "bot" if bot else f"p{rng.randrange(5000, 10000)}"
        ratings = (
            {p: {"before": round(rng.gauss(1500, 200), 1)} for p in (att, dfn)} if rated else None
        )
        rows.append(
            (
                f"g{i:08d}",
                RULESET,
                rated,
                "bot" if bot else "friend",
                3 if bot else None,
                att,
                att,
                dfn,
                dfn,
                winner,
                reason,
                len(moves),
                600,
                i,
                i + 1,
                " ".join(moves),
                "",
                "",
                "",
                None,
                None,
                json.dumps({"ratings": ratings}),
                b"\x80",
                0,
            )
        )
    return rows


async def copy_rows(
    store: Store, table: str, rows: list[tuple[Any, ...]], columns: list[str]
) -> None:
    async with store.engine.connect() as conn:
        raw = await conn.get_raw_connection()
        driver: Any = raw.driver_connection
        await driver.copy_records_to_table(table, records=rows, columns=columns)
        await conn.commit()


async def copy_games(store: Store, rows: list[tuple[Any, ...]]) -> None:
    await copy_rows(store, "games", rows, COLUMNS)


async def pad(store: Store, n: int, seed: int) -> int:
    """Add ``n`` rows of positions no probe asks for (random keys): a real archive's table
    holds the unique tail of each game's opening, which the playouts here share."""
    rng = random.Random(seed)
    columns = [c.name for c in explorer_moves.columns]
    for start in range(0, n, COPY_BATCH):
        rows = [
            (RULESET, rng.randbytes(15), "a4-a3", 1, 1, 0, 0, 0, 0)
            for _ in range(min(COPY_BATCH, n - start))
        ]
        await copy_rows(store, "explorer_moves", rows, columns)
    return n


_CODES: dict[str, int] = {}


def move_code(move: str) -> int:
    """The engine's int of a move text (``Kd4-d5``, ``c4-c7xb7``), parsed once per text."""
    code = _CODES.get(move)
    if code is None:
        origin, dest = move.lstrip("K").split("x")[0].split("-")
        code = _CODES[move] = parse_square(origin) | parse_square(dest) << 6
    return code


async def scan(store: Store, position: str) -> dict[str, Any]:
    """The baseline: the same answer from every archived game of the rule set, replayed."""
    target = parse_position(position)
    ruleset = get_ruleset(RULESET)
    sums: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0, 0])
    async with store.engine.connect() as conn:
        result = await conn.stream(
            select(*GAME_FIELDS, games.c.summary["ratings"].astext.label("ratings"))
            .where(games.c.ruleset == RULESET)
            .execution_options(yield_per=5_000)
        )
        async for row in result:
            if not counts_for_explorer(row.opponent, row.attacker_id, row.defender_id, row.reason):
                continue
            board = Board(ruleset)
            played = set()
            for move in row.moves.split()[:EXPLORER_PLIES]:
                if (board.att, board.dfn, board.king, board.side) == target:
                    played.add(move)
                board.push(move_code(move))
            for move in played:
                s = sums[move]
                s[0] += 1
                s[1] += row.winner == "attackers"
                s[2] += row.winner == "defenders"
                s[3] += row.winner is None
                rated = rating_sum(json.loads(row.ratings) if row.ratings else None)
                if rated is not None:
                    s[4] += 1
                    s[5] += rated
    found = [
        argparse.Namespace(
            move=m,
            games=s[0],
            attackers=s[1],
            defenders=s[2],
            draws=s[3],
            rated=s[4],
            rating_sum=s[5],
        )
        for m, s in sums.items()
    ]
    return explorer_answer(RULESET, position, found)


def after(line: tuple[str, ...], plies: int) -> str:
    """The position ``plies`` into a line."""
    game = Game(RULESET)
    for move in line[:plies]:
        game.play(move)
    return game.position


async def probe_positions(
    store: Store, lines: list[tuple[str, ...]], picks: Sequence[int]
) -> dict[str, str]:
    """The start; four plies into the most played line; twenty into the least played line
    that some counted game took (a line's games may all be the bot's or aborted)."""
    counts: dict[int, int] = defaultdict(int)
    for p in picks:
        counts[p] += 1
    common = max(counts, key=lambda k: counts[k])
    rare = common
    for k in sorted((k for k in counts if len(lines[k]) > 20), key=lambda k: (counts[k], k)):
        if (await store.explorer(RULESET, after(lines[k], 20)))["moves"]:
            rare = k
            break
    return {
        "start": after(lines[common], 0),
        "common": after(lines[common], 4),
        "rare": after(lines[rare], 20),
    }


async def timed_queries(store: Store, position: str, repeat: int) -> tuple[float, float]:
    """Median and best of ``Store.explorer`` on one position, in ms (the best is what the
    query costs when nothing else on the machine gets in its way)."""
    await store.explorer(RULESET, position)  # warm: the pool's connection, the plan
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        await store.explorer(RULESET, position)
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return statistics.median(times), times[0]


async def archive_cost(store: Store, lines: list[tuple[str, ...]], n: int) -> None:
    """What the explorer adds to ``archive_game``: games between people archived one after
    another with their explorer rows, then as many with the rows left out (same run)."""
    rng = random.Random(11)

    def one(i: int, tag: str) -> FinishedGame:
        moves = lines[rng.randrange(len(lines))]
        a, d = Seat(f"a{i}", "A", "attackers"), Seat(f"d{i}", "D", "defenders")
        return FinishedGame(
            id=f"{tag}{i:06d}",
            ruleset=RULESET,
            wants_rating=False,
            opponent="friend",
            bot_level=None,
            seats=(a, d),
            humans=(a, d),
            winner="attackers",
            reason="resignation",
            plies=len(moves),
            move_time=600,
            created=i,
            ended=i + 1,
            moves=moves,
            seed="",
            commitment="",
            record="",
            final=b"\x80",
            final_seq=0,
        )

    async def loop(tag: str) -> float:
        batch = [one(i, tag) for i in range(n)]
        t0 = time.perf_counter()
        for game in batch:
            await store.archive_game(game)
        return (time.perf_counter() - t0) * 1000 / n

    with_rows = await loop("w")
    counting = archive._count_opening
    archive._count_opening = _no_rows  # type: ignore[assignment]
    try:
        without = await loop("n")
    finally:
        archive._count_opening = counting
    print(
        f"archive_game, one game at a time ({n} each): {with_rows:.2f} ms a game with the "
        f"explorer's rows, {without:.2f} ms without (baseline)"
    )


async def _no_rows(*_: object) -> None:
    return None


async def run(args: argparse.Namespace, url: str) -> None:
    t0 = time.perf_counter()
    lines = playouts(args.playouts, 31)
    print(
        f"{len(lines)} distinct playouts of {RULESET} in {time.perf_counter() - t0:.1f} s; "
        f"explorer counts the first {EXPLORER_PLIES} plies"
    )
    weights = [1.0 / (k + 1) for k in range(len(lines))]
    rng = random.Random(7)
    store = Store.from_url(url, pool_size=2)
    have = 0
    picks: list[int] = []
    print(
        f"{'games':>10} {'rows':>8} {'table':>8} {'backfill':>9}  {'position':<7} "
        f"{'games at':>9} {'moves':>5} {'explorer ms p50/min':>20} {'scan ms':>10} "
        f"{'ratio':>8}  same"
    )
    try:
        for size in args.sizes:
            t0 = time.perf_counter()
            while have < size:
                n = min(COPY_BATCH, size - have)
                batch = rng.choices(range(len(lines)), weights=weights, k=n)
                picks.extend(batch)
                await copy_games(store, game_records(have, n, lines, batch, seed=have))
                have += n
            copied = time.perf_counter() - t0
            t0 = time.perf_counter()
            counted = await store.rebuild_explorer()
            rebuilt = time.perf_counter() - t0
            padded = await pad(store, counted * args.pad_rows, seed=size)
            async with store.engine.connect() as conn:
                await conn.execute(text("ANALYZE explorer_moves"))
                await conn.execute(text("ANALYZE games"))
                rows = await conn.scalar(select(func.count()).select_from(explorer_moves))
                size_mb = (
                    await conn.scalar(text("SELECT pg_total_relation_size('explorer_moves')"))
                ) / 2**20
            print(
                f"# {size:,} archived ({counted:,} between people, not aborted): COPY "
                f"{copied:.1f} s; the table padded with {padded:,} rows of unique positions"
            )
            for name, position in (await probe_positions(store, lines, picks)).items():
                p50, best = await timed_queries(store, position, args.repeat)
                answer = await store.explorer(RULESET, position)
                if size <= args.scan_up_to:
                    t0 = time.perf_counter()
                    baseline = await scan(store, position)
                    scan_ms = (time.perf_counter() - t0) * 1000
                    same = "yes" if baseline == answer else "NO"
                    scanned, ratio = f"{scan_ms:10.0f}", f"{scan_ms / p50:7.0f}x"
                else:
                    scanned, ratio, same = f"{'-':>10}", f"{'-':>8}", "-"
                print(
                    f"{size:>10,} {rows:>8,} {size_mb:>6.1f}MB {rebuilt:>8.1f}s  {name:<7} "
                    f"{answer['total']['games']:>9,} {len(answer['moves']):>5} "
                    f"{p50:>12.2f} / {best:<6.2f} {scanned} {ratio}  {same}"
                )
        await archive_cost(store, lines, args.archive_games)
    finally:
        await store.close()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sizes",
        type=lambda s: [int(float(x)) for x in s.split(",")],
        default=list(SIZES),
        help="archive sizes, ascending, comma separated (default 1e4,1e5,1e6)",
    )
    parser.add_argument("--playouts", type=int, default=3000, help="distinct games")
    parser.add_argument("--repeat", type=int, default=200, help="explorer calls per position")
    parser.add_argument(
        "--pad-rows",
        type=int,
        default=30,
        help="rows of unique positions added to the table per counted game (0: none)",
    )
    parser.add_argument(
        "--archive-games", type=int, default=500, help="games archived for the path's cost"
    )
    parser.add_argument(
        "--scan-up-to",
        type=lambda s: int(float(s)),
        default=10**6,
        help="the largest size at which the baseline scan runs (it takes minutes at 1e6)",
    )


def main(args: argparse.Namespace) -> None:
    # A SIGTERM unwinds like ^C, so that the embedded PostgreSQL is stopped and removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tmp = Path(tempfile.mkdtemp(prefix="brandubh-bench-explorer-"))
    try:
        with EmbeddedPostgres(tmp / "pg", durable=False) as pg:
            upgrade_url(pg.url)
            asyncio.run(run(args, pg.url))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def cli(argv: list[str] | None = None) -> None:
    """``python bench/analysis.py explorer [options]`` (or this file run by itself)."""
    parser = argparse.ArgumentParser(
        prog="bench/analysis.py explorer", description=__doc__.splitlines()[0]
    )
    add_arguments(parser)
    main(parser.parse_args(argv))


if __name__ == "__main__":
    cli()
