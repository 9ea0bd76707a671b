"""Conditional moves in correspondence games, on real hubs and Redis: a stored line answers
the opponent's move with no human action, a move off the lines discards them, the tree
never reaches the opponent or a spectator, and a reply queued by a hub SIGKILLed before
playing it is played by another hub, once."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import redis

from brandubh.engine import Game
from brandubh.hub.redis import keys
from services import HubProcess
from wsclient import Msg, Player, Socket, friend_game, side_of

HOUR = 3600  # the least time per move of a correspondence game (live/terms.py)
_ids = iter(range(1, 1_000_000))


def moves_after(*played: str, ruleset: str = "nielsen") -> list[str]:
    """The legal moves, in the engine's order, after these moves from the start."""
    game = Game(ruleset)
    for text in played:
        game.play(text)
    return game.legal_texts()


async def store(sock: Socket, game: str, ply: int, lines: list[list[str]]) -> Msg:
    msg_id = f"c{next(_ids)}"
    await sock.send({"t": "conditional", "game": game, "ply": ply, "lines": lines, "id": msg_id})
    return await sock.reply_to(msg_id)


async def read(sock: Socket, game: str) -> Msg:
    msg_id = f"g{next(_ids)}"
    await sock.send({"t": "get_conditional", "game": game, "id": msg_id})
    return await sock.reply_to(msg_id)


async def sides(game: str, *players: tuple[Player, str]) -> dict[str, tuple[Player, Socket]]:
    """Each player connected to the hub given and watching; by side."""
    out: dict[str, tuple[Player, Socket]] = {}
    for player, url in players:
        sock = await player.connect(url)
        snap = await sock.watch(game)
        out[side_of(snap["state"], player)] = (player, sock)
    return out


def mentions_lines(value: Any) -> bool:
    """Whether a frame carries a tree of conditional moves anywhere in it."""
    if isinstance(value, dict):
        if value.get("t") == "chat_lines":  # the chat's lines (§3.7), not moves
            return False
        return "lines" in value or any(mentions_lines(v) for v in value.values())
    if isinstance(value, list):
        return any(mentions_lines(v) for v in value)
    return False


def stored(r: redis.Redis, game: str, player: str) -> Any:
    raw = r.get(keys.conditional(game, player))
    return json.loads(raw) if raw else None


def queued(r: redis.Redis, game: str) -> bool:
    return r.zscore(keys.conditional_jobs(keys.bucket(game)), game) is not None


@pytest.mark.cluster
async def test_a_conditional_line_answers_the_opponents_move_and_the_opponent_never_learns_it(
    hub: HubProcess, hub2: HubProcess, redis_sync: redis.Redis
) -> None:
    game, alice, bob = await friend_game(hub.url, move_time=HOUR, joiner_base=hub2.url)
    # The defender stores on the attacker's turn, on the other hub than the attacker's.
    seats = await sides(game, (alice, hub.url), (bob, hub2.url))
    (attacker, att), (owner, own) = seats["attackers"], seats["defenders"]
    spectator = await Socket.open(hub.url)
    await spectator.watch(game)
    a = moves_after()[0]
    b = moves_after(a)[0]
    c = moves_after(a, b)[0]
    d = moves_after(a, b, c)[0]
    a2 = moves_after()[1]
    b2 = moves_after(a2)[1]
    ack = await store(own, game, 0, [[a, b, c, d], [a2, b2]])
    assert ack["t"] == "ack" and ack["of"] == "conditional", ack
    assert ack["lines"] == [[a, b, c, d], [a2, b2]] and ack["ply"] == 0

    await att.move(game, 0, a)
    reply = await att.recv_until(lambda m: m["t"] == "event" and m["state"]["ply"] == 2)
    assert (reply["move"], reply["by"]) == (b, "defenders")  # no one sent it
    assert reply["state"]["turn"] == "attackers"
    await own.recv_until(lambda m: m["t"] == "event" and m["state"]["ply"] == 2)
    kept = await read(own, game)
    assert (kept["ply"], kept["lines"]) == (2, [[c, d]])  # the rest of that branch stays

    # A move off the lines discards them with its commit: nothing is queued, nothing stays.
    e = next(m for m in moves_after(a, b) if m != c)
    assert (await att.reply_to(await att.move(game, 2, e)))["t"] == "ack"
    assert stored(redis_sync, game, owner.id) is None and not queued(redis_sync, game)
    gone = await read(own, game)
    assert (gone["ply"], gone["lines"]) == (None, [])

    # What the opponent and a spectator can reach: their frames, a fresh snapshot, the
    # game's public page, the opponent's own reading (their own, empty), the hubs' logs.
    late = await attacker.connect(hub2.url)
    await late.watch(game)
    mine = await read(att, game)
    assert (mine["ply"], mine["lines"]) == (None, [])
    for sock in (att, spectator, late):
        assert not any(mentions_lines(f) for f in sock.frames if f is not mine), sock.frames
        assert not any(f.get("of") == "conditional" for f in sock.frames)
    page = (await attacker.http.get(f"/api/games/{game}")).text
    assert "lines" not in page and "conditional" not in page
    for proc in (hub, hub2):
        assert not any(game in line and "lines" in line for line in proc.log)
    for sock in (att, own, spectator, late):
        await sock.close()


