"""Load on the hub: scripted games over loopback against M hub processes and one Redis.

    python bench/load.py [--games 500] [--hubs 2] [--seconds 30]
                         [--saturation-games 100] [--saturation-seconds 15]
    python bench/load.py --cluster [...]   (bench/cluster.py: on a Redis Cluster)

Prints, for a paced load (each side moves about once a second) and a saturation load
(every client moves as soon as it may): moves per second and the move round trip -- from
a player's send until both players and one spectator hold the event -- p50/p95/p99; hub
memory per connection; Redis memory per live game. In the same run it measures a bare
websocket echo on the same stack (bench/echo_app.py) as the ceiling and prints our ratio
to it. Everything runs on this machine; nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import secrets
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import msgpack
import redis
import websockets
from websockets.asyncio.client import ClientConnection

from brandubh.redis_server import EmbeddedRedis

HERE = Path(__file__).resolve().parent
# One hub launcher for the tests and the benchmarks: tests/services.py.
sys.path.insert(0, str(HERE.parent / "tests"))
from services import HubProcess  # noqa: E402

PASSWORD = "load test passphrase"
CORNERS = ("a1", "a7", "g1", "g7")


# -- processes --------------------------------------------------------------------------


def start_echo() -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "echo_app:app",
            "--port",
            "0",
            "--ws",
            "websockets-sansio",
            "--loop",
            "uvloop",
            "--ws-per-message-deflate",
            "false",
            "--log-level",
            "info",
        ],
        cwd=HERE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        m = re.search(r"running on (http://\S+)", line)
        if m:
            return proc, m.group(1)
    raise RuntimeError("echo server did not start")


def rss_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    m = re.search(r"VmRSS:\s+(\d+) kB", status)
    return int(m.group(1)) if m else 0


def cpu_s(pid: int) -> float:
    """User plus system CPU seconds a process has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def redis_cpu_s(client: redis.Redis) -> float:
    info = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


# -- the echo ceiling --------------------------------------------------------------------


async def echo_ceiling(url: str, conns: int, seconds: float) -> tuple[float, list[float]]:
    payload = msgpack.packb(
        {"t": "move", "game": "abcdefghijkl", "ply": 12, "move": "d1-c1", "id": "m12345"}
    )
    rtts: list[float] = []
    stop = time.perf_counter() + seconds

    async def one() -> int:
        n = 0
        async with websockets.connect(url.replace("http", "ws") + "/ws") as ws:
            while time.perf_counter() < stop:
                t0 = time.perf_counter()
                await ws.send(payload)
                await ws.recv()
                rtts.append(time.perf_counter() - t0)
                n += 1
        return n

    counts = await asyncio.gather(*(one() for _ in range(conns)))
    return sum(counts) / seconds, rtts


# -- games ---------------------------------------------------------------------------------


@dataclass
class Stats:
    rtts: list[float] = field(default_factory=list)
    moves: int = 0
    errors: int = 0
    games_ended: int = 0


@dataclass
class LiveGame:
    id: str
    sockets: dict[str, ClientConnection]  # attackers, defenders, spectator
    sent_at: dict[int, float] = field(default_factory=dict)  # event n -> send time
    holders: dict[int, int] = field(default_factory=dict)  # event n -> sockets holding it


async def make_game(base: str, other_base: str) -> LiveGame:
    """A started friend game: creator on ``base``, joiner and a spectator on ``other_base``."""
    async with (
        httpx.AsyncClient(base_url=base, headers={"Origin": base}) as a,
        httpx.AsyncClient(base_url=base, headers={"Origin": base}) as b,
    ):
        for client in (a, b):  # games between people need accounts
            email = f"load{secrets.token_hex(6)}@example.org"
            r = await client.post("/api/signup", json={"email": email, "password": PASSWORD})
            r.raise_for_status()
        created = await a.post("/api/games", json={"opponent": "friend", "move_time": 600})
        created.raise_for_status()
        info = created.json()
        token = info["invite"].split("/")[-1]
        (await b.post(f"/api/games/{info['id']}/join", json={"invite": token})).raise_for_status()
        state = (await a.get(f"/api/games/{info['id']}")).json()["state"]
        alice_id = (await a.get("/api/me")).json()["id"]
        alice_attacks = state["players"]["attackers"]["id"] == alice_id
        seats = [
            (a.cookies.get("bd_session"), base, alice_attacks),
            (b.cookies.get("bd_session"), other_base, not alice_attacks),
        ]
    sockets: dict[str, ClientConnection] = {}
    for cookie, url, attacks in seats:
        sockets["attackers" if attacks else "defenders"] = await websockets.connect(
            url.replace("http", "ws") + "/ws",
            additional_headers={"Cookie": f"bd_session={cookie}"},
            max_size=2**20,
        )
    sockets["spectator"] = await websockets.connect(
        other_base.replace("http", "ws") + "/ws", max_size=2**20
    )
    return LiveGame(info["id"], sockets)


