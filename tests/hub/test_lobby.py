"""The lobby: seeks, quick pairing, vanishing live seeks, the watch list — real hubs."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis

from brandubh.hub.redis import keys
from services import HubProcess
from wsclient import Msg, Player, Socket, lobby_socket


async def lobby_reply(sock: Socket, msg_id: str) -> Msg:
    return await sock.recv_until(lambda m: m["t"] in ("ack", "error") and m.get("id") == msg_id)


@pytest.mark.cluster
async def test_a_seek_is_accepted_across_hubs_and_both_land_in_one_game(
    hub: HubProcess, hub2: HubProcess
) -> None:
    alice, a = await lobby_socket(hub.url)
    bob, b = await lobby_socket(hub2.url)
    await a.send({"t": "seek", "ruleset": "walker", "move_time": 180, "id": "s1"})
    seek_id = (await lobby_reply(a, "s1"))["seek"]
    shown = await b.seen_or_next(lambda m: m["t"] == "seek_added" and m["seek"]["id"] == seek_id)
    assert shown["seek"]["player"]["id"] == alice.id and shown["seek"]["kind"] == "live"

    await b.send({"t": "accept_seek", "seek": seek_id, "id": "x1"})
    await b.send({"t": "accept_seek", "seek": seek_id, "id": "x2"})  # a second click
    first, second = await lobby_reply(b, "x1"), await lobby_reply(b, "x2")
    assert first["t"] == "ack" and first["game"]
    assert second["t"] == "error" and second["code"] == "seek_gone"
    for sock in (a, b):
        paired = await sock.seen_or_next(lambda m: m["t"] == "paired")
        assert paired["game"] == first["game"]
        assert set(paired["players"]) == {alice.id, bob.id}
    state = (await alice.game(first["game"]))["state"]
    assert state["status"] == "active" and state["ruleset"] == "walker"
    removed = await a.seen_or_next(lambda m: m["t"] == "seek_removed")
    assert removed["seek"] == seek_id
    for sock in (a, b):
        await sock.close()


@pytest.mark.cluster
async def test_seek_errors(hub: HubProcess) -> None:
    _, a = await lobby_socket(hub.url)
    _, b = await lobby_socket(hub.url)
    await a.send({"t": "seek", "ruleset": "nielsen", "move_time": 600, "id": "s"})
    seek_id = (await lobby_reply(a, "s"))["seek"]
    await a.send({"t": "accept_seek", "seek": seek_id, "id": "own"})
    assert (await lobby_reply(a, "own"))["code"] == "own_seek"
    await b.send({"t": "cancel_seek", "seek": seek_id, "id": "theirs"})
    assert (await lobby_reply(b, "theirs"))["code"] == "not_yours"
    await a.send({"t": "seek", "ruleset": "chess", "move_time": 600, "id": "bad"})
    assert (await lobby_reply(a, "bad"))["code"] == "bad_field"
    await a.send({"t": "cancel_seek", "seek": seek_id, "id": "c"})
    assert (await lobby_reply(a, "c"))["t"] == "ack"
    await b.send({"t": "accept_seek", "seek": seek_id, "id": "gone"})
    assert (await lobby_reply(b, "gone"))["code"] == "seek_gone"
    for sock in (a, b):
        await sock.close()


@pytest.mark.cluster
async def test_a_live_seek_vanishes_with_its_socket_a_correspondence_seek_stays(
    hub: HubProcess, redis_sync: redis.Redis
) -> None:
    _, watcher = await lobby_socket(hub.url)
    owner, sock = await lobby_socket(hub.url)
    await sock.send({"t": "seek", "ruleset": "nielsen", "move_time": 300, "id": "live"})
    live = (await lobby_reply(sock, "live"))["seek"]
    await sock.send({"t": "seek", "ruleset": "nielsen", "move_time": 86400, "id": "corr"})
    corr = (await lobby_reply(sock, "corr"))["seek"]
    await sock.close()
    gone = await watcher.seen_or_next(lambda m: m["t"] == "seek_removed" and m["seek"] == live)
    assert gone["seek"] == live
    listed = {s["id"] for s in (await _lobby_snapshot(hub.url))["seeks"]}
    assert corr in listed and live not in listed
    assert redis_sync.hexists(keys.seek_data(), corr)
    assert not redis_sync.hexists(keys.seek_data(), live)
    again = await owner.connect()
    await again.send({"t": "cancel_seek", "seek": corr, "id": "c"})
    assert (await lobby_reply(again, "c"))["t"] == "ack"
    for s in (watcher, again):
        await s.close()


async def _lobby_snapshot(base: str) -> Msg:
    _, sock = await lobby_socket(base)
    snap = next(m for m in sock.frames if m["t"] == "lobby")
    await sock.close()
    return snap


async def test_two_hundred_quick_pairings_make_a_hundred_games(
    hub: HubProcess, hub2: HubProcess, redis_sync: redis.Redis
) -> None:
    players: list[Player] = []
    for start in range(0, 200, 20):  # twenty at a time: each waits for its mailed link
        players += await asyncio.gather(
            *(Player((hub, hub2)[i % 2].url).signup() for i in range(start, start + 20))
        )
    sockets = [await p.connect() for p in players]

    async def ask(sock: Socket, i: int) -> Msg:
        await sock.send({"t": "quick", "ruleset": "common", "move_time": 120, "id": f"q{i}"})
        return await lobby_reply(sock, f"q{i}")

    acks = await asyncio.gather(*(ask(s, i) for i, s in enumerate(sockets)))
    assert all(a["t"] == "ack" for a in acks)
    paired = await asyncio.gather(
        *(s.seen_or_next(lambda m: m["t"] == "paired", timeout=30) for s in sockets)
    )
    games: dict[str, set[str]] = {}
    for player, msg in zip(players, paired, strict=True):
        assert player.id in msg["players"]
        games.setdefault(msg["game"], set()).update(msg["players"])
    assert len(games) == 100
    everyone = [pid for pair in games.values() for pid in pair]
    assert len(everyone) == 200 and len(set(everyone)) == 200  # nobody in two games
    assert redis_sync.zcard(keys.pool("common", 120)) == 0  # nobody left waiting
    assert redis_sync.hlen(keys.pools()) == 0
    # Nobody is told of a second game: a pairing sends its frames within this, and a
    # pairing not made sends no signal.
    await asyncio.sleep(0.5)
    for sock in sockets:  # and nobody was told of a second game
        assert sum(1 for m in sock.frames if m["t"] == "paired") == 1
        await sock.close()


@pytest.mark.cluster
async def test_quick_pairing_waits_for_a_close_rating_then_widens(hub: Any) -> None:
    # Everyone starts at 1500, so the window matters only as time passes; here: a lone
    # player waits, leaves, and is no longer in the pool.
    player = await Player(hub.url).signup()
    sock = await player.connect()
    await sock.send({"t": "quick", "ruleset": "newsome", "move_time": 60, "id": "q"})
    ack = await lobby_reply(sock, "q")
    assert ack["game"] is None
    await sock.send({"t": "cancel_quick", "id": "c"})
    assert (await lobby_reply(sock, "c"))["left"] is True
    await sock.close()


async def test_the_watch_list_shows_games_in_progress(hub: HubProcess) -> None:
    alice, a = await lobby_socket(hub.url)
    bob, b = await lobby_socket(hub.url)
    await a.send({"t": "seek", "ruleset": "federation", "move_time": 600, "id": "s"})
    seek_id = (await lobby_reply(a, "s"))["seek"]
    await b.send({"t": "accept_seek", "seek": seek_id, "id": "x"})
    game = (await lobby_reply(b, "x"))["game"]
    listed = await a.seen_or_next(
        lambda m: m["t"] == "games" and any(g["id"] == game for g in m["games"]), timeout=10
    )
    entry = next(g for g in listed["games"] if g["id"] == game)
    assert entry["ruleset"] == "federation" and entry["ply"] == 0
    assert {p["id"] for p in entry["players"].values()} == {alice.id, bob.id}
    for sock in (a, b):
        await sock.close()


async def test_a_guest_may_watch_the_lobby_but_not_seek_a_person(hub: HubProcess) -> None:
    guest = await Player(hub.url).guest()
    sock = await guest.connect()
    await sock.send({"t": "lobby", "on": True})
    assert (await sock.recv_until(lambda m: m["t"] == "lobby"))["seeks"] is not None
    for i, msg in enumerate(
        (
            {"t": "seek", "ruleset": "nielsen", "move_time": 600},
            {"t": "quick", "ruleset": "nielsen", "move_time": 600},
        )
    ):
        await sock.send({**msg, "id": f"g{i}"})
        refused = await lobby_reply(sock, f"g{i}")
        assert refused["t"] == "error" and refused["code"] == "account_required"
    await sock.close()
