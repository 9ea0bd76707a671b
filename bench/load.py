"""Load on the hub: scripted games over loopback against hub processes and one Redis.

    python bench/load.py [--games 500] [--seconds 20] [--saturation-games 100]
                         [--saturation-seconds 10] [--fanout-games 200] [--workers 3]
                         [--idle-seconds 20] [--socket-conns 3000] [--payload-moves 10]
                         [--only echo,relay,node,idle,payload,sockets,one,saturation,two,fanout]
    python bench/load.py --cluster [...]   (bench/cluster.py: on a Redis Cluster)

Each game has two players and a spectator, each on its own websocket. Paced: a player
waits 500 +- 100 ms after its turn arrives, then moves (about 2 moves a second a game).
Saturation: every player moves as soon as its turn arrives. The round trip is from the
mover's send until the mover, the opponent and the spectator all hold the event.

Printed for each load: moves/s, round trip p50/p95/p99/max, games that fell behind, the
CPU per move of the hubs, of Redis and of the load generator itself (which runs in
several processes with a bare asyncio websocket client, bench/rawws.py, so that it costs
less than the hub it measures), the hubs' and Redis's % of a core (CPU seconds over wall
seconds), and the pub/sub messages the hubs received per move.

Loads: paced on one hub and on two (a game's creator on one, the other player and the
spectator on the other); saturation on one hub; and the fan-out: four hubs, each game's
three sockets on two of them. Baselines in the same run, on the same stack and with the
same generator: a bare websocket echo (bench/echo_app.py), and a bare relay that forwards
each move to the game's three sockets with no validation or storage (bench/relay_app.py);
and the same relay on Node's ws package (bench/relay_node.mjs, after
``npm install --prefix bench``), paced and at saturation, where node and ws are found.
Games are staged straight into Redis with the service's own code (no sign-ups), so the
hubs spend the measured time only on play.

Fixed costs: idle, a hub with no socket and no game (its CPU with its children's and
Redis's over --idle-seconds, by bench/idle.py's measure, against the bare relay idle and
the same Redis before the hub);
sockets, bench/sockets.py's memory per idle socket on a fresh hub against the bare echo.
Payload: one long game through a hub, moves chosen from a seed that capture nothing where
they can and never bring a position round the second time, to the rule set's move limit;
over its first --payload-moves moves and as many before the limit, per move: the bytes
of the commands naming the game that Redis read (MONITOR: exact, and the largest of them,
the commit), all bytes Redis read (INFO total_net_input_bytes) net of the idle rate
measured just before (noisy while a hub polls), and the event frame's bytes.

At the end, the goals of issue 29 for the loads that ran: each figure, its same-run
baselines, the goal, pass or MISS. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import multiprocessing
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
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
from brandubh.run.redis_server import EmbeddedRedis  # noqa: E402
from measure import cpu_s, pct, redis_cpu_s  # noqa: E402
from services import HubProcess, shared_database  # noqa: E402

CORNERS = ("a1", "a7", "g1", "g7")
PACE_S = (0.4, 0.6)  # a player's wait after its turn arrives: 500 +- 100 ms


# -- processes --------------------------------------------------------------------------


def start_app(module: str) -> tuple[subprocess.Popen[str], str]:
    """A bare app of bench/ (echo or relay) under uvicorn with the hub's options."""
    return start_server(
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
        module,
    )