async def test_lines_stored_on_ones_own_turn_follow_ones_own_move(
    hub: HubProcess, redis_sync: redis.Redis
) -> None:
    game, alice, bob = await friend_game(hub.url, move_time=HOUR)
    seats = await sides(game, (alice, hub.url), (bob, hub.url))
    (owner, own), (_, opp) = seats["attackers"], seats["defenders"]
    m = moves_after()[2]
    x = moves_after(m)[0]
    y = moves_after(m, x)[3]
    assert (await store(own, game, 0, [[m, x, y]]))["lines"] == [[m, x, y]]
    await own.move(game, 0, m)  # the owner plays the line's first move by hand
    await own.recv_until(lambda msg: msg["t"] == "event" and msg["state"]["ply"] == 1)
    assert stored(redis_sync, game, owner.id)["lines"] == [[x, y]]
    await opp.move(game, 1, x)
    reply = await opp.recv_until(lambda msg: msg["t"] == "event" and msg["state"]["ply"] == 3)
    assert (reply["move"], reply["by"]) == (y, "attackers")
    assert stored(redis_sync, game, owner.id) is None  # the line ran out
    for sock in (own, opp):
        await sock.close()


async def test_conditional_moves_are_refused_with_a_code_that_says_why(hub: HubProcess) -> None:
    live, lea, leo = await friend_game(hub.url, move_time=600)
    live_seats = await sides(live, (lea, hub.url), (leo, hub.url))
    a, b = moves_after()[0], moves_after(moves_after()[0])[0]
    refused = await store(live_seats["defenders"][1], live, 0, [[a, b]])
    assert refused["code"] == "conditional_live", refused

    game, alice, bob = await friend_game(hub.url, move_time=HOUR)
    seats = await sides(game, (alice, hub.url), (bob, hub.url))
    own = seats["defenders"][1]
    b2 = moves_after(a)[1]
    cases: list[tuple[list[list[str]], str]] = [
        ([[a, "a1-a2"]], "conditional_illegal"),  # not a legal reply there
        ([[a]], "conditional_illegal"),  # ends with the opponent's move: nothing to answer
        ([[a, b], [a, b2]], "conditional_conflict"),  # two replies to one move
        ([[a, b]] * 33, "conditional_too_large"),
        ([[a, b, *moves_after(a, b)[:5]]], "conditional_too_large"),
    ]
    for lines, code in cases:
        answer = await store(own, game, 0, lines)
        assert (answer["t"], answer["code"]) == ("error", code), (lines, answer)
        assert answer["message"]
    stale = await store(own, game, 1, [[a, b]])
    assert stale["code"] == "stale_ply"
    stranger = await Player(hub.url).signup()
    sock = await stranger.connect()
    await sock.watch(game)
    assert (await store(sock, game, 0, [[a, b]]))["code"] == "not_a_player"
    assert (await read(sock, game))["code"] == "not_a_player"
    assert (await read(own, game))["lines"] == []  # nothing refused was stored
    for s in (sock, own, seats["attackers"][1], *(x[1] for x in live_seats.values())):
        await s.close()


@pytest.mark.cluster
async def test_conditional_moves_across_a_hub_sigkill(
    start_hub: Callable[..., HubProcess], redis_sync: redis.Redis
) -> None:
    # The first hub plays no replies: its SIGKILL comes after the opponent's move committed
    # and before any reply, which only the queue in Redis then remembers.
    first = start_hub({"BRANDUBH_CONDITIONAL_REPLIES": "0"})
    game, alice, bob = await friend_game(first.url, move_time=HOUR)
    seats = await sides(game, (alice, first.url), (bob, first.url))
    (_, att), (owner, own) = seats["attackers"], seats["defenders"]
    a = moves_after()[4]
    b = moves_after(a)[2]
    await store(own, game, 0, [[a, b]])
    assert (await att.reply_to(await att.move(game, 0, a)))["t"] == "ack"
    assert queued(redis_sync, game) and stored(redis_sync, game, owner.id)["due"] is True
    first.kill()

    # Two hubs now: each may claim the reply; it is played once.
    second, third = start_hub(), start_hub()
    sock = await owner.connect(second.url)
    snap = await sock.watch(game)
    if snap["state"]["ply"] < 2:
        await sock.recv_until(lambda m: m["t"] == "event" and m["state"]["ply"] == 2, 30)
    other = await owner.connect(third.url)
    state = (await other.watch(game))["state"]
    assert (state["ply"], state["turn"]) == (2, "attackers")
    assert redis_sync.get(keys.moves(game)) == f"{a} {b} ".encode()  # the reply, once
    assert not queued(redis_sync, game) and stored(redis_sync, game, owner.id) is None
    for s in (sock, other):
        await s.close()
