"""The analysis worker: analysis by the bot, beside the service, never in it (``brandubh
analyse-worker`` runs one: brandubh/run/analysis_worker.py).

A worker is a process on any machine that reaches the service's Redis and PostgreSQL
(``REDIS_URL``, ``DATABASE_URL``); ``brandubh serve`` starts one by default. It takes one
job at a time from the queues the hubs fill (hub/analysis/analyses.py): board evaluations
first, then moves tried in exercises (one ply's search each), then games. Each is claimed
under a lease (``lua/claim.lua``, as the bot's turns are) and started (``lua/analysis.lua``:
the job's fields, a try counted); after every ply the worker renews its lease and publishes
the progress on the hubs' channel. A game's analysis is written once to PostgreSQL
(idempotent by game and version) before the job leaves the queue, so a worker killed at any
moment loses nothing: its lease runs out and another worker takes the job, and a job found
already kept is only finished.

The search runs in this process's main thread, synchronously: compiled (mypyc), it holds
the interpreter for a whole search, so no event loop could renew a lease beside it. The
store's calls run on a private event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import socket
import time
from collections.abc import Callable
from typing import Final, cast

import redis
from redis.cluster import RedisCluster

from brandubh.analysis import (
    ANALYSIS_VERSION,
    Exercise,
    IllegalLineMove,
    analyse_game,
    evaluate_position,
    try_move,
)
from brandubh.engine import EngineError
from brandubh.hub.config import Settings
from brandubh.hub.messages import frames
from brandubh.hub.redis import keys, lua_source
from brandubh.store import Store, StoreUnavailable

log = logging.getLogger(__name__)

# What makes a worker pause and try again, the job given back uncounted: not the job's fault.
UNREACHABLE: Final = (redis.RedisError, StoreUnavailable, OSError)
# An idle worker blocks on the wake list (a token per job queued) for at most this long,
# then looks at the queues anyway: for a job whose holder's lease ran out, or one given
# back for later, which no token announces.
IDLE_WAKE_S: Final = 2.0
TRIES: Final = 3  # a job started this often without finishing is dropped (logged)
PAUSE_S: Final = 2.0  # after a failure of Redis or PostgreSQL, before the next claim
SAVE_TRIES: Final = 30  # a finished analysis waits this many pauses for PostgreSQL


class LeaseLost(Exception):
    """Another worker holds the job now (this one stalled past its lease)."""


def connect(settings: Settings) -> redis.Redis:
    """A synchronous client of the service's Redis, or of its cluster."""
    if settings.redis_cluster:
        return cast(redis.Redis, RedisCluster.from_url(settings.redis_url))
    return redis.Redis.from_url(settings.redis_url)


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class Worker:
    """One worker: claims, computes, keeps, finishes; one job at a time."""

    def __init__(self, settings: Settings, name: str = "") -> None:
        self.settings = settings
        self.name = name or f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
        self.redis = connect(settings)
        self.claim = self.redis.register_script(lua_source("claim"))
        self.analysis = self.redis.register_script(lua_source("analysis"))
        self.loop = asyncio.Runner()
        self.store = Store.from_url(settings.database_url, pool_size=1)
        self.lease_ms = settings.analysis_lease_ms

    def close(self) -> None:
        with contextlib.suppress(Exception):  # stopping: what is left open goes with us
            self.loop.run(self.store.close())
        self.loop.close()
        self.redis.close()

    def run(self, stop: Callable[[], bool] = lambda: False) -> None:
        """Work until ``stop()`` says so (or the process is stopped)."""
        log.info("analysis worker %s: waiting for jobs", self.name)
        while not stop():
            try:
                worked = self.step()
            except UNREACHABLE as exc:
                log.warning("analysis worker: %s; trying again in %g s", exc, PAUSE_S)
                time.sleep(PAUSE_S)
                continue
            if not worked and not stop():
                try:
                    self.redis.blpop([keys.analysis_wake()], timeout=IDLE_WAKE_S)
                except UNREACHABLE as exc:
                    log.warning("analysis worker: %s; trying again in %g s", exc, PAUSE_S)
                    time.sleep(PAUSE_S)

    def step(self) -> bool:
        """Claim one job (an evaluation first, a tried move next) and do it; whether there
        was one."""
        queues = (
            ("p", keys.evaluation_queue()),
            ("x", keys.exercise_queue()),
            ("g", keys.analysis_queue()),
        )
        for kind, queue in queues:
            claimed = self.claim(keys=[queue], args=[self.lease_ms, 1, "", ""])
            if claimed:
                self.work(kind, queue, _text(claimed[0]))
                return True
        return False

    def _call(
        self, mode: str, queue: str, job_id: str, kind: str, *args: str | int
    ) -> list[object]:
        job = keys.analysis_job(kind, job_id)
        return cast(list[object], self.analysis(keys=[queue, job], args=[mode, job_id, *args]))

    def work(self, kind: str, queue: str, job_id: str) -> None:
        """Start a claimed job and see it done, or give it back for another worker."""
        reply = [_text(x) for x in self._call("start", queue, job_id, kind, self.name, TRIES)]
        if reply == ["dropped"]:
            log.error("analysis job %s:%s failed %d times: dropped", kind, job_id, TRIES)
            return
        if not reply:
            return  # its job was gone: nothing to do
        job = dict(zip(reply[::2], reply[1::2], strict=True))
        try:
            if kind == "p":
                self.evaluate(queue, job_id, job)
            elif kind == "x":
                self.try_move(queue, job_id, job)
            else:
                self.analyse(queue, job_id, job)
        except LeaseLost:
            log.warning("analysis job %s:%s went to another worker", kind, job_id)
        except (EngineError, IllegalLineMove) as exc:
            # A job no worker could do (its moves or position are not the rules'): it goes.
            log.error("analysis job %s:%s cannot be done: %s; dropped", kind, job_id, exc)
            self._call("finish", queue, job_id, kind)
        except (*UNREACHABLE, SystemExit, KeyboardInterrupt) as exc:
            # Given back, for this or another worker to take: a failure of Redis or
            # PostgreSQL, or a stop, is not the job's, so its try is not counted. If Redis
            # cannot be told, its lease runs out instead.
            delay = 0 if isinstance(exc, SystemExit | KeyboardInterrupt) else PAUSE_S
            with contextlib.suppress(*UNREACHABLE):
                self._call("release", queue, job_id, kind, self.name, int(delay * 1000))
            raise
        except Exception:
            # A fault while doing this job: back to the queue at once, its try counted
            # (three and it is dropped); this worker goes on with the next.
            log.exception("analysis job %s:%s failed; it goes back to the queue", kind, job_id)
            self._call("renew", queue, job_id, kind, self.name, 0, 0, 0)

    def analyse(self, queue: str, game_id: str, job: dict[str, str]) -> None:
        if self.loop.run(self.store.analysis(game_id, ANALYSIS_VERSION)) is None:
            moves = job["moves"].split()
            nodes = int(job["nodes"])
            started = time.monotonic()

            def on_ply(done: int, of: int) -> None:
                self.renew(queue, game_id, done, of)

            on_ply(0, len(moves))
            result = analyse_game(
                job["ruleset"],
                moves,
                position=job.get("position") or None,
                nodes=nodes,
                on_ply=on_ply,
            )
            self.keep(queue, game_id, job["ruleset"], nodes, result.to_dict())
            log.info(
                "analysed game %s: %d plies at %d nodes in %.1f s",
                game_id,
                len(moves),
                nodes,
                time.monotonic() - started,
            )
        self._call("finish", queue, game_id, "g")
        self.redis.publish(keys.hub_channel(), frames.analysis_done(game_id))

    def keep(
        self, queue: str, game_id: str, ruleset: str, nodes: int, analysis: dict[str, object]
    ) -> None:
        """Write the analysis to PostgreSQL, waiting out an outage of up to SAVE_TRIES
        pauses with the lease held (the work is not done again for a restart)."""
        for attempt in range(SAVE_TRIES):
            try:
                self.loop.run(
                    self.store.save_analysis(game_id, ANALYSIS_VERSION, ruleset, nodes, analysis)
                )
                return
            except StoreUnavailable as exc:
                if attempt == SAVE_TRIES - 1:
                    raise
                log.warning("analysis of %s not kept yet: %s; trying again", game_id, exc)
                time.sleep(PAUSE_S)
                of = len(cast(list[object], analysis["plies"]))
                self.renew(queue, game_id, of, of)

    def renew(self, queue: str, game_id: str, ply: int, of: int) -> None:
        """Hold the job another lease, and say how far it is; LeaseLost if it went."""
        if not self._call("renew", queue, game_id, "g", self.name, self.lease_ms, ply, of):
            raise LeaseLost(game_id)
        self.redis.publish(keys.hub_channel(), frames.analysis_progress(game_id, ply, of))

    def evaluate(self, queue: str, digest: str, job: dict[str, str]) -> None:
        found = evaluate_position(job["ruleset"], job["position"], nodes=int(job["nodes"]))
        value = json.dumps(found.to_dict(), separators=(",", ":"))
        self.analysis(
            keys=[queue, keys.analysis_job("p", digest), keys.evaluation(digest)],
            args=["finish", digest, value, keys.POSITION_CACHE_S * 1000],
        )
        self.redis.publish(keys.hub_channel(), frames.analysis_evaluated(digest))

    def try_move(self, queue: str, digest: str, job: dict[str, str]) -> None:
        """Search a move tried in an exercise; its verdict cached for the hubs to read."""
        exercise = Exercise.from_dict(json.loads(job["exercise"]))
        found = try_move(
            exercise,
            job["ruleset"],
            job["moves"].split(),
            job["tried"],
            position=job.get("position") or None,
            nodes=int(job["nodes"]),
        )
        value = json.dumps(found.to_dict(), separators=(",", ":"))
        self.analysis(
            keys=[queue, keys.analysis_job("x", digest), keys.tried(digest)],
            args=["finish", digest, value, keys.TRIED_CACHE_S * 1000],
        )
        # The board evaluations' notice: a hub waits on either by its digest.
        self.redis.publish(keys.hub_channel(), frames.analysis_evaluated(digest))
        log.info(
            "tried move %s at ply %d: %s (%d nodes)",
            found.move,
            found.ply,
            "good" if found.good else "not good",
            found.nodes,
        )
