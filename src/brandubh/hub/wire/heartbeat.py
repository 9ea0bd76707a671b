"""The heartbeat of this process's sockets: one loop pings them all and closes the silent."""

from __future__ import annotations

import asyncio
from typing import Final, Protocol


class Beating(Protocol):
    """What the heartbeat needs of a socket (connection.Connection is one)."""

    def beat(self, refresh_every: int) -> bool: ...
    async def refresh(self) -> None: ...


class Heartbeat:
    """Pings every socket of this process from one loop, not a task per socket (a task
    waiting in a sleep costs about 2 KiB a socket): the sockets are spread over
    ``SLOTS`` turns of the interval, so the pings go out evenly, not in one burst."""

    SLOTS: Final = 10
    REFRESH_EVERY: Final = 8  # pings between refreshes of watcher and presence entries

    def __init__(self, interval_s: float) -> None:
        self.every_s = interval_s / self.SLOTS  # the pause between turns (app.loops)
        self._slots: list[set[Beating]] = [set() for _ in range(self.SLOTS)]
        self._added = 0
        self._turn = 0
        self._refreshing: asyncio.Task[None] | None = None

    def add(self, conn: Beating) -> None:
        self._slots[self._added % self.SLOTS].add(conn)
        self._added += 1

    def discard(self, conn: Beating) -> None:
        for slot in self._slots:
            slot.discard(conn)

    async def turn(self) -> None:
        """Ping one slot's sockets; refresh the entries of those due, off this loop."""
        slot = self._slots[self._turn % self.SLOTS]
        self._turn += 1
        due = [conn for conn in list(slot) if conn.beat(self.REFRESH_EVERY)]
        if due and (self._refreshing is None or self._refreshing.done()):
            # In the background: a slow Redis must not hold up anyone's ping.
            self._refreshing = asyncio.create_task(self._refresh(due))

    @staticmethod
    async def _refresh(conns: list[Beating]) -> None:
        for conn in conns:
            await conn.refresh()
