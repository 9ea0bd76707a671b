"""Load on the hub: scripted games over loopback against hub processes and one Redis.

    python bench/load.py [--games 500] [--seconds 20] [--saturation-games 100]
                         [--saturation-seconds 10] [--fanout-games 200] [--workers 3]
    python bench/load.py --cluster [...]   (bench/cluster.py: on a Redis Cluster)

Each game has two players and a spectator, each on its own websocket. Paced: a player
waits 500 +- 100 ms after its turn arrives, then moves (about 2 moves a second a game).
Saturation: every player moves as soon as its turn arrives. The round trip is from the
mover's send until the mover, the opponent and the spectator all hold the event.

Printed for each load: moves/s, round trip p50/p95/p99/max, games that fell behind, the
CPU per move of the hubs, of Redis and of the load generator itself (which runs in
several processes with a bare asyncio websocket client, bench/rawws.py, so that it costs
less than the hub it measures), and the pub/sub messages the hubs received per move.

Loads: paced on one hub and on two (a game's creator on one, the other player and the
spectator on the other); saturation on one hub; and the fan-out: four hubs, each game's
three sockets on two of them. Baselines in the same run, on the same stack and with the
same generator: a bare websocket echo (bench/echo_app.py), and a bare relay that forwards
each move to the game's three sockets with no validation or storage (bench/relay_app.py).
Games are staged straight into Redis with the service's own code (no sign-ups), so the
hubs spend the measured time only on play. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import httpx
import msgpack
import redis

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# One hub launcher for the tests and the benchmarks: tests/services.py.
sys.path.insert(0, str(HERE.parent / "tests"))
import rawws  # noqa: E402
from brandubh.redis_server import EmbeddedRedis  # noqa: E402
from services import HubProcess, shared_database  # noqa: E402

CORNERS = ("a1", "a7", "g1", "g7")
PACE_S = (0.4, 0.6)  # a player's wait after its turn arrives: 500 +- 100 ms


# -- processes --------------------------------------------------------------------------


def start_app(module: str) -> tuple[subprocess.Popen[str], str]:
    """A bare app of bench/ (echo or relay) under uvicorn with the hub's options."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            f"{module}:app",
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
            # Keep reading its log (a line per connection): a full pipe would stall it.
            threading.Thread(target=proc.stdout.read, daemon=True).start()
            return proc, m.group(1)
    raise RuntimeError(f"{module} did not start")


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


def pubsub_received(urls: list[str]) -> list[int]:
    """Game-channel messages each hub has received so far (its /healthz/stats)."""
    out = []
    for url in urls:
        try:
            out.append(int(httpx.get(url + "/healthz/stats", timeout=5).json()["game_messages"]))
        except (httpx.HTTPError, ValueError, KeyError):
            out.append(-1)  # a hub without the counter (an older version)
    return out


# -- staging ------------------------------------------------------------------------------


@dataclass
class Seat:
    """One socket of a staged game: its role, which server it goes to, its cookie."""

    role: str  # attackers | defenders | spectator
    server: int
    cookie: str | None


@dataclass
class Staged:
    game: str
    seats: list[Seat]


def stage(
    url: str, games: int, servers: list[tuple[int, int, int]], cluster: bool = False
) -> list[Staged]:
    """``games`` started friend games between two guests, made with the service's own code;
    ``servers[i % len]`` gives the servers of game i's creator, joiner and spectator.
    With ``cluster``, ``url`` names a node of a Redis Cluster (bench/cluster.py)."""
    from brandubh.hub.accounts.sessions import Sessions
    from brandubh.hub.config import Settings
    from brandubh.hub.live.games import GameService
    from brandubh.hub.redis import client as redis_client
    from brandubh.hub.redis.scripts import Scripts

    async def run() -> list[Staged]:
        r = redis_client.connect(Settings(redis_url=url, redis_cluster=cluster))
        # (First a command of this loop's own: redis-py's cluster client would otherwise
        # learn the cluster inside the thread its transactions use, on another loop.)
        await r.ping()
        service = GameService(r, Scripts.register(r))
        sessions = Sessions(r)
        sem = asyncio.Semaphore(32)

        async def one(i: int) -> Staged:
            async with sem:
                (ta, a), (tb, b) = await sessions.create_guest(), await sessions.create_guest()
                state, _ = await service.create(a, "nielsen", 600, "friend", joiner=b)
                s_a, s_b, s_w = servers[i % len(servers)]
                role_a = "attackers" if state.attacker == a.id else "defenders"
                role_b = "defenders" if role_a == "attackers" else "attackers"
                return Staged(
                    state.id,
                    [
                        Seat(role_a, s_a, f"bd_session={ta}"),
                        Seat(role_b, s_b, f"bd_session={tb}"),
                        Seat("spectator", s_w, None),
                    ],
                )

        out = await asyncio.gather(*(one(i) for i in range(games)))
        await redis_client.close(r)
        return list(out)

    return asyncio.run(run())


