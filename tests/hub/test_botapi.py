"""The Bot API's games on real hubs: a token account plays a whole game against a person's
websocket with its stream open (each of the person's moves a gameState line, each of its
own an event on the person's socket), a resent move applied once, a stream reopened with
``since`` given exactly the missing events, the refusals; and the line builder, pure."""

from __future__ import annotations

import contextlib
import json
import os
import signal
from collections.abc import AsyncIterator
from typing import Any

import httpx
import msgpack
from api_tokens import bearer, error_of, make_token
from ndjson_streams import NdjsonReader

from brandubh.hub.botapi import line_of, move_id
from brandubh.hub.messages import frames
from services import HubProcess
from waiting import wait_for
from wsclient import Player, Socket, friend_game, seated

OPEN: set[Stream] = set()  # closed when their client is, whatever the test did
QUICK_ESCAPE = ["g4-g3", "d5-g5", "g3-g2", "Kd4-d5", "g2-g3", "Kd5-a5", "g3-g2", "Ka5-a7"]


class Stream(NdjsonReader):
    """A bot's open game stream: its lines read by a task into a queue (None: it ended)."""

    def __init__(self, client: httpx.AsyncClient, game: str, since: int | None = None) -> None:
        params = {"since": since} if since is not None else {}
        super().__init__(client, f"/api/bot/game/stream/{game}", params)
        self.game, self.since = game, since

    async def open(self) -> Stream:
        OPEN.add(self)
        await self.start(10)
        assert self.status == 200, self.status
        assert self.headers is not None
        assert self.headers["content-type"] == "application/x-ndjson"
        return self

    async def close(self) -> None:
        OPEN.discard(self)
        await super().close()


@contextlib.asynccontextmanager
async def bot_of(
    hub: HubProcess, p: Player, scopes: list[str] | None = None
) -> AsyncIterator[httpx.AsyncClient]:
    made = await make_token(p, "bot", scopes or ["bot:play"])
    async with bearer(hub, made["token"]) as client:
        try:
            yield client
        finally:
            for stream in list(OPEN):
                await stream.close()


async def person_and_bot(hub: HubProcess) -> tuple[str, Player, Player, Socket, str]:
    """A friend game; (game, person, bot account, the person's socket, the bot's side)."""
    game, alice, bob = await friend_game(hub.url)
    socks = await seated(game, alice)
    (person_side,) = socks
    bot_side = "defenders" if person_side == "attackers" else "attackers"
    return game, alice, bob, socks[person_side], bot_side


async def test_a_bot_plays_a_whole_game_against_a_person(hub: HubProcess) -> None:
    game, _alice, bob, sock, bot_side = await person_and_bot(hub)
    async with bot_of(hub, bob) as bot:
        stream = await Stream(bot, game).open()
        full = await stream.until("gameFull")
        assert full["id"] == game and full["ruleset"] == "nielsen" and full["moves"] == []
        assert full["players"][bot_side]["id"] == bob.id
        assert full["state"]["status"] == "active" and full["state"]["ply"] == 0
        last = full["n"]
        r = await bot.post(f"/api/bot/game/{game}/chat", json={"text": "good luck"})
        assert r.status_code == 200, r.text
        said = await sock.recv_until(lambda m: m["t"] == "chat")
        assert said["text"] == "good luck" and said["from"]["id"] == bob.id
        assert (await stream.until("chatLine"))["text"] == "good luck"
        for ply, mv in enumerate(QUICK_ESCAPE):
            side = "attackers" if ply % 2 == 0 else "defenders"
            if side == bot_side:
                r = await bot.post(f"/api/bot/game/{game}/move/{mv}", params={"ply": ply})
                assert r.status_code == 200, r.text
                assert r.json() == {"ok": True, "n": last + 1}
                seen = await sock.event(last + 1)
                assert seen["move"] == mv
                # Sent again (its answer lost): applied once, answered the same.
                again = await bot.post(f"/api/bot/game/{game}/move/{mv}", params={"ply": ply})
                assert again.status_code == 200 and again.json() == r.json()
            else:
                await sock.move(game, ply, mv)
            line = await stream.next()
            assert line is not None and line["type"] == "gameState", line
            assert line["n"] == last + 1 and line["event"]["move"] == mv
            assert line["state"]["ply"] == ply + 1
            last = line["n"]
        assert line["state"]["status"] == "ended"
        assert line["state"]["result"]["reason"] == "king_escaped"
        assert await stream.next() is None  # the stream ended with the game
        await sock.seen_or_next(lambda m: m["t"] == "event" and m["n"] == last)
        assert [m["n"] for m in sock.events(game)] == list(range(full["n"] + 1, last + 1))
        await stream.close()


