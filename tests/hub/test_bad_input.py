"""Bad input: each case gets an error to its sender only and changes nothing anywhere."""

from __future__ import annotations

import contextlib
from typing import Any

import msgpack
import pytest
import redis
import websockets

from brandubh.hub.redis import keys
from services import HubProcess
from wsclient import Msg, Player, Socket, close_code, friend_game, seated


def game_in_redis(r: redis.Redis, game: str) -> tuple[Any, ...]:
    """Everything Redis holds for a game, to compare before and after."""
    return (
        r.hgetall(keys.game(game)),
        r.lrange(keys.events(game), 0, -1),
        r.hgetall(keys.acks(game)),
        r.get(keys.seed(game)),
    )


@pytest.fixture
async def game_setup(hub: HubProcess) -> Any:
    game, alice, bob = await friend_game(hub.url)
    sockets = await seated(game, alice, bob)
    snap = await alice.game(game)
    # One move in, so that "stale" and "out of turn" have something to be stale against.
    state = snap["state"]
    await sockets["attackers"].move(game, 0, state["legal"][0])
    await sockets["defenders"].event(snap["n"] + 1)
    yield game, alice, sockets
    for sock in sockets.values():
        await sock.close()


def packed(msg: Msg) -> bytes:
    return msgpack.packb(msg)


CASES: list[tuple[str, Any, str]] = [
    ("text frame", '{"t": "move"}', "bad_frame"),
    ("not msgpack", b"\xc1\xc1\xc1", "bad_frame"),
    ("two values", packed({"t": "ping"}) + packed({"t": "ping"}), "bad_frame"),
    ("not a map", packed([1, 2, 3]), "bad_frame"),
    ("no type", packed({"game": "x"}), "bad_frame"),
    ("extension type", msgpack.packb(msgpack.ExtType(5, b"x")), "bad_frame"),
    ("oversized", packed({"t": "ping", "pad": "x" * 5000}), "frame_too_large"),
    ("unknown type", packed({"t": "teleport"}), "unknown_type"),
    # Maps: "GAME" stands for the game's id.
    ("missing field", {"t": "move", "game": "GAME", "ply": 1, "id": "a"}, "bad_field"),
    ("extra field", {"t": "watch", "game": "GAME", "as": "attackers"}, "bad_field"),
    (
        "ply of wrong type",
        {"t": "move", "game": "GAME", "ply": "1", "move": "d1-c1", "id": "a"},
        "bad_field",
    ),
    (
        "negative ply",
        {"t": "move", "game": "GAME", "ply": -1, "move": "d1-c1", "id": "a"},
        "bad_field",
    ),
    (
        "huge ply",
        {"t": "move", "game": "GAME", "ply": 2**40, "move": "d1-c1", "id": "a"},
        "bad_field",
    ),
    ("move not text", {"t": "move", "game": "GAME", "ply": 1, "move": 5, "id": "a"}, "bad_field"),
    (
        "bad message id",
        {"t": "move", "game": "GAME", "ply": 1, "move": "d3-c3", "id": "a b"},
        "bad_field",
    ),
    ("bad game id", {"t": "watch", "game": "../../etc"}, "bad_field"),
    ("unknown game", {"t": "watch", "game": "nosuchgame1"}, "not_found"),
    ("unwatch unfollowed", {"t": "unwatch", "game": "nosuchgame1"}, "not_watching"),
]


@pytest.mark.parametrize(("label", "frame", "code"), CASES, ids=[c[0] for c in CASES])
async def test_malformed_frames_get_an_error_and_change_nothing(
    game_setup: Any, redis_sync: redis.Redis, label: str, frame: Any, code: str
) -> None:
    game, _, sockets = game_setup
    before = game_in_redis(redis_sync, game)
    sock: Socket = sockets["defenders"]
    if isinstance(frame, dict):
        frame = packed({k: game if v == "GAME" else v for k, v in frame.items()})
    await sock.send_raw(frame)
    err = await sock.recv_until(lambda m: m["t"] == "error")
    assert err["code"] == code, err
    assert err["message"]
    assert game_in_redis(redis_sync, game) == before
    # The socket still works afterwards.
    await sock.send({"t": "ping", "n": 42})
    pong = await sock.recv_until(lambda m: m["t"] == "pong")
    assert pong["n"] == 42


