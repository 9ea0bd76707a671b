"""Archive benchmark: what a finished game leaves in Redis, and how fast it reaches PostgreSQL.

One hub process on an embedded Redis and an embedded PostgreSQL (durable, as in
production). Games between accounts are played for a few plies and ended here, in this
process, through the hub's own commit path; the hub archives them. Prints, each next to a
baseline measured in the same run:

- Redis bytes left per finished game once archived (before the grace) and after it,
  against an empty Redis's used memory with the hub running (baseline);
- archive lag, final event to committed row, p50/p99, at a steady rate of endings;
- archive throughput for a burst of endings, against a bare INSERT loop (rows/s) and the
  store's own archive_game in a loop.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import shutil
import sys
import tempfile
import time
from pathlib import Path

import redis.asyncio as aioredis
from sqlalchemy import text

from brandubh.hub.live.games import GameService
from brandubh.hub.live.state import Player
from brandubh.hub.redis.scripts import Scripts
from brandubh.run.postgres_server import EmbeddedPostgres
from brandubh.run.redis_server import EmbeddedRedis
from brandubh.store import FinishedGame, Seat, Store, upgrade_url

# One hub launcher for the tests and the benchmarks: tests/services.py.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from measure import pct
from services import HubProcess

PLIES = 12


async def used(r: aioredis.Redis) -> tuple[int, int, int]:
    """(used_memory, bytes the keys hold by MEMORY USAGE, number of keys)."""
    await asyncio.sleep(0.3)  # let active expiry run
    held = 0
    n = 0
    async for key in r.scan_iter(count=1000):
        held += int(await r.memory_usage(key) or 0)
        n += 1
    return int((await r.info("memory"))["used_memory"]), held, n


async def staged(games: GameService, a: Player, b: Player) -> tuple[str, str]:
    """A game between a and b, PLIES plies in, not ended: (id, the attacker's id)."""
    state, invite = await games.create(a, "nielsen", 600, "friend")
    state = await games.join(b, state.id, invite)
    for ply in range(PLIES):
        g = state.game()
        if state.status != "active":
            break
        moves = g.legal_moves()
        await games.move(state.turn, state.id, ply, str(moves[ply % len(moves)]), f"m{ply}")
        state = await games.load(state.id)
    return state.id, state.attacker


async def end(games: GameService, game_id: str, attacker: str) -> float:
    """Resign the game; when its final event was committed (wall clock)."""
    state = await games.load(game_id)
    if state.status == "active":
        await games.resign(attacker, game_id, "r")
    return time.time()


async def wait_archived(store: Store, ids: list[str], timeout: float = 300) -> dict[str, float]:
    """When each game's row was first seen committed (wall clock, polled every 10 ms)."""
    seen: dict[str, float] = {}
    pending = set(ids)
    deadline = time.monotonic() + timeout
    while pending and time.monotonic() < deadline:
        async with store.engine.connect() as conn:
            found = await conn.scalars(
                text("SELECT id FROM games WHERE id = ANY(:ids)"), {"ids": list(pending)}
            )
            now = time.time()
            for gid in found:
                seen[gid] = now
                pending.discard(gid)
        await asyncio.sleep(0.01)
    return seen


async def bare_inserts(store: Store, n: int) -> float:
    """Rows/s of a bare loop of single-row INSERT transactions (the baseline)."""
    async with store.engine.begin() as conn:
        await conn.execute(
            text("CREATE TABLE IF NOT EXISTS bench_rows (id text PRIMARY KEY, b bytea)")
        )
    payload = secrets.token_bytes(900)
    t0 = time.perf_counter()
    for _ in range(n):
        async with store.engine.begin() as conn:
            await conn.execute(
                text("INSERT INTO bench_rows VALUES (:id, :b)"),
                {"id": secrets.token_hex(8), "b": payload},
            )
    return n / (time.perf_counter() - t0)


async def store_loop(store: Store, players: list[Player], n: int) -> float:
    """Games/s of archive_game called in a loop (rated games, one connection at a time)."""
    t0 = time.perf_counter()
    for i in range(n):
        a, b = players[i % len(players)], players[(i + 1) % len(players)]
        game = FinishedGame(
            id=secrets.token_urlsafe(9),
            ruleset="nielsen",
            wants_rating=True,
            opponent="friend",
            bot_level=None,
            seats=(Seat(a.id, a.name, "attackers"), Seat(b.id, b.name, "defenders")),
            humans=(Seat(a.id, a.name, "attackers"), Seat(b.id, b.name, "defenders")),
            winner="defenders",
            reason="resign",
            plies=PLIES,
            move_time=600,
            created=0,
            ended=i,
            moves=("d1-d2",) * PLIES,
            seed="ab" * 16,
            commitment="cd" * 32,
            record="x" * 600,
            final=b"y" * 900,
            final_seq=PLIES + 2,
        )
        await store.archive_game(game)
    return n / (time.perf_counter() - t0)


async def run(args: argparse.Namespace, redis_url: str, db_url: str, tmp: Path) -> None:
    r = aioredis.Redis.from_url(redis_url)
    store = Store.from_url(db_url)
    games = GameService(r, Scripts.register(r))
    players = [Player(f"u_bench{i}", f"Bench {i}") for i in range(10)]
    for p in players:
        await store.create_account(p.id, f"{p.id}@example.org", p.name, "x")
    env = {"BRANDUBH_LIVE_GRACE_S": str(args.grace), "BRANDUBH_ARCHIVE_POLL_S": "0.5"}
    hub = HubProcess(redis_url, env, database_url=db_url).start()
    try:
        # -- memory ------------------------------------------------------------------------
        base = await used(r)
        print(
            f"baseline: empty Redis with a hub running: used_memory {base[0]:,} bytes, "
            f"{base[2]} keys holding {base[1]:,} bytes"
        )
        ids = []
        for i in range(args.memory_games):
            gid, att = await staged(games, players[i % 10], players[(i + 3) % 10])
            await end(games, gid, att)
            ids.append(gid)
        await wait_archived(store, ids)
        await asyncio.sleep(1.0)  # the hub's last let-go steps
        before = await used(r)
        await asyncio.sleep(args.grace + 1.5)
        after = await used(r)
        n = len(ids)
        for label, m in (("archived, before the grace", before), ("after the grace", after)):
            print(
                f"Redis after {n} finished games ({PLIES} plies each), {label}: "
                f"keys hold {(m[1] - base[1]) / n:,.0f} bytes per game ({m[2] - base[2]} keys "
                f"more than the baseline); used_memory {(m[0] - base[0]) / n:,.0f} bytes per game"
            )

        # -- lag at a steady rate -----------------------------------------------------------
        staged_games = []
        for i in range(args.lag_games):
            staged_games.append(await staged(games, players[i % 10], players[(i + 1) % 10]))
        ended_at: dict[str, float] = {}
        period = 1.0 / args.rate
        t0 = time.monotonic()
        watcher = asyncio.ensure_future(wait_archived(store, [g for g, _ in staged_games]))  # noqa: RUF006
        for i, (gid, att) in enumerate(staged_games):
            delay = t0 + i * period - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            ended_at[gid] = await end(games, gid, att)
        seen = await watcher
        lags = [(seen[g] - ended_at[g]) * 1000 for g in ended_at if g in seen]
        print(
            f"archive lag at {args.rate:.0f} endings/s ({len(lags)} of {len(ended_at)} games): "
            f"p50 {pct(lags, 50):.0f} ms, p99 {pct(lags, 99):.0f} ms, max {max(lags):.0f} ms"
        )

        # -- throughput of a burst ----------------------------------------------------------
        burst = []
        for i in range(args.burst_games):
            burst.append(await staged(games, players[i % 10], players[(i + 7) % 10]))
        t0 = time.time()
        for i in range(0, len(burst), 50):  # as fast as a client pool of 50 allows
            await asyncio.gather(*(end(games, g, a) for g, a in burst[i : i + 50]))
        ended = time.time()
        seen = await wait_archived(store, [g for g, _ in burst])
        last = max(seen.values())
        print(
            f"burst of {len(burst)} endings (ended in {ended - t0:.1f} s): archived "
            f"{len(seen)} in {last - t0:.1f} s: {len(seen) / (last - t0):.0f} games/s by one hub"
        )
    finally:
        hub.stop()
    rows = await bare_inserts(store, 2000)
    print(f"baseline: bare INSERT loop, one row per transaction: {rows:,.0f} rows/s")
    loop = await store_loop(store, players, 1000)
    print(f"store.archive_game in a loop (rated, one at a time): {loop:,.0f} games/s")
    await store.close()
    await r.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memory-games", type=int, default=200)
    parser.add_argument("--lag-games", type=int, default=500)
    parser.add_argument("--rate", type=float, default=50.0, help="endings per second")
    parser.add_argument("--burst-games", type=int, default=1000)
    parser.add_argument(
        "--grace",
        type=float,
        default=60.0,
        help="BRANDUBH_LIVE_GRACE_S: long enough that no game lets go before the first count",
    )
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="brandubh-bench-archive-"))
    try:
        with EmbeddedRedis(tmp / "redis") as rs, EmbeddedPostgres(tmp / "pg") as pg:
            upgrade_url(pg.url)
            asyncio.run(run(args, rs.url, pg.url, tmp))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
