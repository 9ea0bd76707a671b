"""An arena of many players on one hub and on two: how soon a player freed by their game's
end is paired again, and the hubs' CPU per pairing, beside plain quick pairing (the
lobby's) measured in the same run on the same hubs.

    python bench/tournament.py [--players 500] [--seconds 15] [--hubs 1,2] [--pairings arena,quick]

Accounts and their sessions are written straight to PostgreSQL and Redis (signing up 500
people through the site would spend a minute hashing passwords); everything else goes
through the hubs as a browser's would: joining over HTTP, one websocket a player, each
game ended by a resignation from the player its id picks, as soon as the pairing
arrives. The arena's minute lasts ``--seconds`` (BRANDUBH_TOURNAMENT_SCALE).

Latency: arena, from a result to the pairing that takes the player again, by Redis's
clock (the tournament's own log); quick pairing, from sending ``quick`` to the game's id
on the socket, by this process's clock. CPU: the hub processes' user+system time over the
run (/proc), divided by the games paired.

Frames: one socket follows the arena; every ``tournament`` and ``tournament_delta`` frame it
gets is measured and folded (a snapshot, deltas applied: hub/tournaments/delta.py) into the
view, whose whole frame is what each change would cost without deltas: bytes per change
and per second of play, side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import httpx
import msgpack
import websockets
from redis.asyncio import Redis

from brandubh.hub.accounts import Sessions
from brandubh.hub.live import Player
from brandubh.hub.tournaments.delta import Delta, apply
from brandubh.run.redis_server import EmbeddedRedis
from brandubh.run.serve import raise_descriptor_limit
from brandubh.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from measure import pct
from services import HubProcess, shared_database

# The arena starts this long after its creation (s, a player): every player joins first
# (each join answers with the whole tournament, so 500 joins take tens of seconds).
JOIN_S_PER_PLAYER = 0.08


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process and its children (a hub's workers)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(x) for x in fields[11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


async def accounts(db_url: str, redis_url: str, n: int) -> list[tuple[str, str]]:
    """``n`` confirmed accounts with a session each: (player id, session token)."""
    store = Store.from_url(db_url)
    redis = Redis.from_url(redis_url)
    sessions = Sessions(redis)
    out = []
    for i in range(n):
        pid = f"b{secrets.token_hex(6)}"
        email = f"{pid}@example.org"
        await store.create_account(pid, email, f"Bench {i}", "x")
        await store.mark_verified(pid, email)
        token, _ = await sessions.create_account_session(Player(pid, f"Bench {i}"))
        out.append((pid, token))
    await store.close()
    await redis.aclose()
    return out


class Client:
    """One player: an HTTP client and a websocket, both with its session."""

    def __init__(self, n: int, pid: str, token: str, hub: HubProcess) -> None:
        self.pid, self.token, self.hub = pid, token, hub
        # Each player from an address of its own, as people come (per-address limits; the
        # hub trusts X-Forwarded-For from 127.0.0.1).
        self.address = f"198.18.{n >> 8}.{n & 255}"
        self.http = httpx.AsyncClient(
            base_url=hub.url,
            headers={"Origin": hub.url, "X-Forwarded-For": self.address},
            cookies={"bd_session": token},
        )
        self.ws: Any = None
        self.largest_frame = 0  # bytes: the largest tournament frame received (or delta)
        # (when, bytes, frame) of each tournament frame received
        self.tournament_frames: list[tuple[float, int, dict[str, Any]]] = []

    async def connect(self) -> None:
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.ws = await websockets.connect(
            self.hub.ws_url,
            additional_headers={
                "Cookie": f"bd_session={self.token}",
                "X-Forwarded-For": self.address,
            },
        )
        # Pings answered all along (between the runs too), or the hub closes the socket.
        self.reader = asyncio.create_task(self._read())
        await self.recv()  # hello

    async def _read(self) -> None:
        while True:
            raw = await self.ws.recv()
            msg: dict[str, Any] = msgpack.unpackb(raw, raw=False)
            if msg["t"] in ("tournament", "tournament_delta"):
                self.largest_frame = max(self.largest_frame, len(raw))
                self.tournament_frames.append((time.monotonic(), len(raw), msg))
            if msg["t"] == "ping":
                await self.send({"t": "pong", "n": msg["n"]})
            else:
                self.inbox.put_nowait(msg)

    async def send(self, msg: dict[str, Any]) -> None:
        await self.ws.send(msgpack.packb(msg))

    async def recv(self) -> dict[str, Any]:
        return await self.inbox.get()

    async def close(self) -> None:
        self.reader.cancel()
        await self.ws.close()
        await self.http.aclose()


def resigns(game: str) -> str:
    """Which side resigns a game: drawn from its id."""
    return "attackers" if hashlib.sha256(game.encode()).digest()[0] % 2 else "defenders"


async def arena(
    clients: list[Client], seconds: float, cpu: Callable[[], float]
) -> tuple[int, list[float], float]:
    """Run one arena; (games paired, waits in ms from a result to the next pairing). It
    starts once every player has joined, so that all play from the start."""
    join_s = 5 + JOIN_S_PER_PLAYER * len(clients)
    starts = int(time.time() * 1000) + int(join_s * 1000)
    r = await clients[0].http.post(
        "/api/tournaments",
        json={
            "name": "Bench arena",
            "format": "arena",
            "ruleset": "nielsen",
            "move_time": 60,
            "starts_at": starts,
            "duration_min": 1,
        },
    )
    r.raise_for_status()
    tid = r.json()["id"]
    await clients[0].send({"t": "follow_tournament", "tournament": tid, "on": True})
    sem = asyncio.Semaphore(32)

    async def join(c: Client) -> None:
        async with sem:
            (await c.http.post(f"/api/tournaments/{tid}/join")).raise_for_status()

    await asyncio.gather(*(join(c) for c in clients))
    if time.time() * 1000 > starts:
        print(f"(the joins took over {join_s:.0f} s: the arena began with fewer players)")

    async def play(c: Client) -> None:
        while True:
            msg = await c.recv()
            if msg["t"] == "tournament_game" and msg["side"] == resigns(msg["game"]):
                await c.send({"t": "resign", "game": msg["game"], "id": f"r{msg['game']}"})

    players = [asyncio.create_task(play(c)) for c in clients]
    await asyncio.sleep(max(0.0, starts / 1000 - time.time()))
    before = cpu()
    while True:
        await asyncio.sleep(1)
        view = (await clients[0].http.get(f"/api/tournaments/{tid}")).json()
        if view["status"] == "finished" or time.time() * 1000 > starts + seconds * 2000 + 30_000:
            break
    spent = cpu() - before
    for task in players:
        task.cancel()
    export = (await clients[0].http.get(f"/api/tournaments/{tid}/export")).json()
    # The frame's size beside what it would be carrying the whole view (every game).
    view.pop("me", None)
    whole = len(msgpack.packb({**view, "t": "tournament", "tournament": tid}))
    print(
        f"arena of {len(clients)}: {len(view.get('games') or [])} games; largest tournament "
        f"frame {clients[0].largest_frame} bytes (the whole view: {whole} bytes)"
    )
    frame_sizes(clients[0].tournament_frames)
    sides: dict[str, tuple[str, str]] = {}
    freed: dict[str, int] = {}
    waits: list[float] = []
    for e in export["events"]:
        if e["t"] == "pairing":
            for g in e["games"]:
                sides[g["id"]] = (g["attackers"], g["defenders"])
                for p in sides[g["id"]]:
                    if p in freed:
                        waits.append(e["at"] - freed.pop(p))
        elif e["t"] == "result":
            for p in sides[e["game"]]:
                freed[p] = e["at"]
    return len(sides), waits, spent


WIRE = ("t", "tournament", "version", "base")


def frame_sizes(frames: list[tuple[float, int, dict[str, Any]]]) -> None:
    """A follower's frames while the arena ran: as sent (a delta a change, a whole frame
    now and then), beside the whole frame each change would be without deltas."""
    view: dict[str, Any] | None = None
    version = -1
    sent: list[int] = []
    whole: list[int] = []
    times: list[float] = []
    deltas = gaps = late = 0
    for at, size, m in frames:
        body = {k: v for k, v in m.items() if k not in WIRE}
        if m["version"] <= version:
            late += 1  # another hub's, after a newer one: the client leaves it
            continue
        if m["t"] == "tournament":
            view, version = body, m["version"]
        elif view is not None and m["base"] == version:
            view, version = apply(view, cast(Delta, body)), m["version"]
            deltas += 1
        else:
            gaps += 1  # a version missed: the client follows again
            continue
        if view.get("status") != "running":
            continue
        sent.append(size)
        times.append(at)
        full = {**view, "t": "tournament", "tournament": m["tournament"], "version": version}
        whole.append(len(msgpack.packb(full)))
    if len(times) < 2:
        print("(too few frames while the arena ran to measure them)")
        return
    span = times[-1] - times[0]
    print(
        f"frames while the arena ran: {len(sent)} changes ({deltas} deltas in all, {gaps} "
        f"gaps, {late} late) over {span:.1f} s"
    )
    print(f"{'':<14}{'bytes/change':>14}{'max bytes':>11}{'KB/s':>9}")
    for name, sizes in (("whole frames", whole), ("deltas", sent)):
        mean = statistics.mean(sizes)
        print(f"{name:<14}{mean:>14,.0f}{max(sizes):>11,}{sum(sizes) / span / 1000:>9,.1f}")


async def quick(
    clients: list[Client], seconds: float, cpu: Callable[[], float]
) -> tuple[int, list[float], float]:
    """Quick pairing for ``seconds``: each player asks, plays (one resigns), asks again."""
    waits: list[float] = []
    games: set[str] = set()
    end = time.monotonic() + seconds

    async def play(c: Client, n: int) -> None:
        while time.monotonic() < end:
            asked = time.monotonic()
            await c.send({"t": "quick", "ruleset": "nielsen", "move_time": 60, "id": f"q{n}"})
            game = ""
            while not game:
                msg = await c.recv()
                mine = msg["t"] == "ack" and msg.get("id") == f"q{n}" and msg.get("game")
                if mine or (msg["t"] == "paired" and c.pid in msg["players"]):
                    game = msg["game"]
            waits.append((time.monotonic() - asked) * 1000)
            n += 1
            if game in games:
                continue  # the opponent resigns this one
            games.add(game)
            await c.send({"t": "resign", "game": game, "id": f"r{game}"})

    before = cpu()
    tasks = [asyncio.create_task(play(c, 0)) for c in clients]
    await asyncio.sleep(seconds)
    spent = cpu() - before
    for task in tasks:
        task.cancel()
    return len(games), waits, spent


async def run(
    players: int, seconds: float, hub_counts: list[int], db_url: str, kinds: list[str]
) -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(Path(tmp)) as server:
        env = {
            "BRANDUBH_TOURNAMENT_SCALE": str(seconds / 60),
            "BRANDUBH_LOG_LEVEL": "warning",
            # Every player connects from this machine: no per-address caps.
            "BRANDUBH_CONNECTIONS_PER_ADDRESS": "0",
            "BRANDUBH_SOCKETS_PER_ADDRESS": "0",
        }
        for count in hub_counts:
            hubs = [HubProcess(server.url, env, database_url=db_url).start() for _ in range(count)]
            try:
                made = await accounts(db_url, server.url, players)
                clients = [Client(i, p, t, hubs[i % count]) for i, (p, t) in enumerate(made)]
                for c in clients:
                    await c.connect()

                def cpu(hubs: list[HubProcess] = hubs) -> float:
                    return sum(cpu_s(h.pid) for h in hubs)

                for kind, fn in (("arena", arena), ("quick pairing", quick)):
                    if kind.split()[0] not in kinds:
                        continue
                    paired, waits, spent = await fn(clients, seconds, cpu)
                    rows.append((count, kind, paired, waits, spent))
                for c in clients:
                    await c.close()
            finally:
                for h in hubs:
                    h.stop()
    print(f"{players} players, {seconds:.0f} s each run")
    print(f"{'hubs':>4}  {'pairing':<14}{'games':>7}{'p50 ms':>9}{'p90 ms':>9}{'CPU ms/game':>13}")
    for count, kind, paired, waits, used in rows:
        p50, p90 = statistics.median(waits) if waits else float("nan"), pct(waits, 90)
        per = used * 1000 / paired if paired else float("nan")
        print(f"{count:>4}  {kind:<14}{paired:>7}{p50:>9.0f}{p90:>9.0f}{per:>13.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=500)
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--hubs", default="1,2", help="hub counts to run, comma separated")
    ap.add_argument("--pairings", default="arena,quick", help="arena, quick or both")
    args = ap.parse_args()
    counts = [int(x) for x in args.hubs.split(",")]
    kinds = args.pairings.split(",")
    raise_descriptor_limit()  # a socket and an HTTP connection a player
    asyncio.run(run(args.players, args.seconds, counts, shared_database(), kinds))


if __name__ == "__main__":
    main()