async def move_error(sock: Socket, game: str, ply: int, move: str) -> Msg:
    mid = await sock.move(game, ply, move)
    reply = await sock.reply_to(mid)
    assert reply["t"] == "error", reply
    return reply


async def test_illegal_out_of_turn_and_stale_moves_change_nothing(
    game_setup: Any, redis_sync: redis.Redis
) -> None:
    game, _alice, sockets = game_setup
    before = game_in_redis(redis_sync, game)
    d, a = sockets["defenders"], sockets["attackers"]

    err = await move_error(d, game, 1, "d4-d7")  # the king is boxed in by his defenders
    assert err["code"] == "illegal_move" and "d4" in err["message"]
    err = await move_error(d, game, 1, "c4-c4")
    assert err["code"] == "illegal_move"
    err = await move_error(d, game, 1, "zz-top")
    assert err["code"] == "illegal_move"
    err = await move_error(a, game, 1, "d1-c1")
    assert err["code"] == "not_your_turn"
    err = await move_error(d, game, 0, "d3-c3")
    assert err["code"] == "stale_ply"
    err = await move_error(d, game, 7, "d3-c3")
    assert err["code"] == "stale_ply"
    assert game_in_redis(redis_sync, game) == before


async def test_errors_reach_only_the_sender(game_setup: Any) -> None:
    _game, _, sockets = game_setup
    d, a = sockets["defenders"], sockets["attackers"]
    await d.send_raw(b"\xc1")
    await d.recv_until(lambda m: m["t"] == "error")
    await a.send({"t": "ping", "n": 7})
    got = await a.recv_until(lambda m: m["t"] in ("pong", "error"))
    assert got["t"] == "pong"


async def test_repeated_abuse_closes_that_socket_only(hub: HubProcess) -> None:
    game, alice, bob = await friend_game(hub.url)
    sockets = await seated(game, alice, bob)
    abuser = await alice.connect()
    for _ in range(30):
        try:
            await abuser.send_raw(b"\xc1")
        except websockets.ConnectionClosed:
            break
    assert await abuser.close_code() == 4001
    # The game and the other sockets notice nothing.
    state = (await alice.game(game))["state"]
    await sockets["attackers"].move(game, 0, state["legal"][0])
    ev = await sockets["defenders"].recv_until(lambda m: m["t"] == "event" and m["kind"] == "move")
    assert ev["state"]["ply"] == 1
    for sock in sockets.values():
        await sock.close()


async def test_message_credits_run_out(start_hub: Any) -> None:
    proc = start_hub(env={"BRANDUBH_CREDITS": "5", "BRANDUBH_CREDIT_WINDOW_S": "60"})
    sock = await Socket.open(proc.url)
    for _ in range(6):
        await sock.send({"t": "watch", "game": "nosuchgame1"})
    codes = [(await sock.recv_until(lambda m: m["t"] == "error"))["code"] for _ in range(6)]
    assert codes == ["not_found"] * 5 + ["rate_limited"]
    # Pings and pongs cost credits too: a socket sending nothing but them is held back.
    for kind in ("ping", "pong"):
        await sock.send({"t": kind, "n": 1})
        assert (await sock.recv_until(lambda m: m["t"] in ("error", "pong")))["code"] == (
            "rate_limited"
        )
    await sock.close()


async def test_a_frame_beyond_the_hard_limit_closes_the_socket(hub: HubProcess) -> None:
    sock = await Socket.open(hub.url)
    await sock.send_raw(b"\x00" * 70_000)
    assert await sock.close_code() == 1009


