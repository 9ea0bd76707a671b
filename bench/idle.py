"""The fixed cost of hubs with nothing to do: no socket, no game.

    python bench/idle.py [--seconds 20] [--hubs 1] [--hub-src OTHER/src]

Starts one Redis and ``--hubs`` hub processes with the production polls, lets them settle,
then reads over ``--seconds`` the CPU each hub process used (with its children, the bot's
search pool) from /proc, and Redis's (``INFO cpu``: used_cpu_user + used_cpu_sys), as % of
one core. The baseline in the same run is the same Redis over the same span before any hub
started (its own housekeeping). The goal is under 1 % each (issue 29).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import redis

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from brandubh.run.redis_server import EmbeddedRedis  # noqa: E402
from load import cpu_s, redis_cpu_s  # noqa: E402
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


def measure(hubs: list[int], client: redis.Redis, seconds: float) -> tuple[list[float], float]:
    """% of a core each hub process tree and Redis used over ``seconds``."""
    hub0 = [tree_cpu_s(p) for p in hubs]
    redis0, t0 = redis_cpu_s(client), time.monotonic()
    time.sleep(seconds)
    hub1 = [tree_cpu_s(p) for p in hubs]
    redis1, span = redis_cpu_s(client), time.monotonic() - t0
    return [(b - a) / span * 100 for a, b in zip(hub0, hub1, strict=True)], (
        (redis1 - redis0) / span * 100
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--hubs", type=int, default=1)
    parser.add_argument("--hub-src", default="", help="run the hubs from this source tree")
    args = parser.parse_args()

    env = dict(PRODUCTION_POLLS)
    if args.hub_src:
        env["PYTHONPATH"] = args.hub_src
    database = shared_database()
    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(Path(tmp)) as server:
        client = redis.Redis.from_url(server.url)
        _, alone = measure([], client, args.seconds)
        print(
            f"{os.cpu_count()} cores; baseline: Redis with no hub {alone:.2f} % of a core "
            f"over {args.seconds:.0f} s"
        )
        hubs = [
            HubProcess(server.url, env, database_url=database).start() for _ in range(args.hubs)
        ]
        try:
            time.sleep(SETTLE_S)
            each, redis_pct = measure([h.pid for h in hubs], client, args.seconds)
        finally:
            for hub in hubs:
                hub.stop()
        for i, pct in enumerate(each):
            print(f"idle hub {i}: {pct:.2f} % of a core   (goal < 1 %)")
        print(
            f"Redis with {args.hubs} idle hub(s): {redis_pct:.2f} % of a core, "
            f"{redis_pct - alone:+.2f} over the baseline   (goal < 1 %)"
        )


if __name__ == "__main__":
    main()
