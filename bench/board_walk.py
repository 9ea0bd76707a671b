"""Other requests and a game's moves during a flood of analysis board walks.

    python bench/board_walk.py [--samples 60] [--walkers 16] [--moves 399]

One hub on an embedded Redis. It times ``GET /healthz`` and the ack of a move in a game
against the bot (level 1), first on a quiet hub (the baseline), then while ``--walkers``
clients each walk a ``--moves``-move line as fast as the hub answers (each from an address
of its own and the per-address limit lifted, the worst case the per-hub bound must hold),
and prints p50/p95 of both, the walks per second and the answer's size gzipped and not.
Run it with PYTHONPATH pointing at an older tree for a comparison. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from brandubh.engine import Game
from brandubh.run.redis_server import EmbeddedRedis

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from services import HubProcess, shared_database  # noqa: E402
from wsclient import Player, side_of  # noqa: E402


def pct(xs: list[float], p: float) -> float:
    return statistics.quantiles(xs, n=100)[int(p) - 1] if len(xs) > 1 else xs[0]


def long_line(n: int, seed: int = 1) -> list[str]:
    """A line of ``n`` moves of nielsen that does not end the game."""
    rng, game, moves = random.Random(seed), Game("nielsen"), list[str]()
    while len(moves) < n:
        options = game.legal_texts()
        rng.shuffle(options)
        for move in options:
            game.play(move)
            if game.result is None:
                moves.append(move)
                break
            game.pop()
        else:
            break
    return moves


async def time_health(base: str, n: int) -> list[float]:
    out = []
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        for _ in range(n):
            t0 = time.perf_counter()
            r = await client.get("/healthz")
            out.append((time.perf_counter() - t0) * 1000)
            assert r.status_code == 200, r.text
    return out


async def time_moves(base: str, n: int) -> list[float]:
    """The ack of each of ``n`` moves in games against the bot (a new game when one ends)."""
    player = await Player(base).start()
    out: list[float] = []
    rng = random.Random(7)
    sock = None
    while len(out) < n:
        game = (await player.create_game(opponent="bot", bot_level=1, ruleset="nielsen"))["id"]
        sock = await player.connect()
        await sock.watch(game)
        while len(out) < n:
            for _ in range(200):  # until it is the player's turn (the bot may move first)
                state = (await player.game(game))["state"]
                if state["status"] != "active" or state["turn"] == side_of(state, player):
                    break
                await asyncio.sleep(0.02)
            if state["status"] != "active":
                break
            t0 = time.perf_counter()
            reply = await sock.reply_to(
                await sock.move(game, state["ply"], rng.choice(state["legal"]))
            )
            out.append((time.perf_counter() - t0) * 1000)
            if reply["t"] != "ack":
                break
        await sock.close()
    await player.close()
    return out


async def walker(
    base: str, who: int, moves: list[str], stop: asyncio.Event, done: list[int]
) -> None:
    headers = {"Origin": base, "X-Forwarded-For": f"198.18.{who}.{random.randrange(1, 250)}"}
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=60) as client:
        while not stop.is_set():
            r = await client.post("/api/board/walk", json={"ruleset": "nielsen", "moves": moves})
            if r.status_code == 200:
                done.append(1)
            elif r.status_code == 503:
                await asyncio.sleep(0.05)  # the hub's queue of walks is full: as a client would


async def main(args: argparse.Namespace) -> None:
    moves = long_line(args.moves)
    with tempfile.TemporaryDirectory() as tmp:
        server = EmbeddedRedis(Path(tmp) / "redis", appendonly=False)
        with server:
            env = {"BRANDUBH_WALKS_PER_ADDRESS": "0", "BRANDUBH_BOT_POLL_S": "0.2"}
            hub = HubProcess(server.url, env, database_url=args.database).start()
            try:
                async with httpx.AsyncClient(base_url=hub.url, headers={"Origin": hub.url}) as c:
                    body = {"ruleset": "nielsen", "moves": moves}
                    zipped = await c.post("/api/board/walk", json=body)
                    plain = await c.post(
                        "/api/board/walk", json=body, headers={"Accept-Encoding": "identity"}
                    )
                    sizes = (len(plain.content), int(zipped.headers.get("content-length", 0)))
                quiet = (
                    await time_health(hub.url, args.samples),
                    await time_moves(hub.url, args.samples),
                )
                stop, done = asyncio.Event(), list[int]()
                walkers = [
                    asyncio.create_task(walker(hub.url, i, moves, stop, done))
                    for i in range(args.walkers)
                ]
                await asyncio.sleep(1)
                t0 = time.perf_counter()
                busy = (
                    await time_health(hub.url, args.samples),
                    await time_moves(hub.url, args.samples),
                )
                rate = len(done) / (time.perf_counter() - t0 + 1)
                stop.set()
                await asyncio.gather(*walkers)
            finally:
                hub.stop()
    print(
        f"{args.walkers} walkers of {len(moves)} moves; answer {sizes[0]} bytes, {sizes[1]} gzipped"
    )
    for name, i in (("/healthz", 0), ("move ack", 1)):
        print(
            f"  {name:9} quiet  p50 {pct(quiet[i], 50):7.1f} ms  p95 {pct(quiet[i], 95):7.1f} ms"
            f"   flood  p50 {pct(busy[i], 50):7.1f} ms  p95 {pct(busy[i], 95):7.1f} ms"
        )
    print(f"  {rate:.0f} walks/s answered during the flood")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=60)
    parser.add_argument("--walkers", type=int, default=16)
    parser.add_argument("--moves", type=int, default=399)
    arguments = parser.parse_args()
    arguments.database = shared_database()  # (it runs its own event loop: before ours)
    asyncio.run(main(arguments))
