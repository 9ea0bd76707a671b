"""Bot games through the Bot API (over HTTP, and over the bot socket) against the same
games through people's websockets.

    python bench/botapi.py [--games 100] [--plies 40] [--pace-ms 100] [--rounds 3]
                           [--ruleset nielsen]

One hub (and its Redis and PostgreSQL) started by the script. Two confirmed accounts a
game, signed up and confirmed as people are (the confirmation mail read from the hub's
mail folder), each with a ``bot:play`` token. Then three times ``--games`` friend games at once,
made and joined with the accounts' sessions, with the same moves (chosen from the game's
seed so that none ends the game) played:

- websocket: each player's socket watches the game and sends ``move`` frames;
- Bot API: each side's token holds the game's stream open and sends
  ``POST /api/bot/game/<id>/move/<move>?ply=<ply>``;
- bot socket: each side's token opens the bot socket (``/api/bot/socket``), which watches
  the game and sends ``move`` frames, as a person's socket does.

A mover waits ``--pace-ms`` after it sees its turn, then moves. ``--rounds`` times (default
3), each path in turn with new games (each round starting with the next path), so that
the three are measured under the same load.
Printed for each path, side by side (the median of the rounds): moves, per-move latency
(p50 / p99: from the mover's send until the opponent's socket or stream holds the event),
the hub's CPU per move (the hub process and its children, user + system), Redis's, and this
generator's (it runs in this one process and shares the machine's cores with the hub);
then each round's hub CPU per move on each bot path against the websocket's, their ratio,
and the ratios' spread.
The machine's load average before and after. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import secrets
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import redis

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from brandubh.engine import Game  # noqa: E402
from brandubh.run.redis_server import EmbeddedRedis  # noqa: E402
from measure import confirmation_token, hub_cpu_s, load_average, pct, redis_cpu_s, settled  # noqa: E402
from services import HubProcess, shared_database  # noqa: E402
from wsclient import Player, Socket  # noqa: E402

PASSWORD = "a bench of bots and people"
BOT_SOCKET = "/api/bot/socket"
SOCKET_PATH_NAME = "bot socket"
PATHS = ("websocket", "Bot API", SOCKET_PATH_NAME)
LIFTED = "1000000"


def line_of_moves(seed: int, ruleset: str, plies: int) -> list[str]:
    """Moves from the seed, none of which ends the game (nor repeats it to a draw)."""
    rng, game = random.Random(seed), Game(ruleset)
    out: list[str] = []
    while len(out) < plies:
        texts = game.legal_texts()
        rng.shuffle(texts)
        for text in texts:
            game.play(text)
            if not game.is_over:
                out.append(str(game.moves[-1]))
                break
            game.pop()
        else:
            break  # every move ends it: a shorter line
    return out


# -- accounts -------------------------------------------------------------------------------


@dataclass
class Account:
    player: Player
    token: str
    bot: httpx.AsyncClient  # the program's client: the token, no cookie


async def account(base: str, mail_dir: Path, slots: asyncio.Semaphore) -> Account:
    async with slots:
        p = Player(base)
        # Sign-ups are hashed one at a time: at a hundred games on a busy machine an
        # answer takes longer than httpx's 5 s.
        p.http.timeout = httpx.Timeout(60.0)
        address = f"bench{secrets.token_hex(6)}@example.org"
        r = await p.http.post("/api/signup", json={"email": address, "password": PASSWORD})
        assert r.status_code == 202, r.text
        token = await confirmation_token(mail_dir, address)
        r = await p.http.post(f"/api/verify-email/{token}", json={"password": PASSWORD})
        assert r.status_code == 200, r.text
        p.me = r.json()
        r = await p.http.post("/api/account/tokens", json={"name": "bench", "scopes": ["bot:play"]})
        assert r.status_code == 201, r.text
        secret = r.json()["token"]
        bot = httpx.AsyncClient(
            base_url=base, headers={"Authorization": f"Bearer {secret}"}, timeout=60
        )
        return Account(p, secret, bot)


async def friend_game(a: Account, b: Account, ruleset: str) -> tuple[str, dict[str, Account]]:
    """A started friend game of the two: its id and the accounts by side."""
    made = await a.player.create_game(opponent="friend", ruleset=ruleset, move_time=600)
    await b.player.join(made["invite"])
    state = (await a.player.game(made["id"]))["state"]
    by_id = {a.player.id: a, b.player.id: b}
    return made["id"], {side: by_id[seat["id"]] for side, seat in state["players"].items()}


# -- one game on each path --------------------------------------------------------------------


@dataclass
class Seen:
    """When each ply's event reached one side's socket or stream (perf_counter)."""

    at: dict[int, float] = field(default_factory=dict)
    waiters: dict[int, asyncio.Future[float]] = field(default_factory=dict)

    def saw(self, ply: int) -> None:
        now = time.perf_counter()
        self.at[ply] = now
        waiter = self.waiters.pop(ply, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(now)

    async def wait(self, ply: int, timeout: float = 60.0) -> float:
        if ply in self.at:
            return self.at[ply]
        waiter = self.waiters.setdefault(ply, asyncio.get_running_loop().create_future())
        return await asyncio.wait_for(waiter, timeout)


async def read_socket(sock: Socket, game_id: str, seen: Seen, acks: Seen) -> None:
    """Every frame of the socket (pings answered); each move event's ply noted, and each
    ack of a move (its id "m<ply>")."""
    try:
        while True:
            msg = await sock.recv(timeout=3600)
            if msg["t"] == "event" and msg.get("game") == game_id and msg.get("kind") == "move":
                seen.saw(int(msg["state"]["ply"]))
            elif msg["t"] == "ack" and str(msg.get("id", "")).startswith("m"):
                acks.saw(int(msg["id"][1:]))
            elif msg["t"] == "error":
                print(f"refused: {msg}", file=sys.stderr)
    except Exception:  # the socket closed at the end
        return


async def read_stream(
    bot: httpx.AsyncClient, game_id: str, seen: Seen, opened: asyncio.Event
) -> None:
    async with bot.stream("GET", f"/api/bot/game/stream/{game_id}", timeout=3600) as r:
        assert r.status_code == 200, await r.aread()
        async for raw in r.aiter_lines():
            opened.set()
            if not raw:
                continue
            line = json.loads(raw)
            if line["type"] == "gameState" and line["event"].get("kind") == "move":
                seen.saw(int(line["state"]["ply"]))


class WsGame:
    """One game on the websocket path: each player's socket, read by a task of its own.
    With ``token``, each side's bot socket instead (/api/bot/socket, its bot:play token)."""

    def __init__(
        self, game_id: str, sides: dict[str, Account], moves: list[str], token: bool = False
    ) -> None:
        self.token = token
        self.game_id, self.sides, self.moves = game_id, sides, moves
        self.seen = {side: Seen() for side in sides}
        self.acks: dict[str, Seen] = {side: Seen() for side in sides}
        self.socks: dict[str, Socket] = {}
        self.readers: list[asyncio.Task[None]] = []

    async def setup(self) -> None:
        for side, acc in self.sides.items():
            if self.token:
                p = acc.player
                sock = await Socket.open(
                    p.base_url, address=p.address, token=acc.token, path=BOT_SOCKET
                )
            else:
                sock = await acc.player.connect()
            await sock.watch(self.game_id)
            self.socks[side] = sock
            reader = read_socket(sock, self.game_id, self.seen[side], self.acks[side])
            self.readers.append(asyncio.create_task(reader))

    async def move(self, side: str, ply: int, move: str) -> None:
        await self.socks[side].move(self.game_id, ply, move, msg_id=f"m{ply}")
        await self.acks[side].wait(ply)

    async def finish(self) -> None:
        await self.socks["attackers"].send({"t": "resign", "game": self.game_id, "id": "r"})
        await asyncio.sleep(0.2)
        for sock in self.socks.values():
            await sock.close()
        for task in self.readers:
            task.cancel()


