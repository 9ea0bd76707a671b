"""The fixed cost of a service with nothing to do: no socket, no game, no analysis.

    python bench/idle.py [--seconds 20] [--hubs 1] [--workers 1] [--hub-src OTHER/src]

Starts one Redis, one PostgreSQL (embedded unless DATABASE_URL is set), ``--hubs`` hub
processes with the production polls and ``--workers`` analysis workers (``brandubh
analyse-worker``), lets them settle, then reads over ``--seconds`` the CPU each process
used (with its children: the bot's search pool, PostgreSQL's backends) from /proc, and
Redis's (``INFO cpu``: used_cpu_user + used_cpu_sys), as % of one core. The baseline in the
same run is the same Redis and PostgreSQL over the same span before any hub or worker
started (their own housekeeping). The goal: the whole service under 1 % of a core. Also
printed: the commands the idle service sent Redis per second, by command (``INFO
commandstats``), which is where an idle hub's own CPU goes.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
import services  # noqa: E402
from brandubh.run.redis_server import EmbeddedRedis  # noqa: E402
from measure import cpu_s, redis_cpu_s  # noqa: E402
from services import HubProcess, shared_database  # noqa: E402

SETTLE_S = 3.0  # a hub's start (migrations checked, scripts loaded, first beat) is not idle

# What production runs with, where the tests' launcher (tests/services.py) sets quicker polls.
PRODUCTION_POLLS = {"BRANDUBH_BOT_POLL_S": "1.0"}


def tree_cpu_s(pid: int) -> float:
    """CPU seconds of a process and of its live descendants."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            total += cpu_s(p)
        except OSError:
            continue
        todo += children.get(p, [])
    return total


def postgres_pid() -> int | None:
    """The embedded PostgreSQL's postmaster (None when DATABASE_URL names another)."""
    server = services._shared_database
    process = getattr(server, "process", None)
    return None if process is None else int(process.pid)


def command_calls(client: redis.Redis) -> dict[str, int]:
    """Redis's count of calls so far, by command."""
    stats = client.info("commandstats")
    return {name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()}


def measure(
    pids: list[int], client: redis.Redis, seconds: float
) -> tuple[list[float], float, dict[str, float]]:
    """% of a core each process tree and Redis used over ``seconds``, and the commands
    Redis was sent per second (the measuring's own INFO calls not counted)."""
    before = [tree_cpu_s(p) for p in pids]
    calls0 = command_calls(client)
    redis0, t0 = redis_cpu_s(client), time.monotonic()
    time.sleep(seconds)
    after = [tree_cpu_s(p) for p in pids]
    redis1, span = redis_cpu_s(client), time.monotonic() - t0
    calls1 = command_calls(client)
    rates = {
        name: (n - calls0.get(name, 0) - (2 if name == "info" else 0)) / span
        for name, n in calls1.items()
    }
    return (
        [(b - a) / span * 100 for a, b in zip(before, after, strict=True)],
        (redis1 - redis0) / span * 100,
        {name: rate for name, rate in rates.items() if rate > 0},
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--hubs", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--hub-src", default="", help="run the hubs from this source tree")
    args = parser.parse_args()

    env = dict(PRODUCTION_POLLS)
    if args.hub_src:
        env["PYTHONPATH"] = args.hub_src
    database = shared_database()
    pg = postgres_pid()
    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(Path(tmp)) as server:
        client = redis.Redis.from_url(server.url)
        pg_alone, alone, _ = measure([pg] if pg else [], client, args.seconds)
        print(
            f"{os.cpu_count()} cores; baseline: Redis alone {alone:.2f} % of a core"
            + (f", PostgreSQL alone {pg_alone[0]:.2f} %" if pg_alone else "")
            + f" over {args.seconds:.0f} s"
        )
        hubs = [
            HubProcess(server.url, env, database_url=database).start() for _ in range(args.hubs)
        ]
        worker_env = {
            **os.environ,
            **env,
            "REDIS_URL": server.url,
            "DATABASE_URL": database,
            "BRANDUBH_LOG_LEVEL": "warning",
        }
        workers = [
            subprocess.Popen([sys.executable, "-m", "brandubh", "analyse-worker"], env=worker_env)
            for _ in range(args.workers)
        ]
        try:
            time.sleep(SETTLE_S)
            pids = [h.pid for h in hubs] + [w.pid for w in workers] + ([pg] if pg else [])
            each, redis_pct, rates = measure(pids, client, args.seconds)
            dead = [w.pid for w in workers if w.poll() is not None]
            if dead:
                raise SystemExit(f"analysis worker(s) {dead} exited: the figures would lie")
        finally:
            for hub in hubs:
                hub.stop()
            for w in workers:
                w.terminate()
                w.wait(10)
        names = [f"idle hub {i}" for i in range(args.hubs)]
        names += [f"idle analysis worker {i}" for i in range(args.workers)]
        names += ["PostgreSQL"] if pg else []
        for name, pct in zip(names, each, strict=True):
            extra = f", {pct - pg_alone[0]:+.2f} over its baseline" if name == "PostgreSQL" else ""
            print(f"{name}: {pct:.2f} % of a core{extra}")
        print(
            f"Redis with {args.hubs} idle hub(s) and {args.workers} worker(s): "
            f"{redis_pct:.2f} % of a core, {redis_pct - alone:+.2f} over the baseline"
        )
        print(
            f"commands to Redis: {sum(rates.values()):.1f} a second: "
            + ", ".join(
                f"{name} {rate:.1f}" for name, rate in sorted(rates.items(), key=lambda x: -x[1])
            )
        )
        total = sum(each) + redis_pct
        print(f"the whole idle service: {total:.2f} % of a core   (goal < 1 %)")


if __name__ == "__main__":
    main()