def start_server(cmd: list[str], name: str) -> tuple[subprocess.Popen[str], str]:
    """A server process of bench/ that prints 'running on http://host:port' once it listens."""
    proc = subprocess.Popen(
        cmd, cwd=HERE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        m = re.search(r"running on (http://\S+)", line)
        if m:
            # Keep reading its log (a line per connection): a full pipe would stall it.
            threading.Thread(target=proc.stdout.read, daemon=True).start()
            return proc, m.group(1)
    raise RuntimeError(f"{name} did not start")


def start_node_relay() -> tuple[subprocess.Popen[str], str] | str:
    """bench/relay_node.mjs under Node, or why it cannot run (no node, no `ws` package)."""
    node = shutil.which("node")
    if node is None:
        return "no node on PATH"
    found = subprocess.run(
        [node, "--input-type=module", "-e", "await import('ws')"],
        cwd=HERE,
        capture_output=True,
        text=True,
    )
    if found.returncode:
        return "the ws package is not installed: npm install --prefix bench"
    return start_server([node, str(HERE / "relay_node.mjs")], "relay_node.mjs")


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
    url: str,
    games: int,
    servers: list[tuple[int, int, int]],
    cluster: bool = False,
    ruleset: str = "nielsen",
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
                state, _ = await service.create(a, ruleset, 600, "friend", joiner=b)
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
    start, wall_start = time.perf_counter(), time.time()
    for _, parent in procs:
        parent.send(seconds)
    results = [parent.recv() for _, parent in procs]
    elapsed = time.perf_counter() - start
    if window_log := os.environ.get("BRANDUBH_LOAD_WINDOW"):  # bench/gc_pauses.py reads it
        with open(window_log, "a") as out:
            out.write(f"{name} {wall_start} {time.time()}\n")
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
        # Percent of one core over the run (CPU seconds / wall seconds), all hubs together.
        "core": {"hub": hub_cpu / elapsed * 100, "redis": redis_cpu / elapsed * 100},
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
    core = r["core"]
    print(f"  % of a core             hub {core['hub']:.0f} %, redis {core['redis']:.0f} %")
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


# -- idle, sockets, commit payload -------------------------------------------------------


def idle(
    client: redis.Redis, start_hub: Callable[[], HubProcess], seconds: float
) -> dict[str, float]:
    """The idle load: a hub with no socket and no game, and as baselines the bare relay
    and the same Redis before ``start_hub`` starts the hub (bench/idle.py's measure)."""
    from idle import SETTLE_S, measure

    proc, _ = start_app("relay_app")
    try:
        time.sleep(SETTLE_S)
        [relay], redis_alone, _ = measure([proc.pid], client, seconds)
    finally:
        proc.terminate()
        proc.wait()
    hub = start_hub()
    time.sleep(SETTLE_S)
    [hub_core], redis_core, _ = measure([hub.pid], client, seconds)
    print(f"\nidle, {seconds:.0f} s: no socket, no game (% of a core)")
    print(f"  hub                     {hub_core:>8.2f} %   (baseline: bare relay {relay:.2f} %)")
    print(
        f"  redis                   {redis_core:>8.2f} %   "
        f"(baseline: the same Redis before any hub, {redis_alone:.2f} %)"
    )
    return {"hub": hub_core, "redis": redis_core, "relay": relay, "redis_alone": redis_alone}


def idle_sockets(
    redis_url: str, env: dict[str, str], database: str, conns: int
) -> dict[str, float]:
    """bench/sockets.py's figure: KiB per idle websocket on a fresh hub, vs the bare echo."""
    import sockets

    proc, url = start_app("echo_app")
    try:
        echo_kib = asyncio.run(sockets.hold(url, proc.pid, conns))
    finally:
        proc.terminate()
        proc.wait()
    hub = HubProcess(redis_url, env, database_url=database).start()
    try:
        hub_kib = asyncio.run(sockets.hold(hub.url, hub.pid, conns))
    finally:
        hub.stop()
    print(f"\nidle sockets: {conns} connections held open")
    print(f"  hub memory per socket   {hub_kib:>8.1f} KiB   (baseline: bare echo {echo_kib:.1f})")
    return {"hub": hub_kib, "echo": echo_kib}


def net_in(client: redis.Redis) -> int:
    """Bytes Redis has read from all its clients so far."""
    return int(client.info("stats")["total_net_input_bytes"])


def info_cost(client: redis.Redis) -> int:
    """The bytes an INFO stats call itself adds to the count (the least of a few in a row)."""
    seen = [net_in(client) for _ in range(6)]
    return min(b - a for a, b in itertools.pairwise(seen))


@dataclass
class Window:
    """Redis input and event frames over a run of consecutive moves of one game."""

    first: int  # the ply before the window's first move
    moves: int = 0
    redis_bytes: float = 0.0  # all input, net of the idle rate and of the INFO calls
    idle_rate: float = 0.0  # bytes a second, measured just before
    frame_bytes: list[int] = field(default_factory=list)
    game_bytes: float = 0.0  # the commands that name the game (MONITOR), per move
    game_commands: float = 0.0  # how many, per move
    largest: tuple[str, float] = ("", 0.0)  # the largest such command (the commit), mean bytes


MONITOR_LINE = re.compile(rb"[\d.]+ \[\d+ ([^\]]*)\] (.*)", re.S)
MONITOR_ARG = re.compile(rb'"((?:[^"\\]|\\.)*)"')
MONITOR_ESCAPE = re.compile(rb"\\x[0-9a-fA-F]{2}|\\.")


class Monitor:
    """Redis MONITOR read by a thread: every command a client sends, split later at the
    markers ``mark`` sends; exact where INFO's byte counts carry the idle hub's noise."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self.lines: list[bytes] = []
        self.monitor = client.monitor()  # type: ignore[no-untyped-call]
        self.monitor.__enter__()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while True:
            line = self.monitor.connection.read_response()
            assert isinstance(line, bytes)
            self.lines.append(line)
            if b'"bench-mark-done"' in line:
                return

    def mark(self, label: str) -> None:
        self.client.echo(f"bench-mark-{label}")

    def windows(self, game: str) -> list[tuple[int, int, dict[str, list[int]]]]:
        """Per pair of open/close marks: bytes and count of the commands naming ``game``
        (as they went over the wire, in RESP), and their sizes by command name."""
        self.mark("done")
        self.thread.join(10)
        self.monitor.__exit__()
        out: list[tuple[int, int, dict[str, list[int]]]] = []
        sizes: dict[str, list[int]] | None = None
        for line in self.lines:
            m = MONITOR_LINE.match(line)
            if m is None:
                continue
            who, args = m.group(1), MONITOR_ARG.findall(m.group(2))
            if args[0].upper() == b"ECHO" and args[1].startswith(b"bench-mark-"):
                if args[1] == b"bench-mark-open":
                    sizes = {}
                elif args[1] == b"bench-mark-close" and sizes is not None:
                    flat = [n for v in sizes.values() for n in v]
                    out.append((sum(flat), len(flat), sizes))
                    sizes = None
            elif sizes is not None and who != b"lua" and game.encode() in line:
                # (Clients on a unix socket all show as its path: ours name no game.)
                name = args[0].decode().upper()
                if name.startswith(("EVALSHA", "FCALL")):  # which script or function
                    name += " " + args[1][:8].decode()
                sizes.setdefault(name, []).append(resp_bytes(args))
        return out


def resp_bytes(args: list[bytes]) -> int:
    """The bytes a command took on the wire (RESP), from MONITOR's quoted arguments."""
    n = len(b"*%d\r\n" % len(args))
    for arg in args:
        size = len(MONITOR_ESCAPE.sub(b"_", arg))
        n += len(b"$%d\r\n" % size) + size + 2
    return n


def payload(
    redis_url: str, client: redis.Redis, hub: HubProcess, ruleset: str, seed: int, moves: int,
    idle_s: float,
) -> dict[str, Any]:  # fmt: skip
    """The payload load: one long game through ``hub``; Redis input and event frame bytes
    per move over its first ``moves`` moves and the ``moves`` before its move limit."""
    from brandubh.engine import get_ruleset

    game = stage(redis_url, 1, [(0, 0, 0)], ruleset=ruleset)[0]
    limit = get_ruleset(ruleset).move_limit
    starts = [0, max(moves, limit - 1 - moves)]  # the limit's own move ends the game
    out = asyncio.run(_long_game(hub.url, game, client, ruleset, seed, moves, idle_s, starts))
    windows: list[Window] = out["windows"]
    print(
        f"\npayload: one {ruleset} game to ply {out['ply']} ({out['ending']}), "
        f"quiet moves chosen with seed {seed}"
    )
    for w in windows:
        frames = sum(w.frame_bytes) / max(len(w.frame_bytes), 1)
        print(
            f"  plies {plies(w):<8} Redis input per move: the game's "
            f"commands {w.game_bytes:>6,.0f} B ({w.game_commands:.1f} commands, "
            f"{w.largest[0]} {w.largest[1]:,.0f} B); all input {w.redis_bytes:>6,.0f} B "
            f"net of {w.idle_rate:,.0f} B/s idle; event frame {frames:,.0f} B"
        )
    if len(windows) < 2:
        print(f"  the game ended at ply {out['ply']}: no window near the move limit")
    return {"windows": windows, "ply": out["ply"], "ending": out["ending"]}


async def _long_game(
    url: str, game: Staged, client: redis.Redis, ruleset: str, seed: int, moves: int,
    idle_s: float, starts: list[int],
) -> dict[str, Any]:  # fmt: skip
    from brandubh.engine import Game

    loop = asyncio.get_running_loop()
    holders: dict[int, int] = {}  # ply -> sockets holding the state after it
    states: dict[int, dict[str, Any]] = {}
    frames: dict[int, int] = {}  # ply -> bytes of the spectator's event frame
    waiters: dict[int, asyncio.Future[None]] = {}
    problems: list[str] = []

    def on_message(sock: rawws.RawSocket, data: bytes, role: str) -> None:
        msg = msgpack.unpackb(data, raw=False)
        t = msg["t"]
        if t == "ping":
            sock.send(msgpack.packb({"t": "pong", "n": msg["n"]}))
        elif t == "error":
            problems.append(str(msg))
            for fut in waiters.values():
                if not fut.done():
                    fut.set_exception(RuntimeError(f"the hub refused a move: {msg}"))
        elif t in ("snapshot", "event"):
            st = msg["state"]
            ply = st["ply"]
            states[ply] = st
            if t == "event" and role == "spectator":
                frames[ply] = len(data)
            holders[ply] = holders.get(ply, 0) + 1
            if holders[ply] == 3 and ply in waiters and not waiters[ply].done():
                waiters[ply].set_result(None)

    async def held(ply: int) -> dict[str, Any]:
        """The state after ``ply`` plies, once all three sockets hold it."""
        if holders.get(ply, 0) < 3:
            await asyncio.wait_for(waiters.setdefault(ply, loop.create_future()), 10)
        return states[ply]

    socks: dict[str, rawws.RawSocket] = {}
    for seat in game.seats:

        def handler(sock: rawws.RawSocket, data: bytes, role: str = seat.role) -> None:
            on_message(sock, data, role)

        socks[seat.role] = await rawws.connect(url + "/ws", handler, seat.cookie)
        socks[seat.role].send(msgpack.packb({"t": "watch", "game": game.game}))

    shadow = Game(ruleset)  # the game as played, to look one move ahead
    rng = random.Random(seed)

    def quiet(text: str, captures: bool) -> bool:
        """Whether ``text`` keeps the game going: no capture (unless ``captures``), no
        ending, no position for the second time (so never for the third)."""
        if "x" in text and not captures:
            return False
        shadow.play(text)
        ok = shadow.result is None and shadow.repetitions < 2
        shadow.pop()
        return ok

    def choose(legal: list[str]) -> str:
        legal = sorted(legal)
        rng.shuffle(legal)
        for captures in (False, True):
            for text in legal:
                if quiet(text, captures):
                    return text
        return legal[0]  # every move ends the game (the move limit)

    windows: list[Window] = []
    w: Window | None = None
    b0, t0 = 0, 0.0
    cost = info_cost(client)
    monitor = Monitor(client)
    st = await held(0)
    while st["status"] == "active":
        ply = st["ply"]
        if starts and ply == starts[0]:
            w = Window(ply)
            b0 = net_in(client)
            await asyncio.sleep(idle_s)
            w.idle_rate = (net_in(client) - b0 - cost) / idle_s
            monitor.mark("open")
            b0, t0 = net_in(client), time.perf_counter()
        text = choose(st["legal"])
        shadow.play(text)
        socks[st["turn"]].send(
            msgpack.packb(
                {"t": "move", "game": game.game, "ply": ply, "move": text, "id": f"m{ply}"}
            )
        )
        st = await held(ply + 1)
        if st["position"] != shadow.position:
            raise RuntimeError(f"ply {ply + 1}: the hub's position is not the engine's")
        if w is not None:
            w.moves += 1
            w.frame_bytes.append(frames.get(ply + 1, 0))
            if w.moves == moves:
                await asyncio.sleep(0.1)  # what a move writes after its event (settle)
                elapsed = time.perf_counter() - t0
                w.redis_bytes = (net_in(client) - b0 - cost - w.idle_rate * elapsed) / moves
                monitor.mark("close")
                windows.append(w)
                starts.pop(0)
                w = None
    for sock in socks.values():
        sock.close()
    for w, (total, count, sizes) in zip(windows, monitor.windows(game.game), strict=True):
        w.game_bytes, w.game_commands = total / w.moves, count / w.moves
        if sizes:
            name, each = max(sizes.items(), key=lambda kv: max(kv[1]))
            w.largest = (name, sum(each) / len(each))
    result = st.get("result") or {}
    return {"windows": windows, "ply": st["ply"], "ending": result.get("reason", st["status"])}


# -- the goals of issue 29 ----------------------------------------------------------------


def plies(w: Window) -> str:
    return f"{w.first + 1}-{w.first + w.moves}"


def p99_ms(r: dict[str, Any]) -> float:
    return pct([x * 1000 for x in r["rtts"]], 99)


def goals(f: dict[str, Any], games: int) -> None:
    """The goals table: each figure of this run, its same-run baselines, the goal, pass/miss."""
    rows: list[tuple[str, str, str, str, str]] = []

    def row(figure: str, measured: str, baseline: str, goal: str, ok: bool | None) -> None:
        verdict = "" if ok is None else "pass" if ok else "MISS"
        rows.append((figure, measured, baseline, goal, verdict))

    def relays(load: str, show: Any) -> str:
        """The load's figure on the bare relays that ran (Python's stack; Node's ws)."""
        out = [
            f"{label} {show(f[key][load])}"
            for key, label in (("relay", "bare relay"), ("node", "node ws"))
            if isinstance(f.get(key), dict)
        ]
        return ", ".join(out) or "-"

    if "saturation" in f:
        r = f["saturation"]
        hub, red = r["cpu"]["hub"], r["cpu"]["redis"]
        us = relays("saturation", lambda b: f"{b['cpu']['hub']:,.0f} us")
        row("saturation, one hub: hub CPU/move", f"{hub:,.0f} us", us, "<= 300 us", hub <= 300)
        row("saturation, one hub: Redis CPU/move", f"{red:,.0f} us", "-", "<= 80 us", red <= 80)
    if "one" in f:
        r = f["one"]
        p99, core = p99_ms(r), r["core"]["hub"]
        ms = relays("paced", lambda b: f"{p99_ms(b):.1f} ms")
        row(f"paced {games}, one hub: p99", f"{p99:.1f} ms", ms, "<= 20 ms", p99 <= 20)
        cores = relays("paced", lambda b: f"{b['core']['hub']:.0f} %")
        row(f"paced {games}, one hub: hub CPU", f"{core:.0f} % of a core", cores, "<= 40 %",
            core <= 40)  # fmt: skip
    if "two" in f:
        p99 = p99_ms(f["two"])
        one = f"one hub {p99_ms(f['one']):.1f} ms" if "one" in f else "one hub: not run"
        beat = p99 < p99_ms(f["one"]) if "one" in f else None
        row(f"paced {games}, two hubs: p99", f"{p99:.1f} ms", one, "< one hub's", beat)
        core = f["two"]["core"]["hub"]
        row(f"paced {games}, two hubs: hub CPU", f"{core:.0f} % of a core", "", "", None)
    if "idle" in f:
        i = f["idle"]
        row("idle hub CPU", f"{i['hub']:.2f} %", f"bare relay {i['relay']:.2f} %", "< 1 %",
            i["hub"] < 1)  # fmt: skip
        row("idle Redis CPU", f"{i['redis']:.2f} %", f"before any hub {i['redis_alone']:.2f} %",
            "< 1 %", i["redis"] < 1)  # fmt: skip
    if "sockets" in f:
        k = f["sockets"]
        row("idle socket, hub memory", f"{k['hub']:.1f} KiB", f"bare echo {k['echo']:.1f} KiB",
            "<= 14 KiB", k["hub"] <= 14)  # fmt: skip
    if "payload" in f and len(f["payload"]["windows"]) == 2:
        early, late = f["payload"]["windows"]
        (name, lb), (_, eb) = late.largest, early.largest
        ratio = lb / eb if eb > 0 else float("inf")
        row(
            f"commit ({name}) bytes, plies {plies(late)} vs {plies(early)}",
            f"{lb:,.0f} / {eb:,.0f} B = {ratio:.2f}x", "-", "<= 1.2x", ratio <= 1.2,
        )  # fmt: skip
        ratio = late.game_bytes / early.game_bytes if early.game_bytes > 0 else float("inf")
        row(
            "Redis input naming the game, per move",
            f"{late.game_bytes:,.0f} / {early.game_bytes:,.0f} B = {ratio:.2f}x", "", "", None,
        )  # fmt: skip
        fe, fl = (sum(w.frame_bytes) / max(len(w.frame_bytes), 1) for w in (early, late))
        row("event frame, same plies", f"{fl:,.0f} / {fe:,.0f} B", "", "", None)
    if isinstance(f.get("node"), str):
        row("Node ws relay", f"skipped ({f['node']})", "", "", None)
    if not rows:
        return
    head = ("figure", "measured", "same-run baselines", "goal (issue 29)", "")
    widths = [max(len(x[i]) for x in (head, *rows)) for i in range(5)]
    print("\ngoals")
    for line in (head, *rows):
        print("  " + "  ".join(x.ljust(w) for x, w in zip(line, widths, strict=True)).rstrip())


def relay(
    started: tuple[subprocess.Popen[str], str], title: str, args: argparse.Namespace
) -> dict[str, dict[str, Any]]:
    """A bare relay baseline, paced and at saturation (each move to 3 sockets)."""
    proc, url = started
    try:
        fake = [
            Staged(f"room{i}", [Seat(r, 0, None) for r in ("attackers", "defenders", "spectator")])
            for i in range(max(args.games, args.saturation_games))
        ]
        paced = run_load(
            f"baseline: {title} (each move to 3 sockets), paced",
            [url], fake[: args.games], args.seconds, True, [proc.pid], None, args.workers, True,
        )  # fmt: skip
        report(paced)
        saturation = run_load(
            f"baseline: {title}, saturation",
            [url], fake[: args.saturation_games], args.saturation_seconds, False,
            [proc.pid], None, args.workers, True,
        )  # fmt: skip
        report(saturation)
    finally:
        proc.terminate()
        proc.wait()
    return {"paced": paced, "saturation": saturation}


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
    parser.add_argument("--idle-seconds", type=float, default=20, help="idle: how long")
    parser.add_argument("--socket-conns", type=int, default=3000, help="sockets: how many")
    parser.add_argument(
        "--payload-moves", type=int, default=10, help="payload: moves in each window"
    )
    parser.add_argument("--payload-seed", type=int, default=1, help="payload: the moves' seed")
    parser.add_argument("--payload-ruleset", default="nielsen", help="payload: the rule set")
    parser.add_argument(
        "--payload-idle-seconds",
        type=float,
        default=3,
        help="payload: how long the idle rate is measured before each window",
    )
    parser.add_argument(
        "--only",
        default="",
        help="comma-separated: echo,relay,node,idle,payload,sockets,one,saturation,two,fanout",
    )
    args = parser.parse_args()
    figures: dict[str, Any] = {}
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
        figures["relay"] = relay(start_app("relay_app"), "bare relay", args)
    if wanted("node"):
        node = start_node_relay()
        if isinstance(node, str):
            print(f"\nNode ws relay: skipped ({node})")
            figures["node"] = node
        else:
            figures["node"] = relay(node, "Node ws relay (bench/relay_node.mjs)", args)

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
            # First the loads that want a Redis holding no other game and a hub without one.
            if wanted("idle"):
                figures["idle"] = idle(client, lambda: need(1)[0], args.idle_seconds)
            if wanted("payload"):
                figures["payload"] = payload(
                    server.url, client, need(1)[0], args.payload_ruleset, args.payload_seed,
                    args.payload_moves, args.payload_idle_seconds,
                )  # fmt: skip
            if wanted("sockets"):
                figures["sockets"] = idle_sockets(server.url, env, database, args.socket_conns)
            if wanted("one"):
                h = need(1)
                games = stage(server.url, args.games, [(0, 0, 0)])
                r = run_load(
                    "paced, one hub",
                    [x.url for x in h], games, args.seconds, True, [x.pid for x in h], client,
                    args.workers,
                )  # fmt: skip
                report(r)
                figures["one"] = r
            if wanted("saturation"):
                h = need(1)
                games = stage(server.url, args.saturation_games, [(0, 0, 0)])
                r = run_load(
                    "saturation, one hub",
                    [x.url for x in h], games, args.saturation_seconds, False,
                    [x.pid for x in h], client, args.workers,
                )  # fmt: skip
                report(r)
                figures["saturation"] = r
            if wanted("two"):
                h = need(2)
                games = stage(server.url, args.games, [(0, 1, 1), (1, 0, 0)])
                r = run_load(
                    "paced, two hubs (creator on one, joiner and spectator on the other)",
                    [x.url for x in h], games, args.seconds, True, [x.pid for x in h], client,
                    args.workers,
                )  # fmt: skip
                report(r)
                figures["two"] = r
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
    goals(figures, args.games)


if __name__ == "__main__":
    main()
