"""The queue and the event that uvicorn's websocket protocol keeps for each socket, lean.

uvicorn gives every socket an ``asyncio.Queue`` for what arrives and an ``asyncio.Event``
for whether it may write. Both allocate their deques at once (the queue three and an event
of its own with one more, the event one): about 3.8 KiB a socket, idle or not, where a
whole idle socket costs the hub about 12 KiB (bench/sockets.py). ``Inbox`` and ``Gate``
do what uvicorn uses of them, on a list and a future made only while someone waits.
"""

from __future__ import annotations

import asyncio
from typing import Generic, TypeVar

T = TypeVar("T")


class Inbox(Generic[T]):
    """``put_nowait``, ``get`` and ``empty`` of an unbounded queue that one task reads."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: list[T] = []
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: T) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def empty(self) -> bool:
        return not self._items

    async def get(self) -> T:
        if self._waiter is not None:
            raise RuntimeError("an Inbox has one reader; another is waiting on it")
        while not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.pop(0)


class Gate:
    """``set``, ``clear``, ``is_set`` and ``wait`` of an event; any number may wait."""

    __slots__ = ("_open", "_opened")

    def __init__(self) -> None:
        self._open = False
        self._opened: asyncio.Future[None] | None = None

    def is_set(self) -> bool:
        return self._open

    def set(self) -> None:
        self._open = True
        opened, self._opened = self._opened, None
        if opened is not None and not opened.done():
            opened.set_result(None)

    def clear(self) -> None:
        self._open = False

    async def wait(self) -> bool:
        if not self._open:
            if self._opened is None:
                self._opened = asyncio.get_running_loop().create_future()
            # Shielded: one waiter cancelled must not cancel the future the others await.
            await asyncio.shield(self._opened)
        return True
