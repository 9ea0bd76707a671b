"""A small protocol client for the tests: real HTTP and a real websocket, msgpack frames.

It speaks docs/protocol.md and nothing else, answers pings, and keeps every frame it
received (``frames``) so tests can inspect all traffic.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
from collections.abc import Callable
from typing import Any

import httpx
import msgpack
import websockets
from websockets.asyncio.client import ClientConnection

Msg = dict[str, Any]
_ids = itertools.count(1)
PASSWORD = "correct horse battery"
# The test SMTP server the hubs send to (tests/mailbox_smtp.py), set by conftest's fixture.
MAILBOX: Any = None
CONFIRM = "confirm your email"  # in the subject of the mail sent at sign-up


def random_address() -> str:
    """A client address from the documentation range 198.18.0.0/15 (benchmarking)."""
    n = secrets.randbelow(1 << 17)
    return f"198.{18 + (n >> 16)}.{(n >> 8) & 255}.{n & 255}"


class _RetryIdempotent(httpx.AsyncHTTPTransport):
    """Sends a GET or HEAD again, once, when the server closed the connection under it.

    The hub closes a keep-alive connection idle for ``keep_alive_s``; a request sent on it
    at that moment meets a close (or a reset) instead of a response. HTTP lets a client retry an
    idempotent request then (RFC 9112, 9.3.1) and browsers do; httpx does not.
    """

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        try:
            return await super().handle_async_request(request)
        except (httpx.RemoteProtocolError, httpx.ReadError):  # a close, or a reset
            if request.method not in ("GET", "HEAD"):
                raise
            return await super().handle_async_request(request)


class Player:
    """An HTTP session (cookie jar) that can open websockets as that session."""

    def __init__(self, base_url: str, address: str | None = None) -> None:
        self.base_url = base_url
        # Each player comes from an address of its own, as people do: the hub trusts
        # X-Forwarded-For from 127.0.0.1 (a local proxy), so per-address limits apply to
        # each player rather than to the whole test run.
        self.address = address or random_address()
        self.http = httpx.AsyncClient(
            base_url=base_url,
            headers={"Origin": base_url, "X-Forwarded-For": self.address},
            transport=_RetryIdempotent(),
        )
        self.me: Msg = {}
        self.email = ""
        self.password = ""

    async def start(self) -> Player:
        """GET /api/me as a first visit does: a guest view; no session is made until the
        player acts (``create_game``)."""
        await self.refresh()
        return self

    async def guest(self) -> Player:
        """A guest session, made as a visitor's first act makes one: a game with the bot."""
        await self.start()
        await self.create_game(opponent="bot")
        return self

    async def refresh(self) -> None:
        r = await self.http.get("/api/me")
        r.raise_for_status()
        self.me = r.json()

    async def signup(
        self,
        email: str | None = None,
        password: str = PASSWORD,
        name: str | None = None,
        verify: bool = True,
    ) -> Player:
        """Sign up a new account from this session (a random email unless given); a guest
        session started before keeps its player id. Signing up logs nobody in: with
        ``verify`` the address is confirmed as a person would, by following the link in
        the mail, which logs the account in."""
        self.email = email or f"p{secrets.token_hex(6)}@example.org"
        self.password = password
        body = {"email": self.email, "password": password}
        if name is not None:
            body["name"] = name
        seen = len(MAILBOX.mails(self.email, CONFIRM)) if MAILBOX is not None else 0
        r = await self.http.post("/api/signup", json=body)
        assert r.status_code == 202 and r.json()["sent"] is True, r.text
        if verify:
            await self.verify(count=seen + 1)  # this sign-up's mail, not an earlier one's
        return self

    async def verify(self, count: int = 1) -> None:
        """Follow the link of the ``count``-th confirmation mail to this player's address."""
        assert MAILBOX is not None, "the mailbox fixture is not running"
        mail = await MAILBOX.wait(self.email, CONFIRM, count)
        token = mail.link("/verify-email/").rsplit("/", 1)[1]
        # As its page does: the password is asked for outside the browser that signed up.
        asks = (await self.http.get(f"/api/verify-email/{token}")).json()["asks_password"]
        body = {"password": self.password} if asks else {}
        r = await self.http.post(f"/api/verify-email/{token}", json=body)
        assert r.status_code == 200, r.text
        self.me = r.json()  # the link logs the account in

    async def login(self, email: str | None = None, password: str | None = None) -> httpx.Response:
        """POST /api/login (this player's own email and password unless given)."""
        r = await self.http.post(
            "/api/login",
            json={"email": email or self.email, "password": password or self.password},
        )
        if r.status_code == 200:
            self.me = r.json()
        return r

    @property
    def id(self) -> str:
        return str(self.me["id"])

    @property
    def cookie(self) -> str:
        return str(self.http.cookies.get("bd_session"))

    async def create_game(self, **body: Any) -> Msg:
        r = await self.http.post("/api/games", json=body)
        assert r.status_code == 201, r.text
        data: Msg = r.json()
        if self.me.get("id") is None:  # the first act made this guest's session
            await self.refresh()
        return data

    async def join(self, invite_path: str) -> Msg:
        _, _, game_id, token = invite_path.split("/")
        r = await self.http.post(f"/api/games/{game_id}/join", json={"invite": token})
        assert r.status_code == 200, r.text
        data: Msg = r.json()
        return data

    async def game(self, game_id: str) -> Msg:
        """The game as GET /api/games/<id> gives it: {"n", "state", "moves"}."""
        r = await self.http.get(f"/api/games/{game_id}")
        r.raise_for_status()
        data: Msg = r.json()
        return data

    async def connect(self, base_url: str | None = None) -> Socket:
        """A websocket with this player's session, to this hub or another."""
        return await Socket.open(
            base_url or self.base_url, cookie=self.cookie, address=self.address
        )

    async def close(self) -> None:
        await self.http.aclose()


