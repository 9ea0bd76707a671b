"""Ratings, the leaderboards and the archive, against real hubs, Redis and PostgreSQL.

A finished game is archived, and rated when it counts, exactly once: whether its final
event reaches one hub, two hubs, or the same rater twice, and whether the live path or
the sweep gets there first.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import msgpack
import pytest
import redis.asyncio as aioredis

from brandubh.engine import Game
from brandubh.hub.accounts.accounts import Accounts
from brandubh.hub.accounts.sessions import Sessions
from brandubh.hub.chat import ChatService
from brandubh.hub.config import Settings
from brandubh.hub.live.changes import Change
from brandubh.hub.live.endings import Endings
from brandubh.hub.live.games import GameService
from brandubh.hub.live.rater import Rater
from brandubh.hub.live.state import Player as Seat
from brandubh.hub.redis import keys
from brandubh.hub.redis.scripts import Scripts
from brandubh.ratings import Rating, rate_game
from brandubh.store import Store
from services import HubProcess
from waiting import wait_for
from wsclient import PASSWORD, Msg, Player, Socket, friend_game, seated

QUICK_ESCAPE = ["g4-g3", "d5-g5", "g3-g2", "Kd4-d5", "g2-g3", "Kd5-a5", "g3-g2", "Ka5-a7"]


async def rating(p: Player, ruleset: str = "nielsen", games: int = 1) -> Msg:
    """The player's rating in a rule set once it counts ``games`` games."""

    async def check() -> Msg | None:
        r = (await p.http.get(f"/api/players/{p.id}")).json()["ratings"].get(ruleset)
        return r if r and r["games"] >= games else None

    got: Msg = await wait_for(check, f"{p.id} rated for {games} {ruleset} games", 10)
    return got


async def resign(sock: Socket, game: str) -> Msg:
    msg_id = f"resign-{game}"
    await sock.send({"t": "resign", "game": game, "id": msg_id})
    reply = await sock.reply_to(msg_id)
    assert reply["t"] == "ack", reply
    return reply


async def rated_game(alice: Player, bob: Player, loser: Player, socks: dict[str, Socket]) -> str:
    """A friend game between two accounts that ``loser`` resigns at once: its id."""
    created = await alice.create_game(opponent="friend", ruleset="nielsen")
    await bob.join(created["invite"])
    await resign(socks[loser.id], created["id"])
    return str(created["id"])


@pytest.fixture
async def services(fresh_redis_url: str, store: Store) -> AsyncIterator[dict[str, Any]]:
    """The hub's own services in this process on a Redis and a database of the test's
    own, with no hub listening: nothing archives a game unless the test says so."""
    r = aioredis.Redis.from_url(fresh_redis_url)
    scripts = Scripts.register(r)
    games = GameService(r, scripts, archive=store)
    rater = Rater(r, games, store, ChatService(r, games.scripts, store))
    yield {
        "redis": r,
        "store": store,
        "games": games,
        "rater": rater,
        "endings": Endings(r, scripts, steps=(rater.finish,)),
        "accounts": Accounts(r, scripts, Sessions(r), Settings(), store),
    }
    await r.aclose()


async def account(accounts: Accounts, n: int) -> Seat:
    email = await accounts.signup(f"player{n}@example.org", PASSWORD, None, None)
    made = await accounts.get(str(await accounts.account_of(email)))
    assert made is not None
    assert await accounts.mark_verified(made.id, email)  # only confirmed accounts are rated
    return Seat(made.id, made.name)


async def rated_games(store: Store, pid: str, ruleset: str = "nielsen") -> int:
    return (await store.rating(pid, ruleset))[1]


# -- rated once ------------------------------------------------------------------------------


