"""A Bot API game stream's bytes on the wire, on real hubs (``brandubh serve``, whose
protocol writes its lines straight to the connection while the client keeps up): chunks
well formed and in order for a whole game, then the answer's end and the connection kept
for the next request; a reader that stops reading has its lines wait in the hub and gets
them all, in order, when it reads again; a client that goes mid-game leaves the other
streams their lines (docs/protocol.md §2.9)."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any, cast

import httpx
import pytest
from botapi_wire import BotGame, RawStream, check_game_lines
from inproc_hub import hub_here

from brandubh.hub.botapi import GameStream
from brandubh.hub.config import Settings
from brandubh.hub.live import Player
from brandubh.hub.messages import frames
from brandubh.hub.wire import connection
from services import TEST_ENV, HubProcess, mail_env
from waiting import wait_for
from wsclient import Msg

PLIES = 40
MAX_PLIES = 360  # under every rule set's move limit


async def next_line(lines: AsyncIterator[str]) -> Msg:
    """The next line that is not a keep-alive."""
    while not (text := await anext(lines)):
        pass
    line: Msg = json.loads(text)
    return line


async def test_a_whole_game_comes_as_well_formed_chunks_in_order(hub: HubProcess) -> None:
    game = await BotGame(hub.url).start()
    raw = await RawStream(hub.url, game.tokens["attackers"], game.id).open()
    other = await RawStream(hub.url, game.tokens["defenders"], game.id).open()
    assert raw.head[0] == "HTTP/1.1 200 OK", raw.head
    assert raw.header("content-type") == "application/x-ndjson"
    assert raw.header("transfer-encoding") == "chunked"
    assert raw.header("content-encoding") == "identity"  # never gzipped
    assert raw.header("x-content-type-options") == "nosniff"  # the security headers
    fulls = [await raw.next_line(), await other.next_line()]
    for _ in range(PLIES):
        await game.move()
    await game.resign("defenders")
    moves = [str(m) for m in game.engine.moves]
    for full, stream in zip(fulls, (raw, other), strict=True):
        # To the last chunk, each checked: one event a move, and the resignation.
        rest = await stream.lines()
        check_game_lines(full, rest, moves)
        assert len(rest) == PLIES + 1
    # Nothing after the answer's end: the connection answers its next request.
    assert raw.reader is not None and raw.writer is not None
    raw.writer.write(b"GET /healthz HTTP/1.1\r\nHost: hub\r\n\r\n")
    status = await asyncio.wait_for(raw.reader.readuntil(b"\r\n"), 10)
    assert status == b"HTTP/1.1 200 OK\r\n", status
    for stream in (raw, other):
        await stream.close()
    await game.close()


async def test_a_client_gone_mid_game_leaves_the_other_streams_their_lines(
    start_hub: Any,
) -> None:
    h = start_hub()
    game = await BotGame(h.url).start()
    gone = await RawStream(h.url, game.tokens["attackers"], game.id).open()
    kept = [
        await RawStream(h.url, game.tokens[side], game.id).open()
        for side in ("attackers", "defenders")
    ]
    fulls = [await s.next_line() for s in kept]
    assert (await gone.next_line())["type"] == "gameFull"
    for _ in range(6):
        await game.move()
    assert (await gone.next_line())["type"] == "gameState"
    gone.abort()  # mid-game, lines on their way to it
    for _ in range(6):
        await game.move()

    async def streams_open(n: int) -> bool:
        return bool((await game.stats())["bot_streams"] == n)

    await wait_for(lambda: streams_open(2), "the gone client's stream closed", every=0.05)
    for _ in range(PLIES - 12):
        await game.move()
    await game.resign("attackers")
    moves = [str(m) for m in game.engine.moves]
    for full, stream in zip(fulls, kept, strict=True):
        rest = await stream.lines()
        check_game_lines(full, rest, moves)
        await stream.close()
    await wait_for(lambda: streams_open(0), "the ended streams closed", every=0.05)
    await gone.close()
    await game.close()
    assert "Traceback" not in "".join(h.log), "".join(h.log)


async def test_a_reader_that_stops_gets_every_line_in_order_when_it_reads_again(
    redis_url: str, database_url: str, mailbox: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its lines go direct until its connection's writes pause, then wait in the hub's
    queue (a bound far above what this test lets wait); read again, they come in order,
    and the lines after them too."""
    env = {
        **TEST_ENV,
        **mail_env(mailbox),
        "REDIS_URL": redis_url,
        "DATABASE_URL": database_url,
        "BRANDUBH_OUTBOUND_QUEUE": "300",
    }
    async with hub_here(env, monkeypatch) as url:
        game = await BotGame(url).start()
        slow = httpx.AsyncClient(
            base_url=url,
            headers=game.clients["attackers"].headers,
            timeout=60,
            transport=httpx.AsyncHTTPTransport(
                socket_options=[(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)]
            ),
        )
        async with slow.stream("GET", f"/api/bot/game/stream/{game.id}") as r:
            assert r.status_code == 200
            lines = r.aiter_lines()
            full = json.loads(await anext(lines))
            waiting, n = 0, full["n"]
            while waiting < 5:  # until lines wait in the hub: its writes paused
                assert game.engine.ply < MAX_PLIES, f"no line waited in {game.engine.ply} plies"
                n = await game.move()
                now = await game.stats()
                waiting = now["bot_stream_queued_most"]
                assert not now["bot_streams_too_slow"], now
            rest: list[Msg] = []
            while not rest or rest[-1]["n"] < n:  # it reads again: what waited
                rest.append(await next_line(lines))
            for _ in range(10):  # then each line as it comes
                n = await game.move()
                line = await next_line(lines)
                assert line["n"] == n, (line, n)
                rest.append(line)
            await game.resign("defenders")
            rest += [json.loads(x) async for x in lines if x]
        check_game_lines(full, rest, [str(m) for m in game.engine.moves])
        assert (await game.stats())["bot_streams_too_slow"] == 0
        await slow.aclose()
        await game.close()


