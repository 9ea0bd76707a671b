"""An account's limit of tournaments not finished holds against simultaneous creations:
the new tournament is taken against it in one script (lua/run_limit.lua)."""

from __future__ import annotations

import asyncio
import time
from typing import Any, cast

import redis.asyncio as aioredis

from brandubh.hub.errors import Refusal
from brandubh.hub.live import Player
from brandubh.hub.redis import keys
from brandubh.hub.redis.scripts import Scripts
from brandubh.hub.tournaments import TournamentService


class Wakes:
    """The runner as creating a tournament uses it: only told when to wake."""

    def wake_at(self, at: int) -> None:
        pass


async def test_ten_creations_at_once_make_no_more_than_the_limit(
    redis_async: aioredis.Redis,
) -> None:
    now = int(time.time() * 1000)
    service = TournamentService(
        redis_async,
        Scripts.register(redis_async),
        cast(Any, None),  # games: creating makes none
        cast(Any, Wakes()),
        cast(Any, None),  # ratings: nobody joins
        None,
        lambda: now,
        max_running=3,
    )
    creator = Player("p" + str(now), "Creator")
    body = {
        "name": "At once",
        "format": "round_robin",
        "ruleset": "nielsen",
        "move_time": 86400,
        "starts_at": now + 3_600_000,
    }
    done = await asyncio.gather(
        *(service.create(creator, body) for _ in range(10)), return_exceptions=True
    )
    made = [x for x in done if isinstance(x, str)]
    refused = [x for x in done if isinstance(x, Refusal)]
    assert len(made) == 3 and len(refused) == 7
    assert {r.code for r in refused} == {"too_many_tournaments"}
    run = await redis_async.smembers(keys.tournaments_run(creator.id))
    assert {x.decode() for x in run} == set(made)
    listed = {x.decode() for x in await redis_async.zrange(keys.tournaments(), 0, -1)}
    assert set(made) <= listed
    for tid in made:  # kept for ever once taken (until it finishes)
        assert await redis_async.ttl(keys.tournament(tid)) == -1