# -- the generator (runs in worker processes) -----------------------------------------------


@dataclass
class GameRun:
    staged: Staged
    socks: dict[str, rawws.RawSocket] = field(default_factory=dict)
    sent_at: dict[int, float] = field(default_factory=dict)
    holders: dict[int, int] = field(default_factory=dict)
    moves: int = 0
    last: int = 0  # the relay's last move number
    over: bool = False
    latest: dict[str, tuple[dict[str, Any], int]] = field(default_factory=dict)


def worker(pipe: Connection, urls: list[str], games: list[Staged], pace: bool, relay: bool) -> None:
    """One generator process: connect its games' sockets, play when told, report."""
    import uvloop

    uvloop.run(_worker(pipe, urls, games, pace, relay))


async def _worker(
    pipe: Connection, urls: list[str], staged: list[Staged], pace: bool, relay: bool
) -> None:
    loop = asyncio.get_running_loop()
    rng = random.Random(os.getpid())
    rtts: list[float] = []
    errors = 0
    state = {"go": False, "stop": float("inf")}
    runs = [GameRun(s) for s in staged]

    def wait() -> float:
        return rng.uniform(*PACE_S) if pace else 0.0

    def send_move(run: GameRun, role: str) -> None:
        now = time.perf_counter()
        if run.over or now >= state["stop"]:
            return
        if relay:
            n = run.last + 1
            run.sent_at[n] = now
            run.socks[role].send(b"%d" % n)
            return
        st, n = run.latest[role]
        quiet = [m for m in st["legal"] if "x" not in m and m[-2:] not in CORNERS]
        choice = rng.choice(quiet or st["legal"])
        run.sent_at[n + 1] = now
        run.socks[role].send(
            msgpack.packb(
                {
                    "t": "move",
                    "game": run.staged.game,
                    "ply": st["ply"],
                    "move": choice,
                    "id": f"{run.staged.game}-{st['ply']}",
                }
            )
        )

    def turn(run: GameRun, role: str) -> None:
        delay = wait()
        if delay:
            loop.call_later(delay, send_move, run, role)
        else:
            send_move(run, role)

    def held(run: GameRun, n: int) -> None:
        if n in run.sent_at:
            got = run.holders.get(n, 0) + 1
            if got == 3:
                rtts.append(time.perf_counter() - run.sent_at.pop(n))
                del run.holders[n]
                run.moves += 1
            else:
                run.holders[n] = got

    def on_relay(run: GameRun, role: str, data: bytes, sock: rawws.RawSocket) -> None:
        n = int(data)
        held(run, n)
        run.last = max(run.last, n)
        mover = "attackers" if n % 2 == 1 else "defenders"
        if role != "spectator" and role != mover and state["go"]:
            turn(run, role)

    def on_hub(run: GameRun, role: str, data: bytes, sock: rawws.RawSocket) -> None:
        nonlocal errors
        msg = msgpack.unpackb(data, raw=False)
        t = msg["t"]
        if t == "ping":
            # On the socket it came by: a ping may come before open_game has filed it.
            sock.send(msgpack.packb({"t": "pong", "n": msg["n"]}))
        elif t == "error":
            errors += 1
        elif t in ("snapshot", "event"):
            n, st = msg["n"], msg["state"]
            if t == "event":
                held(run, n)
            if st["status"] == "ended":
                run.over = True
                return
            run.latest[role] = (st, n)
            if state["go"] and role == st["turn"]:
                turn(run, role)

    async def open_game(run: GameRun) -> None:
        for seat in run.staged.seats:
            role = seat.role

            def on_message(
                sock: rawws.RawSocket, data: bytes, run: GameRun = run, role: str = role
            ) -> None:
                (on_relay if relay else on_hub)(run, role, data, sock)

            sock = await rawws.connect(urls[seat.server] + "/ws", on_message, seat.cookie)
            run.socks[role] = sock
            if relay:
                sock.send(run.staged.game.encode())
            else:
                sock.send(msgpack.packb({"t": "watch", "game": run.staged.game}))

    sem = asyncio.Semaphore(50)

    async def opened(run: GameRun) -> None:
        async with sem:
            await open_game(run)

    await asyncio.gather(*(opened(r) for r in runs))
    await asyncio.sleep(0.5)
    pipe.send("ready")
    stop_at = pipe.recv()  # seconds from now
    cpu0 = time.process_time()
    state["stop"] = time.perf_counter() + stop_at
    state["go"] = True
    for run in runs:
        if relay:
            turn(run, "attackers")
        else:
            for role, (st, _) in list(run.latest.items()):
                if role == st["turn"]:
                    turn(run, role)
    await asyncio.sleep(stop_at)
    cpu = time.process_time() - cpu0
    await asyncio.sleep(0.3)  # let moves in flight land before closing
    for run in runs:
        for sock in run.socks.values():
            sock.close()
    pipe.send(
        {
            "rtts": rtts,
            "moves": sum(r.moves for r in runs),
            "per_game": [r.moves for r in runs],
            "ended": sum(r.over for r in runs),
            "errors": errors,
            "cpu": cpu,
        }
    )


