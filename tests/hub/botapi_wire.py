"""A Bot API game stream read off a raw socket, chunk by chunk, for tests: each chunk's
framing checked as it comes (RFC 9112 7.1), so that a line written out of turn, cut, or
after the answer's end shows. Not a test module: tests import it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from urllib.parse import urlsplit

import httpx
from api_tokens import make_token
from inproc_hub import next_move

from brandubh.engine import Game
from wsclient import Msg, Player, friend_game


class RawStream:
    """``GET /api/bot/game/stream/<game>`` on a socket of its own: its status line and
    headers, then every chunk (its bytes) in a queue as it is read (None: the last chunk)."""

    def __init__(self, base: str, token: str, game: str) -> None:
        self.base, self.token, self.game = base, token, game
        self.head: list[str] = []
        self.chunks: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self._task: asyncio.Task[None] | None = None

    async def open(self) -> RawStream:
        url = urlsplit(self.base)
        self.reader, self.writer = await asyncio.open_connection(url.hostname, url.port)
        self.writer.write(
            f"GET /api/bot/game/stream/{self.game} HTTP/1.1\r\nHost: {url.netloc}\r\n"
            f"Authorization: Bearer {self.token}\r\n\r\n".encode()
        )
        head = await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), 10)
        self.head = head.decode().split("\r\n")[:-2]
        self._task = asyncio.create_task(self._read(self.reader))
        return self

    def header(self, name: str) -> str | None:
        for line in self.head[1:]:
            key, _, value = line.partition(":")
            if key.strip().lower() == name:
                return value.strip()
        return None

    async def _read(self, reader: asyncio.StreamReader) -> None:
        while True:
            size_line = await reader.readuntil(b"\r\n")
            size = int(size_line[:-2], 16)  # a size and nothing else: no extension
            data = await reader.readexactly(size + 2)
            assert data[-2:] == b"\r\n", f"chunk of {size} bytes not closed by CRLF: {data!r}"
            if size == 0:
                await self.chunks.put(None)
                return
            await self.chunks.put(data[:-2])

    async def lines(self, timeout: float = 20.0) -> list[Msg]:
        """Every line until the last chunk, each chunk whole lines (or one keep-alive)."""
        got: list[Msg] = []
        while (chunk := await asyncio.wait_for(self.chunks.get(), timeout)) is not None:
            assert chunk.endswith(b"\n"), f"a chunk that is not whole lines: {chunk!r}"
            if chunk != b"\n":
                got += [json.loads(x) for x in chunk.split(b"\n")[:-1]]
        return got

    async def next_line(self, timeout: float = 20.0) -> Msg:
        """The next line that is not a keep-alive (in a chunk of its own)."""
        while True:
            chunk = await asyncio.wait_for(self.chunks.get(), timeout)
            assert chunk is not None, "the stream ended"
            if chunk != b"\n":
                assert chunk.endswith(b"\n") and chunk.count(b"\n") == 1, chunk
                line: Msg = json.loads(chunk)
                return line

    def abort(self) -> None:
        """The client goes without a word: its connection reset."""
        assert self.writer is not None
        self.writer.transport.abort()

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, asyncio.IncompleteReadError):
                await self._task
        if self.writer is not None:
            self.writer.close()


class BotGame:
    """A friend game between two new accounts, each with a ``bot:play`` token: moves
    posted for the side to move, random but never ending the game."""

    def __init__(self, base: str, seed: int = 39) -> None:
        self.base = base
        self.engine, self.rng = Game("nielsen"), random.Random(seed)
        self.id = ""
        self.tokens: dict[str, str] = {}
        self.clients: dict[str, httpx.AsyncClient] = {}
        self.people: list[Player] = []

    async def start(self) -> BotGame:
        self.id, alice, bob = await friend_game(self.base, "nielsen")
        self.people = [alice, bob]
        state = (await alice.http.get(f"/api/games/{self.id}")).json()["state"]
        seats = {side: seat["id"] for side, seat in state["players"].items()}
        for p in (alice, bob):
            side = next(s for s, pid in seats.items() if pid == p.id)
            self.tokens[side] = (await make_token(p, scopes=["bot:play"]))["token"]
            self.clients[side] = httpx.AsyncClient(
                base_url=self.base,
                headers={"Authorization": f"Bearer {self.tokens[side]}"},
                timeout=30,
            )
        return self

    async def move(self) -> int:
        """Play one; the game's event number after it."""
        side = self.engine.side_to_move
        move = next_move(self.engine, self.rng)
        ply = self.engine.ply - 1
        done = await self.clients[side].post(f"/api/bot/game/{self.id}/move/{move}?ply={ply}")
        assert done.status_code == 200, done.text
        n: int = done.json()["n"]
        return n

    async def resign(self, side: str) -> None:
        done = await self.clients[side].post(f"/api/bot/game/{self.id}/resign")
        assert done.status_code == 200, done.text

    async def stats(self) -> Msg:
        got: Msg = (await self.clients["defenders"].get("/healthz/stats")).json()
        return got

    async def close(self) -> None:
        for c in self.clients.values():
            await c.aclose()
        for p in self.people:
            await p.close()


def check_game_lines(full: Msg, rest: list[Msg], moves: list[str]) -> None:
    """A whole stream's lines: the game in full, then each event once in order, the last
    the game's end."""
    assert full["type"] == "gameFull", full
    assert [x["type"] for x in rest] == ["gameState"] * len(rest)
    assert [x["n"] for x in rest] == list(range(full["n"] + 1, full["n"] + 1 + len(rest)))
    played = full["moves"] + [x["event"]["move"] for x in rest if "move" in x["event"]]
    assert played == moves
    assert rest[-1]["state"]["status"] == "ended", rest[-1]
