"""Helpers of the bridge's tests: the command lines of a real ``brandubh engine`` and of tiny
misbehaving OTEP engines (scripts written to a folder), and a bridge's settings."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import httpx

from brandubh.bridge import AcceptRules, BridgeConfig
from services import HubProcess
from waiting import wait_for, wait_for_sync
from wsclient import Msg, Player, Socket

SRC = Path(__file__).resolve().parents[2] / "src"

# Each misbehaving engine says hello, reads lines, and on ``play`` does its one wrong thing.
_BAD = """\
import sys
print("hello", flush=True)
for line in sys.stdin:
    if line.startswith("play"):
        {act}
"""
BAD_ENGINES = {
    "crash": "sys.exit(3)",
    "illegal": 'print("move a1-a2", flush=True)',  # a corner: no piece stands there
    "garbage": 'print("move hello-world", flush=True)',
    "silent": "pass",
}


# An engine written against OpenTafl's host, as OpenTafl's own is: it asks for full OTN
# moves, keeps every line it hears in a file, and moves only if a clock came before play.
_RECORDING = """\
import sys
print("hello", flush=True)
print("simple-moves off", flush=True)
clock = False
with open({log!r}, "w") as heard:
    for line in sys.stdin:
        heard.write(line)
        heard.flush()
        if line.startswith("clock"):
            clock = True
        elif line.startswith("play"):
            print("move d2-c2" if clock else "error -1 no clock before play", flush=True)
            clock = False
        elif line.startswith("goodbye"):
            break
"""


def recording_engine(folder: Path) -> tuple[tuple[str, ...], Path]:
    """The command line of the recording engine (above), and the file of what it heard."""
    log = folder / "heard.txt"
    path = folder / "recording_engine.py"
    path.write_text(_RECORDING.format(log=str(log)))
    return (sys.executable, str(path)), log


def env_with_src() -> dict[str, str]:
    """This environment, with the worktree's sources first on PYTHONPATH."""
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    }


async def token_of(p: Player, scopes: list[str]) -> str:
    """A new personal API token of ``p``'s account with ``scopes``: its text."""
    r = await p.http.post("/api/account/tokens", json={"name": "bridge", "scopes": scopes})
    assert r.status_code == 201, r.text
    return str(r.json()["token"])


async def bot_account(hub: HubProcess) -> tuple[Player, str]:
    """A new account made a bot, and its token (bot:play, challenge:write)."""
    p = await Player(hub.url).signup()
    token = await token_of(p, ["bot:play", "challenge:write"])
    async with httpx.AsyncClient(
        base_url=hub.url, headers={"Authorization": f"Bearer {token}"}
    ) as client:
        r = await client.post("/api/bot/account/upgrade")
        assert r.status_code == 200 and r.json()["bot"] is True, r.text
    return p, token


def real_engine(level: int = 1) -> tuple[str, ...]:
    """Our own engine at a low level, so that games are quick."""
    return (sys.executable, "-m", "brandubh", "engine", "--level", str(level))


def bad_engine(folder: Path, kind: str) -> tuple[str, ...]:
    """The command line of the misbehaving engine ``kind`` (BAD_ENGINES), written to ``folder``."""
    path = folder / f"{kind}_engine.py"
    path.write_text(_BAD.format(act=BAD_ENGINES[kind]))
    return (sys.executable, str(path))


def config_for(
    url: str, token: str, engine: tuple[str, ...], transport: str = "http", **accept: object
) -> BridgeConfig:
    """A bridge's settings for a test: the site, the token, the engine, the accept rules,
    the transport its games are played over."""
    rules = AcceptRules(**accept)  # type: ignore[arg-type]
    return BridgeConfig(url=url, token=token, engine=engine, accept=rules, transport=transport)


def persons_turn(state: Msg, person: str) -> bool:
    turn = state["turn"]
    return bool(state["status"] == "active" and (state["players"][turn] or {}).get("id") == person)


async def person_plays_to_the_end(
    sock: Socket, game: str, person: str, pause_at: int | None = None
) -> Msg:
    """The person ``person`` (an id; watching ``game`` on ``sock``) plays the first legal
    move whenever it is their turn, from the snapshot on; the final state, or with
    ``pause_at`` the first state at or past that ply with the person to move."""
    snap = next(m for m in sock.frames if m["t"] == "snapshot" and m["game"] == game)
    state: Msg = snap["state"]
    while state["status"] != "ended":
        if persons_turn(state, person):
            if pause_at is not None and state["ply"] >= pause_at:
                return state
            await sock.move(game, state["ply"], state["legal"][0])
        event = await sock.recv_until(lambda m: m["t"] == "event" and m["game"] == game, 120)
        state = event["state"]
    return state


class BridgeProcess:
    """``python -m brandubh engine-bridge`` as a child process, its log (stderr) kept."""

    def __init__(self, args: list[str], token: str | None) -> None:
        env = env_with_src()
        env.pop("BRANDUBH_TOKEN", None)
        if token is not None:
            env["BRANDUBH_TOKEN"] = token
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "brandubh", "engine-bridge", *args],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.log: list[str] = []
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.log.append(line.rstrip("\n"))

    def text(self) -> str:
        return "\n".join(self.log)

    def said(self, words: str, timeout: float = 60.0) -> str:
        """Wait until a line of the log holds ``words``; that line."""
        found: str = wait_for_sync(
            lambda: self._line_with(words),
            f"the bridge to log {words!r}",
            timeout,
        )
        return found

    def _line_with(self, words: str) -> str:
        return next((line for line in list(self.log) if words in line), "")

    async def heard(self, words: str, timeout: float = 60.0) -> str:
        """``said`` without blocking the event loop (a proxy of the test's runs in it)."""
        found: str = await wait_for(
            lambda: self._line_with(words), f"the bridge to log {words!r}", timeout
        )
        return found

    async def exit_status(self, timeout: float = 60.0) -> int:
        """``wait`` without blocking the event loop."""
        return await asyncio.to_thread(self.proc.wait, timeout)

    def signal(self, sig: int = signal.SIGTERM) -> None:
        self.proc.send_signal(sig)

    def wait(self, timeout: float = 60.0) -> int:
        return self.proc.wait(timeout)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class CuttableProxy:
    """A TCP proxy in front of a hub (the network between the bridge and the site): its
    connections can be cut, and its upstream changed to another hub, as a failover does."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.server: asyncio.Server | None = None
        self.pipes: set[asyncio.Task[None]] = set()
        self.connections = 0

    @property
    def url(self) -> str:
        assert self.server is not None
        port = self.server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def start(self) -> CuttableProxy:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        host, port = self.upstream.removeprefix("http://").split(":")
        self.connections += 1
        try:
            up_reader, up_writer = await asyncio.open_connection(host, int(port))
        except OSError:
            writer.close()
            return

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                with contextlib.suppress(OSError):
                    while data := await src.read(65536):
                        dst.write(data)
                        await dst.drain()
            finally:
                dst.close()

        for task in (
            asyncio.create_task(pipe(reader, up_writer)),
            asyncio.create_task(pipe(up_reader, writer)),
        ):
            self.pipes.add(task)
            task.add_done_callback(self.pipes.discard)

    async def cut(self, upstream: str | None = None) -> None:
        """Drop every connection through the proxy; new ones go to ``upstream`` if given."""
        if upstream is not None:
            self.upstream = upstream
        for task in list(self.pipes):
            task.cancel()
        await asyncio.gather(*self.pipes, return_exceptions=True)

    async def close(self) -> None:
        await self.cut()
        if self.server is not None:
            self.server.close()
