"""The commit lane: a reply whose caller was cancelled, or lost with the connection, still
reaches the call's orphan callback (what the commit path hands its own sockets by)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError

from brandubh.hub.redis.lane import Lane
from waiting import wait_for


@pytest.fixture
async def redis_and_lane(fresh_redis_url: str) -> AsyncIterator[tuple[aioredis.Redis, Lane]]:
    r = aioredis.Redis.from_url(fresh_redis_url)
    lane = Lane(r.connection_pool, timeout_s=10)
    yield r, lane
    await lane.aclose()
    await r.aclose()


async def test_a_cancelled_callers_reply_goes_to_its_orphan(
    redis_and_lane: tuple[aioredis.Redis, Lane],
) -> None:
    r, lane = redis_and_lane
    got: list[Any] = []
    call = asyncio.ensure_future(lane.call("BLPOP", "q", 5, orphan=got.append))
    await asyncio.sleep(0.1)  # the BLPOP waits in Redis
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    await r.rpush("q", b"late")
    await wait_for(lambda: got, "the orphan told", 2, 0.02)
    assert got == [[b"q", b"late"]]
    # The lane goes on: the next caller gets its own reply, not the orphan's.
    assert await lane.call("PING") == b"PONG"


async def test_a_reply_lost_with_the_connection_tells_the_orphan_none(
    redis_and_lane: tuple[aioredis.Redis, Lane],
) -> None:
    r, lane = redis_and_lane
    lane_id = await lane.call("CLIENT", "ID")
    got: list[Any] = []
    call = asyncio.ensure_future(lane.call("BLPOP", "q", 5, orphan=got.append))
    await asyncio.sleep(0.1)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    await r.client_kill_filter(_id=lane_id)
    await wait_for(lambda: got, "the orphan told", 2, 0.02)
    assert got == [None]
    assert await lane.call("PING") == b"PONG"  # a new connection


async def test_an_answered_caller_leaves_its_orphan_untold(
    redis_and_lane: tuple[aioredis.Redis, Lane],
) -> None:
    _, lane = redis_and_lane
    got: list[Any] = []
    assert await lane.call("ECHO", "x", orphan=got.append) == b"x"
    await lane.call("PING")
    assert got == []


async def test_calls_on_a_stalled_redis_fail_within_two_watchdog_periods(
    fresh_redis_url: str,
) -> None:
    r = aioredis.Redis.from_url(fresh_redis_url)
    lane = Lane(r.connection_pool, timeout_s=0.3)
    try:
        await lane.call("PING")
        await asyncio.sleep(0.5)  # an idle lane is not broken: it waits with no timer
        assert await lane.call("ECHO", "idle") == b"idle"
        got: list[Any] = []
        stalled = asyncio.ensure_future(lane.call("BLPOP", "never", 0))
        queued = asyncio.ensure_future(lane.call("PING", orphan=got.append))
        with pytest.raises(RedisConnectionError):
            await asyncio.wait_for(stalled, 2)
        with pytest.raises(RedisConnectionError):
            await queued
        assert got == []  # its caller heard of the failure itself
        assert await lane.call("PING") == b"PONG"  # a new connection
    finally:
        await lane.aclose()
        await r.aclose()


async def test_an_error_reply_is_its_callers_and_the_lane_goes_on(
    redis_and_lane: tuple[aioredis.Redis, Lane],
) -> None:
    _, lane = redis_and_lane
    await lane.call("PING")  # open: the calls below share one write and one read
    calls = [
        asyncio.ensure_future(lane.call(*args))
        for args in (("EVALSHA", "0" * 40, 0), ("RPUSH", "l", "x"), ("INCR", "l"), ("ECHO", "y"))
    ]
    with pytest.raises(NoScriptError):  # (a script the lane then loads: Lane.script)
        await calls[0]
    assert await calls[1] == 1
    with pytest.raises(ResponseError, match="WRONGTYPE"):
        await calls[2]
    assert await calls[3] == b"y"  # each reply its own caller's, in order
    assert await lane.call("PING") == b"PONG"
