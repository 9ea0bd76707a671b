"""The bot socket (``/api/bot/socket``) on a real hub: a ``bot:play`` token's socket plays
a whole game against a person's socket with the site's own frames; a resent move is
applied once; a missing, unknown or scopeless token, and a session cookie alone, are
refused (an error frame, then 4005); a revoked token's open socket is closed (4005); the
example in docs/api.md plays as it says."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import msgpack
import websockets
from api_tokens import bearer, make_token

from brandubh.hub.messages import CLOSE_TOKEN_REFUSED
from services import HubProcess
from waiting import wait_for
from wsclient import Msg, Player, Socket, friend_game, seated, side_of

PATH = "/api/bot/socket"
# Attackers' moves that let the king out at a7 (nielsen), as tests/hub/test_botapi.py's.
QUICK_ESCAPE = ["g4-g3", "d5-g5", "g3-g2", "Kd4-d5", "g2-g3", "Kd5-a5", "g3-g2", "Ka5-a7"]


def moved(msg: Msg, ply: int) -> bool:
    """A move's event, after which the game is at ``ply``."""
    return msg["t"] == "event" and msg["kind"] == "move" and msg["state"]["ply"] == ply


async def bot_socket(hub: HubProcess, token: str) -> Socket:
    return await Socket.open(hub.url, token=token, path=PATH)


async def refusal(hub: HubProcess, **how: str) -> tuple[Msg, int | None]:
    """The error frame and close code of a bot socket opened with ``how``."""
    ws = await websockets.connect(
        hub.url.replace("http://", "ws://") + PATH, additional_headers=how
    )
    try:
        first = await ws.recv()
    except websockets.ConnectionClosed as closed:
        raise AssertionError(f"closed with no error frame: {closed}") from None
    said: Msg = msgpack.unpackb(first, raw=False)
    try:
        await ws.recv()
    except websockets.ConnectionClosed as closed:
        return said, closed.rcvd.code if closed.rcvd is not None else None
    raise AssertionError("the refused socket stayed open")


async def test_a_bot_plays_a_whole_game_over_its_socket(hub: HubProcess) -> None:
    game, alice, bob = await friend_game(hub.url)
    made = await make_token(bob, "engine", ["bot:play"])
    bot = await bot_socket(hub, made["token"])
    assert bot.hello["player"]["id"] == bob.id, bot.hello
    snap = await bot.watch(game)
    assert snap["t"] == "snapshot" and snap["state"]["status"] == "active"
    bot_side = side_of(snap["state"], bob)
    (person_side,) = (person := await seated(game, alice))
    socks = {bot_side: bot, person_side: person[person_side]}
    for ply, move in enumerate(QUICK_ESCAPE):
        mover = "attackers" if ply % 2 == 0 else "defenders"
        other = "defenders" if mover == "attackers" else "attackers"
        msg_id = await socks[mover].move(game, ply, move)
        reply = await socks[mover].reply_to(msg_id)
        assert reply["t"] == "ack", reply
        seen = await socks[other].seen_or_next(lambda m, p=ply: moved(m, p + 1))
        assert seen["move"] == move, seen
    end = await bot.seen_or_next(lambda m: m["t"] == "event" and m["state"]["status"] == "ended")
    assert end["state"]["result"] == {"winner": "defenders", "reason": "king_escaped"}
    stored = await alice.game(game)
    assert stored["state"]["status"] == "ended" and len(stored["moves"]) == len(QUICK_ESCAPE)
    await bot.close()


async def test_a_move_sent_again_is_applied_once(hub: HubProcess) -> None:
    game, alice, bob = await friend_game(hub.url)
    made = await make_token(alice, "engine", ["bot:play"])
    bot = await bot_socket(hub, made["token"])
    snap = await bot.watch(game)
    if side_of(snap["state"], alice) != "attackers":  # the person moves first, then
        (sock,) = (await seated(game, bob)).values()
        await sock.move(game, 0, QUICK_ESCAPE[0])
        await bot.recv_until(lambda m: moved(m, 1))
        ply, move = 1, QUICK_ESCAPE[1]
    else:
        ply, move = 0, QUICK_ESCAPE[0]
    for _ in range(2):
        await bot.move(game, ply, move, msg_id="again")
        assert (await bot.reply_to("again"))["t"] == "ack"
    stored = await alice.game(game)
    assert len(stored["moves"]) == ply + 1, stored["moves"]
    await bot.close()