async def test_moves_refused_and_a_move_without_its_ply(hub: HubProcess) -> None:
    game, _alice, bob, sock, bot_side = await person_and_bot(hub)
    async with bot_of(hub, bob) as bot:
        if bot_side == "defenders":
            await sock.move(game, 0, QUICK_ESCAPE[0])
            await sock.event(2)
        ply = 0 if bot_side == "attackers" else 1
        url = f"/api/bot/game/{game}/move"
        r = await bot.post(f"{url}/a1-a2", params={"ply": ply})
        assert r.status_code == 400 and error_of(r) == "illegal_move", r.text
        r = await bot.post(f"{url}/{QUICK_ESCAPE[ply]}")  # no ply: the game's current one
        assert r.status_code == 200, r.text
        n = r.json()["n"]
        # Another move at a ply it played already: stale, the game has moved on.
        r = await bot.post(f"{url}/{QUICK_ESCAPE[ply + 2]}", params={"ply": ply})
        assert r.status_code == 400 and error_of(r) == "stale_ply", r.text
        r = await bot.post(f"{url}/{QUICK_ESCAPE[ply + 2]}", params={"ply": ply + 1})
        assert error_of(r) == "not_your_turn", r.text
        r = await bot.post(f"{url}/{QUICK_ESCAPE[ply]}", params={"ply": "x"})
        assert error_of(r) == "bad_field", r.text
        assert (await sock.event(n))["move"] == QUICK_ESCAPE[ply]
        # The draw: offered, the offer sent again is the same offer; then it resigns.
        r = await bot.post(f"/api/bot/game/{game}/draw/yes")
        assert r.status_code == 200, r.text
        again = await bot.post(f"/api/bot/game/{game}/draw/yes")
        assert again.json() == r.json()
        offer = await sock.event(r.json()["n"])
        assert offer["kind"] == "draw_offer" and offer["by"] == bot_side
        r = await bot.post(f"/api/bot/game/{game}/draw/no")
        assert error_of(r) == "no_draw_offer", r.text  # its own offer is no one's to decline
        stream = await Stream(bot, game).open()
        await stream.until("gameFull")
        r = await bot.post(f"/api/bot/game/{game}/resign")
        assert r.status_code == 200, r.text
        line = await stream.until("gameState")
        assert line["event"]["kind"] == "resign" and line["state"]["status"] == "ended"
        assert await stream.next() is None
        # The game over, a stream of it is its final state, then the end.
        stream = await Stream(bot, game).open()
        assert (await stream.until("gameFull"))["state"]["status"] == "ended"
        assert await stream.next() is None
        r = await bot.post(f"{url}/{QUICK_ESCAPE[ply + 2]}", params={"ply": ply + 2})
        assert error_of(r) == "game_not_active", r.text


async def test_a_stream_reopened_with_since_gets_exactly_the_missing_events(
    hub: HubProcess,
) -> None:
    game, _alice, bob, sock, bot_side = await person_and_bot(hub)
    async with bot_of(hub, bob) as bot:
        stream = await Stream(bot, game).open()
        full = await stream.until("gameFull")
        await stream.close()  # the connection lost
        for ply, mv in enumerate(QUICK_ESCAPE[:4]):
            if ("attackers" if ply % 2 == 0 else "defenders") == bot_side:
                r = await bot.post(f"/api/bot/game/{game}/move/{mv}", params={"ply": ply})
                assert r.status_code == 200, r.text
            else:
                await sock.move(game, ply, mv)
            await sock.event(full["n"] + ply + 1)
        stream = await Stream(bot, game, since=full["n"] + 1).open()
        missed = [await stream.until("gameState") for _ in range(3)]
        assert [m["n"] for m in missed] == [full["n"] + 2, full["n"] + 3, full["n"] + 4]
        assert [m["event"]["move"] for m in missed] == QUICK_ESCAPE[1:4]
        # Live after the catch-up: the next move, once.
        ply = 4
        if ("attackers" if ply % 2 == 0 else "defenders") == bot_side:
            await bot.post(f"/api/bot/game/{game}/move/{QUICK_ESCAPE[ply]}", params={"ply": ply})
        else:
            await sock.move(game, ply, QUICK_ESCAPE[ply])
        line = await stream.until("gameState")
        assert line["n"] == full["n"] + 5 and line["event"]["move"] == QUICK_ESCAPE[ply]
        await stream.close()
        # Outside the replay window (past the last event): the whole state again.
        stream = await Stream(bot, game, since=10_000).open()
        again = await stream.until("gameFull")
        assert again["n"] == full["n"] + 5 and again["moves"] == QUICK_ESCAPE[:5]
        await stream.close()


