"""Other players' wait for the bot while one address floods it with games.

    python bench/bot_flood.py [--sessions 14] [--games 3] [--flood-level 5] [--victims 3]
                              [--turns 6] [--cap 12]

One hub (``BRANDUBH_BOT_PROCESSES`` 1) on an embedded Redis, three times: quiet (the
baseline), then while ``--sessions`` guest sessions from one address each play up to
``--games`` games against the bot at ``--flood-level`` (each move answered at once), first
with the per-address cap of unfinished bot games lifted (as before issue 37), then with
``--cap``. Each time ``--victims`` players, each from an address of its own, play a
level-1 game and time ``--turns`` waits for the bot's reply (from their move to the bot's).
Prints p50 / max of the victims' waits, the flood's games and its refused creations.
Nothing is asserted.
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

from brandubh.run.redis_server import EmbeddedRedis

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from services import HubProcess, shared_database  # noqa: E402
from wsclient import Player, Socket, random_address, side_of  # noqa: E402


async def play(
    player: Player, game: str, level_waits: list[float], turns: int, stop: asyncio.Event
) -> None:
    """Play ``game``: a random legal move as soon as it is the player's turn; each wait
    from the player's move to the bot's reply is appended to ``level_waits``."""
    sock: Socket = await player.connect()
    rng = random.Random(game)
    try:
        snap = await sock.watch(game)
        n, state = snap["n"], snap["state"]
        mine = side_of(state, player)
        while not stop.is_set() and len(level_waits) < turns and state["status"] == "active":
            if state["turn"] == mine:
                t0 = time.perf_counter()
                await sock.move(game, state["ply"], rng.choice(state["legal"]))
                n += 1
            else:
                t0 = 0.0
            for _ in range(600):  # the bot's event, unless the player's move ended the game
                try:
                    await sock.event(n + 1, timeout=1)
                    break
                except TimeoutError:
                    got = await player.game(game)
                    if got["n"] > n or got["state"]["status"] != "active":
                        break
            if t0:
                level_waits.append(time.perf_counter() - t0)
            got = await player.game(game)
            if t0 and got["state"]["status"] != "active" and got["n"] == n:
                level_waits.pop()  # the player's own move ended it: no reply to wait for
            n, state = got["n"], got["state"]
    finally:
        await sock.close()


async def phase(
    base: str, args: argparse.Namespace, flood: bool
) -> tuple[list[float], int, int, float]:
    stop = asyncio.Event()
    flood_waits: list[float] = []  # the flood's own waits: how long one of its turns takes
    tasks: list[asyncio.Task[None]] = []
    games, refused = 0, 0
    flooders: list[Player] = []
    if flood:
        address = random_address()
        for _ in range(args.sessions):
            flooder = await Player(base, address).start()
            flooders.append(flooder)
            for _ in range(args.games):
                r = await flooder.http.post(
                    "/api/games",
                    json={"opponent": "bot", "bot_level": args.flood_level, "ruleset": "nielsen"},
                )
                if r.status_code != 201:
                    refused += 1
                    continue
                if flooder.me.get("id") is None:
                    await flooder.refresh()
                games += 1
                tasks.append(
                    asyncio.create_task(play(flooder, r.json()["id"], flood_waits, 10**6, stop))
                )
        await asyncio.sleep(3)  # the flood's turns queue up
    victims, lists = [], list[list[float]]()
    began, flood_before = time.perf_counter(), len(flood_waits)
    for _ in range(args.victims):
        victim = await Player(base).start()
        victims.append(victim)
        game = await victim.create_game(opponent="bot", bot_level=1, ruleset="nielsen")
        lists.append([])
        tasks.append(asyncio.create_task(play(victim, game["id"], lists[-1], args.turns, stop)))
    await asyncio.gather(*tasks[-args.victims :], return_exceptions=True)
    took, flood_turns = time.perf_counter() - began, len(flood_waits) - flood_before
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for player in [*flooders, *victims]:
        await player.close()
    waits = [w for waits_of in lists for w in waits_of]
    # The pool's mean time per flood turn while the victims played (one bot process).
    per_turn = took / flood_turns if flood_turns else float("nan")
    return waits, games, refused, per_turn


async def main(args: argparse.Namespace) -> None:
    results = []
    for name, flood, cap in (
        ("quiet", False, str(args.cap)),
        ("flood, no cap (before)", True, "0"),
        (f"flood, cap {args.cap}", True, str(args.cap)),
    ):
        with tempfile.TemporaryDirectory() as tmp:
            server = EmbeddedRedis(Path(tmp) / "redis", appendonly=False)
            with server:
                env = {
                    "BRANDUBH_BOT_GAMES_PER_ADDRESS": cap,
                    "BRANDUBH_BOT_PROCESSES": "1",
                    "BRANDUBH_BOT_POLL_S": "0.2",
                }
                hub = HubProcess(server.url, env, database_url=args.database).start()
                try:
                    results.append((name, *await phase(hub.url, args, flood)))
                finally:
                    hub.stop()
        print(name, "done", flush=True)
    print(
        f"victims' wait for the bot's reply (s): {args.victims} level-1 games, {args.turns} "
        f"turns each; the flood: {args.sessions} guest sessions of one address, {args.games} "
        f"level-{args.flood_level} games each"
    )
    for name, waits, games, refused, per_turn in results:
        p50 = statistics.median(waits) if waits else float("nan")
        top = max(waits) if waits else float("nan")
        # The victims' wait beside the time one of the flood's turns took the pool: with
        # fair turns a victim waits about one such turn (the one thinking when it moved).
        line = f"  {name:24} p50 {p50:6.2f}  max {top:6.2f}  ({len(waits)} waits"
        if games:
            line += f"; flood games {games}, refused {refused}, {per_turn:.2f} s a flood turn"
        print(line + ")")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=14)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--flood-level", type=int, default=5)
    parser.add_argument("--victims", type=int, default=3)
    parser.add_argument("--turns", type=int, default=6)
    parser.add_argument("--cap", type=int, default=12)
    arguments = parser.parse_args()
    arguments.database = shared_database()  # (it runs its own event loop: before ours)
    asyncio.run(main(arguments))
