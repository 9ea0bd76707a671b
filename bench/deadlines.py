"""Deadlines at scale: N games whose move deadlines fall due within a few seconds, fired by
the schedulers of two hub processes, one of which is killed midway.

    python bench/deadlines.py [--games 5000] [--window 5] [--hubs 2] [--no-kill] [--idle-hubs]

Each hub holds one websocket, so that it is in use and writes its watermark every 25 ms,
as a hub with players does (``--idle-hubs``: none, the hubs idle). Prints how many fired,
fired twice (duplicates) or never (missed), and the lateness of each firing by Redis's
clock (the ending commit's TIME minus the deadline), p50/p99/max.
The baseline measured in the same run is a bare Redis round trip (PING) from this
process, with the schedulers' poll interval. A scheduler wakes about 30 ms after the
earliest deadline it knows of (a watermark interval), whatever its poll: lateness can be no
better than that plus a few round trips.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import msgpack
import redis as redis_sync
import websockets
from redis.asyncio import BlockingConnectionPool, Redis
from websockets.asyncio.client import ClientConnection

from brandubh.hub.live.games import GameService
from brandubh.hub.live.state import Player
from brandubh.hub.redis import keys
from brandubh.hub.redis.scripts import Scripts
from brandubh.run.redis_server import EmbeddedRedis

# One hub launcher for the tests and the benchmarks: tests/services.py.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from measure import pct
from services import HubProcess, shared_database


async def stage(url: str, games: int) -> list[str]:
    """Create ``games`` running games through the real service code."""
    pool = BlockingConnectionPool.from_url(url, max_connections=32)
    r = Redis(connection_pool=pool)
    service = GameService(r, Scripts.register(r))
    a, b = Player("p_a", "A"), Player("p_b", "B")
    sem = asyncio.Semaphore(32)

    async def one(i: int) -> str:
        async with sem:
            state, _ = await service.create(a, "nielsen", 3600, "friend", joiner=b)
            return state.id

    ids = await asyncio.gather(*(one(i) for i in range(games)))
    await r.aclose()
    await pool.aclose()
    return list(ids)


async def due(url: str, ids: list[str], window_s: float) -> dict[str, int]:
    """Move the games' deadlines so they fall due evenly over ``window_s`` s from 2 s on."""
    games = len(ids)
    pool = BlockingConnectionPool.from_url(url, max_connections=4)
    r = Redis(connection_pool=pool)
    sec, usec = await r.time()
    start = int(sec) * 1000 + int(usec) // 1000 + 2000
    pipe = r.pipeline(transaction=False)
    dues = {}
    for i, game_id in enumerate(ids):
        dues[game_id] = at = start + int(i * window_s * 1000 / games)
        pipe.hset(keys.game(game_id), "deadline", at)
        pipe.zadd(keys.deadlines(keys.bucket(game_id)), {game_id: at})
    await pipe.execute()
    await r.aclose()
    await pool.aclose()
    return dues


