"""Spectators, reconnecting with the last event number, resends and races."""

from __future__ import annotations

import asyncio
import random

import pytest

from services import HubProcess
from wsclient import Player, Socket, friend_game, seated

CORNERS = ("a1", "a7", "g1", "g7")


@pytest.mark.cluster
async def test_spectator_sees_every_move_and_cannot_act(hub: HubProcess, hub2: HubProcess) -> None:
    game, alice, bob = await friend_game(hub.url)
    sockets = await seated(game, alice, bob)
    viewer = await Player(hub2.url).guest()  # a session, but not a player of this game
    watch = await viewer.connect()
    snap = await watch.watch(game)
    assert snap["t"] == "snapshot"
    count = await sockets["attackers"].recv_until(lambda m: m["t"] == "watchers")
    assert count["count"] == 1

    n, state = snap["n"], snap["state"]
    for _ in range(6):
        mover = sockets[state["turn"]]
        await mover.move(game, state["ply"], state["legal"][0])
        n += 1
        ev = await watch.event(n)
        assert ev["move"] == state["legal"][0]
        state = ev["state"]

    mid = await watch.move(game, state["ply"], state["legal"][0])
    refused = await watch.reply_to(mid)
    assert refused["t"] == "error" and refused["code"] == "not_a_player"

    anonymous = await Socket.open(hub.url)  # no session at all
    assert anonymous.hello["player"] is None
    await anonymous.watch(game)
    mid = await anonymous.move(game, state["ply"], state["legal"][0])
    refused = await anonymous.reply_to(mid)
    assert refused["code"] == "not_a_player"  # a socket without a session only watches

    check = await alice.game(game)  # nothing moved
    assert check["n"] == n and check["state"]["ply"] == state["ply"]

    await watch.close()
    left = await sockets["attackers"].recv_until(lambda m: m["t"] == "watchers" and m["count"] == 1)
    assert left["count"] == 1  # the anonymous spectator still watches
    for sock in (*sockets.values(), anonymous):
        await sock.close()


async def play_moves(game: str, viewer: Player, sockets: dict[str, Socket], count: int) -> int:
    """Play ``count`` quiet random moves (no captures, no corners); return the last event number."""
    rng = random.Random(count)
    snap = await viewer.game(game)
    n, state = snap["n"], snap["state"]
    for _ in range(count):
        mover = sockets[state["turn"]]
        quiet = [m for m in state["legal"] if "x" not in m and m[-2:] not in CORNERS]
        await mover.move(game, state["ply"], rng.choice(quiet))
        n += 1
        state = (await mover.event(n))["state"]
    return n


@pytest.mark.cluster
async def test_reconnect_with_last_event_gets_exactly_what_was_missed(hub: HubProcess) -> None:
    game, alice, bob = await friend_game(hub.url)
    sockets = await seated(game, alice, bob)
    watcher = await Player(hub.url).start()
    w = await watcher.connect()
    first = await w.watch(game)
    n0 = await play_moves(game, alice, sockets, 2)
    await w.event(n0)
    await w.close()

    n1 = await play_moves(game, alice, sockets, 5)  # while the spectator is away
    again = await watcher.connect()
    await again.send({"t": "watch", "game": game, "since": n0})
    got = [
        await again.recv_until(lambda m: m["t"] in ("event", "snapshot")) for _ in range(n1 - n0)
    ]
    assert [m["t"] for m in got] == ["event"] * (n1 - n0)
    assert [m["n"] for m in got] == list(range(n0 + 1, n1 + 1))
    # Nothing twice: a further move arrives as the next number, nothing repeats.
    n2 = await play_moves(game, alice, sockets, 1)
    nxt = await again.recv_until(lambda m: m["t"] in ("event", "snapshot"))
    assert nxt["t"] == "event" and nxt["n"] == n2
    assert first["t"] == "snapshot"
    for sock in (*sockets.values(), again):
        await sock.close()