async def test_a_rated_result_moves_both_ratings_once_with_two_hubs_and_a_replayed_event(
    hub: HubProcess, hub2: HubProcess, redis_url: str, database_url: str
) -> None:
    game, alice, bob = await friend_game(hub.url, "nielsen", joiner_base=hub2.url)
    socks = await seated(game, alice, bob)
    attacker = next(p for p in (alice, bob) if socks["attackers"].hello["player"]["id"] == p.id)
    defender = bob if attacker is alice else alice
    await resign(socks["attackers"], game)  # both hubs see the final event

    won, lost = await rating(defender), await rating(attacker)
    expect_won, expect_lost = rate_game(Rating(), Rating(), 1.0)
    assert won["rating"] == pytest.approx(expect_won.rating, abs=0.05)
    assert lost["rating"] == pytest.approx(expect_lost.rating, abs=0.05)
    assert won["rd"] == pytest.approx(expect_won.rd, abs=0.05)
    assert won["provisional"] and lost["provisional"]
    assert [h["game"] for h in won["history"]] == [game]

    # Deliver the same final event to a rater twice more, and ask it once more directly.
    r = aioredis.Redis.from_url(redis_url)
    store = Store.from_url(database_url)
    scripts = Scripts.register(r)
    games = GameService(r, scripts, archive=store)
    rater = Rater(r, games, store, ChatService(r, games.scripts, store))
    outcomes: list[object] = []

    async def archive(game_id: str) -> None:
        outcomes.append(await rater.finish(game_id))

    endings = Endings(r, scripts, steps=(archive,))
    final = msgpack.unpackb((await r.lrange(keys.events(game), -1, -1))[0], raw=False)
    assert final["state"]["status"] == "ended" and final["kind"] == "resign"
    ended = Change(await games.load(game), final, ())
    endings.on_commit(ended, final["n"], b"")
    endings.on_commit(ended, final["n"], b"")  # the same game held already: not twice at once
    assert len(endings._live) == 1
    results = await asyncio.gather(*endings._live, endings.finish(game))
    assert results == [True, True]
    assert outcomes == ["dup", "dup"]
    # Nothing changes: anything still in flight on the hubs lands within this (a rating
    # counted twice sends no signal).
    await asyncio.sleep(0.5)
    for p, before in ((defender, won), (attacker, lost)):
        after = (await p.http.get(f"/api/players/{p.id}")).json()["ratings"]["nielsen"]
        assert after == before and after["games"] == 1
    summary = await store.summary(game)
    assert summary is not None and summary["rated"] is True
    assert summary["ratings"][defender.id]["before"] == 1500
    assert summary["ratings"][defender.id]["after"] == pytest.approx(won["rating"], abs=0.1)
    assert await r.zscore(keys.finished(keys.bucket(game)), game) is None  # dequeued
    for p in (alice, bob):
        listed = (await p.http.get(f"/api/players/{p.id}/games")).json()["games"]
        assert [g["id"] for g in listed] == [game]
    # The game's live keys expire now that it is archived (the grace: 10 minutes).
    assert 0 < await r.pttl(keys.game(game)) <= 600_000
    assert 0 < await r.pttl(keys.events(game)) <= 600_000
    for sock in socks.values():
        await sock.close()
    await r.aclose()
    await store.close()


async def test_many_racing_raters_and_the_sweep_rate_each_game_once(
    services: dict[str, Any],
) -> None:
    r, games, rater = services["redis"], services["games"], services["rater"]
    store = services["store"]
    a, b, c = [await account(services["accounts"], n) for n in range(3)]

    async def ended_game(x: Seat, y: Seat) -> str:
        state, invite = await games.create(x, "nielsen", 600, "friend")
        state = await games.join(y, state.id, invite)
        await games.resign(state.attacker, state.id, "r")
        return state.id

    g1 = await ended_game(a, b)
    # Five raters at once on the same game: one archives it, the others find it done.
    outcomes = await asyncio.gather(*(rater.finish(g1) for _ in range(5)))
    assert sorted(outcomes) == ["dup"] * 4 + ["ok"]
    assert await rated_games(store, a.id) == 1

    # Two games of the same player at once: the second waits for the first's rating.
    g2, g3 = await ended_game(a, b), await ended_game(a, c)
    assert sorted(await asyncio.gather(rater.finish(g2), rater.finish(g3))) == ["ok", "ok"]
    assert await rated_games(store, a.id) == 3
    assert len((await store.ratings(a.id))["nielsen"]["history"]) == 3

    # Nobody saw the last game end (no hub runs here): the sweep finds it after the grace.
    endings = services["endings"]
    for g in (g1, g2, g3):
        assert await endings.finish(g)  # already archived: only dequeued
    g4 = await ended_game(b, c)
    assert await endings.sweep() == 0  # still in its grace period
    assert await wait_for(endings.sweep, "the sweep taking g4 past its grace", 15, 0.1) == 1
    assert await endings.sweep() == 0
    assert await rated_games(store, c.id) == 2
    assert await store.count_games() == 4
    for g in (g1, g2, g3, g4):
        assert await r.zscore(keys.finished(keys.bucket(g)), g) is None


