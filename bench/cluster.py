"""The service on a Redis Cluster: load beside one Redis, and what a failover costs.

    python bench/cluster.py [--games 100] [--seconds 10] [--saturation-games 40]
                            [--failover-games 24] [--idle-games 10] [--failover-seconds 12]
                            [--wait-ms 100] [--skip-load] [--skip-failover] [--workers 2]
    python bench/load.py --cluster ...   (the same)

Load: bench/load.py's paced and saturation loads on two hubs (each game's creator and
spectator on one, its joiner on the other), first on one Redis, then on a local cluster
of three masters and three replicas without waiting for replicas, then with WAIT 1 (the
default on a cluster): the figures side by side (same run, same machine; the cluster's
six servers share its cores with the hubs and the load generator).

Failover: two hubs on the cluster, games moving as fast as their players may, and a few
idle games on a third hub (short deadlines) whose deadlines fall due around the kill; the
master holding most games is SIGKILLed half-way and its replica promoted. Printed: moves
acknowledged, acknowledged moves lost (an ack whose move the new master does not hold),
games that stalled and for how long, and deadline misfires (an idle game not timed out
exactly once). Run once without WAIT and once with WAIT 1, with the ack latency of each.
Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import random
import re
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import httpx
import msgpack
import redis
import websockets
from websockets.asyncio.client import ClientConnection

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
from brandubh.hub.redis import keys  # noqa: E402
from brandubh.run.redis_server import EmbeddedCluster, EmbeddedRedis  # noqa: E402
from load import CORNERS, Staged, report, run_load, stage  # noqa: E402
from measure import pct  # noqa: E402
from services import HubProcess, shared_database  # noqa: E402

# Every simulated player comes from 127.0.0.1: lift the per-address limits.
LOAD_ENV = {
    "BRANDUBH_CREDITS": "100000",
    "BRANDUBH_SESSION_CREDITS": "100000",
    "BRANDUBH_SOCKETS_PER_ADDRESS": "0",
    "BRANDUBH_CONNECTIONS_PER_ADDRESS": "0",
}


def cluster_env(wait_replicas: int, wait_ms: int) -> dict[str, str]:
    return {
        **LOAD_ENV,
        "BRANDUBH_REDIS_CLUSTER": "1",
        "BRANDUBH_REDIS_WAIT_REPLICAS": str(wait_replicas),
        "BRANDUBH_REDIS_WAIT_MS": str(wait_ms),
    }


class ClusterInfo:
    """INFO over a whole cluster, for bench/load.py's figures: CPU summed over every node
    (replication and the cluster bus cost CPU too)."""

    def __init__(self, cluster: EmbeddedCluster) -> None:
        self.cluster = cluster

    def info(self, section: str) -> dict[str, float]:
        total: dict[str, float] = {}
        for port in self.cluster.live_ports():
            client = redis.Redis(port=port)
            try:
                for k, v in client.info(section).items():
                    if isinstance(v, int | float):
                        total[k] = total.get(k, 0) + v
            finally:
                client.close()
        return total


# -- load, one Redis beside the cluster -----------------------------------------------------


def load_all(args: argparse.Namespace, tmp: Path, database: str) -> None:
    results: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
    with EmbeddedRedis(tmp / "single") as single:
        client = redis.Redis.from_url(single.url)
        results["one Redis"] = load_on(single.url, LOAD_ENV, client, False, args, database)
        client.close()
    with EmbeddedCluster(tmp / "cluster") as cluster:
        info = cast(redis.Redis, ClusterInfo(cluster))
        for replicas in (0, 1):
            name = f"cluster 3+3, WAIT {replicas} {args.wait_ms}" if replicas else "cluster 3+3"
            env = cluster_env(replicas, args.wait_ms)
            results[name] = load_on(cluster.url, env, info, True, args, database)
    print("\nside by side (same run; round trip: mover's send to all three sockets holding it):")
    head = f"{'moves/s':>9}{'p50 ms':>8}{'p99 ms':>8}{'Redis us':>10}"
    print(f"  {'':26}{'paced':<35}{'saturation'}")
    print(f"  {'':26}{head}   {head}")
    for name, (paced, sat) in results.items():
        cols = []
        for r in (paced, sat):
            ms = [x * 1000 for x in r["rtts"]]
            cols.append(
                f"{r['moves_per_s']:>9,.0f}{pct(ms, 50):>8.1f}{pct(ms, 99):>8.1f}"
                f"{r['cpu']['redis']:>10,.0f}"
            )
        print(f"  {name:26}{cols[0]}   {cols[1]}")


def load_on(
    url: str,
    env: dict[str, str],
    info: redis.Redis,
    cluster: bool,
    args: argparse.Namespace,
    database: str,
) -> tuple[dict[str, Any], dict[str, Any]]:
    procs = [HubProcess(url, env, database_url=database).start() for _ in range(2)]
    label = "one Redis" if not cluster else f"cluster, WAIT {env['BRANDUBH_REDIS_WAIT_REPLICAS']}"
    try:
        urls, pids = [h.url for h in procs], [h.pid for h in procs]
        out = []
        for pace, games, name in (
            (True, args.games, "paced"),
            (False, args.saturation_games, "saturation"),
        ):
            staged = stage(url, games, [(0, 1, 0)], cluster=cluster)
            r = run_load(f"{name} on {label}", urls, staged, args.seconds, pace, pids, info,
                         args.workers)  # fmt: skip
            report(r)
            out.append(r)
        return out[0], out[1]
    finally:
        for h in procs:
            h.stop()


# -- failover -----------------------------------------------------------------------------


@dataclass
class Driven:
    """One game moved as fast as its players may, every ack recorded."""

    staged: Staged
    base: str
    sockets: dict[str, ClientConnection] = field(default_factory=dict)
    state: dict[str, Any] | None = None
    n: int = 0
    acks: list[tuple[float, int, str]] = field(default_factory=list)  # (when, n, move)
    latencies: list[float] = field(default_factory=list)
    replies: dict[str, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    closed: str = ""  # its hub closed a socket (code and reason): not driven to the end

    @property
    def id(self) -> str:
        return self.staged.game

    async def connect(self, urls: list[str]) -> None:
        for seat in self.staged.seats:
            url = urls[seat.server]
            headers = {"Origin": url, **({"Cookie": seat.cookie} if seat.cookie else {})}
            ws_url = url.replace("http://", "ws://") + "/ws"
            self.sockets[seat.role] = await websockets.connect(ws_url, additional_headers=headers)

    async def read(self, role: str) -> None:
        ws = self.sockets[role]
        await ws.send(msgpack.packb({"t": "watch", "game": self.id}))
        async for data in ws:
            msg = msgpack.unpackb(data, raw=False)
            t = msg["t"]
            if t == "ping":
                await ws.send(msgpack.packb({"t": "pong", "n": msg["n"]}))
            elif t in ("snapshot", "event") and msg["n"] >= self.n:
                self.n, self.state = msg["n"], msg["state"]
                self.changed.set()
            elif t in ("ack", "error"):
                fut = self.replies.pop(str(msg.get("id")), None)
                if fut is not None and not fut.done():
                    fut.set_result(msg)

    async def reload(self, http: httpx.AsyncClient) -> None:
        """Redis's word on the game (after a refusal: an acknowledged move may be lost)."""
        r = await http.get(f"{self.base}/api/games/{self.id}")
        if r.status_code == 200:
            body = r.json()
            self.n, self.state = body["n"], body["state"]

    async def drive(
        self, stop: float, rng: random.Random, http: httpx.AsyncClient, most: int = 10**9
    ) -> None:
        while time.perf_counter() < stop and len(self.acks) < most:
            while self.state is None:
                await asyncio.sleep(0.05)
            state = self.state
            if state["status"] != "active":
                return
            role, ply = state["turn"], state["ply"]
            quiet = [m for m in state["legal"] if "x" not in m and m[-2:] not in CORNERS]
            move = rng.choice(quiet or state["legal"])
            mid = f"{self.id}-{ply}"
            sent = time.perf_counter()
            while time.perf_counter() < stop + 30:
                fut = asyncio.get_running_loop().create_future()
                self.replies[mid] = fut
                frame = {"t": "move", "game": self.id, "ply": ply, "move": move, "id": mid}
                try:
                    await self.sockets[role].send(msgpack.packb(frame))
                    reply = await asyncio.wait_for(fut, 10)
                except TimeoutError:
                    continue  # sent again with the same id: a resend is safe
                except websockets.ConnectionClosed as exc:
                    self.closed = f"{exc.rcvd.code} {exc.rcvd.reason}" if exc.rcvd else "no close"
                    return
                if reply["t"] == "error" and reply["code"] == "unavailable":
                    await asyncio.sleep(0.2)
                    continue
                break
            else:
                return
            if reply["t"] == "ack":
                self.acks.append((time.perf_counter(), int(reply["n"]), move))
                self.latencies.append(time.perf_counter() - sent)
                while self.n < int(reply["n"]):
                    self.changed.clear()
                    try:
                        await asyncio.wait_for(self.changed.wait(), 5)
                    except TimeoutError:
                        await self.reload(http)
                        break
            else:
                await self.reload(http)


