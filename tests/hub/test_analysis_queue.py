"""lua/analysis.lua and claim.lua as the hubs and the workers use them, step by step on a
Redis of the test's own: one job however often it is asked for, its place in the queue,
the lease (a worker that lost it cannot renew it), the bound, a job tried too often
dropped (and the worker going on); and the worker command's refusal to start without the
service's URLs."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from click.testing import CliRunner

from brandubh.hub.analysis import Worker
from brandubh.hub.analysis import worker as worker_module
from brandubh.hub.config import Settings
from brandubh.hub.redis import keys, lua_source
from brandubh.run.cli import main
from services import sync_client
from waiting import wait_for_sync

Q = keys.analysis_queue()


@pytest.fixture
def r(fresh_redis_url: str) -> Iterator[redis.Redis]:
    client = sync_client(fresh_redis_url)
    yield client
    client.close()


WAKE_MAX = keys.ANALYSIS_WAKE_MAX


def call(r: redis.Redis, mode: str, game: str, *args: Any) -> list[str]:
    script = r.register_script(lua_source("analysis"))
    wake = [keys.analysis_wake()] if mode == "request" else []
    reply = script(keys=[Q, keys.analysis_job("g", game), *wake], args=[mode, game, *args])
    if isinstance(reply, int):
        return [str(reply)]
    return [x.decode() if isinstance(x, bytes) else str(x) for x in reply]


def claim(r: redis.Redis, lease_ms: int) -> list[str]:
    script = r.register_script(lua_source("claim"))
    return [x.decode() for x in script(keys=[Q], args=[lease_ms, 1, "", ""])]


def ask(r: redis.Redis, game: str, most: int = 10) -> list[str]:
    return call(r, "request", game, most, WAKE_MAX, "kind", "g", "moves", "a b", "nodes", 5)


def test_one_job_however_often_asked_and_its_place(r: redis.Redis) -> None:
    assert call(r, "status", "g1") == ["none", "0"]
    assert ask(r, "g1") == ["queued", "1"]
    assert ask(r, "g2") == ["queued", "2"]
    assert ask(r, "g1") == ["queued", "1"]  # asked again: the same job, the same place
    assert r.zcard(Q) == 2
    assert claim(r, 60_000) == ["g1"]  # the oldest first
    assert "w1" in call(r, "start", "g1", "w1", 3)
    assert call(r, "status", "g1") == ["running", "0", "0"]
    assert call(r, "status", "g2") == ["queued", "1"]  # the running one is not ahead of it
    assert call(r, "renew", "g1", "w2", 60_000, 5, 9) == ["0"]  # not its holder
    assert call(r, "renew", "g1", "w1", 60_000, 5, 9) == ["1"]
    assert call(r, "status", "g1") == ["running", "5", "9"]
    assert ask(r, "g1") == ["running", "5", "9"]
    assert call(r, "finish", "g1") == ["1"]
    assert call(r, "status", "g1") == ["none", "1"]
    assert not r.exists(keys.analysis_job("g", "g1"))


def test_a_lapsed_lease_is_claimed_again_and_the_old_holder_loses_it(r: redis.Redis) -> None:
    ask(r, "g1")
    assert claim(r, 0) == ["g1"]  # a lease that has run out at once
    call(r, "start", "g1", "dead", 3)
    assert claim(r, 60_000) == ["g1"]
    fields = call(r, "start", "g1", "alive", 3)
    job = dict(zip(fields[::2], fields[1::2], strict=True))
    assert job["worker"] == "alive" and job["tries"] == "2" and job["moves"] == "a b"
    assert call(r, "renew", "g1", "dead", 60_000, 1, 2) == ["0"]
    assert claim(r, 60_000) == []  # held: nobody else takes it
    # Given back by a worker that failed cleanly: due again, its try not counted.
    assert call(r, "release", "g1", "dead", 0) == ["0"]
    assert call(r, "release", "g1", "alive", 0) == ["1"]
    assert claim(r, 60_000) == ["g1"]
    fields = call(r, "start", "g1", "next", 3)
    assert dict(zip(fields[::2], fields[1::2], strict=True))["tries"] == "2"


def test_the_bound_and_a_job_tried_too_often(r: redis.Redis) -> None:
    assert ask(r, "g1", most=2) == ["queued", "1"]
    assert ask(r, "g2", most=2) == ["queued", "2"]
    assert ask(r, "g3", most=2) == ["busy", "2"]
    assert not r.exists(keys.analysis_job("g", "g3"))
    call(r, "finish", "g2")
    for _ in range(3):
        assert claim(r, 0) == ["g1"]
        assert call(r, "start", "g1", "w", 3)  # its fields
    assert claim(r, 0) == ["g1"]
    assert call(r, "start", "g1", "w", 3) == ["dropped"]
    assert r.zscore(Q, "g1") is None and not r.exists(keys.analysis_job("g", "g1"))
    assert call(r, "start", "g9", "w", 3) == []  # no such job: nothing, and not queued


def test_the_worker_needs_the_services_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    result = CliRunner().invoke(main, ["analyse-worker"])
    assert result.exit_code == 1
    assert "set REDIS_URL and DATABASE_URL" in result.output


def test_a_job_no_worker_can_do_is_dropped_and_the_worker_goes_on(
    r: redis.Redis, fresh_redis_url: str, database_url: str
) -> None:
    """An illegal move goes at once; a job that makes the worker fail goes back, counted,
    and is dropped at its fourth start; the worker goes on all along."""
    worker = Worker(Settings(redis_url=fresh_redis_url, database_url=database_url), "w")
    try:
        job = ["kind", "g", "ruleset", "nielsen", "position", "", "version", 1]
        # One at a time: two asked in the same millisecond go in the order of their ids.
        call(r, "request", "illegal", 10, WAKE_MAX, *job, "moves", "g4-g3 a1-a9", "nodes", 50)
        assert worker.step()
        assert r.zscore(Q, "illegal") is None and not r.exists(keys.analysis_job("g", "illegal"))
        call(r, "request", "faulty", 10, WAKE_MAX, *job, "moves", "g4-g3")  # no budget: KeyError
        for tries in range(1, 4):
            assert worker.step()
            assert r.hget(keys.analysis_job("g", "faulty"), "tries") == str(tries).encode()
        assert worker.step()  # the fourth start: dropped
        assert r.zscore(Q, "faulty") is None and not r.exists(keys.analysis_job("g", "faulty"))
        assert not worker.step()
    finally:
        worker.close()


def test_a_job_queued_wakes_an_idle_worker_and_the_tokens_are_capped(
    r: redis.Redis, fresh_redis_url: str, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An idle worker blocks on the wake list, not a poll: with its fallback look at the
    queues put an hour away, a job queued after it went idle is still taken."""
    wake = keys.analysis_wake()
    for n in range(WAKE_MAX + 10):
        call(r, "request", f"g{n}", 1000, WAKE_MAX, "kind", "g", "moves", "a1-a2", "nodes", 5)
    assert r.llen(wake) == WAKE_MAX  # a token a job, never more than the cap
    r.delete(Q, wake, *(keys.analysis_job("g", f"g{n}") for n in range(WAKE_MAX + 10)))

    monkeypatch.setattr(worker_module, "IDLE_WAKE_S", 3600.0)
    worker = Worker(Settings(redis_url=fresh_redis_url, database_url=database_url), "w")
    done = threading.Event()
    thread = threading.Thread(target=worker.run, args=(done.is_set,), daemon=True)
    thread.start()
    try:
        # Idle: blocked on the wake list (a client in BLPOP), having found nothing.
        wait_for_sync(lambda: b"cmd=blpop" in r.execute_command("CLIENT", "LIST"), "BLPOP")
        job = ["kind", "g", "ruleset", "nielsen", "position", "", "version", 1]
        call(r, "request", "woken", 10, WAKE_MAX, *job, "moves", "g4-g3 a1-a9", "nodes", 50)
        # The illegal line is dropped at once by whichever worker takes it: this one.
        wait_for_sync(lambda: r.zscore(Q, "woken") is None, "the job taken")
    finally:
        done.set()
        r.lpush(wake, 1)  # let the blocked call return so the thread sees the stop
        thread.join(10)
        worker.close()
    assert not thread.is_alive()