# -- one load ---------------------------------------------------------------------------------


def run_load(
    name: str,
    urls: list[str],
    games: list[Staged],
    seconds: float,
    pace: bool,
    pids: list[int],
    client: redis.Redis | None,
    workers: int,
    relay: bool = False,
) -> dict[str, Any]:
    ctx = multiprocessing.get_context("spawn")
    slices = [games[i::workers] for i in range(workers)]
    procs = []
    for part in slices:
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=worker, args=(child, urls, part, pace, relay), daemon=True)
        proc.start()
        procs.append((proc, parent))
    for _, parent in procs:
        if parent.recv() != "ready":
            raise RuntimeError("a generator process failed to start")
    seen0 = pubsub_received(urls) if not relay else [0] * len(urls)
    hub_cpu0 = sum(cpu_s(p) for p in pids)
    redis_cpu0 = redis_cpu_s(client) if client else 0.0
    start = time.perf_counter()
    for _, parent in procs:
        parent.send(seconds)
    results = [parent.recv() for _, parent in procs]
    elapsed = time.perf_counter() - start
    hub_cpu = sum(cpu_s(p) for p in pids) - hub_cpu0
    redis_cpu = (redis_cpu_s(client) - redis_cpu0) if client else 0.0
    seen = [
        b - a for a, b in zip(seen0, pubsub_received(urls) if not relay else seen0, strict=True)
    ]
    for proc, _ in procs:
        proc.join(10)
    rtts = [x for r in results for x in r["rtts"]]
    moves = sum(r["moves"] for r in results)
    per_game = [n for r in results for n in r["per_game"]]
    mean_rtt = sum(rtts) / len(rtts) if rtts else 0.0
    # A paced game keeps up when it makes at least 90 % of the moves its players' waits and
    # the measured mean round trip allow.
    expected = seconds / (sum(PACE_S) / 2 + mean_rtt) if pace else 0.0
    behind = sum(1 for n in per_game if n < 0.9 * expected) if pace else 0
    gen_cpu = sum(r["cpu"] for r in results)
    return {
        "name": name,
        "games": len(games),
        "moves": moves,
        "moves_per_s": moves / elapsed,
        "rtts": rtts,
        "behind": behind,
        "expected": expected,
        "errors": sum(r["errors"] for r in results),
        "ended": sum(r["ended"] for r in results),
        "cpu": {
            "hub": hub_cpu / max(moves, 1) * 1e6,
            "redis": redis_cpu / max(moves, 1) * 1e6,
            "generator": gen_cpu / max(moves, 1) * 1e6,
        },
        "pubsub": [s / max(moves, 1) for s in seen] if min(seen0) >= 0 else None,
    }