async def failover_run(
    args: argparse.Namespace, tmp: Path, wait_replicas: int, database: str
) -> dict[str, Any]:
    env = cluster_env(wait_replicas, args.wait_ms)
    # A third hub with short deadlines plays the idle games' moves: each deadline is that
    # hub's allowance (600 s x 0.01) from its last move, so they fall due near the kill.
    fast_env = {**env, "BRANDUBH_TIME_SCALE": "0.01", "BRANDUBH_SCHEDULER_POLL_S": "0.02"}
    with EmbeddedCluster(tmp / f"failover-{wait_replicas}") as cluster:
        procs = [HubProcess(cluster.url, env, database_url=database).start() for _ in range(2)]
        procs.append(HubProcess(cluster.url, fast_env, database_url=database).start())
        urls = [h.url for h in procs]
        client = redis.RedisCluster.from_url(cluster.url)
        readers: list[asyncio.Task[None]] = []
        try:
            staged = await asyncio.to_thread(
                stage, cluster.url, args.failover_games, [(0, 1, 0), (1, 0, 1)], True
            )
            idle_staged = await asyncio.to_thread(
                stage, cluster.url, args.idle_games, [(2, 2, 2)], True
            )
            driven = [Driven(s, urls[s.seats[0].server]) for s in staged]
            idle = [Driven(s, urls[2]) for s in idle_staged]
            for d in driven + idle:
                await d.connect(urls)
                # Read at once: a socket that answers no ping is closed by its hub.
                readers += [asyncio.create_task(d.read(role)) for role in d.sockets]
            rng = random.Random(7)
            async with httpx.AsyncClient(timeout=10) as http:
                start = time.perf_counter()
                stop = start + args.failover_seconds
                drivers = [asyncio.create_task(d.drive(stop, rng, http)) for d in driven]
                # The idle games make both first moves (6 s a move) and then wait.
                await asyncio.gather(*(d.drive(stop, rng, http, most=2) for d in idle))
                idle_moved = time.perf_counter()
                await asyncio.sleep(max(0.0, args.failover_seconds / 2 - (idle_moved - start)))
                victim = master_of_most(client, [d.id for d in driven])
                doomed = {d.id for d in driven if master_port(client, d.id) == victim}
                killed_at = time.perf_counter()
                os.kill(cluster.processes[victim].pid, signal.SIGKILL)
                cluster.processes[victim].wait()
                await asyncio.gather(*drivers)
            await asyncio.sleep(3)
            cluster.wait_ok(30)
            client.close()
            client = redis.RedisCluster(host="127.0.0.1", port=cluster.live_ports()[0])
            result = tally(client, driven, idle, killed_at, doomed)
        finally:
            for task in readers:
                task.cancel()
            client.close()
            for i, h in enumerate(procs):
                h.stop()
                problems = [
                    line.strip()
                    for line in h.log
                    if not line.startswith(" ") and ("rror" in line or "closed" in line)
                ]
                kinds: dict[str, int] = {}
                for line in problems:
                    kind = re.sub(r"[0-9.]+", "#", line.split(" - ", 1)[-1])[:150]
                    kinds[kind] = kinds.get(kind, 0) + 1
                for kind, count in sorted(kinds.items(), key=lambda kv: -kv[1])[:4]:
                    print(f"  hub {i}: {count} log lines like: {kind}")
                if args.tracebacks:  # the first traceback of each hub, whole
                    at = next((j for j, ln in enumerate(h.log) if "Traceback" in ln), None)
                    if at is not None:
                        print("".join(h.log[at : at + 60]))
    return result


