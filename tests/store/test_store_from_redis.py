"""`brandubh migrate-from-redis`: an earlier version's record, moved from Redis into
PostgreSQL once, and removed from Redis; a second run changes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import redis.asyncio as aioredis

from brandubh.hub.live.games import GameService
from brandubh.hub.live.state import Player
from brandubh.hub.redis import keys
from brandubh.hub.redis.scripts import Scripts
from brandubh.run.migrate_redis import OldKeys
from brandubh.store import Store


def run_migration(redis_url: str, database_url: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "brandubh", "migrate-from-redis"],
        env={**os.environ, "REDIS_URL": redis_url, "DATABASE_URL": database_url},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_the_old_record_moves_once_and_leaves_redis(
    fresh_redis_url: str, fresh_database_url: str
) -> None:
    r = aioredis.Redis.from_url(fresh_redis_url)
    games = GameService(r, Scripts.register(r))
    ann, bob = Player("u_ann", "Ann"), Player("u_bob", "Bob")
    state, invite = await games.create(ann, "nielsen", 600, "friend")
    state = await games.join(bob, state.id, invite)
    await games.resign(state.attacker, state.id, "r")
    ended = await games.load(state.id)
    winner = ended.result.winner if ended.result else None
    # What the earlier version kept under {acct}, as its scripts wrote it.
    for pid, name, email in (("u_ann", "Ann", "ann@x.org"), ("u_bob", "Bob", "bob@x.org")):
        await r.hset(OldKeys.emails(), email, pid)
        await r.hset(
            OldKeys.account(pid),
            mapping={
                "email": email,
                "name": name,
                "hash": f"$argon2id$h-{pid}",
                "created": "7",
                "leaderboard": "1" if pid == "u_ann" else "0",
            },
        )
        await r.hset(
            OldKeys.rating(pid, "nielsen"),
            mapping={"r": "1662.3", "rd": "290.3", "vol": "0.06", "n": "1", "last": "9"},
        )
        await r.rpush(OldKeys.rating_history(pid, "nielsen"), f"9|1662.3|290.3|{state.id}")
        await r.zadd(OldKeys.player_games(pid), {state.id: 9})
    summary = {
        "id": state.id,
        "ruleset": "nielsen",
        "rated": True,
        "opponent": "friend",
        "bot_level": None,
        "players": {},
        "result": {"winner": winner, "reason": "resign"},
        "plies": 0,
        "move_time": 600,
        "created": ended.created,
        "ended": 9,
        "ratings": None,
    }
    await r.hset(OldKeys.archived(), state.id, json.dumps(summary))
    await r.zadd(OldKeys.leaderboard("nielsen"), {"u_ann": 1662.3})

    out = run_migration(fresh_redis_url, fresh_database_url)
    assert "2 accounts, 1 games, 2 ratings, 2 rating history points" in out, out
    store = Store.from_url(fresh_database_url)
    try:
        found = await store.credentials("ann@x.org")
        assert found is not None and found[1] == "$argon2id$h-u_ann" and found[0].leaderboard
        mine = await store.ratings("u_ann")
        assert mine["nielsen"]["rating"] == 1662.3 and mine["nielsen"]["games"] == 1
        assert [p["game"] for p in mine["nielsen"]["history"]] == [state.id]
        listed, _ = await store.player_games("u_bob", 0, 10)
        assert [g["id"] for g in listed] == [state.id]
        final = await store.final_game(state.id)
        assert final is not None and final.final_seq == ended.seq and final.seed
        assert '[Seed "' in final.record
        # Moved, so removed: nothing of the old record is left; the game lets go later.
        assert not await r.keys(f"{keys.ACCT}:*")
        assert 0 < await r.pttl(keys.game(state.id)) <= 600_000

        again = run_migration(fresh_redis_url, fresh_database_url)
        assert "0 accounts, 0 games, 0 ratings, 0 rating history points" in again, again
        assert await store.count_games() == 1
        assert (await store.rating("u_ann", "nielsen"))[1] == 1
    finally:
        await store.close()
        await r.aclose()