async def run_game(
    game: LiveGame,
    stats: Stats,
    go: asyncio.Event,
    clock: dict[str, float],
    pace: float | None,
    rng: random.Random,
) -> None:
    """Follow one game from the start (answering pings); once ``go`` is set, each side
    moves when it is its turn (after about ``pace`` s, if set) until ``clock["stop"]``."""
    latest: dict[str, tuple[dict[str, Any], int]] = {}
    pending: set[asyncio.Task[None]] = set()  # keep references: the loop holds weak ones

    def schedule(role: str, state: dict[str, Any], n: int) -> None:
        task = asyncio.create_task(move(role, state, n))
        pending.add(task)
        task.add_done_callback(pending.discard)

    async def move(role: str, state: dict[str, Any], n: int) -> None:
        if pace:
            await asyncio.sleep(pace * rng.uniform(0.8, 1.2))
        if time.perf_counter() >= clock["stop"]:
            return
        quiet = [m for m in state["legal"] if "x" not in m and m[-2:] not in CORNERS]
        choice = rng.choice(quiet or state["legal"])
        game.sent_at[n + 1] = time.perf_counter()
        await game.sockets[role].send(
            msgpack.packb(
                {
                    "t": "move",
                    "game": game.id,
                    "ply": state["ply"],
                    "move": choice,
                    "id": f"{game.id}-{state['ply']}",
                }
            )
        )

    async def reader(role: str) -> None:
        ws = game.sockets[role]
        await ws.send(msgpack.packb({"t": "watch", "game": game.id}))
        async for data in ws:
            msg = msgpack.unpackb(data, raw=False)
            t = msg["t"]
            if t == "ping":
                await ws.send(msgpack.packb({"t": "pong", "n": msg["n"]}))
            elif t == "error":
                stats.errors += 1
            elif t in ("snapshot", "event"):
                n, state = msg["n"], msg["state"]
                if t == "event" and n in game.sent_at:
                    game.holders[n] = game.holders.get(n, 0) + 1
                    if game.holders[n] == 3:
                        stats.rtts.append(time.perf_counter() - game.sent_at.pop(n))
                        stats.moves += 1
                        del game.holders[n]
                if state["status"] == "ended":
                    stats.games_ended += role == "spectator"
                    return
                latest[role] = (state, n)
                if go.is_set() and role == state["turn"]:
                    schedule(role, state, n)
            if go.is_set() and time.perf_counter() >= clock["stop"]:
                return

    async def starter() -> None:
        await go.wait()
        for role, (state, n) in list(latest.items()):
            if role == state["turn"]:
                schedule(role, state, n)

    await asyncio.gather(starter(), *(reader(r) for r in ("attackers", "defenders", "spectator")))


async def load(
    hubs: list[str],
    games: int,
    seconds: float,
    pace: float | None,
    hub_pids: list[int],
    redis_client: redis.Redis,
) -> dict[str, Any]:
    mem0 = redis_client.info("memory")["used_memory"]
    rss0 = sum(rss_kib(p) for p in hub_pids)
    live: list[LiveGame] = []
    sem = asyncio.Semaphore(20)

    async def make(i: int) -> None:
        async with sem:
            live.append(await make_game(hubs[i % len(hubs)], hubs[(i + 1) % len(hubs)]))

    go = asyncio.Event()
    clock = {"stop": float("inf")}
    stats = Stats()
    rng = random.Random(1)
    tasks: list[asyncio.Task[None]] = []

    async def make_and_follow(i: int) -> None:
        await make(i)
        tasks.append(asyncio.create_task(run_game(live[-1], stats, go, clock, pace, rng)))

    t0 = time.perf_counter()
    await asyncio.gather(*(make_and_follow(i) for i in range(games)))
    setup = time.perf_counter() - t0
    await asyncio.sleep(1)
    conns = games * 3
    rss1 = sum(rss_kib(p) for p in hub_pids)
    mem1 = redis_client.info("memory")["used_memory"]
    hub_cpu0 = sum(cpu_s(p) for p in hub_pids)
    redis_cpu0 = redis_cpu_s(redis_client)
    own_cpu0 = time.process_time()
    start = time.perf_counter()
    clock["stop"] = start + seconds
    go.set()
    await asyncio.sleep(seconds)
    elapsed = time.perf_counter() - start
    moves = stats.moves
    hub_cpu = sum(cpu_s(p) for p in hub_pids) - hub_cpu0
    redis_cpu = redis_cpu_s(redis_client) - redis_cpu0
    own_cpu = time.process_time() - own_cpu0
    await asyncio.wait(tasks, timeout=5)
    for g in live:
        for ws in g.sockets.values():
            await ws.close()
    return {
        "games": games,
        "connections": conns,
        "setup_s": setup,
        "moves": moves,
        "moves_per_s": moves / elapsed,
        "rtts": stats.rtts,
        "errors": stats.errors,
        "ended": stats.games_ended,
        "hub_kib_per_conn": (rss1 - rss0) / conns,
        "redis_bytes_per_game": (mem1 - mem0) / games,
        "cpu_us_per_move": {
            "hubs": hub_cpu / max(moves, 1) * 1e6,
            "redis": redis_cpu / max(moves, 1) * 1e6,
            "load generator": own_cpu / max(moves, 1) * 1e6,
        },
    }


