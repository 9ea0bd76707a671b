"""A third-party OTEP engine on the site: OpenTafl's AI through ``brandubh engine-bridge``,
beside our engine through the same bridge.

    OPENTAFL_CLASSPATH=... python bench/otep_opentafl.py [--games 4] [--think 1] [--level 1]
    python bench/otep_opentafl.py --opentafl /path/to/classes:/path/to/libs/*.jar ...

``--opentafl`` (or OPENTAFL_CLASSPATH) is a Java class path holding an OpenTafl build and its
libraries (bench/opentafl_build.sh makes one offline; docs/bridge.md, "Tested with
OpenTafl"). One hub (with its Redis and PostgreSQL) started by the script; three bot
accounts, each behind its own bridge process: ``opentafl`` (``OpenTafl --engine``, its
search capped at ``--think`` seconds), ``ours`` and ``mirror`` (``brandubh engine --level``).
Then ``--games`` rated games of ``ours`` against ``opentafl``, the rule sets (nielsen,
walker) and sides taking turns, and the same games of ``ours`` against ``mirror``: the
baseline, one game at a time. Each move's time is read from the site's own stamps (a move's
deadline less the move time, from the game's Bot API stream): the engine's thinking plus
the bridge's and the site's way, as the site judges it (a game's first move of each side
also holds its engine's start: a JVM for OpenTafl, an interpreter for ours).

Then the other way round (``--host-games``, 0 to skip): OpenTafl hosts ``brandubh engine``
headlessly. Its network server (port 11541, fixed in OpenTafl) and two ``--headless``
clients, each running an engine from an ``.ini`` file as OpenTafl does: one creates a game
for ``brandubh engine`` (the side and rule set taking turns; nielsen as an external rule
set in ``external-rules.conf``), the other joins it for OpenTafl's AI. The game OpenTafl
saves (``saved-games/headless-ai``) is read back with our OTN reader: every move replayed
under our rules, and the result compared with OpenTafl's ``[result]``. Its time per move is
each side's main time used (OpenTafl's ``[time-remaining]``, whole seconds) over its moves.

Printed: each game's rule set, sides, result, reason and plies; each engine's moves and its
per-move time (mean, p50, p90, max) on each path; the machine's load average before and
after. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from botapi import LIFTED, PASSWORD  # noqa: E402
from brandubh.engine import format_otn_rules, parse_otn_record  # noqa: E402
from brandubh.run.redis_server import EmbeddedRedis  # noqa: E402
from bridge.bridge_helpers import BridgeProcess, real_engine  # noqa: E402
from bridge.opentafl import CLASSPATH_ENV, opentafl_engine, opentafl_folder  # noqa: E402
from measure import confirmation_token, load_average  # noqa: E402
from services import HubProcess, shared_database  # noqa: E402
from wsclient import Player  # noqa: E402

MOVE_TIME = 60  # the site's shortest move time: each engine gets its clock from it


@dataclass
class Bot:
    name: str
    player: Player
    token: str
    bridge: BridgeProcess | None = None


@dataclass
class Played:
    """One game as the site's stream showed it."""

    pair: str
    ruleset: str
    sides: dict[str, str]  # side -> bot name
    result: dict[str, Any] = field(default_factory=dict)
    plies: int = 0
    times: dict[str, list[float]] = field(default_factory=dict)  # bot name -> ms a move


async def bot_account(base: str, mail: Path, name: str) -> Bot:
    """A confirmed account made a bot, with a token that plays and challenges."""
    p = Player(base)
    address = f"otep{name}{os.getpid()}{time.monotonic_ns() % 100000}@example.org"
    r = await p.http.post("/api/signup", json={"email": address, "password": PASSWORD})
    assert r.status_code == 202, r.text
    confirm = await confirmation_token(mail, address)
    r = await p.http.post(f"/api/verify-email/{confirm}", json={"password": PASSWORD})
    assert r.status_code == 200, r.text
    p.me = r.json()
    body = {"name": name, "scopes": ["bot:play", "challenge:write"]}
    r = await p.http.post("/api/account/tokens", json=body)
    assert r.status_code == 201, r.text
    token = str(r.json()["token"])
    async with httpx.AsyncClient(
        base_url=base, headers={"Authorization": f"Bearer {token}"}
    ) as client:
        r = await client.post("/api/bot/account/upgrade")
        assert r.status_code == 200, r.text
    return Bot(name, p, token)


