"""The background loops' pacing (loops.py), with the clock and the pause observed: no
wall-clock time is asserted."""

from __future__ import annotations

import asyncio

import pytest

from brandubh.hub import loops


async def pauses(monkeypatch: pytest.MonkeyPatch, cadence: bool) -> list[float]:
    """The pauses a loop asks for when each step takes 0.06 s of a 0.1 s period."""
    now = [100.0]
    asked: list[float] = []
    real_sleep = asyncio.sleep

    async def sleep(seconds: float) -> None:
        asked.append(round(seconds, 6))
        now[0] += seconds
        await real_sleep(0)

    async def step() -> None:
        now[0] += 0.06
        if len(asked) >= 4:
            raise asyncio.CancelledError

    monkeypatch.setattr(loops.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(loops.asyncio, "sleep", sleep)
    with pytest.raises(asyncio.CancelledError):
        await loops.run(loops.Loop("test", step, 0.1, reads_redis=False, cadence=cadence))
    return asked


async def test_a_cadenced_loop_counts_its_pause_from_the_steps_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert await pauses(monkeypatch, cadence=True) == [0.1, 0.04, 0.04, 0.04]


async def test_an_ordinary_loop_pauses_its_whole_period_after_each_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert await pauses(monkeypatch, cadence=False) == [0.1, 0.1, 0.1, 0.1]


async def test_a_woken_loop_runs_its_step_at_once_however_long_its_pause() -> None:
    wake = asyncio.Event()
    ran: list[int] = []

    async def step() -> None:
        ran.append(len(ran))
        if len(ran) == 3:
            raise asyncio.CancelledError
        wake.set()  # as the scheduler's timer does for a deadline due before the poll

    loop = loops.Loop("test", step, 3600.0, wake=wake, reads_redis=False, cadence=True)
    wake.set()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(loops.run(loop), 30)  # an hour's pause would time out
    assert ran == [0, 1, 2]