def hold_sockets(ws_urls: list[str]) -> Callable[[], None]:
    """One websocket on each hub, its pings answered, on a thread of its own (the hubs are
    then in use: docs/fair-play.md); returns what closes them."""
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    tasks: list[asyncio.Task[None]] = []

    async def keep(ws: ClientConnection) -> None:
        try:
            async for data in ws:
                msg = msgpack.unpackb(data, raw=False)
                if msg["t"] == "ping":
                    await ws.send(msgpack.packb({"t": "pong", "n": msg["n"]}))
        except Exception:
            pass  # a killed hub ends its socket
        finally:
            with contextlib.suppress(Exception):
                await ws.close()

    async def open_all() -> None:
        for url in ws_urls:
            ws = await websockets.connect(url)
            await ws.recv()  # its hello: the hub has taken the socket
            tasks.append(asyncio.create_task(keep(ws)))

    async def close_all() -> None:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run_coroutine_threadsafe(open_all(), loop).result(30)

    def stop() -> None:
        asyncio.run_coroutine_threadsafe(close_all(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)

    return stop


def no_sockets() -> None:
    """What ``--idle-hubs`` closes: nothing."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5000)
    parser.add_argument("--window", type=float, default=5.0)
    parser.add_argument("--hubs", type=int, default=2)
    parser.add_argument("--poll", type=float, default=1.0, help="BRANDUBH_SCHEDULER_POLL_S")
    parser.add_argument("--hub-src", default="", help="run the hubs from this source tree")
    parser.add_argument("--no-kill", action="store_true", help="kill no hub midway")
    parser.add_argument("--idle-hubs", action="store_true", help="no websocket on the hubs")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(Path(tmp)) as server:
        r = redis_sync.Redis.from_url(server.url)
        pings = []
        for _ in range(2000):
            t0 = time.perf_counter()
            r.ping()
            pings.append((time.perf_counter() - t0) * 1000)
        print(
            f"baseline: Redis PING round trip p50 {pct(pings, 50):.3f} ms, "
            f"p99 {pct(pings, 99):.3f} ms; scheduler poll every {args.poll * 1000:.0f} ms"
        )

        t0 = time.perf_counter()
        ids = asyncio.run(stage(server.url, args.games))
        env = {"BRANDUBH_SCHEDULER_POLL_S": str(args.poll), "BRANDUBH_OUTAGE_AFTER_S": "600"}
        if args.hub_src:
            env["PYTHONPATH"] = args.hub_src
        hubs = [
            HubProcess(server.url, env, database_url=shared_database()).start()
            for _ in range(args.hubs)
        ]
        stop_sockets = no_sockets if args.idle_hubs else hold_sockets([h.ws_url for h in hubs])
        dues = asyncio.run(due(server.url, ids, args.window))  # once the hubs run
        print(
            f"staged {len(ids)} running games in {time.perf_counter() - t0:.1f} s; "
            f"{args.hubs} hubs started, {'idle' if args.idle_hubs else 'one socket on each'}; "
            f"deadlines due over {args.window:.0f} s starting in 2 s"
        )
        time.sleep(2 + args.window / 2)
        sec, usec = redis_sync.Redis.from_url(server.url).time()
        split_at = int(sec) * 1000 + int(usec) // 1000  # the kill, or (--no-kill) the middle
        if not args.no_kill:
            hubs[0].kill()
            print(f"killed hub 0 (SIGKILL) {args.window / 2:.1f} s into the window")
        time.sleep(args.window / 2 + 2)

        fired = duplicates = missed = 0
        late: list[float] = []
        halves: tuple[list[float], list[float]] = ([], [])
        pipe = r.pipeline(transaction=False)
        for game_id in ids:
            pipe.lrange(keys.events(game_id), 0, -1)
            pipe.hget(keys.game(game_id), "updated")
        replies = pipe.execute()
        for game_id, events, updated in zip(ids, replies[::2], replies[1::2], strict=True):
            ends = [
                e
                for e in (msgpack.unpackb(x, raw=False) for x in events)
                if e["state"]["status"] == "ended"
            ]
            if not ends:
                missed += 1
                continue
            fired += 1
            duplicates += len(ends) - 1
            late.append(int(updated) - dues[game_id])
            halves[dues[game_id] >= split_at].append(late[-1])
        stop_sockets()
        for hub in hubs:
            hub.stop()
        killed = "none killed" if args.no_kill else "one killed midway"
        print(f"\n{args.games} deadlines, {args.hubs} schedulers ({killed})")
        print(f"  fired      {fired}")
        print(f"  duplicates {duplicates}   (goal 0)")
        print(f"  missed     {missed}   (goal 0)")
        print(
            f"  lateness by Redis's clock: p50 {pct(late, 50):.0f} ms, "
            f"p99 {pct(late, 99):.0f} ms, max {max(late, default=0):.0f} ms   (goal p99 <= 50)"
        )
        names = (
            ("in the first half", "in the second")
            if args.no_kill
            else ("before the kill", "from the kill on")
        )
        for name, part in zip(names, halves, strict=True):
            print(f"    due {name:16} p50 {pct(part, 50):.0f} ms, p99 {pct(part, 99):.0f} ms")


if __name__ == "__main__":
    main()