def master_port(client: redis.RedisCluster, game_id: str) -> int:
    node = client.get_node_from_key(keys.game(game_id))  # type: ignore[no-untyped-call]
    return int(node.port)


def master_of_most(client: redis.RedisCluster, game_ids: list[str]) -> int:
    counts: dict[int, int] = {}
    for g in game_ids:
        port = master_port(client, g)
        counts[port] = counts.get(port, 0) + 1
    return max(counts, key=lambda p: counts[p])


def stored(client: redis.RedisCluster, game_id: str) -> list[dict[str, Any]]:
    raw = cast(list[bytes], client.lrange(keys.events(game_id), 0, -1))
    return [msgpack.unpackb(f, raw=False) for f in raw]


def tally(
    client: redis.RedisCluster,
    driven: list[Driven],
    idle: list[Driven],
    killed_at: float,
    doomed: set[str],
) -> dict[str, Any]:
    acked = lost = 0
    stalls: dict[bool, list[float]] = {True: [], False: []}  # on the killed master or not
    for d in driven:
        events = stored(client, d.id)
        for _, n, move in d.acks:
            acked += 1
            if n > len(events) or not str(events[n - 1].get("move", "")).startswith(move[:5]):
                lost += 1
        times = [t for t, _, _ in d.acks]
        gaps = [b - a for a, b in itertools.pairwise(times) if b > killed_at - 1]
        if gaps and max(gaps) > 1.0:
            stalls[d.id in doomed].append(max(gaps))
    misfires = 0
    late: list[float] = []
    for d in idle:
        events = stored(client, d.id)
        ends = [e for e in events if e["state"]["status"] == "ended"]
        if len(ends) != 1 or ends[0].get("kind") != "timeout":
            misfires += 1
            continue
        h = cast(dict[bytes, bytes], client.hgetall(keys.game(d.id)))
        late.append((int(h[b"updated"]) - int(events[-2]["state"]["deadline"])) / 1000)
    # Ack latency in quiet times: acks before the kill (the failover's own waits aside).
    latencies = [
        x * 1000
        for d in driven
        for (t, _, _), x in zip(d.acks, d.latencies, strict=True)
        if t < killed_at
    ]
    return {
        "acked": acked,
        "lost": lost,
        "games": len(driven),
        "doomed": len(doomed),
        "stalled": stalls,
        "idle": len(idle),
        "misfires": misfires,
        "late": late,
        "latencies": latencies,
        "closed": [d.closed for d in driven if d.closed],
    }