def report(name: str, r: dict[str, Any]) -> None:
    ms = [x * 1000 for x in r["rtts"]]
    print(
        f"\n{name}: {r['games']} games, {r['connections']} sockets (set up in {r['setup_s']:.1f} s)"
    )
    print(
        f"  moves/s               {r['moves_per_s']:>10,.0f}   ({r['moves']} moves, "
        f"{r['errors']} errors, {r['ended']} games ended)"
    )
    print(
        f"  round trip p50/p95/p99 {pct(ms, 50):>7.1f} / {pct(ms, 95):.1f} / "
        f"{pct(ms, 99):.1f} ms  (send -> both players and a spectator hold the event)"
    )
    print(f"  hub memory            {r['hub_kib_per_conn']:>10.1f} KiB per connection")
    print(f"  redis memory          {r['redis_bytes_per_game']:>10,.0f} bytes per live game")
    cpu = ", ".join(f"{k} {v:,.0f}" for k, v in r["cpu_us_per_move"].items())
    print(f"  CPU per move (us)     {cpu}")


async def main() -> None:
    if "--cluster" in sys.argv:  # the same loads on a Redis Cluster, and a failover run
        import cluster

        await cluster.main(sys.argv[1:])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--hubs", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--saturation-games", type=int, default=100)
    parser.add_argument("--saturation-seconds", type=float, default=15)
    parser.add_argument("--echo-conns", type=int, default=50)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(Path(tmp)) as server:
        client = redis.Redis.from_url(server.url)
        echo_proc, echo_url = start_echo()
        try:
            rate, rtts = await echo_ceiling(echo_url, args.echo_conns, args.saturation_seconds)
        finally:
            echo_proc.terminate()
            echo_proc.wait()
        ms = [x * 1000 for x in rtts]
        print(
            f"ceiling: bare websocket echo, same stack, {args.echo_conns} connections, one process"
        )
        print(f"  round trips/s {rate:,.0f}; p50 {pct(ms, 50):.1f} ms, p99 {pct(ms, 99):.1f} ms")

        procs = [
            HubProcess(server.url, {"BRANDUBH_CREDITS": "100000"}).start() for _ in range(args.hubs)
        ]
        hubs = [h.url for h in procs]
        pids = [h.pid for h in procs]
        print(
            f"hubs: {args.hubs} processes on one Redis; redis-server and this load "
            f"generator share the machine's {os.cpu_count()} cores"
        )
        try:
            paced = await load(hubs, args.games, args.seconds, 1.0, pids, client)
            report("paced (each side moves about once a second)", paced)
            sat = await load(
                hubs, args.saturation_games, args.saturation_seconds, None, pids, client
            )
            report("saturation (every client moves as soon as it may)", sat)
            print(
                f"\nsaturation moves/s vs echo round trips/s: "
                f"{sat['moves_per_s'] / rate:.2f}  (goal >= 0.5)"
            )
            print(
                f"paced p99 round trip: {pct([x * 1000 for x in paced['rtts']], 99):.1f} ms "
                f"(goal < 20 ms)"
            )
        finally:
            for i, h in enumerate(procs):
                h.stop()
                problems = [line for line in h.log if "rror" in line]
                if problems:
                    print(f"hub {i}: {len(problems)} error lines, first: {problems[0]}")


if __name__ == "__main__":
    asyncio.run(main())
