"""Memory per idle websocket: N connections held open on one hub process, and the same on
the bare echo app (bench/echo_app.py) as the same-run baseline of the stack itself.

    python bench/sockets.py [--conns 3000]

Prints the server's resident memory per connection (RSS after minus before, divided by N),
for idle sockets and for sockets that also follow a game as spectators. The client side
is bench/rawws.py in this process and answers the hub's pings. Nothing is asserted.

The hub's sockets can cost less than the echo's: they skip Starlette's routing and
middleware, keep nothing of the handshake, and queue on lean primitives (README.md,
"Benchmarks"), where the echo is the stack as it comes.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import re
import sys
import tempfile
from pathlib import Path

import msgpack

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
import rawws  # noqa: E402
from brandubh.run.redis_server import EmbeddedRedis  # noqa: E402
from load import stage, start_app  # noqa: E402
from services import HubProcess, shared_database  # noqa: E402


def rss_kib(pid: int) -> int:
    m = re.search(r"VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    return int(m.group(1)) if m else 0


def on_message(sock: rawws.RawSocket, data: bytes) -> None:
    """Answer the hub's pings (a silent socket is closed); ignore everything else."""
    if len(data) < 64:  # (a ping is small; snapshots and events are not)
        msg = msgpack.unpackb(data, raw=False)
        if msg.get("t") == "ping":
            sock.send(msgpack.packb({"t": "pong", "n": msg["n"]}))


async def hold(url: str, pid: int, conns: int, watch: list[str] | None = None) -> float:
    """KiB of server memory per connection with ``conns`` open (following ``watch`` games)."""
    await asyncio.sleep(1)
    before = rss_kib(pid)
    socks: list[rawws.RawSocket] = []
    for i in range(conns):
        sock = await rawws.connect(url + "/ws", on_message)
        if watch:
            sock.send(msgpack.packb({"t": "watch", "game": watch[i % len(watch)]}))
        socks.append(sock)
    await asyncio.sleep(3)  # settled: every hello, snapshot and first ping is out
    after = rss_kib(pid)
    for sock in socks:
        sock.close()
    await asyncio.sleep(1)
    gc.collect()
    return (after - before) / conns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conns", type=int, default=3000)
    parser.add_argument("--hub-src", default="", help="run the hub from this source tree")
    args = parser.parse_args()

    proc, url = start_app("echo_app")
    try:
        per = asyncio.run(hold(url, proc.pid, args.conns))
    finally:
        proc.terminate()
        proc.wait()
    print(f"baseline: bare echo app, {args.conns} idle connections: {per:.1f} KiB each")

    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(Path(tmp)) as server:
        env = {"PYTHONPATH": args.hub_src} if args.hub_src else {}
        env["BRANDUBH_SOCKETS_PER_ADDRESS"] = "0"  # every socket here comes from 127.0.0.1
        env["BRANDUBH_CONNECTIONS_PER_ADDRESS"] = "0"
        games = [g.game for g in stage(server.url, 100, [(0, 0, 0)])]
        # A fresh hub for each: memory freed by closed sockets is reused, not returned.
        for watch in (None, games):
            hub = HubProcess(server.url, env, database_url=shared_database()).start()
            try:
                per = asyncio.run(hold(hub.url, hub.pid, args.conns, watch))
            finally:
                hub.stop()
            what = "idle" if watch is None else f"each following one of {len(games)} games"
            print(f"hub: {args.conns} connections, {what}: {per:.1f} KiB each")


if __name__ == "__main__":
    main()
