"""Tasks a service starts and does not await itself: kept referenced until they end (the
event loop holds only a weak reference to a task), and cancelled together on stop."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterator
from typing import TypeVar

T = TypeVar("T")


class Tasks:
    """A service's background tasks."""

    def __init__(self) -> None:
        self._running: set[asyncio.Task[object]] = set()

    def start(self, coro: Coroutine[object, None, T], name: str | None = None) -> asyncio.Task[T]:
        task = asyncio.create_task(coro, name=name)
        self._running.add(task)
        task.add_done_callback(self._running.discard)
        return task

    def __len__(self) -> int:
        return len(self._running)

    def __iter__(self) -> Iterator[asyncio.Task[object]]:
        """The tasks running now (a copy: they end while it is read)."""
        return iter(list(self._running))

    async def cancel(self) -> None:
        """Cancel the tasks still running and wait until each has ended."""
        tasks = list(self._running)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