def print_failover(name: str, r: dict[str, Any]) -> None:
    ms = r["latencies"]
    print(f"\nfailover, {name}:")
    print(
        f"  moves acknowledged    {r['acked']:>8} in {r['games']} games "
        f"({r['doomed']} on the killed master)"
    )
    print(f"  acknowledged, lost    {r['lost']:>8}")
    for doomed, label in ((True, "on the killed master"), (False, "on the others")):
        stalls = r["stalled"][doomed]
        print(
            f"  stalled > 1 s, {label:21}{len(stalls):>4}"
            + (f"   longest {max(stalls):.1f} s, median {pct(stalls, 50):.1f} s" if stalls else "")
        )
    late = r["late"]
    print(
        f"  deadline misfires     {r['misfires']:>8} of {r['idle']} idle games"
        + (f"   (fired late by at most {max(late):.2f} s)" if late else "")
    )
    print(f"  move ack p50/p99      {pct(ms, 50):>8.1f} / {pct(ms, 99):.1f} ms (before the kill)")
    if r["closed"]:
        why = ", ".join(sorted(set(r["closed"])))
        print(f"  ({len(r['closed'])} games stopped early: a hub closed a socket: {why})")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--saturation-games", type=int, default=40)
    parser.add_argument("--failover-games", type=int, default=24)
    parser.add_argument("--idle-games", type=int, default=10)
    parser.add_argument("--failover-seconds", type=float, default=12)
    parser.add_argument("--wait-ms", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2, help="load generator processes")
    parser.add_argument("--skip-load", action="store_true")
    parser.add_argument("--skip-failover", action="store_true")
    parser.add_argument("--only-wait", action="store_true", help="only the failover with WAIT")
    parser.add_argument("--tracebacks", action="store_true", help="print the hubs' first")
    args = parser.parse_args(argv)
    print(f"{os.cpu_count()} cores shared by the hubs, every Redis server and the generator")
    database = shared_database()
    with tempfile.TemporaryDirectory() as tmp:
        if not args.skip_load:
            load_all(args, Path(tmp), database)
        if not args.skip_failover:
            runs = {"no WAIT (BRANDUBH_REDIS_WAIT_REPLICAS=0)": 0}
            runs[f"WAIT 1 {args.wait_ms} (BRANDUBH_REDIS_WAIT_REPLICAS=1, the default)"] = 1
            if args.only_wait:
                del runs["no WAIT (BRANDUBH_REDIS_WAIT_REPLICAS=0)"]
            for name, replicas in runs.items():
                result = asyncio.run(failover_run(args, Path(tmp), replicas, database))
                print_failover(name, result)


if __name__ == "__main__":
    main()