async def test_who_may_use_the_routes(hub: HubProcess) -> None:
    game, alice, bob, _sock, _side = await person_and_bot(hub)
    stranger = await Player(hub.url).signup()
    routes = [
        ("GET", f"/api/bot/game/stream/{game}"),
        ("POST", f"/api/bot/game/{game}/move/g4-g3"),
        ("POST", f"/api/bot/game/{game}/resign"),
        ("POST", f"/api/bot/game/{game}/abort"),
        ("POST", f"/api/bot/game/{game}/draw/yes"),
        ("POST", f"/api/bot/game/{game}/draw/no"),
    ]
    async with bot_of(hub, bob, ["games:read"]) as reader, bot_of(hub, stranger) as other:
        for method, path in routes:
            r = await reader.request(method, path)
            assert r.status_code == 403 and error_of(r) == "token_scope", (path, r.text)
            assert "bot:play" in r.json()["message"]
            r = await other.request(method, path)
            assert r.status_code == 403 and error_of(r) == "not_a_player", (path, r.text)
            r = await alice.http.request(method, path)  # a session cookie opens no token route
            assert r.status_code == 401 and error_of(r) == "token_invalid", (path, r.text)
        r = await other.post(f"/api/bot/game/{game}/chat", json={"text": "hi"})
        assert error_of(r) == "not_a_player", r.text
    state = (await alice.http.get(f"/api/games/{game}")).json()["state"]
    assert state["status"] == "active" and state["ply"] == 0  # nothing changed


async def test_the_bot_aborts_before_its_first_move(hub: HubProcess) -> None:
    game, _alice, bob, sock, _side = await person_and_bot(hub)
    async with bot_of(hub, bob) as bot:
        r = await bot.post(f"/api/bot/game/{game}/abort")
        assert r.status_code == 200, r.text
        assert (await sock.event(r.json()["n"]))["kind"] == "abort"
        assert (await bot.post(f"/api/bot/game/{game}/abort")).json() == r.json()


def test_each_frame_becomes_its_line() -> None:
    state = {"status": "active", "ruleset": "nielsen", "players": {"attackers": None}}
    full = line_of(frames.snapshot("g1", 3, state, ["g4-g3"], 2))
    assert full is not None and not full.final
    assert json.loads(full.text) == {
        "type": "gameFull",
        "id": "g1",
        "ruleset": "nielsen",
        "players": {"attackers": None},
        "state": state,
        "moves": ["g4-g3"],
        "n": 3,
    }
    ended = {**state, "status": "ended"}
    event = line_of(frames.event("g1", 4, {"kind": "move", "move": "d5-g5"}, ended))
    assert event is not None and event.final and event.text.endswith(b"\n")
    assert json.loads(event.text) == {
        "type": "gameState",
        "n": 4,
        "event": {"kind": "move", "move": "d5-g5"},
        "state": ended,
    }
    said = {"n": 2, "from": {"id": "p", "name": "P"}, "text": "hi", "at": 5}
    chat = msgpack.packb({"t": "chat", "game": "g1", "room": "players", **said})
    line = line_of(chat)
    assert line is not None and not line.final
    assert json.loads(line.text) == {"type": "chatLine", "game": "g1", "room": "players", **said}
    recent = line_of(frames.chat_lines("g1", "players", [said, {**said, "n": 3}]))
    assert recent is not None and [json.loads(x)["n"] for x in recent.text.splitlines()] == [2, 3]
    assert line_of(frames.chat_lines("g1", None, [])) is None
    assert line_of(frames.presence("g1", ["p"])) is None
    failed = line_of(frames.error("unavailable", "could not load the game", game="g1"))
    assert failed is not None and failed.final and json.loads(failed.text)["code"] == "unavailable"
    assert move_id("t", "g1", "3") == move_id("t", "g1", "3") != move_id("t", "g1", "4")