async def test_casual_aborted_and_bot_games_are_archived_but_never_rated(
    services: dict[str, Any],
) -> None:
    games, rater, store = services["games"], services["rater"], services["store"]
    a, b = [await account(services["accounts"], n) for n in range(2)]

    casual, invite = await games.create(a, "walker", 600, "friend", rated=False)
    casual = await games.join(b, casual.id, invite)
    await games.resign(casual.defender, casual.id, "r")
    early, invite = await games.create(a, "walker", 600, "friend")
    early = await games.join(b, early.id, invite)
    await games.abort(early.attacker, early.id, "x")  # no move played: not even listed
    late, invite = await games.create(a, "walker", 600, "friend")
    late = await games.join(b, late.id, invite)
    first = late.game().legal_moves()[0]
    await games.move(late.attacker, late.id, 0, str(first), "m")
    await games.abort(late.defender, late.id, "x")  # one move: listed, still no result
    bot, _ = await games.create(a, "walker", 600, "bot")
    await games.resign(a.id, bot.id, "r")

    for g in (casual.id, early.id, late.id, bot.id):
        assert await rater.finish(g) == "ok"
    assert await store.ratings(a.id) == {} and await store.ratings(b.id) == {}
    listed, more = await rater.player_games(a.id, 0, 10)
    assert {g["id"] for g in listed} == {casual.id, late.id, bot.id} and more is None
    assert all(g["rated"] is False and g["ratings"] is None for g in listed)
    by_id = {g["id"]: g for g in listed}
    assert by_id[late.id]["result"] == {"winner": None, "reason": "aborted"}
    assert by_id[bot.id]["players"][bot.side_of(a.id) or ""]["id"] == a.id


async def test_an_unfinished_or_unknown_game_is_left_alone(services: dict[str, Any]) -> None:
    games, rater = services["games"], services["rater"]
    a = await account(services["accounts"], 0)
    waiting, _ = await games.create(a, "nielsen", 600, "friend")
    assert await rater.finish(waiting.id) == "not_ended"
    assert await rater.finish("NoSuchGame1") == "gone"
    endings = services["endings"]
    endings.on_commit(Change(waiting, {"kind": "start"}, ()), 1, b"")  # not a final change
    assert not endings._live


# -- the leaderboard -------------------------------------------------------------------------


async def board(p: Player, ruleset: str = "nielsen") -> list[Msg]:
    r = await p.http.get(f"/api/leaderboard/{ruleset}")
    assert r.status_code == 200
    players: list[Msg] = r.json()["players"]
    return players


async def opt(p: Player, on: bool) -> None:
    r = await p.http.post("/api/settings", json={"leaderboard": on})
    assert r.status_code == 200 and r.json() == {"leaderboard": on}, r.text