async def test_a_silent_client_is_closed_by_the_heartbeat(start_hub: Any) -> None:
    proc = start_hub(env={"BRANDUBH_PING_INTERVAL_S": "0.3", "BRANDUBH_DEAD_AFTER_S": "1"})
    url = proc.url.replace("http://", "ws://") + "/ws"
    async with websockets.connect(url) as ws:
        assert await close_code(ws) == 4003  # it reads, and never answers a ping


async def test_a_foreign_origin_cannot_open_a_socket(hub: HubProcess) -> None:
    with pytest.raises(websockets.InvalidStatus) as refused:
        await Socket.open(hub.url, origin="https://evil.example")
    assert refused.value.response.status_code == 403
    ok = await Socket.open(hub.url, origin=hub.url)
    await ok.close()


async def test_cross_site_posts_are_refused(hub: HubProcess) -> None:
    player = await Player(hub.url).start()
    r = await player.http.post(
        "/api/games", json={"opponent": "bot"}, headers={"Origin": "https://evil.example"}
    )
    assert r.status_code == 403 and r.json()["error"] == "forbidden"
    r = await player.http.post(
        "/api/games", json={"opponent": "bot"}, headers={"Sec-Fetch-Site": "cross-site"}
    )
    assert r.status_code == 403
    await player.close()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"ruleset": "chess"}, "rule set"),
        ({"move_time": 30}, "move_time"),
        ({"move_time": 90}, "move_time"),
        ({"move_time": 8 * 24 * 3600}, "move_time"),
        ({"opponent": "alien"}, "opponent"),
        ({"bot_level": 9}, "bot_level"),
        ({"colour": "white"}, "colour"),
        ({"move_time": "600"}, "move_time"),
    ],
)
async def test_game_creation_errors_name_the_field(hub: HubProcess, body: Msg, field: str) -> None:
    player = await Player(hub.url).start()
    r = await player.http.post("/api/games", json=body)
    assert r.status_code == 400
    assert r.json()["error"] == "bad_field" and field in r.json()["message"]
    await player.close()


async def test_invites_are_checked(hub: HubProcess) -> None:
    alice = await Player(hub.url).signup()
    created = await alice.create_game(opponent="friend")
    mallory = await Player(hub.url).signup()
    r = await mallory.http.post(f"/api/games/{created['id']}/join", json={"invite": "guess"})
    assert r.status_code == 403 and r.json()["error"] == "bad_invite"
    bob = await Player(hub.url).signup()
    await bob.join(created["invite"])
    r = await mallory.http.post(
        f"/api/games/{created['id']}/join", json={"invite": created["invite"].split("/")[-1]}
    )
    assert r.status_code == 409 and r.json()["error"] == "game_not_waiting"
    for p in (alice, mallory, bob):
        await p.close()


async def test_refusals_of_well_formed_messages_cost_no_strike(hub: HubProcess) -> None:
    """A client that retries or polls within its credits is answered, never closed: only
    malformed messages and floods count toward 4001 (docs/protocol.md §3.1)."""
    game, alice, _bob = await friend_game(hub.url)
    sock = await alice.connect()
    for n in range(30):  # three times the strikes a burst allows
        await sock.send({"t": "move", "game": game, "ply": 5, "move": "a4-a5", "id": f"m{n}"})
        refused = await sock.recv_until(lambda m, n=n: m["t"] == "error" and m["id"] == f"m{n}")
        assert refused["code"] != "bad_field", refused
    await sock.send({"t": "ping", "n": 1})
    assert (await sock.recv_until(lambda m: m["t"] == "pong"))["n"] == 1
    await sock.close()


async def test_a_fragmented_message_beyond_the_hard_limit_closes_the_socket(
    hub: HubProcess,
) -> None:
    """70 fragments of 1,000 bytes (70,000 in all, past the 65,536 one frame may hold):
    closed with 1009 as one frame that size is, before the message is whole."""
    sock = await Socket.open(hub.url)
    fragments = [b"\x00" * 1000] * 70
    with contextlib.suppress(websockets.ConnectionClosed):  # closed while it sends
        await sock.ws.send(fragments)
    assert await sock.close_code() == 1009