def followed(hub: HubProcess) -> int:
    """How many games the hub's fan-out follows now."""
    return int(httpx.get(hub.url + "/healthz/stats", timeout=5).json()["games_followed"])


async def test_a_stream_on_another_hub_follows_the_game_and_lets_go(
    hub: HubProcess, hub2: HubProcess
) -> None:
    """The person plays on one hub, the bot's stream is on another: each move comes once
    by the fan-out; the stream shows the bot present, keeps the connection alive while
    nothing happens, and its hub stops following the game once the client goes."""
    game, _alice, bob, sock, bot_side = await person_and_bot(hub)
    assert followed(hub2) == 0
    async with bot_of(hub2, bob) as bot:
        stream = await Stream(bot, game).open()
        full = await stream.until("gameFull")
        await sock.seen_or_next(lambda m: m["t"] == "presence" and bob.id in m["online"])
        await wait_for(lambda: stream.keepalives >= 1, "a keep-alive line", 20, 0.2)
        for ply, mv in enumerate(QUICK_ESCAPE[:3]):
            if ("attackers" if ply % 2 == 0 else "defenders") == bot_side:
                r = await bot.post(f"/api/bot/game/{game}/move/{mv}", params={"ply": ply})
                assert r.status_code == 200, r.text
            else:
                await sock.move(game, ply, mv)
            line = await stream.until("gameState")
            assert line["n"] == full["n"] + ply + 1 and line["event"]["move"] == mv
        assert followed(hub2) == 1
        await stream.close()
        await wait_for(lambda: followed(hub2) == 0, "hub2 to let the game go", 10, 0.1)
        await sock.recv_until(lambda m: m["t"] == "presence" and bob.id not in m["online"])


async def test_a_stream_ended_by_a_hub_stop_resumes_on_another_hub(
    start_hub: Any, hub: HubProcess
) -> None:
    """A hub stopping ends its streams at once (no final state: the stream is just over)
    and exits; the bot opens the stream again on another hub with ``since`` and misses
    nothing."""
    h = start_hub()
    game, _alice, bob, sock, bot_side = await person_and_bot(hub)
    async with bot_of(h, bob) as bot:
        stream = await Stream(bot, game).open()
        full = await stream.until("gameFull")
        assert h.proc is not None
        os.kill(h.pid, signal.SIGTERM)
        assert await stream.next(20) is None  # ended, not cut
        assert not stream.cut
        h.proc.wait(20)
        assert "Traceback" not in "".join(h.log), "".join(h.log)
    async with bot_of(hub, bob) as bot:
        ply = 0
        if bot_side == "attackers":
            r = await bot.post(f"/api/bot/game/{game}/move/{QUICK_ESCAPE[0]}", params={"ply": 0})
            assert r.status_code == 200, r.text
        else:
            await sock.move(game, ply, QUICK_ESCAPE[0])
        await sock.event(full["n"] + 1)
        stream = await Stream(bot, game, since=full["n"]).open()
        line = await stream.until("gameState")
        assert line["n"] == full["n"] + 1 and line["event"]["move"] == QUICK_ESCAPE[0]


async def test_the_bot_accepts_a_draw_once(hub: HubProcess) -> None:
    game, _alice, bob, sock, _side = await person_and_bot(hub)
    async with bot_of(hub, bob) as bot:
        stream = await Stream(bot, game).open()
        await stream.until("gameFull")
        await sock.send({"t": "offer_draw", "game": game, "id": "d1"})
        offer = await stream.until("gameState")
        assert offer["event"]["kind"] == "draw_offer" and offer["state"]["draw_offer"]
        r = await bot.post(f"/api/bot/game/{game}/draw/yes")
        assert r.status_code == 200, r.text
        agreed = await stream.until("gameState")
        assert agreed["n"] == r.json()["n"] and agreed["event"]["kind"] == "draw_agreed"
        assert agreed["state"]["result"] == {"winner": None, "reason": "draw_agreed"}
        assert await stream.next() is None
        # Sent again (the answer lost): the same answer, nothing more.
        again = await bot.post(f"/api/bot/game/{game}/draw/yes")
        assert again.status_code == 200 and again.json() == r.json(), again.text
        assert (await sock.event(r.json()["n"]))["kind"] == "draw_agreed"
