"""Whole games over real websockets against real hub processes and Redis."""

from __future__ import annotations

import random

from conftest import HubProcess
from wsclient import Msg, Player, Socket


async def start_friend_game(base: str, ruleset: str = "nielsen") -> tuple[str, Player, Player]:
    """A friend game between two fresh guests; returns the id, creator and joiner."""
    alice = await Player(base).start()
    bob = await Player(base).start()
    created = await alice.create_game(opponent="friend", ruleset=ruleset, move_time=600)
    await bob.join(created["invite"])
    return created["id"], alice, bob


def side_of(state: Msg, player: Player) -> str:
    return next(s for s, p in state["players"].items() if p and p["id"] == player.id)


async def play_out(game: str, sockets: dict[str, Socket], seed: int) -> list[str]:
    """Both sides play random legal moves until the game ends; returns the moves sent."""
    rng = random.Random(seed)
    first = await sockets["attackers"].watch(game)
    await sockets["defenders"].watch(game)
    state = first["state"]
    n = first["n"]
    sent: list[str] = []
    while state["status"] == "active":
        mover = sockets[state["turn"]]
        move = rng.choice(state["legal"])
        sent.append(move)
        await mover.move(game, state["ply"], move)
        n += 1
        # Both players receive the event; take the new state from the mover's copy.
        ev = await mover.event(n)
        await sockets["defenders" if state["turn"] == "attackers" else "attackers"].event(n)
        state = ev["state"]
    return sent


async def test_two_players_play_a_whole_game_each_event_once_in_order(hub: HubProcess) -> None:
    game, alice, bob = await start_friend_game(hub.url, "walker")
    a, b = await alice.connect(), await bob.connect()
    snap = await a.watch(game)
    sockets = {side_of(snap["state"], alice): a, side_of(snap["state"], bob): b}
    sent = await play_out(game, sockets, seed=7)
    for sock in (a, b):
        events = sock.events(game)
        numbers = [e["n"] for e in events]
        assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
        assert [e["move"] for e in events if e["kind"] == "move"] == sent
        final = events[-1]["state"]
        assert final["status"] == "ended"
        assert final["result"]["reason"]
        assert final["seed"] is not None
    await a.close()
    await b.close()
