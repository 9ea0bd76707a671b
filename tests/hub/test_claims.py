"""An opponent who left: the claim of a live game, over two real hubs and a real Redis.

Every time here is Redis's (the presence frame's ``gone``, the game's ``updated``, the
outage list); the grace is shortened with BRANDUBH_CLAIM_GRACE_S.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis

from brandubh import fairplay
from brandubh.engine import parse_record
from brandubh.hub.errors import Refusal
from brandubh.hub.live.games import GameService
from brandubh.hub.live.state import Player as Seat
from brandubh.hub.redis import Scripts, keys
from services import HubProcess, redis_ms, sync_client
from waiting import wait_for
from wsclient import Msg, Player, Socket, friend_game, seated, side_of

GRACE_S = 4
ENV = {"BRANDUBH_CLAIM_GRACE_S": str(GRACE_S)}


async def two_plies(game: str, alice: Player, bob: Player, urls: tuple[str, str]) -> Msg:
    """Alice on the first hub, Bob on the second, each having moved once."""
    a = await seated(game, alice, base_url=urls[0])
    b = await seated(game, bob, base_url=urls[1])
    sockets = {**a, **b}
    state = (await alice.game(game))["state"]
    for _ in range(2):
        mover = sockets[state["turn"]]
        reply = await mover.reply_to(await mover.move(game, state["ply"], state["legal"][0]))
        assert reply["t"] == "ack", reply
        state = (await alice.game(game))["state"]
    return {"alice": next(iter(a.values())), "bob": next(iter(b.values())), "state": state}


async def claim(sock: Socket, game: str, mid: str, draw: bool = False) -> Msg:
    await sock.send({"t": "claim", "game": game, "draw": draw, "id": mid})
    return await sock.reply_to(mid)


async def gone_since(sock: Socket, game: str, player: Player) -> int:
    """When the presence frames say the player's last socket went (Redis clock, ms)."""
    frame = await sock.recv_until(
        lambda m: m["t"] == "presence" and m["game"] == game and player.id in m.get("gone", {})
    )
    assert player.id not in frame["online"]
    return int(frame["gone"][player.id])


async def claim_when_due(sock: Socket, game: str, draw: bool = False) -> Msg:
    """Claim until it holds, waiting as long as each refusal (``claim_too_soon``) says."""
    for i in range(8):
        reply = await claim(sock, game, f"c{i}", draw)
        if reply["t"] == "ack":
            return reply
        assert reply["code"] == "claim_too_soon", reply
        # The message gives whole seconds, rounded down ("in 0 s" with 0.9 s left): wait
        # at least one, so that a loaded machine does not spend every try early.
        await asyncio.sleep(max(1, int(reply["message"].rsplit(" in ", 1)[1].split()[0])))
    raise AssertionError("the claim never held")


def updated(r: redis.Redis, game: str) -> int:
    return int(r.hget(keys.game(game), "updated") or 0)


async def test_a_claim_holds_after_the_grace_across_hubs_not_before_nor_once_back(
    start_hub: Any, fresh_redis_url: str
) -> None:
    h1, h2 = start_hub(ENV, redis=fresh_redis_url), start_hub(ENV, redis=fresh_redis_url)
    r = sync_client(fresh_redis_url)
    game, alice, bob = await friend_game(h1.url, joiner_base=h2.url, move_time=180)
    seats = await two_plies(game, alice, bob, (h1.url, h2.url))
    a, b = seats["alice"], seats["bob"]

    await b.close()  # Bob closes his tab, on the second hub
    first = await gone_since(a, game, bob)
    too_soon = await claim(a, game, "early")  # on the first hub: not yet
    assert too_soon["t"] == "error" and too_soon["code"] == "claim_too_soon"
    assert "you may claim in" in too_soon["message"]

    # The grace passes (by Redis's clock, which stamped his going), then Bob comes back.
    await wait_for(lambda: redis_ms(r) > first + GRACE_S * 1000, "the grace to pass")
    back = await bob.connect(h2.url)
    await back.watch(game)
    await a.recv_until(lambda m: m["t"] == "presence" and bob.id in m["online"])
    assert "gone" not in a.frames[-1] or bob.id not in a.frames[-1]["gone"]
    refused = await claim(a, game, "late")
    assert refused["t"] == "error" and refused["code"] == "opponent_back"
    assert r.hget(keys.game(game), "status") == b"active"

    await back.close()  # gone again: the grace starts afresh
    since = await gone_since(a, game, bob)
    assert since > first
    other = await alice.connect(h2.url)  # the claim from the other hub
    await other.watch(game)
    ack = await claim_when_due(other, game)
    assert ack["of"] == "claim" and ack["game"] == game
    assert updated(r, game) - since >= GRACE_S * 1000  # by Redis's clock

    side = side_of(seats["state"], alice)
    end = await a.seen_or_next(lambda m: m["t"] == "event" and m["kind"] == "claim")
    assert end["by"] == side and end["draw"] is False
    assert end["result"] == {"winner": side, "reason": "abandoned"}
    # The record says so and verifies; the win is rated.
    text = (await alice.http.get(f"/api/games/{game}/record")).text
    assert f'[Result "{side}"]' in text and '[Reason "abandoned"]' in text
    assert fairplay.verify(parse_record(text))
    won, lost = await rating(alice), await rating(bob)
    assert won["rating"] > lost["rating"]
    for sock in (a, other):
        await sock.close()


