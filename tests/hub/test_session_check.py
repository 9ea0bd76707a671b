"""An acting socket's session check (wire/connection.py): read again along with the
socket's actions once half a second old, waited for only once a second old."""

from __future__ import annotations

import asyncio
import dataclasses
from types import SimpleNamespace
from typing import Any

import pytest

from brandubh.hub.config import Settings
from brandubh.hub.errors import Refusal
from brandubh.hub.messages import CLOSE_SESSION_ENDED
from brandubh.hub.wire.connection import Connection, Services


class FakeSessions:
    """Sessions on a lane: each probe a future the test answers."""

    def __init__(self) -> None:
        self.probes: list[asyncio.Future[Any]] = []
        self.reads = 0
        self.exists = True

    def probe(self, sid: str) -> asyncio.Future[Any]:
        self.probes.append(asyncio.get_running_loop().create_future())
        return self.probes[-1]

    async def alive(self, sids: list[str]) -> set[str]:
        self.reads += 1
        return set(sids) if self.exists else set()


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [100.0]
    # The module's clock only (asyncio's own must keep running).
    monkeypatch.setattr(
        "brandubh.hub.wire.connection.time", SimpleNamespace(monotonic=lambda: now[0])
    )
    return now


def socket_of(sessions: FakeSessions) -> Connection:
    given: dict[str, Any] = dict.fromkeys(f.name for f in dataclasses.fields(Services))
    given |= {"settings": Settings(), "sessions": sessions}
    return Connection(Services(**given), SimpleNamespace(scope={}), None, True, "sid")  # type: ignore[arg-type]


async def settle() -> None:
    await asyncio.sleep(0)  # (a future's callbacks run on the next turn of the loop)


async def test_a_socket_acting_often_renews_its_session_without_waiting(
    clock: list[float],
) -> None:
    sessions = FakeSessions()
    conn = socket_of(sessions)
    clock[0] += 0.3
    assert conn.session_fresh() and not sessions.probes  # read just now
    clock[0] += 0.3
    assert conn.session_fresh() and len(sessions.probes) == 1  # half stale: asked, not awaited
    clock[0] += 0.2
    assert conn.session_fresh() and len(sessions.probes) == 1  # (one on its way at a time)
    sessions.probes[0].set_result(1)
    await settle()
    clock[0] += 0.2  # a second after the first reading, 0.4 s after the probe was sent
    assert conn.session_fresh() and len(sessions.probes) == 1
    clock[0] += 0.2
    assert conn.session_fresh() and len(sessions.probes) == 2  # half stale again
    assert sessions.reads == 0  # never waited for


async def test_a_probe_that_finds_the_session_gone_closes_the_socket(clock: list[float]) -> None:
    sessions = FakeSessions()
    conn = socket_of(sessions)
    clock[0] += 0.6
    assert conn.session_fresh()
    sessions.probes[0].set_result(0)
    await settle()
    assert conn.closing == (CLOSE_SESSION_ENDED, "session ended")


async def test_a_session_unread_for_a_second_is_read_before_acting(clock: list[float]) -> None:
    sessions = FakeSessions()
    conn = socket_of(sessions)
    clock[0] += 0.6
    assert conn.session_fresh()
    sessions.probes[0].set_exception(ConnectionError("lane lost"))  # unknown: not renewed
    await settle()
    clock[0] += 0.5
    assert not conn.session_fresh()
    await conn.check_session()
    assert sessions.reads == 1 and conn.session_fresh()
    sessions.exists = False
    clock[0] += 1.0
    assert not conn.session_fresh()
    with pytest.raises(Refusal) as refused:
        await conn.check_session()
    assert refused.value.code == "session_ended"
    assert conn.closing == (CLOSE_SESSION_ENDED, "session ended")
