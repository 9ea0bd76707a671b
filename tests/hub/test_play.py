"""Whole games over real websockets against real hub processes and Redis."""

from __future__ import annotations

import random

import pytest

from services import HubProcess
from wsclient import Player, Socket, friend_game, seated


async def play_out(game: str, sockets: dict[str, Socket], seed: int) -> list[str]:
    """Both sides play random legal moves until the game ends; returns the moves sent."""
    rng = random.Random(seed)
    snap = await sockets["attackers"].watch(game)
    await sockets["defenders"].watch(game)
    state, n = snap["state"], snap["n"]
    sent: list[str] = []
    while state["status"] == "active":
        mover = sockets[state["turn"]]
        other = sockets["defenders" if state["turn"] == "attackers" else "attackers"]
        move = rng.choice(state["legal"])
        sent.append(move)
        await mover.move(game, state["ply"], move)
        n += 1
        ev = await mover.event(n)
        await other.event(n)
        state = ev["state"]
    return sent


def assert_every_event_once_in_order(sock: Socket, game: str, sent: list[str]) -> None:
    events = sock.events(game)
    numbers = [e["n"] for e in events]
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
    assert [e["move"] for e in events if e["kind"] == "move"] == sent


@pytest.mark.cluster
async def test_two_players_play_a_whole_game_each_event_once_in_order(hub: HubProcess) -> None:
    game, alice, bob = await friend_game(hub.url, "walker")
    sockets = await seated(game, alice, bob)
    sent = await play_out(game, sockets, seed=7)
    for sock in sockets.values():
        assert_every_event_once_in_order(sock, game, sent)
        final = sock.events(game)[-1]["state"]
        assert final["status"] == "ended"
        assert final["result"]["reason"]
        assert final["seed"] is not None
        assert final["legal"] == []
        await sock.close()


@pytest.mark.cluster
async def test_players_on_two_hub_processes_share_one_game(
    hub: HubProcess, hub2: HubProcess
) -> None:
    game, alice, bob = await friend_game(hub.url, "common", joiner_base=hub2.url)
    a = await alice.connect(hub.url)
    b = await bob.connect(hub2.url)
    snap = await a.watch(game)
    await b.watch(game)
    sockets = {
        "attackers" if snap["state"]["players"]["attackers"]["id"] == alice.id else "defenders": a
    }
    sockets["defenders" if "attackers" in sockets else "attackers"] = b
    sent = await play_out(game, sockets, seed=11)
    assert len(sent) > 0
    for sock in (a, b):
        assert_every_event_once_in_order(sock, game, sent)
        assert sock.events(game)[-1]["state"]["status"] == "ended"
        await sock.close()


@pytest.mark.cluster
async def test_a_guest_plays_the_bot_to_the_end(hub: HubProcess) -> None:
    guest = await Player(hub.url).start()
    created = await guest.create_game(opponent="bot", ruleset="newsome", bot_level=1)
    sock = await guest.connect()
    msg = await sock.watch(created["id"])
    state, n = msg["state"], msg["n"]
    me = "attackers" if state["players"]["attackers"]["id"] == guest.id else "defenders"
    assert state["players"]["defenders" if me == "attackers" else "attackers"]["id"] == "bot"
    rng = random.Random(3)
    while state["status"] == "active":
        if state["turn"] == me:
            await sock.move(created["id"], state["ply"], rng.choice(state["legal"]))
        ev = await sock.event(n + 1, timeout=15)
        n, state = ev["n"], ev["state"]
    assert state["result"] is not None
    by = [e["by"] for e in sock.events(created["id"]) if e["kind"] == "move"]
    assert "attackers" in by and "defenders" in by  # the bot moved, through the same events
    await sock.close()