def report(r: dict[str, Any]) -> None:
    ms = [x * 1000 for x in r["rtts"]]
    print(f"\n{r['name']}: {r['games']} games, {r['games'] * 3} sockets")
    print(
        f"  moves/s                 {r['moves_per_s']:>8,.0f}   ({r['moves']} moves, "
        f"{r['errors']} errors, {r['ended']} games ended)"
    )
    print(
        f"  round trip p50/p95/p99  {pct(ms, 50):>6.1f} / {pct(ms, 95):.1f} / {pct(ms, 99):.1f} ms"
        f"   (max {max(ms, default=0):.0f} ms)"
    )
    if r["expected"]:
        print(
            f"  games behind            {r['behind']:>8}   (fewer than 90 % of the "
            f"{r['expected']:.0f} moves their pace allows)"
        )
    cpu = r["cpu"]
    print(
        f"  CPU per move            hub {cpu['hub']:,.0f} us, redis {cpu['redis']:,.0f} us, "
        f"load generator {cpu['generator']:,.0f} us"
    )
    if r["pubsub"] is not None:
        per = ", ".join(f"{x:.2f}" for x in r["pubsub"])
        print(
            f"  pub/sub msgs per move   {sum(r['pubsub']):>8.2f}   over all hubs (per hub: {per})"
        )


# -- the echo baseline --------------------------------------------------------------------


async def echo(url: str, conns: int, seconds: float) -> tuple[int, list[float]]:
    payload = msgpack.packb(
        {"t": "move", "game": "abcdefghijkl", "ply": 12, "move": "d1-c1", "id": "m12345"}
    )
    rtts: list[float] = []
    done = 0
    stop = time.perf_counter() + seconds
    loop = asyncio.get_running_loop()
    sent: dict[rawws.RawSocket, float] = {}
    finished = loop.create_future()
    live = conns

    def on_message(sock: rawws.RawSocket, data: bytes) -> None:
        nonlocal done, live
        now = time.perf_counter()
        rtts.append(now - sent[sock])
        done += 1
        if now < stop:
            sent[sock] = time.perf_counter()
            sock.send(payload)
        else:
            live -= 1
            if not live:
                finished.set_result(None)

    socks = [await rawws.connect(url + "/ws", on_message) for _ in range(conns)]
    for sock in socks:
        sent[sock] = time.perf_counter()
        sock.send(payload)
    await finished
    for sock in socks:
        sock.close()
    return done, rtts