async def test_a_claimed_draw_and_where_no_claim_is_allowed(hub: HubProcess) -> None:
    # The shared hub keeps the 30 s grace: a draw called just after leaving is too soon.
    game, alice, bob = await friend_game(hub.url)
    seats = await two_plies(game, alice, bob, (hub.url, hub.url))
    await seats["bob"].close()
    await gone_since(seats["alice"], game, bob)
    early = await claim(seats["alice"], game, "d1", draw=True)
    assert early["code"] == "claim_too_soon"
    assert "you may claim in" in early["message"]

    # Correspondence: no claim, however long the opponent is gone.
    slow, carol, dave = await friend_game(hub.url, move_time=3600)
    s = await two_plies(slow, carol, dave, (hub.url, hub.url))
    await s["bob"].close()
    assert (await claim(s["alice"], slow, "x"))["code"] == "not_live"
    # Before both sides moved: abort instead.
    fresh, erin, _ = await friend_game(hub.url)
    sock = next(iter((await seated(fresh, erin)).values()))
    reply = await claim(sock, fresh, "y")
    assert reply["code"] == "claim_too_soon" and "abort" in reply["message"]
    # A spectator is no player.
    watcher = await (await Player(hub.url).start()).connect()
    await watcher.watch(game)
    assert (await claim(watcher, game, "z"))["code"] == "not_a_player"
    for open_ in (seats["alice"], s["alice"], sock, watcher):
        await open_.close()


async def test_a_claimed_draw_ends_drawn_and_is_rated_as_one(
    start_hub: Any, fresh_redis_url: str
) -> None:
    h1 = start_hub({"BRANDUBH_CLAIM_GRACE_S": "1"}, redis=fresh_redis_url)
    game, alice, bob = await friend_game(h1.url)
    seats = await two_plies(game, alice, bob, (h1.url, h1.url))
    await seats["bob"].close()
    await gone_since(seats["alice"], game, bob)
    await claim_when_due(seats["alice"], game, draw=True)
    end = await seats["alice"].seen_or_next(lambda m: m["t"] == "event" and m["kind"] == "claim")
    assert end["draw"] is True and end["result"] == {"winner": None, "reason": "abandoned"}
    assert (await rating(alice))["games"] == 1 and (await rating(bob))["games"] == 1
    await seats["alice"].close()


async def test_the_time_the_service_was_down_does_not_count(
    start_hub: Any, fresh_redis_url: str
) -> None:
    env = {**ENV, "BRANDUBH_OUTAGE_AFTER_S": "2"}
    h1, h2 = start_hub(env, redis=fresh_redis_url), start_hub(env, redis=fresh_redis_url)
    r = sync_client(fresh_redis_url)
    game, alice, bob = await friend_game(h1.url, joiner_base=h2.url)
    seats = await two_plies(game, alice, bob, (h1.url, h2.url))
    await seats["bob"].close()
    since = await gone_since(seats["alice"], game, bob)
    h1.kill()  # the whole service goes down, before the grace is over
    h2.kill()
    # The whole service down for longer than the grace (the subject of the test: no signal
    # can stand for an outage's length).
    await asyncio.sleep(GRACE_S + 1.0)
    h3 = start_hub(env, redis=fresh_redis_url)
    a = await alice.connect(h3.url)
    await a.watch(game)
    reply = await claim(a, game, "at-once")
    assert reply["t"] == "error" and reply["code"] == "claim_too_soon", reply
    await claim_when_due(a, game)
    outages = [tuple(map(int, o.decode().split(":"))) for o in r.lrange(keys.outages(), 0, -1)]
    ended = max(end for start, end in outages if end > since)
    assert ended - since > GRACE_S * 1000  # the gap was recorded, past the grace
    assert updated(r, game) - ended >= GRACE_S * 1000  # the grace counted from its end
    await a.close()


async def rating(p: Player, ruleset: str = "nielsen") -> Msg:
    """The player's rating once it counts a game (archived and rated by the hub)."""

    async def rated() -> Msg | None:
        got = (await p.http.get(f"/api/players/{p.id}")).json()["ratings"].get(ruleset)
        return dict(got) if got and got["games"] >= 1 else None

    return await wait_for(rated, f"{p.id} rated", 20, 0.1)


async def test_a_move_counts_as_presence(redis_async: Any) -> None:
    """A player who moves from a socket that does not follow the game (the lobby, another
    tab's list) is there: a claim against them counts its grace from that move, not from
    when their last socket following the game went."""
    scripts = Scripts.register(redis_async)
    games = GameService(redis_async, scripts, claim_grace_s=30)
    a, b = Seat("u_mover_a", "A"), Seat("u_mover_b", "B")
    state, invite = await games.create(a, "nielsen", 60, "friend")
    state = await games.join(b, state.id, invite)
    for ply in range(2):  # both sides have moved: a claim may be made
        move = str(state.game().legal_moves()[0])
        await games.move(state.turn, state.id, ply, move, f"m{ply}")
        state = await games.load(state.id)
    mover = state.turn
    claimant = state.attacker if mover == state.defender else state.defender
    seconds, micros = await redis_async.time()
    now = seconds * 1000 + micros // 1000
    await redis_async.set(keys.alive(), now)  # the schedulers are running: no outage
    # The mover's last socket following the game went an hour ago.
    await redis_async.hset(keys.gone(state.id), mover, now - 3_600_000)
    move = str(state.game().legal_moves()[0])
    await games.move(mover, state.id, state.ply, move, "m2")  # from elsewhere
    with pytest.raises(Refusal) as refused:
        await games.claim(claimant, state.id, False, "c1")
    assert refused.value.code == "claim_too_soon"
