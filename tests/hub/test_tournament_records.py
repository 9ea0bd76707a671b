"""A tournament's records in Redis: msgpack written by the change scripts, each event of
the log built by the core and only stamped by the script, and a tournament the previous
version wrote in JSON (running through a deploy) read and changed on."""

from __future__ import annotations

import json
import secrets

import redis.asyncio as aioredis

from brandubh.hub.redis import keys
from brandubh.hub.redis.scripts import Scripts
from brandubh.hub.tournaments import changes, records, state
from brandubh.tournaments import Pairing, export


def _tid() -> str:
    return "t" + secrets.token_urlsafe(6)


def _fields(tid: str, fmt: str, status: str, **more: str) -> dict[str, str]:
    return {
        "id": tid,
        "name": "Old",
        "format": fmt,
        "ruleset": "brandubh",
        "move_time": "60",
        "starts_at": "1000",
        "ends_at": "",
        "duration_min": "",
        "rounds": "",
        "max_players": "0",
        "creator": "c",
        "creator_name": "C",
        "created": "1",
        "status": status,
        "round": "0",
        "waves": "0",
        "seq": "0",
        "rev": "0",
        "seed": "00" * 32,
        "commitment": "x",
        **more,
    }


def _player(name: str, rating: float, state_: str, game: str, n: int) -> str:
    # As lua/tournament.lua's cjson wrote a player before msgpack.
    return json.dumps(
        {"name": name, "rating": rating, "state": state_, "game": game, "free": 1, "n": n}
    )


async def test_a_round_robin_written_in_json_reads_and_changes_on(
    redis_async: aioredis.Redis,
) -> None:
    scripts = Scripts.register(redis_async)
    tid = _tid()
    mid = f"{tid}-r1-1"
    await redis_async.hset(
        keys.tournament(tid),
        mapping=_fields(tid, "round_robin", "running", round="1", roster='{"a":1500,"b":1612.5}'),
    )
    await redis_async.hset(
        keys.tournament_players(tid),
        mapping={
            "a": _player("A", 1500, "joined", mid, 1),
            "b": _player("B", 1612.5, "joined", mid, 2),
        },
    )
    await redis_async.hset(
        keys.tournament_games(tid),
        mid,
        '{"round":1,"a":"a","b":"b","games":{},"sides":{},"results":{},"done":0,"made":1,"at":5}',
    )
    old_log = [
        {"t": "join", "at": 10, "player": "a", "rating": 1500},
        {"t": "join", "at": 11, "player": "b", "rating": 1612.5},
        {"t": "start", "at": 1000, "ratings": {"a": 1500, "b": 1612.5}},
        {"t": "round", "at": 1000, "round": 1, "pairings": [{"a": "a", "b": "b"}], "bye": None},
    ]
    await redis_async.rpush(keys.tournament_log(tid), *(json.dumps(e) for e in old_log))

    gid = f"{mid}-1"
    reply = await changes.game(scripts, tid, mid, gid, Pairing("a", "b"), 1)
    assert reply == [b"ok", b"logged"]
    reply = await changes.match_result(scripts, tid, mid, gid, "attackers", False, 2)
    assert reply == [b"ok", b"recorded", 1]

    raw = await redis_async.hget(keys.tournament_games(tid), mid)
    assert raw is not None and not raw.startswith(b"{")  # msgpack once changed
    t = await state.read(redis_async, tid, with_log=True)
    assert t is not None
    assert t.roster == {"a": 1500.0, "b": 1612.5}
    assert t.players["b"].rating == 1612.5
    assert t.players["a"].state == records.EntrantState.JOINED
    m = t.matches[mid]
    assert (m.games, m.sides, m.results, m.done) == (
        (gid,),
        {gid: ("a", "b")},
        {gid: "attackers"},
        False,
    )
    events = [e.exported() for e in t.log]
    assert events[:4] == old_log
    stamped = [e.at for e in t.log[4:]]
    assert stamped[0] > 1000 and stamped == sorted(stamped)  # the commit's instant, not "at"
    # What the core built, as it built it: only "at" is the script's.
    assert events[4:] == [
        export.game(stamped[0], 1, gid, "a", "b"),
        export.result(stamped[1], gid, "attackers"),
    ]
    assert [e["t"] for e in t.export()["events"]] == [
        "join",
        "join",
        "start",
        "round",
        "game",
        "result",
    ]


async def test_an_arena_written_in_json_pairs_and_takes_players_back(
    redis_async: aioredis.Redis,
) -> None:
    scripts = Scripts.register(redis_async)
    tid = _tid()
    await redis_async.hset(
        keys.tournament(tid), mapping=_fields(tid, "arena", "running", ends_at=str(2**52))
    )
    await redis_async.hset(
        keys.tournament_players(tid),
        mapping={
            "a": _player("A", 1500, "joined", "", 1),
            "b": _player("B", 1600, "joined", "", 2),
            "c": _player("C", 1700.5, "withdrawn", "", 3),
        },
    )
    t = await state.read(redis_async, tid)
    assert t is not None and [p.id for p in t.free()] == ["a", "b"]

    # A wave of other free players than there are now is refused, and so are ids that
    # are not the next.
    free = {"a": 1500.0, "b": 1600.0}
    game = [(f"{tid}-1", Pairing("a", "b"))]
    assert await changes.wave(scripts, tid, 1, {"a": 1500.0}, game, 1) == [b"race"]
    assert await changes.wave(scripts, tid, 1, free, [(f"{tid}-2", Pairing("a", "b"))], 1) == [
        b"race"
    ]
    assert await changes.wave(scripts, tid, 1, free, game, 1) == [b"ok", f"{tid}-1".encode()]

    # A player coming back keeps the rating they first joined with.
    assert await changes.join(scripts, tid, "c", "C", 1800.0, 2) == [b"race"]
    assert await changes.join(scripts, tid, "c", "C", 1700.5, 2) == [b"ok", b"joined"]

    t = await state.read(redis_async, tid, with_log=True)
    assert t is not None
    g = t.games[f"{tid}-1"]
    assert (g.n, g.wave, g.attackers, g.defenders, g.result, g.made) == (1, 1, "a", "b", "", False)
    assert t.players["a"].game == g.id and t.players["c"].state == records.EntrantState.JOINED
    pairing, join = t.log
    assert pairing.event == {**export.pairing(1, 0, free, game), "at": 1}
    assert join.exported() == export.join(join.at, "c", 1700.5)
    assert pairing.at <= join.at
