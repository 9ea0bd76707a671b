"""Background tasks: kept while they run, forgotten once done, cancelled together."""

from __future__ import annotations

import asyncio

from brandubh.hub.background import Tasks


async def test_tasks_are_kept_until_they_end_and_cancelled_together() -> None:
    tasks = Tasks()
    done = tasks.start(asyncio.sleep(0, result="ok"))
    stuck = tasks.start(asyncio.sleep(60))
    assert len(tasks) == 2 and set(tasks) == {done, stuck}
    assert await done == "ok"
    await asyncio.sleep(0)  # (its done callback runs on the next turn)
    assert len(tasks) == 1
    await tasks.cancel()
    assert stuck.cancelled() and len(tasks) == 0


async def test_cancelling_waits_for_a_task_that_cleans_up() -> None:
    tasks = Tasks()
    cleaned: list[str] = []

    async def careful() -> None:
        try:
            await asyncio.sleep(60)
        finally:
            await asyncio.sleep(0.05)
            cleaned.append("done")

    tasks.start(careful())
    await asyncio.sleep(0)
    await tasks.cancel()
    assert cleaned == ["done"]
