"""The hub's background work: each a step run again and again, written once here.

Every loop (scheduler, archive sweep, bot worker, session re-check, lobby tick) is a
``Loop``: a step and a pause, optionally cut short by a wake-up event. A step that fails
is tried again at the next turn; it never ends the loop. The first failure is logged with
its traceback, the rest of a run of failures (Redis down, say) not again until it ends.
The lifespan runs them all in one task group (app.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from brandubh.hub.redis import outage

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Loop:
    name: str
    step: Callable[[], Awaitable[object]]
    every_s: float  # the pause after each step
    wake: asyncio.Event | None = None  # set it to run the next step at once
    reads_redis: bool = True  # a step that went through says Redis is reachable again
    # The pause counts from the step's start, not its end: a slow step (the scheduler in
    # a wave of deadlines) does not also push the next one later.
    cadence: bool = False


async def run(loop: Loop) -> None:
    """Run a loop's step for ever, pausing ``every_s`` (or until woken) between steps."""
    failures = 0
    me = asyncio.current_task()
    took = 0.0  # the last step's duration, taken off the pause of a cadenced loop
    while True:
        # A cancellation can be swallowed on its way (by a timeout meeting it, or a client
        # library): a loop that was told to stop stops, or the hub never exits.
        if me is not None and me.cancelling():
            raise asyncio.CancelledError
        pause = max(0.0, loop.every_s - took) if loop.cadence else loop.every_s
        if loop.wake is None:
            await asyncio.sleep(pause)
        else:
            # asyncio.timeout, not wait_for: Python 3.11's wait_for can swallow a
            # cancellation that meets the timeout, and the hub would never stop.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(pause):
                    await loop.wake.wait()
            loop.wake.clear()
            if me is not None and me.cancelling():
                raise asyncio.CancelledError
        started = time.monotonic()
        try:
            await loop.step()
        except asyncio.CancelledError:
            raise
        except outage.UNREACHABLE as exc:
            outage.report(loop.name, exc)  # one line per outage for the whole hub
            failures += 1
            continue
        except Exception:
            if not failures:
                log.exception("%s failed; trying again", loop.name)
            failures += 1
            continue
        took = time.monotonic() - started
        if loop.reads_redis:
            outage.recovered()
        if failures:
            if not outage.OUTAGE.active:
                log.info("%s works again after %d failed turns", loop.name, failures)
            failures = 0
