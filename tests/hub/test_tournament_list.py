"""GET /api/tournaments pages its upcoming and running tournaments: a page's worth is read
however many exist, and each page gives the cursor of the next."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterable
from typing import Any, cast

import pytest
import redis.asyncio as aioredis

from brandubh.hub.errors import Refusal
from brandubh.hub.live import Player
from brandubh.hub.redis.scripts import Scripts
from brandubh.hub.tournaments import TournamentService
from brandubh.hub.tournaments.service import PAGE


class Wakes:
    def wake_at(self, at: int) -> None:
        pass


@pytest.fixture
async def own(fresh_redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(fresh_redis_url)
    yield client
    await client.aclose()


async def test_the_list_is_read_a_page_at_a_time(own: aioredis.Redis) -> None:
    now = int(time.time() * 1000)
    service = TournamentService(
        own,
        Scripts.register(own),
        cast(Any, None),
        cast(Any, Wakes()),
        cast(Any, None),
        None,
        lambda: now,
        max_running=1000,
    )
    count = PAGE + 5
    made = [
        await service.create(
            Player(f"p{i % 3}", "Creator"),
            {
                "name": f"Event {i}",
                "format": "round_robin",
                "ruleset": "nielsen",
                "move_time": 86400,
                "starts_at": now + 3_600_000 + (i // 2) * 1000,  # two at each start
            },
        )
        for i in range(count)
    ]
    read: list[str] = []
    summaries = service._summaries

    async def counted(ids: Iterable[str]) -> list[Any]:
        ids = list(ids)
        read.extend(ids)
        return await summaries(ids)

    service._summaries = counted  # type: ignore[method-assign]

    first = await service.listing()
    assert len(read) <= PAGE + 1  # a page's worth, not all of them
    upcoming = cast(list[dict[str, Any]], first["upcoming"])
    nxt = cast(dict[str, Any], first["next"])
    assert len(upcoming) == PAGE and first["running"] == [] and nxt["running"] is None
    starts = [s["starts_at"] for s in upcoming]
    assert starts == sorted(starts)
    read.clear()
    second = await service.listing("upcoming", nxt["upcoming"])
    assert len(read) <= PAGE
    rest = cast(list[dict[str, Any]], second["upcoming"])
    assert cast(dict[str, Any], second["next"]) == {"upcoming": None}
    # Every one once, in the order of their starts (ties by id).
    assert [s["id"] for s in upcoming + rest] == [
        tid for _, tid in sorted((now + (i // 2) * 1000, t) for i, t in enumerate(made))
    ]
    with pytest.raises(Refusal):
        await service.listing("finished", None)
    with pytest.raises(Refusal):
        await service.listing("upcoming", "nonsense")