async def follow(base: str, bot: Bot, game: str, played: Played) -> None:
    """The game's Bot API stream until its end: each move's time by the site's stamps."""
    headers = {"Authorization": f"Bearer {bot.token}"}
    timeout = httpx.Timeout(30, read=60)
    last_stamp: float | None = None
    async with (
        httpx.AsyncClient(base_url=base, headers=headers, timeout=timeout) as client,
        client.stream("GET", f"/api/bot/game/stream/{game}") as r,
    ):
        async for raw in r.aiter_lines():
            if not raw.strip():
                continue
            line = json.loads(raw)
            state = line.get("state") or {}
            deadline = state.get("deadline")
            stamp = deadline - MOVE_TIME * 1000 if isinstance(deadline, int | float) else None
            event = line.get("event") or {}
            if line.get("type") == "gameState" and event.get("kind") == "move":
                mover = played.sides[str(event.get("by"))]
                if last_stamp is not None and stamp is not None:
                    played.times.setdefault(mover, []).append(stamp - last_stamp)
            if stamp is not None:
                last_stamp = stamp
            played.plies = int(state.get("ply") or played.plies)
            if state.get("status") == "ended":
                played.result = state.get("result") or {}
                return


async def one_game(base: str, challenger: Bot, other: Bot, ruleset: str, side: str) -> Played:
    """``challenger`` challenges ``other`` (rated, ``side`` for the challenger); the game."""
    async with httpx.AsyncClient(
        base_url=base, headers={"Authorization": f"Bearer {challenger.token}"}
    ) as client:
        body = {"ruleset": ruleset, "move_time": MOVE_TIME, "rated": True, "side": side}
        r = await client.post(f"/api/challenge/{other.player.id}", json=body)
        assert r.status_code == 201, r.text
        game = str(r.json()["challenge"]["id"])
    assert other.bridge is not None
    await other.bridge.heard(f"challenge {game} from")
    theirs = "defenders" if side == "attackers" else "attackers"
    played = Played(
        f"{challenger.name}-{other.name}", ruleset, {side: challenger.name, theirs: other.name}
    )
    await asyncio.wait_for(follow(base, challenger, game, played), 3600)
    return played


def summary(ms: list[float]) -> str:
    if not ms:
        return "no moves timed"
    ordered = sorted(ms)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return (
        f"{len(ms):4d} moves  mean {statistics.fmean(ms):7.0f} ms  "
        f"p50 {statistics.median(ms):7.0f}  p90 {p90:7.0f}  max {ordered[-1]:7.0f}"
    )


def report(title: str, games: list[Played]) -> None:
    print(f"\n== {title}")
    for g in games:
        winner = g.result.get("winner") or "draw"
        by = f"{g.sides[winner]} ({winner})" if winner in g.sides else winner
        print(
            f"  {g.ruleset:8s} attackers {g.sides['attackers']:9s} defenders "
            f"{g.sides['defenders']:9s} -> {by:22s} {g.result.get('reason')}, {g.plies} plies"
        )
    names = sorted({n for g in games for n in g.sides.values()})
    for name in names:
        print(f"  {name:9s} {summary([t for g in games for t in g.times.get(name, [])])}")


