"""The service on a Redis Cluster: load beside one Redis, and what a failover costs.

    python bench/cluster.py [--games 200] [--seconds 15] [--saturation-games 60]
                            [--failover-games 60] [--wait-ms 100] [--skip-load]
    python bench/load.py --cluster ...   (the same)

Load: the paced and saturation loads of bench/load.py, first on one Redis, then on a
local cluster of three masters and three replicas, figures side by side (same run, same
machine; the cluster's six servers share its cores with everything else).

Failover: two hubs on the cluster, games moving as fast as their players may, and a few
idle games whose deadlines fall due around the kill; one master holding games is SIGKILLed
and its replica promoted. Printed: moves acknowledged, acknowledged moves lost (an ack
whose event the new master does not hold), games that stalled and for how long, and
deadline misfires (an idle game not ended on time exactly once). Run once without WAIT
(BRANDUBH_REDIS_WAIT_REPLICAS=0) and once with 1 (the default on a cluster), with the
ack latency of each. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import random
import signal
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import httpx
import msgpack
import redis
import websockets

from brandubh.hub import keys
from brandubh.redis_server import EmbeddedCluster, EmbeddedRedis
from load import CORNERS, LiveGame, load, make_game, pct, report
from services import HubProcess

LOAD_ENV = {"BRANDUBH_CREDITS": "100000"}
CLUSTER_ENV = {**LOAD_ENV, "BRANDUBH_REDIS_CLUSTER": "1"}


class ClusterInfo:
    """INFO over a whole cluster, for bench/load.py's figures: memory summed over the
    masters (replicas hold copies), CPU over every node (replication costs CPU too)."""

    def __init__(self, cluster: EmbeddedCluster) -> None:
        self.cluster = cluster

    def info(self, section: str) -> dict[str, float]:
        masters = set(self.cluster.master_ports())
        total: dict[str, float] = {}
        for port in self.cluster.live_ports():
            if section == "memory" and port not in masters:
                continue
            client = redis.Redis(port=port)
            try:
                for k, v in client.info(section).items():
                    if isinstance(v, int | float):
                        total[k] = total.get(k, 0) + v
            finally:
                client.close()
        return total


# -- load, one Redis beside the cluster -----------------------------------------------------


async def load_both(args: argparse.Namespace, tmp: Path) -> None:
    results: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
    with EmbeddedRedis(tmp / "single") as single:
        results["one Redis"] = await load_on(
            single.url, LOAD_ENV, redis.Redis.from_url(single.url), args
        )
    with EmbeddedCluster(tmp / "cluster") as cluster:
        info = cast(redis.Redis, ClusterInfo(cluster))
        results["cluster 3+3"] = await load_on(cluster.url, CLUSTER_ENV, info, args)
    print("\nside by side (same run):")
    head = f"{'moves/s':>14}{'p50 ms':>8}{'p99 ms':>8}"
    print(f"  {'':24}{'paced':>14}{'':16}   {'saturation':>14}")
    print(f"  {'':24}{head}   {head}")
    for name, (paced, sat) in results.items():
        pm = [x * 1000 for x in paced["rtts"]]
        sm = [x * 1000 for x in sat["rtts"]]
        print(
            f"  {name:24}{paced['moves_per_s']:>14,.0f}{pct(pm, 50):>8.1f}{pct(pm, 99):>8.1f}"
            f"   {sat['moves_per_s']:>13,.0f}{pct(sm, 50):>8.1f}{pct(sm, 99):>8.1f}"
        )


async def load_on(
    url: str, env: dict[str, str], info: redis.Redis, args: argparse.Namespace
) -> tuple[dict[str, Any], dict[str, Any]]:
    procs = [HubProcess(url, env).start() for _ in range(args.hubs)]
    try:
        hubs, pids = [h.url for h in procs], [h.pid for h in procs]
        paced = await load(hubs, args.games, args.seconds, 1.0, pids, info)
        report(f"paced on {url} ({'cluster' if 'CLUSTER' in str(env) else 'one Redis'})", paced)
        sat = await load(hubs, args.saturation_games, args.seconds, None, pids, info)
        report("saturation", sat)
        return paced, sat
    finally:
        for h in procs:
            h.stop()


# -- failover -----------------------------------------------------------------------------


@dataclass
class Driven:
    """One game moved as fast as its players may, every ack recorded."""

    game: LiveGame
    base: str
    state: dict[str, Any] | None = None
    n: int = 0
    acks: list[tuple[float, int, str]] = field(default_factory=list)  # (when, n, move)
    latencies: list[float] = field(default_factory=list)
    replies: dict[str, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    closed: bool = False  # its hub closed a socket: the game was not driven to the end

    async def read(self, role: str) -> None:
        ws = self.game.sockets[role]
        await ws.send(msgpack.packb({"t": "watch", "game": self.game.id}))
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
        r = await http.get(f"{self.base}/api/games/{self.game.id}")
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
            mid = f"{self.game.id}-{ply}"
            sent = time.perf_counter()
            while time.perf_counter() < stop + 30:
                fut = asyncio.get_running_loop().create_future()
                self.replies[mid] = fut
                frame = {"t": "move", "game": self.game.id, "ply": ply, "move": move, "id": mid}
                try:
                    await self.game.sockets[role].send(msgpack.packb(frame))
                    reply = await asyncio.wait_for(fut, 10)
                except TimeoutError:
                    continue  # sent again with the same id: a resend is safe
                except websockets.ConnectionClosed:
                    self.closed = True
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


async def failover_run(args: argparse.Namespace, tmp: Path, wait_replicas: int) -> dict[str, Any]:
    env = {**CLUSTER_ENV, "BRANDUBH_REDIS_WAIT_REPLICAS": str(wait_replicas)}
    env["BRANDUBH_REDIS_WAIT_MS"] = str(args.wait_ms)
    # A third hub with short deadlines plays the idle games' moves: each deadline is that
    # hub's allowance (600 s x 0.01) from its last move, so they fall due near the kill.
    fast_env = {**env, "BRANDUBH_TIME_SCALE": "0.01", "BRANDUBH_SCHEDULER_POLL_S": "0.02"}
    with EmbeddedCluster(tmp / f"failover-{wait_replicas}") as cluster:
        procs = [HubProcess(cluster.url, env).start() for _ in range(2)]
        procs.append(HubProcess(cluster.url, fast_env).start())
        hubs = [h.url for h in procs]
        client = redis.RedisCluster.from_url(cluster.url)
        try:
            sem = asyncio.Semaphore(10)
            readers: list[asyncio.Task[None]] = []

            async def make(i: int, base: str, other: str) -> Driven:
                async with sem:
                    d = Driven(await make_game(base, other), base)
                # Read at once: a socket that answers no ping is closed by its hub.
                readers.extend(
                    asyncio.create_task(d.read(role))
                    for role in ("attackers", "defenders", "spectator")
                )
                return d

            driven = list(
                await asyncio.gather(
                    *(make(i, hubs[i % 2], hubs[(i + 1) % 2]) for i in range(args.failover_games))
                )
            )
            idle = list(
                await asyncio.gather(*(make(i, hubs[2], hubs[2]) for i in range(args.idle_games)))
            )
            rng = random.Random(7)
            async with httpx.AsyncClient(timeout=10) as http:
                start = time.perf_counter()
                stop = start + args.failover_seconds
                drivers = [asyncio.create_task(d.drive(stop, rng, http)) for d in driven]
                # The idle games make both first moves (6 s a move) and then wait.
                await asyncio.gather(*(d.drive(stop, rng, http, most=2) for d in idle))
                idle_moved = time.perf_counter()
                await asyncio.sleep(max(0.0, args.failover_seconds / 2 - (idle_moved - start)))
                victim = master_of_most(client, [d.game.id for d in driven])
                doomed = {d.game.id for d in driven if master_port(client, d.game.id) == victim}
                killed_at = time.perf_counter()
                os.kill(cluster.processes[victim].pid, signal.SIGKILL)
                cluster.processes[victim].wait()
                await asyncio.gather(*drivers)
            await asyncio.sleep(3)
            cluster.wait_ok(30)
            client.close()
            client = redis.RedisCluster.from_url(cluster.url)
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
                if problems:
                    print(f"  hub {i}: {len(problems)} error lines, e.g.: {problems[-1][:200]}")
    return result


def events_of(client: redis.RedisCluster, game_id: str) -> list[dict[str, Any]]:
    raw = cast(list[bytes], client.lrange(keys.events(game_id), 0, -1))
    return [msgpack.unpackb(f, raw=False) for f in raw]


def master_port(client: redis.RedisCluster, game_id: str) -> int:
    node = client.get_node_from_key(keys.game(game_id))  # type: ignore[no-untyped-call]
    return int(node.port)


def master_of_most(client: redis.RedisCluster, game_ids: list[str]) -> int:
    counts: dict[int, int] = {}
    for g in game_ids:
        port = master_port(client, g)
        counts[port] = counts.get(port, 0) + 1
    return max(counts, key=lambda p: counts[p])


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
        stored = [
            msgpack.unpackb(f, raw=False) for f in client.lrange(keys.events(d.game.id), 0, -1)
        ]
        for _, n, move in d.acks:
            acked += 1
            if n > len(stored) or not str(stored[n - 1].get("move", "")).startswith(move[:5]):
                lost += 1
        times = [t for t, _, _ in d.acks]
        gaps = [b - a for a, b in itertools.pairwise(times) if b > killed_at - 1]
        if gaps and max(gaps) > 1.0:
            stalls[d.game.id in doomed].append(max(gaps))
    misfires = 0
    late: list[float] = []
    for d in idle:
        stored = [
            msgpack.unpackb(f, raw=False) for f in client.lrange(keys.events(d.game.id), 0, -1)
        ]
        ends = [e for e in stored if e["state"]["status"] == "ended"]
        if len(ends) != 1 or ends[0].get("kind") != "timeout":
            misfires += 1
            continue
        h = client.hgetall(keys.game(d.game.id))
        late.append((int(h[b"updated"]) - int(stored[-2]["state"]["deadline"])) / 1000)
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
        "closed": sum(d.closed for d in driven),
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
        print(f"  ({r['closed']} games stopped early: a hub closed a socket)")


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--hubs", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--saturation-games", type=int, default=60)
    parser.add_argument("--failover-games", type=int, default=60)
    parser.add_argument("--idle-games", type=int, default=10)
    parser.add_argument("--failover-seconds", type=float, default=12)
    parser.add_argument("--wait-ms", type=int, default=100)
    parser.add_argument("--skip-load", action="store_true")
    parser.add_argument("--cluster", action="store_true", help="(as called by load.py)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        if not args.skip_load:
            await load_both(args, Path(tmp))
        runs = {
            "no WAIT (BRANDUBH_REDIS_WAIT_REPLICAS=0)": 0,
            f"WAIT 1 {args.wait_ms} (BRANDUBH_REDIS_WAIT_REPLICAS=1)": 1,
        }
        for name, replicas in runs.items():
            print_failover(name, await failover_run(args, Path(tmp), replicas))


if __name__ == "__main__":
    asyncio.run(main())
