"""A game export's cost against the number of games: ``GET /api/games/export``'s stream
(``Store.stream_player_games`` and the NDJSON lines) over 1,000 and 10,000 games of one
player in an embedded PostgreSQL, against a baseline in the same run that reads the same
games into one list first (what a route without a cursor would do).

    python bench/export.py [--sizes 1000,10000] [--plies 60]

Prints, for each size and way: the Python heap's peak while reading (tracemalloc), the
process's RSS growth, the time, and the bytes written. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import shutil
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from analysis_explorer import COLUMNS, copy_rows  # noqa: E402
from brandubh.engine import Game  # noqa: E402
from brandubh.hub.exports import line  # noqa: E402
from brandubh.run.postgres_server import EmbeddedPostgres  # noqa: E402
from brandubh.store import GamesQuery, Store, upgrade_url  # noqa: E402
from brandubh.store.tables import game_players, games  # noqa: E402

PLAYER = "p_exporter0001"


def playout(rng: random.Random, plies: int) -> list[str]:
    game = Game("nielsen")
    moves: list[str] = []
    while len(moves) < plies and not game.is_over:
        moves.append(game.play(rng.choice(game.legal_moves())).text)
    return moves


def record_text(gid: str, moves: list[str]) -> str:
    """A record as the archive keeps one (docs/record-format.md), for the bytes' sake."""
    body = " ".join(f"{i // 2 + 1}. {m}" if i % 2 == 0 else m for i, m in enumerate(moves))
    return (
        f'[Game "{gid}"]\n[Ruleset "nielsen"]\n[Result "draw"]\n[Reason "draw_agreed"]\n\n{body}\n'
    )


async def fill(store: Store, n: int, plies: int) -> None:
    rng = random.Random(n)
    lines = [playout(rng, plies) for _ in range(50)]
    rows, seats = [], []
    for i in range(n):
        gid, moves = f"x{n:06d}{i:08d}", rng.choice(lines)
        summary: dict[str, object] = {
            "id": gid,
            "ruleset": "nielsen",
            "players": {},
            "result": None,
            "ended": i,
        }
        rows.append(
            (gid, "nielsen", False, "friend", None, PLAYER, "Exporter", "p_other", "Other",
             None, "draw_agreed", len(moves), 600, i, i + 1, " ".join(moves), "", "",
             record_text(gid, moves), None, None, json.dumps(summary), b"\x80", 0)
        )  # fmt: skip
        seats.append((PLAYER, gid, i + 1))
    await copy_rows(store, games.name, rows, COLUMNS)
    await copy_rows(store, game_players.name, seats, [c.name for c in game_players.columns])


async def measured(what: Callable[[], Awaitable[int]]) -> tuple[float, float, float, int]:
    """(heap peak MiB, RSS growth MiB, seconds, bytes) of one read."""
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    t0 = time.perf_counter()
    written = await what()
    took = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0
    return peak / 2**20, rss / 1024, took, written


async def run(url: str, sizes: list[int], plies: int) -> None:
    store = Store.from_url(url)
    print(f"{'games':>8} {'way':<28} {'heap peak':>10} {'RSS +':>8} {'time':>8} {'bytes':>12}")
    for n in sizes:
        async with store.engine.begin() as conn:
            await conn.execute(games.delete())
        await fill(store, n, plies)
        query = GamesQuery(None, None, None, n)

        async def stream_bytes(query: GamesQuery = query) -> int:
            total = 0
            async for g in store.stream_player_games(PLAYER, query):
                total += len(line(g, "ndjson"))
            return total

        async def listed(query: GamesQuery = query) -> int:
            held = [g async for g in store.stream_player_games(PLAYER, query)]
            return sum(len(line(g, "ndjson")) for g in held)

        for name, way in (("stream (the route)", stream_bytes), ("one list (baseline)", listed)):
            heap, rss, took, written = await measured(way)
            print(
                f"{n:>8,} {name:<28} {heap:>7.1f} MiB {rss:>5.1f} MiB {took:>6.2f} s {written:>12,}"
            )
    await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--plies", type=int, default=60)
    args = parser.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    tmp = Path(tempfile.mkdtemp(prefix="brandubh-bench-export-"))
    try:
        with EmbeddedPostgres(tmp / "pg", durable=False) as pg:
            upgrade_url(pg.url)
            asyncio.run(run(pg.url, sizes, args.plies))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