class Connection:
    """What a stream's direct writer writes to, for the order rule below: its chunks, and
    whether it takes writes now (False: paused, as a slow reader's connection)."""

    def __init__(self) -> None:
        self.wire: list[bytes] = []
        self.takes = False

    def write(self, data: bytes) -> bool:
        if self.takes:
            self.wire.append(data)
        return self.takes


def move_frame(n: int, status: str = "active") -> bytes:
    return frames.event("g1", n, {"kind": "move", "move": "g4-g3"}, {"status": status})


async def test_a_direct_line_never_passes_one_that_waits_nor_follows_the_end() -> None:
    """The order rule itself, on a stream with no game behind it (the wire shows it only
    when a line comes in the instant a paused connection resumes): a line goes direct only
    with none queued or held by the answer's task, and none after the end."""
    conn = Connection()
    services = cast(connection.Services, SimpleNamespace(settings=Settings()))
    stream = GameStream(services, Player("p1", "P"), "g1", conn.write)
    stream.send(frames.snapshot("g1", 1, {"status": "active"}, [], 1))  # headers not out
    conn.takes = True
    stream.send(move_frame(2))  # after a line that waits: waits too
    assert conn.wire == [] and stream.queued == 2
    task_lines = stream.lines()
    conn.wire.append(await anext(task_lines))
    held = await anext(task_lines)  # taken by the task, not yet written: none waits
    assert stream.queued == 0
    stream.send(move_frame(3))  # so this one waits for it
    assert stream.queued == 1
    conn.wire.append(held)
    conn.wire.append(await anext(task_lines))
    # The task asks for its next line, as the answer does once its last is written, and
    # waits for one (one turn of the loop takes it there).
    waiting = asyncio.create_task(anext(task_lines))
    await asyncio.sleep(0)
    stream.send(move_frame(4))  # nothing waits now: direct
    stream.send(move_frame(5, "ended"))  # the last line, direct; the task ends the answer
    stream.send(move_frame(6))
    assert [json.loads(x)["n"] for x in conn.wire] == [1, 2, 3, 4, 5]
    with pytest.raises(StopAsyncIteration):  # the end, with no more lines from the task
        await waiting
    assert stream.queued == 1  # (the line after the end, never read)
