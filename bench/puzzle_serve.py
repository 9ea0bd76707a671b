"""Serving puzzles: requests a second and the hub's CPU per puzzle move, beside a plain
route's in the same run.

    python bench/puzzle_serve.py [--players 100] [--rounds 5] [--clients 16]

One hub (and its Redis and PostgreSQL) started by the script, holding the hand-made test
puzzles (tests/handmade_puzzles.py) added after its start. Guests (each from an address of
its own, as people are) play in four phases, ``--clients`` requests in flight at once:

- baseline: ``GET /api/rulesets``, a route that reads nothing;
- start: ``POST /api/puzzles/<id>/start`` of the two-move puzzle;
- right move: its solution's two moves, each checked and the reply given (the second one
  ends the attempt: rated in PostgreSQL for a first attempt, unrated after);
- wrong move: a move the defence answers by the bot's bounded search (the refutation).

Each player's requests stay under the puzzle limit (120 a minute). Printed for each phase:
requests, requests a second, the hub's CPU per request (the hub process and its children,
user + system), and the load average before and after. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from brandubh.run.redis_server import EmbeddedRedis  # noqa: E402
from brandubh.store import Store  # noqa: E402
from handmade_puzzles import handmade  # noqa: E402
from measure import hub_cpu_s, load_average  # noqa: E402
from services import HubProcess, shared_database  # noqa: E402
from wsclient import random_address  # noqa: E402

ONE, TWO, _, _ = handmade()
LIFTED = "1000000"


async def phase(
    name: str, hub: HubProcess, jobs: list[Callable[[], Awaitable[None]]], clients: int
) -> None:
    """Run the jobs, ``clients`` at once; print their rate and the hub's CPU per job."""
    gate = asyncio.Semaphore(clients)

    async def run(job: Callable[[], Awaitable[None]]) -> None:
        async with gate:
            await job()

    cpu0, t0 = hub_cpu_s(hub.pid), time.perf_counter()
    await asyncio.gather(*(run(j) for j in jobs))
    wall, cpu = time.perf_counter() - t0, hub_cpu_s(hub.pid) - cpu0
    n = len(jobs)
    rate, per = n / wall, cpu / n * 1e6
    print(f"{name:<34} {n:>6} requests {rate:>8.0f} /s  hub CPU {per:>7.0f} µs/request")


async def bench(args: argparse.Namespace, hub: HubProcess) -> None:
    players = [
        httpx.AsyncClient(
            base_url=hub.url,
            headers={"Origin": hub.url, "X-Forwarded-For": random_address()},
            timeout=60,
        )
        for _ in range(args.players)
    ]
    try:

        def call(
            p: httpx.AsyncClient, method: str, path: str, body: object = None
        ) -> Callable[[], Awaitable[None]]:
            async def go() -> None:
                r = await p.request(method, path, json=body)
                assert r.status_code == 200, r.text

            return go

        # Each guest's session made first (its first start), outside the timing.
        await asyncio.gather(*(p.post(f"/api/puzzles/{TWO.id}/start") for p in players))
        await phase(
            "baseline: GET /api/rulesets",
            hub,
            [call(p, "GET", "/api/rulesets") for _ in range(args.rounds * 3) for p in players],
            args.clients,
        )
        for _ in range(args.rounds):
            await phase(
                "puzzle start",
                hub,
                [call(p, "POST", f"/api/puzzles/{TWO.id}/start") for p in players],
                args.clients,
            )
            rights = [
                call(p, "POST", f"/api/puzzles/{TWO.id}/move", {"ply": 0, "move": "Kc3-c7"})
                for p in players
            ]
            await phase("puzzle move (right, the reply)", hub, rights, args.clients)
            rights = [
                call(p, "POST", f"/api/puzzles/{TWO.id}/move", {"ply": 2, "move": "Kc7-a7"})
                for p in players
            ]
            await phase("puzzle move (right, solved, kept)", hub, rights, args.clients)
        await asyncio.gather(*(p.post(f"/api/puzzles/{TWO.id}/start") for p in players))
        wrongs = [
            call(p, "POST", f"/api/puzzles/{TWO.id}/move", {"ply": 0, "move": "Kc3-c1"})
            for p in players
        ]
        await phase("puzzle move (wrong: bot refutes)", hub, wrongs, args.clients)
    finally:
        for p in players:
            await p.aclose()


async def fill(url: str) -> None:
    store = Store.from_url(url)
    try:
        await store.add_puzzles(handmade())
    finally:
        await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100, help="guests, each its own address")
    parser.add_argument("--rounds", type=int, default=5, help="starts and solutions a guest")
    parser.add_argument("--clients", type=int, default=16, help="requests in flight at once")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores shared by the hub, Redis, PostgreSQL and this generator")
    print(f"load average before: {load_average()}")
    database = shared_database()
    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(Path(tmp) / "redis") as server:
        env = {"BRANDUBH_CREDITS": LIFTED, "BRANDUBH_ANALYSIS_WORKERS": "0"}
        hub = HubProcess(server.url, env, database_url=database).start()
        try:
            asyncio.run(fill(database))
            asyncio.run(bench(args, hub))
        finally:
            hub.stop()
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