class Socket:
    """One websocket: send maps, receive maps, answer pings."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.frames: list[Msg] = []
        self.raw: list[bytes] = []
        self.hello: Msg = {}

    @classmethod
    async def open(
        cls,
        base_url: str,
        cookie: str | None = None,
        origin: str | None = None,
        address: str | None = None,
        token: str | None = None,
        path: str = "/ws",
    ) -> Socket:
        """A websocket on ``path`` (the bot socket's with a ``token``), its hello read."""
        headers = {}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if address:
            headers["X-Forwarded-For"] = address
        if cookie:
            headers["Cookie"] = f"bd_session={cookie}"
        if origin:
            headers["Origin"] = origin
        url = base_url.replace("http://", "ws://") + path
        ws = await websockets.connect(url, additional_headers=headers, max_size=2**20)
        sock = cls(ws)
        sock.hello = await sock.recv()
        assert sock.hello["t"] == "hello"
        return sock

    async def send(self, msg: Msg) -> None:
        await self.ws.send(msgpack.packb(msg))

    async def send_raw(self, data: bytes | str) -> None:
        await self.ws.send(data)

    async def recv(self, timeout: float = 10.0) -> Msg:
        """The next frame that is not a ping (pings are answered)."""
        while True:
            data = await asyncio.wait_for(self.ws.recv(), timeout)
            assert isinstance(data, bytes), "the server sent a text frame"
            self.raw.append(data)
            msg: Msg = msgpack.unpackb(data, raw=False)
            self.frames.append(msg)
            if msg["t"] == "ping":
                await self.send({"t": "pong", "n": msg["n"]})
                continue
            return msg

    async def recv_until(self, pred: Callable[[Msg], bool], timeout: float = 10.0) -> Msg:
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            left = deadline - asyncio.get_running_loop().time()
            msg = await self.recv(timeout=max(left, 0.01))
            if pred(msg):
                return msg

    async def seen_or_next(self, pred: Callable[[Msg], bool], timeout: float = 10.0) -> Msg:
        """A frame already received that matches, else the next one that does."""
        for msg in self.frames:
            if pred(msg):
                return msg
        return await self.recv_until(pred, timeout)

    async def watch(self, game: str, since: int | None = None) -> Msg:
        msg: Msg = {"t": "watch", "game": game}
        if since is not None:
            msg["since"] = since
        await self.send(msg)
        return await self.recv_until(lambda m: m["t"] in ("snapshot", "event", "error"))

    async def move(self, game: str, ply: int, move: str, msg_id: str | None = None) -> str:
        msg_id = msg_id or f"m{next(_ids)}"
        await self.send({"t": "move", "game": game, "ply": ply, "move": move, "id": msg_id})
        return msg_id

    async def reply_to(self, msg_id: str, timeout: float = 10.0) -> Msg:
        """The ack or error for a message id."""
        return await self.recv_until(
            lambda m: m["t"] in ("ack", "error") and m.get("id") == msg_id, timeout
        )

    async def event(self, n: int, timeout: float = 10.0) -> Msg:
        return await self.recv_until(lambda m: m["t"] == "event" and m["n"] == n, timeout)

    def events(self, game: str) -> list[Msg]:
        return [m for m in self.frames if m["t"] == "event" and m["game"] == game]

    async def close_code(self, timeout: float = 15.0) -> int | None:
        """Read (answering nothing) until the server closes; its close code."""
        return await close_code(self.ws, timeout)

    async def close(self) -> None:
        await self.ws.close()


async def close_code(ws: ClientConnection, timeout: float = 15.0) -> int | None:
    """Read a raw websocket until it closes; the code the server sent (None if none)."""
    try:
        async with asyncio.timeout(timeout):
            while True:
                await ws.recv()
    except websockets.ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd is not None else None


async def lobby_socket(base: str) -> tuple[Player, Socket]:
    """A new account's socket, following the lobby (its first snapshot read)."""
    player = await Player(base).signup()
    sock = await player.connect()
    await sock.send({"t": "lobby", "on": True})
    await sock.recv_until(lambda m: m["t"] == "lobby")
    return player, sock


async def friend_game(
    base: str, ruleset: str = "nielsen", joiner_base: str | None = None, move_time: int = 600
) -> tuple[str, Player, Player]:
    """A started friend game between two new accounts: (game id, creator, joiner)."""
    alice = await Player(base).signup()
    bob = await Player(joiner_base or base).signup()
    created = await alice.create_game(opponent="friend", ruleset=ruleset, move_time=move_time)
    await bob.join(created["invite"])
    return created["id"], alice, bob


def side_of(state: Msg, player: Player) -> str:
    """The side a player has in a game's state."""
    return str(next(s for s, p in state["players"].items() if p and p["id"] == player.id))


async def seated(game: str, *players: Player, base_url: str | None = None) -> dict[str, Socket]:
    """Connect each player and watch the game; sockets by side."""
    out: dict[str, Socket] = {}
    for player in players:
        sock = await player.connect(base_url)
        snap = await sock.watch(game)
        out[side_of(snap["state"], player)] = sock
    return out