class BotGame:
    """One game on the Bot API path: each side's stream, read by a task of its own."""

    def __init__(self, game_id: str, sides: dict[str, Account], moves: list[str]) -> None:
        self.game_id, self.sides, self.moves = game_id, sides, moves
        self.seen = {side: Seen() for side in sides}
        self.readers: list[asyncio.Task[None]] = []

    async def setup(self) -> None:
        opened = [asyncio.Event() for _ in self.sides]
        for (side, acc), event in zip(self.sides.items(), opened, strict=True):
            reader = read_stream(acc.bot, self.game_id, self.seen[side], event)
            self.readers.append(asyncio.create_task(reader))
        for event in opened:
            await asyncio.wait_for(event.wait(), 60)

    async def move(self, side: str, ply: int, move: str) -> None:
        url = f"/api/bot/game/{self.game_id}/move/{move}?ply={ply}"
        r = await self.sides[side].bot.post(url)
        assert r.status_code == 200, r.text

    async def finish(self) -> None:
        await self.sides["attackers"].bot.post(f"/api/bot/game/{self.game_id}/resign")
        for task in self.readers:
            with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError):
                await asyncio.wait_for(task, 10)


async def play(game: WsGame | BotGame, pace: float) -> tuple[list[float], list[float]]:
    """The game's moves: (send to the opponent's event, send to the mover's answer), each."""
    seen, answered = [], []
    for ply, move in enumerate(game.moves):
        mover = "attackers" if ply % 2 == 0 else "defenders"
        other = "defenders" if mover == "attackers" else "attackers"
        await asyncio.sleep(pace)
        t0 = time.perf_counter()
        await game.move(mover, ply, move)
        answered.append(time.perf_counter() - t0)
        seen.append(await game.seen[other].wait(ply + 1) - t0)
    return seen, answered