async def bench(args: argparse.Namespace, hub: HubProcess, mail: Path, folder: Path) -> None:
    bots = {n: await bot_account(hub.url, mail, n) for n in ("opentafl", "ours", "mirror")}
    engines = {
        "opentafl": [*opentafl_engine(args.opentafl)],
        "ours": [*real_engine(args.level)],
        "mirror": [*real_engine(args.level)],
    }
    for name, bot in bots.items():
        more = ["--engine-dir", str(folder)] if name == "opentafl" else []
        bot.bridge = BridgeProcess(
            ["--url", hub.url, "--engine", " ".join(engines[name]), *more], bot.token
        )
        await bot.bridge.heard("playing as")
    schedule = [
        (("nielsen", "walker")[i % 2], ("attackers", "defenders")[(i // 2) % 2])
        for i in range(args.games)
    ]
    try:
        for opponent, title in (("opentafl", "OpenTafl"), ("mirror", "baseline")):
            games = []
            for ruleset, side in schedule:
                games.append(await one_game(hub.url, bots[opponent], bots["ours"], ruleset, side))
                done = f"{len(games)} of {len(schedule)}"
                print(f"  {title}: {ruleset} game {done} ended", flush=True)
            report(
                f"ours (brandubh engine --level {args.level}) against {title}"
                + (f" (OpenTafl --engine, think {args.think} s)" if opponent == "opentafl" else ""),
                games,
            )
        resigned = [
            f"{name}: {line}"
            for name, bot in bots.items()
            if bot.bridge is not None
            for line in bot.bridge.log
            if "resigning" in line
        ]
        print("\nengine failures (resignations):", *(resigned or ["none"]), sep="\n  ")
    finally:
        for bot in bots.values():
            if bot.bridge is not None:
                bot.bridge.signal()
        for bot in bots.values():
            if bot.bridge is not None:
                try:
                    await bot.bridge.exit_status(30)
                finally:
                    bot.bridge.kill()


# -- OpenTafl hosting our engine ------------------------------------------------------------

OPENTAFL_PORT = 11541  # OpenTafl's server and clients know no other
# OpenTafl hashes passwords with an internal class of the JDK and imports sun.net.
JAVA_OPENS = (
    "--add-exports=java.xml/com.sun.org.apache.xerces.internal.impl.dv.util=ALL-UNNAMED",
    "--add-exports=java.base/sun.net=ALL-UNNAMED",
)
# OpenTafl's --rules counts its variants from 1: Brandub (our walker) is its sixth built-in,
# and the first line of external-rules.conf comes after its ten built-ins.
RULES_INDEX = {"walker": 6, "nielsen": 11}
CLOCK = "300000+10000/3+0"  # five minutes each, three 10 s overtimes (headless games need one)


def host_folder(folder: Path, classpath: str, level: int, think: int) -> Path:
    """OpenTafl's working folder: the two engines' folders and .ini files (with an
    ``arguments`` line: OpenTafl fails on an .ini without one), nielsen as an external rule
    set, OpenTafl's AI capped at ``think`` seconds."""
    src = HERE.parent / "src"
    for name, script in (
        ("brandubh", f'PYTHONPATH="{src}" exec "{sys.executable}" -m brandubh engine "$@"'),
        (
            "opentafl-ai",
            f'exec java -Xmx512m -cp "{classpath}" com.manywords.softworks.tafl.'
            'OpenTafl --engine "$@"',
        ),
    ):
        home = folder / "engines" / name
        home.mkdir(parents=True, exist_ok=True)
        run = home / "run.sh"
        run.write_text(f"#!/bin/sh\n{script}\n")
        run.chmod(0o755)
        arguments = f"--level {level}" if name == "brandubh" else "--silent"
        (folder / "engines" / f"{name}.ini").write_text(
            f"[engine]\nname={name}\ndirectory={name}\nfilename=run.sh\ncommand=./run.sh\n"
            f"arguments={arguments}\n"
        )
    opentafl_folder(folder / "engines" / "opentafl-ai", think)
    nielsen = format_otn_rules("nielsen").replace("dim:7 ", "dim:7 name:Brandubh_(Nielsen) ", 1)
    (folder / "external-rules.conf").write_text(nielsen + "\n")
    return folder


def java(classpath: str, *args: str) -> list[str]:
    return ["java", *JAVA_OPENS, "-cp", classpath, "com.manywords.softworks.tafl.OpenTafl", *args]


def wait_for_port(seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", OPENTAFL_PORT)) == 0:
                return
        time.sleep(0.2)
    raise SystemExit(f"OpenTafl's server did not listen on {OPENTAFL_PORT} in {seconds:g} s")


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def headless(classpath: str, args: list[str], folder: Path, out: Path) -> subprocess.Popen[bytes]:
    """An OpenTafl ``--headless`` client, logged in: started again while it fails to (it
    gives the server half a second, too little on a loaded machine)."""
    for _ in range(10):
        with out.open("w") as sink:
            proc = subprocess.Popen(java(classpath, *args), cwd=folder, stdout=sink, stderr=sink)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            text = out.read_text(errors="replace")
            if "Connected." in text:
                return proc
            if proc.poll() is not None or "Failed to connect" in text:
                break
            time.sleep(0.2)
        stop(proc)
    raise SystemExit(f"{out.name}: OpenTafl's client never logged in: {out.read_text()}")


@dataclass
class Hosted:
    ruleset: str
    ours: str  # our side
    reason: str
    winner: str
    plies: int
    agreed: bool  # OpenTafl's [result] is the result our rules give the moves
    seconds: float  # the game's wall time
    ms_a_move: dict[str, float]  # "ours", "opentafl": main time used over its moves


def host_game(folder: Path, classpath: str, n: int, ruleset: str, ours: str) -> Hosted:
    """One game OpenTafl hosts: ``brandubh engine`` creates it (for ``ours``), OpenTafl's AI
    joins; the saved game read back with our rules."""
    saved = folder / "saved-games" / "headless-ai"
    before = set(saved.glob("*.otg")) if saved.exists() else set()
    logs = folder / f"game{n}"
    logs.mkdir()
    create = [
        "--headless",
        "--server",
        "127.0.0.1",
        "--username",
        f"ours{n}",
        "--password",
        "pw",
        "--engine",
        "engines/brandubh.ini",
        "--create",
        "--rules",
        str(RULES_INDEX[ruleset]),
        "--clock",
        CLOCK,
        "--side",
        ours,
    ]
    join = [
        "--headless",
        "--server",
        "127.0.0.1",
        "--username",
        f"opentafl{n}",
        "--password",
        "pw",
        "--engine",
        "engines/opentafl-ai.ini",
        "--join",
        "--opponent",
        f"ours{n}",
    ]
    host = headless(classpath, create, folder, logs / "ours.out")
    try:
        start = time.monotonic()
        guest = headless(classpath, join, folder, logs / "opentafl.out")
        try:
            guest.wait(1800)  # it leaves when the game ends
        finally:
            stop(guest)
        seconds = time.monotonic() - start
    finally:
        stop(host)
    new = sorted(set(saved.glob("*.otg")) - before)
    if not new:
        tails = "\n".join(f"{out.name}: {out.read_text()[-1500:]}" for out in logs.glob("*.out"))
        raise SystemExit(f"game {n}: OpenTafl saved no game\n{tails}")
    # OpenTafl names a saved game by the minute: moved away, the next game's is new.
    text = new[-1].rename(logs / "saved.otg").read_text()
    record = parse_otn_record(text)  # every move replayed under our rules
    replayed = record.replay().result
    said = next(line for line in text.splitlines() if line.startswith("[result:"))[8:-1]
    result = record.result
    winner = result.winner if result is not None else None
    agreed = (
        replayed is not None and {"attackers": "1", "defenders": "-1", None: "0"}[winner] == said
    )
    left = next(line for line in text.splitlines() if line.startswith("[time-remaining:"))
    att_left, dfn_left = (int(part.split()[0]) for part in left[16:-1].split(","))
    att_moves, dfn_moves = (len(record.moves) + 1) // 2, len(record.moves) // 2
    used = {
        "attackers": 1000 * (300 - att_left) / max(1, att_moves),
        "defenders": 1000 * (300 - dfn_left) / max(1, dfn_moves),
    }
    theirs = "defenders" if ours == "attackers" else "attackers"
    return Hosted(
        ruleset,
        ours,
        result.reason if result else "unfinished",
        winner or "draw",
        len(record.moves),
        agreed,
        seconds,
        {"ours": used[ours], "opentafl": used[theirs]},
    )


def host_games(args: argparse.Namespace, folder: Path) -> None:
    if shutil.which("java") is None:
        raise SystemExit("no java")
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", OPENTAFL_PORT)) == 0:
            raise SystemExit(f"port {OPENTAFL_PORT} is taken: OpenTafl's server needs it")
    host_folder(folder, args.opentafl, args.level, args.think)
    with (folder / "server.out").open("w") as out:
        server = subprocess.Popen(
            java(args.opentafl, "--server"), cwd=folder, stdout=out, stderr=out
        )
    try:
        wait_for_port(120)
        games = []
        for i in range(args.host_games):
            ruleset, ours = ("walker", "nielsen")[i % 2], ("attackers", "defenders")[(i // 2) % 2]
            games.append(host_game(folder, args.opentafl, i + 1, ruleset, ours))
            print(f"  hosted: {ruleset} game {i + 1} of {args.host_games} ended", flush=True)
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    print(f"\n== brandubh engine --level {args.level} hosted by OpenTafl (server + --headless)")
    for g in games:
        agreed = "yes" if g.agreed else "NO"
        ours_ms, theirs_ms = g.ms_a_move["ours"], g.ms_a_move["opentafl"]
        print(
            f"  {g.ruleset:8s} ours {g.ours:9s} -> {g.winner:9s} {g.reason:14s} "
            f"{g.plies:3d} plies, {g.seconds:5.1f} s; result agreed: {agreed}; "
            f"ms a move: ours {ours_ms:.0f}, OpenTafl {theirs_ms:.0f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--opentafl",
        default=os.environ.get(CLASSPATH_ENV, ""),
        help=f"OpenTafl's Java class path (default: ${CLASSPATH_ENV})",
    )
    parser.add_argument("--games", type=int, default=4, help="games on each path")
    parser.add_argument("--think", type=int, default=1, help="OpenTafl's think time, seconds")
    parser.add_argument("--level", type=int, default=1, help="our engine's level (1-5)")
    parser.add_argument(
        "--host-games", type=int, default=2, help="games OpenTafl hosts for our engine (0: none)"
    )
    args = parser.parse_args()
    if not args.opentafl:
        raise SystemExit(f"no OpenTafl build: give --opentafl or set {CLASSPATH_ENV}")
    print(f"{os.cpu_count()} cores shared by the hub, Redis, PostgreSQL, the bridges, engines")
    print(f"load average before: {load_average()}")
    database = shared_database()
    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(Path(tmp) / "redis") as server:
        mail = Path(tmp) / "mail"
        env = {
            "BRANDUBH_CREDITS": LIFTED,
            "BRANDUBH_SESSION_CREDITS": LIFTED,
            "BRANDUBH_SIGNUP_PER_ADDRESS": LIFTED,
            "BRANDUBH_TOKEN_REQUESTS": LIFTED,
            "BRANDUBH_ANALYSIS_WORKERS": "0",
            "BRANDUBH_MAIL_DIR": str(mail),
        }
        hub = HubProcess(server.url, env, database_url=database).start()
        try:
            folder = opentafl_folder(Path(tmp) / "opentafl", args.think)
            if args.games:
                asyncio.run(bench(args, hub, mail, folder))
        finally:
            hub.stop()
        if args.host_games:
            host_games(args, Path(tmp) / "host")
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