async def test_leaderboard_is_opt_in_live_and_without_provisional_players(
    hub: HubProcess,
) -> None:
    ann, ben = await Player(hub.url).signup(), await Player(hub.url).signup()
    socks = {ann.id: await ann.connect(), ben.id: await ben.connect()}
    for i in range(15):  # enough games for both ratings to stop being provisional
        await rated_game(ann, ben, ben if i % 3 else ann, socks)
        # Rated in the order played: two games rated the other way round leave an RD a
        # little higher (110.1 instead of 108.9 here), on the provisional line.
        await rating(ann, games=i + 1)
    a, b = await rating(ann, games=15), await rating(ben, games=15)
    assert not a["provisional"] and not b["provisional"] and a["rd"] < 110
    assert len(a["history"]) == 15

    cat, dan = await Player(hub.url).signup(), await Player(hub.url).signup()
    socks[dan.id] = await dan.connect()
    await rated_game(cat, dan, dan, socks)
    assert (await rating(cat))["provisional"]
    for p in (cat, dan):
        await opt(p, True)  # opted in, but provisional: not listed

    def ids(rows: list[Msg]) -> list[str]:
        return [row["id"] for row in rows]

    assert not {ann.id, ben.id, cat.id, dan.id} & set(ids(await board(ann)))  # nobody opted in
    await opt(ann, True)
    rows = await board(ben)
    assert ann.id in ids(rows) and ben.id not in ids(rows) and cat.id not in ids(rows)
    row = next(x for x in rows if x["id"] == ann.id)
    assert row["name"] == ann.me["name"] and row["rating"] == a["rating"]
    assert row["games"] == 15 and row["provisional"] is False and row["rank"] >= 1
    await opt(ben, True)
    rows = await board(ann)
    mine = [x for x in rows if x["id"] in (ann.id, ben.id)]
    assert [x["id"] for x in mine] == [ann.id, ben.id]  # Ann won 10 of 15: ahead
    assert [x["rank"] for x in rows] == list(range(1, len(rows) + 1))

    # Live: the next rated game moves the board at once.
    await rated_game(ann, ben, ann, socks)
    a16 = await rating(ann, games=16)

    async def moved() -> bool:
        row = next(x for x in await board(ann) if x["id"] == ann.id)
        return bool(row["rating"] == a16["rating"])

    await wait_for(moved, "the leaderboard to show the new rating", 10)
    await opt(ann, False)
    rows = await board(ann)
    assert ann.id not in ids(rows) and ben.id in ids(rows)
    assert (await ann.http.get(f"/api/players/{ann.id}")).json()["leaderboard"] is False
    # Other rule sets have their own boards; an unknown one is not found.
    assert ben.id not in ids(await board(ben, "walker"))
    assert (await ann.http.get("/api/leaderboard/chess")).status_code == 404

    guest = await Player(hub.url).start()
    r = await guest.http.post("/api/settings", json={"leaderboard": True})
    assert r.status_code == 401 and r.json()["error"] == "not_logged_in"
    r = await ann.http.post("/api/settings", json={"leaderboard": "yes"})
    assert r.status_code == 400 and r.json()["error"] == "bad_field"
    for sock in socks.values():
        await sock.close()
    for p in (ann, ben, cat, dan, guest):
        await p.close()


# -- the archive -----------------------------------------------------------------------------


async def test_the_archive_replays_the_live_game_move_for_move(hub: HubProcess) -> None:
    game, alice, bob = await friend_game(hub.url, "nielsen")
    socks = await seated(game, alice, bob)
    live: list[str] = []
    for ply, move in enumerate(QUICK_ESCAPE):
        mover = socks["attackers" if ply % 2 == 0 else "defenders"]
        await mover.move(game, ply, move)
        event = await socks["attackers"].recv_until(
            lambda m: m["t"] == "event" and m["kind"] == "move"
        )
        assert event["move"] == move
        live.append(event["state"]["position"])
    assert event["state"]["status"] == "ended"

    r = await alice.http.get(f"/api/games/{game}/positions")
    assert r.status_code == 200
    replay = r.json()
    assert replay["moves"] == QUICK_ESCAPE and replay["status"] == "ended"
    assert replay["positions"][0] == Game("nielsen").position
    assert replay["positions"][1:] == live
    assert replay["result"] == {"winner": "defenders", "reason": "king_escaped"}
    record = (await alice.http.get(f"/api/games/{game}/record")).text
    assert "Ka5-a7" in record and '[Seed "' in record
    # In both players' archives, newest first.
    for p in (alice, bob):

        async def listed(p: Player = p) -> list[Msg]:
            games: list[Msg] = (await p.http.get(f"/api/players/{p.id}/games")).json()["games"]
            return games

        [entry] = await wait_for(listed, f"the game in {p.id}'s archive", 10)
        assert entry["id"] == game and entry["plies"] == len(QUICK_ESCAPE)
        assert entry["result"]["reason"] == "king_escaped" and entry["rated"] is True
    r = await alice.http.get("/api/games/NoSuchGame1/positions")
    assert r.status_code == 404
    for sock in socks.values():
        await sock.close()


async def test_a_players_game_list_pages(hub: HubProcess) -> None:
    ann, ben = await Player(hub.url).signup(), await Player(hub.url).signup()
    socks = {ann.id: await ann.connect(), ben.id: await ben.connect()}
    played = [await rated_game(ann, ben, ben, socks) for _ in range(5)]
    await rating(ann, games=5)

    async def page(offset: int) -> Msg:
        r = await ann.http.get(f"/api/players/{ann.id}/games?limit=2&offset={offset}")
        body: Msg = r.json()
        return body

    seen = []
    offset: int | None = 0
    while offset is not None:
        body = await page(offset)
        seen += [g["id"] for g in body["games"]]
        offset = body["next"]
    assert seen == played[::-1]  # newest first, each once
    for sock in socks.values():
        await sock.close()