async def run_path(
    name: str,
    pairs: list[tuple[Account, Account]],
    lines: list[list[str]],
    args: argparse.Namespace,
    hub: HubProcess,
    client: redis.Redis,
) -> dict[str, Any]:
    games: list[WsGame | BotGame] = []
    for (a, b), line in zip(pairs, lines, strict=True):
        game_id, sides = await friend_game(a, b, args.ruleset)
        if name == "Bot API":
            games.append(BotGame(game_id, sides, line))
        else:
            games.append(WsGame(game_id, sides, line, token=name == SOCKET_PATH_NAME))
    # Sockets and streams open first, and what the last path left the hub done (its games'
    # endings: ratings, the archive): the measure is of the moves alone.
    await asyncio.gather(*(g.setup() for g in games))
    await settled(hub.pid)
    hub0, redis0, gen0 = hub_cpu_s(hub.pid), redis_cpu_s(client), time.process_time()
    start = time.perf_counter()
    results = await asyncio.gather(*(play(g, args.pace_ms / 1000) for g in games))
    elapsed = time.perf_counter() - start
    hub_cpu = hub_cpu_s(hub.pid) - hub0
    redis_cpu = redis_cpu_s(client) - redis0
    gen_cpu = time.process_time() - gen0
    await asyncio.gather(*(g.finish() for g in games))
    latencies = [x * 1000 for r in results for x in r[0]]
    answers = [x * 1000 for r in results for x in r[1]]
    moves = len(latencies)
    return {
        "name": name,
        "moves": moves,
        "moves_per_s": moves / elapsed,
        "p50": pct(latencies, 50),
        "p99": pct(latencies, 99),
        "ack50": pct(answers, 50),
        "ack99": pct(answers, 99),
        "hub_us": hub_cpu / max(moves, 1) * 1e6,
        "redis_us": redis_cpu / max(moves, 1) * 1e6,
        "gen_us": gen_cpu / max(moves, 1) * 1e6,
        "hub_core": hub_cpu / elapsed * 100,
    }