async def test_what_is_not_a_bot_token_is_refused(hub: HubProcess) -> None:
    p = await Player(hub.url).signup()
    reader = await make_token(p, "reader", ["games:read"])
    cases = {
        "no token": {},
        "not a bearer": {"Authorization": "Basic abc"},
        "unknown": {"Authorization": "Bearer bdl_" + "x" * 43},
        "scopeless": {"Authorization": f"Bearer {reader['token']}"},
        "a session's cookie": {"Cookie": f"bd_session={p.cookie}"},
    }
    codes = {}
    for name, headers in cases.items():
        said, code = await refusal(hub, **headers)
        assert said["t"] == "error" and said["message"], (name, said)
        assert code == CLOSE_TOKEN_REFUSED, (name, code)
        codes[name] = said["code"]
    assert codes["scopeless"] == "token_scope"
    assert {codes[n] for n in cases if n != "scopeless"} == {"token_invalid"}, codes
    # The person's own socket is untouched by all that: /ws still speaks for the session.
    sock = await p.connect()
    assert sock.hello["player"]["id"] == p.id
    await sock.close()


async def test_a_bot_account_s_socket_cannot_seek_in_the_lobby(hub: HubProcess) -> None:
    p = await Player(hub.url).signup()
    made = await make_token(p, "engine", ["bot:play"])
    async with bearer(hub, made["token"]) as client:
        r = await client.post("/api/bot/account/upgrade")
    assert r.status_code == 200, r.text
    bot = await bot_socket(hub, made["token"])
    await bot.send({"t": "seek", "ruleset": "nielsen", "move_time": 600, "id": "s1"})
    refused = await bot.reply_to("s1")
    assert refused["t"] == "error" and refused["code"] == "bot_account", refused
    await bot.close()


async def test_a_revoked_token_closes_its_socket(hub: HubProcess) -> None:
    game, alice, _bob = await friend_game(hub.url)
    made = await make_token(alice, "engine", ["bot:play"])
    bot = await bot_socket(hub, made["token"])
    await bot.watch(game)
    r = await alice.http.delete(f"/api/account/tokens/{made['id']}")
    assert r.status_code == 200, r.text
    answers: list[str] = []

    async def refused_or_closed() -> bool:
        # An action the game refuses (a ply long past) reads the token once its last
        # reading is old: the token's refusal, or the socket closed under it.
        try:
            msg_id = await bot.move(game, 999, "a1-a2")
            answer = await bot.reply_to(msg_id)
        except websockets.ConnectionClosed:
            return True
        answers.append(answer["code"])
        return answer["code"] == "token_invalid"

    await wait_for(refused_or_closed, "the revoked token's socket refused", every=0.3)
    assert await bot.close_code() == CLOSE_TOKEN_REFUSED
    # Only the game's refusals came before: the stale ply, never a move.
    assert set(answers) <= {"stale_ply", "bad_ply", "token_invalid"}, answers
    stored = await alice.game(game)
    assert stored["moves"] == []


def docs_example() -> str:
    """The Python example of docs/api.md's "The bot socket" section."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    section = text[text.index("### The bot socket") :]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found is not None, "docs/api.md's bot socket section has no Python example"
    return found.group(1)


async def test_the_docs_example_plays_until_the_game_ends(hub: HubProcess) -> None:
    game, alice, bob = await friend_game(hub.url)
    made = await make_token(bob, "engine", ["bot:play"])
    space: dict[str, Any] = {}
    exec(compile(docs_example(), "docs/api.md", "exec"), space)
    address = hub.url.replace("http://", "ws://")
    bot = asyncio.create_task(space["play"](address, made["token"], game))
    (side, sock), *_ = (await seated(game, alice)).items()
    try:
        if side == "attackers":  # the person moves first, the example answers
            snap = await sock.seen_or_next(lambda m: m["t"] == "snapshot")
            await sock.move(game, 0, snap["state"]["legal"][0])
            await sock.seen_or_next(lambda m: moved(m, 2))
        else:  # the example moves first
            await sock.seen_or_next(lambda m: moved(m, 1))
        await sock.send({"t": "resign", "game": game, "id": "r"})
        await asyncio.wait_for(bot, 15)  # it returns once the game is over
    finally:
        bot.cancel()
    stored = await alice.game(game)
    assert stored["state"]["result"]["reason"] == "resignation"
    assert len(stored["moves"]) in (1, 2)