def main() -> None:
    if "--cluster" in sys.argv:  # the loads on a Redis Cluster beside one Redis, and failover
        import cluster

        cluster.main([a for a in sys.argv[1:] if a != "--cluster"])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--saturation-games", type=int, default=100)
    parser.add_argument("--saturation-seconds", type=float, default=10)
    parser.add_argument("--fanout-games", type=int, default=200)
    parser.add_argument("--workers", type=int, default=3, help="load generator processes")
    parser.add_argument("--echo-conns", type=int, default=50)
    parser.add_argument(
        "--hub-src",
        default="",
        help="run the hubs from this source tree (PYTHONPATH), e.g. another branch's src/",
    )
    parser.add_argument(
        "--only", default="", help="comma-separated: echo,relay,one,two,saturation,fanout"
    )
    args = parser.parse_args()
    only = set(filter(None, args.only.split(",")))

    def wanted(name: str) -> bool:
        return not only or name in only

    print(f"{os.cpu_count()} cores shared by the servers, redis-server and the generator")
    if wanted("echo"):
        proc, url = start_app("echo_app")
        try:
            cpu0 = cpu_s(proc.pid)
            n, rtts = asyncio.run(echo(url, args.echo_conns, args.saturation_seconds))
            cpu = cpu_s(proc.pid) - cpu0
        finally:
            proc.terminate()
            proc.wait()
        ms = [x * 1000 for x in rtts]
        print(
            f"\nbaseline: bare websocket echo, {args.echo_conns} connections: "
            f"{n / args.saturation_seconds:,.0f} round trips/s, p50 {pct(ms, 50):.1f} ms, "
            f"p99 {pct(ms, 99):.1f} ms, server CPU {cpu / max(n, 1) * 1e6:.0f} us each"
        )
    if wanted("relay"):
        proc, url = start_app("relay_app")
        try:
            fake = [
                Staged(
                    f"room{i}", [Seat(r, 0, None) for r in ("attackers", "defenders", "spectator")]
                )
                for i in range(max(args.games, args.saturation_games))
            ]
            r = run_load(
                "baseline: bare relay (each move to 3 sockets), paced",
                [url], fake[: args.games], args.seconds, True, [proc.pid], None, args.workers, True,
            )  # fmt: skip
            report(r)
            r = run_load(
                "baseline: bare relay, saturation",
                [url], fake[: args.saturation_games], args.saturation_seconds, False,
                [proc.pid], None, args.workers, True,
            )  # fmt: skip
            report(r)
        finally:
            proc.terminate()
            proc.wait()

    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(Path(tmp)) as server:
        client = redis.Redis.from_url(server.url)
        # Every simulated player comes from 127.0.0.1: lift the per-address limits.
        env = {
            "BRANDUBH_CREDITS": "100000",
            "BRANDUBH_SESSION_CREDITS": "100000",
            "BRANDUBH_SIGNUP_PER_ADDRESS": "1000000",
            "BRANDUBH_SIGNUP_OVERALL": "1000000",
            "BRANDUBH_GUESTS_PER_ADDRESS": "1000000",
            "BRANDUBH_SOCKETS_PER_ADDRESS": "0",
            "BRANDUBH_CONNECTIONS_PER_ADDRESS": "0",
            # The production poll, not the tests' quicker one (no bot plays here).
            "BRANDUBH_BOT_POLL_S": "1.0",
        }
        database = shared_database()
        if args.hub_src:
            env["PYTHONPATH"] = args.hub_src
        hubs: list[HubProcess] = []

        def need(k: int) -> list[HubProcess]:
            while len(hubs) < k:
                hubs.append(HubProcess(server.url, env, database_url=database).start())
            return hubs[:k]

        try:
            if wanted("one"):
                h = need(1)
                games = stage(server.url, args.games, [(0, 0, 0)])
                r = run_load(
                    "paced, one hub",
                    [x.url for x in h], games, args.seconds, True, [x.pid for x in h], client,
                    args.workers,
                )  # fmt: skip
                report(r)
            if wanted("saturation"):
                h = need(1)
                games = stage(server.url, args.saturation_games, [(0, 0, 0)])
                r = run_load(
                    "saturation, one hub",
                    [x.url for x in h], games, args.saturation_seconds, False,
                    [x.pid for x in h], client, args.workers,
                )  # fmt: skip
                report(r)
            if wanted("two"):
                h = need(2)
                games = stage(server.url, args.games, [(0, 1, 1), (1, 0, 0)])
                r = run_load(
                    "paced, two hubs (creator on one, joiner and spectator on the other)",
                    [x.url for x in h], games, args.seconds, True, [x.pid for x in h], client,
                    args.workers,
                )  # fmt: skip
                report(r)
            if wanted("fanout"):
                h = need(4)
                layout = [(i, (i + 1) % 4, (i + 1) % 4) for i in range(4)]
                games = stage(server.url, args.fanout_games, layout)
                r = run_load(
                    "fan-out: four hubs, each game's sockets on two of them, paced",
                    [x.url for x in h], games, args.seconds, True, [x.pid for x in h], client,
                    args.workers,
                )  # fmt: skip
                report(r)
        finally:
            for i, hub in enumerate(hubs):
                hub.stop()
                problems = [line for line in hub.log if "rror" in line]
                if problems:
                    print(f"hub {i}: {len(problems)} error lines, first: {problems[0]}")


if __name__ == "__main__":
    main()
