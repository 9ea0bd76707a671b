"""The account event streams of this hub (GET /api/stream/event): each a bounded queue of
NDJSON lines that the notices of its account fill and its HTTP answer empties, with an
empty line every KEEPALIVE_S when quiet. A reader that falls MAX_QUEUED live lines behind
(beyond its opening's) is not buffered for ever: its stream ends with an error line
(``too_slow``)."""

from __future__ import annotations

import asyncio
import collections
import json
from collections.abc import AsyncIterator, Iterable
from typing import Final

from brandubh.hub.errors import Refusal

KEEPALIVE_S: Final = 7.0  # as the Bot API's game stream: proxies keep a quiet connection
MAX_STREAMS: Final = 4  # event streams one account may hold open on one hub
MAX_QUEUED: Final = 256  # lines a stream may hold for a slow reader before it is ended
_END: Final = b""  # in the queue: the stream ends after what came before


def _error_line(refusal: Refusal) -> bytes:
    """The line that ends a stream for a reason: the refusal's code and message."""
    item = {"type": "error", "code": refusal.code, "message": refusal.message}
    return json.dumps(item, separators=(",", ":")).encode() + b"\n"


class EventStream:
    """One open event stream. Lines told before ``start`` wait behind its opening lines."""

    def __init__(self, account_id: str, max_queued: int = MAX_QUEUED) -> None:
        self.account_id = account_id
        self.max_queued = max_queued
        self._limit = max_queued  # and the opening's lines, once given: they are no backlog
        self._queue: collections.deque[bytes] = collections.deque()
        self._ready = asyncio.Event()
        self.ended = False  # no more lines will be queued

    def tell(self, text: bytes) -> None:
        """Queue a live line; past ``max_queued`` unread lines, end the stream instead."""
        if self.ended:
            return
        if len(self._queue) >= self._limit:
            self._queue.append(_error_line(Refusal("too_slow")))
            self.end()
            return
        self._queue.append(text)
        self._ready.set()

    def start(self, opening: Iterable[bytes]) -> None:
        """The opening lines (open challenges, games in progress), before any live one."""
        lines = list(opening)
        self._limit = self.max_queued + len(lines)
        self._queue.extendleft(reversed(lines))
        self._ready.set()

    def end(self) -> None:
        """End the stream after what is queued (the server stops, or it fell behind)."""
        if not self.ended:
            self.ended = True
            self._queue.append(_END)
            self._ready.set()

    async def lines(self) -> AsyncIterator[bytes]:
        """The stream's bytes until it ends; an empty line after KEEPALIVE_S of quiet."""
        while True:
            if not self._queue:
                self._ready.clear()
                try:
                    await asyncio.wait_for(self._ready.wait(), KEEPALIVE_S)
                except TimeoutError:
                    yield b"\n"
                    continue
            if not self._queue:
                continue
            text = self._queue.popleft()
            if text == _END:
                return
            yield text


class EventStreams:
    """This hub's open event streams, by account."""

    def __init__(self, per_account: int = MAX_STREAMS) -> None:
        self.per_account = per_account
        self._by_account: dict[str, set[EventStream]] = {}

    def open(self, account_id: str) -> EventStream:
        """A new stream of the account's notices (``too_many_streams`` past the cap)."""
        mine = self._by_account.setdefault(account_id, set())
        if len(mine) >= self.per_account:
            if not mine:
                del self._by_account[account_id]
            raise Refusal(
                "too_many_streams",
                f"an account may have {self.per_account} event streams open at once on one "
                "server: close one first",
            )
        stream = EventStream(account_id)
        mine.add(stream)
        return stream

    def close(self, stream: EventStream) -> None:
        mine = self._by_account.get(stream.account_id)
        if mine is not None:
            mine.discard(stream)
            if not mine:
                del self._by_account[stream.account_id]

    def has(self, account_id: str) -> bool:
        return account_id in self._by_account

    def tell(self, account_id: str, text: bytes) -> None:
        for stream in list(self._by_account.get(account_id, ())):
            stream.tell(text)

    def end_all(self) -> None:
        """The server stops: every stream ends after what it has queued (its client opens
        it again, on another hub, and gets the open challenges and games again)."""
        for mine in self._by_account.values():
            for stream in mine:
                stream.end()
