"""A tournament's follower as a client is (docs/protocol.md, ``tournament_delta``): the
snapshot a ``tournament`` frame gives, each ``tournament_delta`` whose ``base`` is the
version held applied to it, and on a gap ``follow_tournament`` sent again for a snapshot."""

from __future__ import annotations

import asyncio
from typing import Any

from brandubh.hub.tournaments.delta import apply
from wsclient import Msg, Socket

WIRE = ("t", "tournament", "version", "base")


class Follower:
    """One socket following one tournament, its frames folded into the view they give."""

    def __init__(self, sock: Socket, tid: str, drop: bool = False) -> None:
        self.sock = sock
        self.tid = tid
        # Leave a delta out, to make a gap: again after a snapshot that came first (another
        # hub's whole frame) until one is found.
        self.drop = drop
        self.missing = False
        self.view: dict[str, Any] | None = None
        self.version: int | None = None
        self.awaiting = False  # a snapshot asked for after a gap
        self.snapshots = 0
        self.deltas = 0
        self.dropped = 0
        self.gaps = 0
        self.views: list[dict[str, Any]] = []  # each view held in turn

    async def follow(self) -> None:
        self.awaiting = True
        await self.sock.send({"t": "follow_tournament", "tournament": self.tid, "on": True})

    async def take(self, m: Msg) -> None:
        if m.get("tournament") != self.tid:
            return
        if m["t"] == "tournament":
            if self.awaiting or self.version is None or m["version"] >= self.version:
                self.view = {k: v for k, v in m.items() if k not in WIRE}
                self.version, self.awaiting, self.missing = m["version"], False, False
                self.snapshots += 1
                self.views.append(self.view)
        elif m["t"] == "tournament_delta":
            if self.view is None or self.awaiting or self.version is None:
                return  # the snapshot asked for comes (every delta until it is left out)
            if m["version"] <= self.version:
                return  # held already
            if self.drop and not self.gaps and not self.missing:
                self.missing = True
                self.dropped += 1
                return
            if m["base"] != self.version:
                self.gaps += 1
                await self.follow()
                return
            self.view = apply(self.view, {k: v for k, v in m.items() if k not in WIRE})
            self.version = m["version"]
            self.deltas += 1
            self.views.append(self.view)

    async def run(self, stop: asyncio.Event) -> None:
        """Read and fold the socket's frames until ``stop``."""
        while not stop.is_set():
            try:
                m = await self.sock.recv(timeout=0.5)
            except TimeoutError:
                continue
            await self.take(m)