async def bench(args: argparse.Namespace, hub: HubProcess, client: redis.Redis, mail: Path) -> None:
    slots = asyncio.Semaphore(8)
    t0 = time.perf_counter()
    accounts = await asyncio.gather(*(account(hub.url, mail, slots) for _ in range(2 * args.games)))
    print(
        f"{len(accounts)} confirmed accounts with bot:play tokens in "
        f"{time.perf_counter() - t0:.0f} s"
    )
    pairs = [(accounts[2 * i], accounts[2 * i + 1]) for i in range(args.games)]
    lines = [line_of_moves(i, args.ruleset, args.plies) for i in range(args.games)]
    rounds: list[tuple[dict[str, Any], ...]] = []
    for i in range(args.rounds):
        # Each round starts with the next path, so that none is always run last, on the
        # load (PostgreSQL's endings, say) that the others left behind.
        done: dict[str, dict[str, Any]] = {}
        for name in PATHS[i % len(PATHS) :] + PATHS[: i % len(PATHS)]:
            print(
                f"round {i + 1}, {name}: {args.games} games at once (load {load_average()})",
                flush=True,
            )
            done[name] = await run_path(name, pairs, lines, args, hub, client)
        rounds.append(tuple(done[name] for name in PATHS))
    results = [
        {
            key: statistics.median(r[side][key] for r in rounds)
            for key in rounds[0][side]
            if key != "name"
        }
        for side in range(len(PATHS))
    ]
    print(
        f"\n{args.games} games at once, {args.plies} plies each, {args.ruleset}, a mover "
        f"waiting {args.pace_ms} ms after its turn; one hub; the median of {args.rounds} "
        "rounds"
    )
    print(f"  {'':28}" + "".join(f"{name:>12}" for name in PATHS))
    rows = [
        ("moves", "moves", "{:>12,.0f}"),
        ("moves/s", "moves_per_s", "{:>12,.0f}"),
        ("latency p50 (ms)", "p50", "{:>12.1f}"),
        ("latency p99 (ms)", "p99", "{:>12.1f}"),
        ("mover's answer p50 (ms)", "ack50", "{:>12.1f}"),
        ("mover's answer p99 (ms)", "ack99", "{:>12.1f}"),
        ("hub CPU per move (us)", "hub_us", "{:>12,.0f}"),
        ("Redis CPU per move (us)", "redis_us", "{:>12,.0f}"),
        ("generator CPU/move (us)", "gen_us", "{:>12,.0f}"),
        ("hub, % of a core", "hub_core", "{:>12.0f}"),
    ]
    for label, key, fmt in rows:
        print(f"  {label:28}" + "".join(fmt.format(r[key]) for r in results))
    for name, at in (("Bot API", 1), (SOCKET_PATH_NAME, 2)):
        ratios = []
        for i, r in enumerate(rounds):
            ws, bot = r[0], r[at]
            ratios.append(bot["hub_us"] / ws["hub_us"])
            print(
                f"  round {i + 1}: hub CPU per move {ws['hub_us']:,.0f} us websocket, "
                f"{bot['hub_us']:,.0f} us {name}: {ratios[-1]:.2f}"
            )
        print(
            f"  {name} / websocket, hub CPU per move: median {statistics.median(ratios):.2f}, "
            f"spread {min(ratios):.2f}-{max(ratios):.2f}"
        )
    for acc in accounts:
        await acc.bot.aclose()
        await acc.player.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games at once on each path")
    parser.add_argument("--plies", type=int, default=40, help="moves in each game")
    parser.add_argument("--pace-ms", type=int, default=100, help="a mover's wait")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of both paths")
    parser.add_argument("--ruleset", default="nielsen")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores shared by the hub, Redis, PostgreSQL and this generator")
    print(f"load average before: {load_average()}")
    database = shared_database()
    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(Path(tmp) / "redis") as server:
        mail = Path(tmp) / "mail"
        env = {
            # Every account comes from this machine: the per-address limits lifted.
            "BRANDUBH_CREDITS": LIFTED,
            "BRANDUBH_SESSION_CREDITS": LIFTED,
            "BRANDUBH_SIGNUP_OVERALL": LIFTED,
            "BRANDUBH_SIGNUP_PER_ADDRESS": LIFTED,
            "BRANDUBH_LOGIN_PER_ADDRESS": LIFTED,
            "BRANDUBH_TOKEN_REQUESTS": LIFTED,
            # Each account holds a session, a socket, a stream and a move connection.
            "BRANDUBH_CONNECTIONS_PER_ADDRESS": "0",
            # A set-up waits for its mail file between requests, and the bots' clients
            # idle through the socket rounds: a keep-alive close meeting a POST then is a
            # failed request (httpx retries none), not what is measured.
            "BRANDUBH_KEEP_ALIVE_S": "3600",
            "BRANDUBH_ANALYSIS_WORKERS": "0",
            "BRANDUBH_MAIL_DIR": str(mail),
        }
        hub = HubProcess(server.url, env, database_url=database).start()
        try:
            asyncio.run(bench(args, hub, redis.Redis.from_url(server.url), mail))
        finally:
            hub.stop()
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