@pytest.mark.cluster
async def test_reconnect_far_behind_gets_a_snapshot(hub: HubProcess) -> None:
    game, alice, bob = await friend_game(hub.url, "federation")
    sockets = await seated(game, alice, bob)
    n = await play_moves(game, alice, sockets, 24)
    late = await alice.connect()
    await late.send({"t": "watch", "game": game, "since": 1})
    msg = await late.recv_until(lambda m: m["t"] in ("event", "snapshot"))
    assert msg["t"] == "snapshot" and msg["n"] == n
    assert len(msg["moves"]) == msg["state"]["ply"] == 24
    for sock in (*sockets.values(), late):
        await sock.close()


@pytest.mark.cluster
async def test_a_resent_move_is_applied_once_and_acknowledged_twice(hub: HubProcess) -> None:
    game, alice, bob = await friend_game(hub.url)
    sockets = await seated(game, alice, bob)
    attacker = sockets["attackers"]
    snap = await alice.game(game)
    move = snap["state"]["legal"][0]
    mid = await attacker.move(game, 0, move, msg_id="resend-1")
    first = await attacker.reply_to(mid)
    # The connection drops before the client trusts the ack; it reconnects and resends.
    await attacker.close()
    player = alice if snap["state"]["players"]["attackers"]["id"] == alice.id else bob
    again = await player.connect()
    await again.move(game, 0, move, msg_id="resend-1")
    second = await again.reply_to("resend-1")
    assert first["t"] == second["t"] == "ack"
    assert first["n"] == second["n"]
    assert first["duplicate"] is False and second["duplicate"] is True
    state = (await alice.game(game))["state"]
    assert state["ply"] == 1
    for sock in (sockets["defenders"], again):
        await sock.close()


@pytest.mark.cluster
async def test_two_different_moves_for_one_ply_exactly_one_applies(
    hub: HubProcess, hub2: HubProcess
) -> None:
    for trial in range(10):
        game, alice, bob = await friend_game(hub.url, "nielsen")
        sockets = await seated(game, alice, bob)
        snap = await alice.game(game)
        player = alice if snap["state"]["players"]["attackers"]["id"] == alice.id else bob
        # The same player on two sockets, on two hubs, sends two different moves at once.
        s1 = await player.connect(hub.url)
        s2 = await player.connect(hub2.url)
        legal = snap["state"]["legal"]
        await asyncio.gather(
            s1.move(game, 0, legal[0], msg_id=f"a{trial}"),
            s2.move(game, 0, legal[-1], msg_id=f"b{trial}"),
        )
        r1, r2 = await s1.reply_to(f"a{trial}"), await s2.reply_to(f"b{trial}")
        assert sorted([r1["t"], r2["t"]]) == ["ack", "error"]
        loser = r1 if r1["t"] == "error" else r2
        assert loser["code"] in ("stale_ply", "not_your_turn")
        final = await alice.game(game)
        assert final["state"]["ply"] == 1 and len(final["moves"]) == 1
        for sock in (*sockets.values(), s1, s2):
            await sock.close()


@pytest.mark.cluster
async def test_a_message_id_reused_for_another_move_is_refused_not_dropped(
    hub: HubProcess,
) -> None:
    game, alice, bob = await friend_game(hub.url)
    sockets = await seated(game, alice, bob)
    attacker = sockets["attackers"]
    snap = await alice.game(game)
    legal = snap["state"]["legal"]
    await attacker.move(game, 0, legal[0], msg_id="same-id")
    assert (await attacker.reply_to("same-id"))["of"] == "move"
    # Both the cached path (a move for the next ply) and Redis's own check refuse it.
    for ply in (0, 1):
        await attacker.move(game, ply, legal[-1], msg_id="same-id")
        reply = await attacker.reply_to("same-id")
        assert reply["t"] == "error" and reply["code"] == "id_reused", reply
        assert reply["game"] == game
    assert (await alice.game(game))["moves"] == [legal[0]]
    for sock in sockets.values():
        await sock.close()


async def test_an_error_about_a_game_names_it(hub: HubProcess) -> None:
    sock = await Socket.open(hub.url)
    await sock.send({"t": "watch", "game": "nosuchgame1"})
    err = await sock.recv_until(lambda m: m["t"] == "error")
    assert err["code"] == "not_found" and err["game"] == "nosuchgame1"
    await sock.close()
