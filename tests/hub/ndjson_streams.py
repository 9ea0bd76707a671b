"""A streamed NDJSON answer (a Bot API game stream, the account event stream) read by a
task into a queue, for tests. Not a test module: tests import it."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import httpx

from wsclient import Msg


class NdjsonReader:
    """An open streamed GET: its lines read by a task into a queue (None: it ended);
    keep-alive (empty) lines counted; ``cut`` when it ended without its last chunk."""

    def __init__(
        self, client: httpx.AsyncClient, url: str, params: dict[str, Any] | None = None
    ) -> None:
        self.client, self.url, self.params = client, url, params or {}
        self.lines: asyncio.Queue[Msg | None] = asyncio.Queue()
        self.keepalives = 0
        self.cut = False
        self.status = 0
        self.body = b""
        self.headers: httpx.Headers | None = None
        self._opened = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def _read(self) -> None:
        try:
            async with self.client.stream("GET", self.url, params=self.params, timeout=30) as r:
                self.status, self.headers = r.status_code, r.headers
                if r.status_code != 200:
                    self.body = await r.aread()
                self._opened.set()
                async for raw in r.aiter_lines():
                    if raw == "":
                        self.keepalives += 1
                    else:
                        await self.lines.put(json.loads(raw))
        except httpx.RemoteProtocolError:
            self.cut = True  # ended without its last chunk: the hub went away
        finally:
            self._opened.set()
            await self.lines.put(None)

    async def start(self, timeout: float) -> None:
        """Start reading; return once the answer's status is known."""
        self._task = asyncio.create_task(self._read())
        await asyncio.wait_for(self._opened.wait(), timeout)

    async def next(self, timeout: float = 10.0) -> Msg | None:
        return await asyncio.wait_for(self.lines.get(), timeout)

    async def until(self, kind: str, timeout: float = 10.0) -> Msg:
        while True:
            line = await self.next(timeout)
            assert line is not None, f"the stream ended before a {kind} line"
            if line["type"] == kind:
                return line

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
