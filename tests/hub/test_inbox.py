"""The lean queue and event of each socket's protocol (hub/wire/inbox.py): pure asyncio."""

from __future__ import annotations

import asyncio

import pytest

from brandubh.hub.wire.inbox import Gate, Inbox


async def test_the_inbox_gives_what_was_put_in_order_and_waits_when_empty() -> None:
    inbox: Inbox[int] = Inbox()
    inbox.put_nowait(1)
    inbox.put_nowait(2)
    assert not inbox.empty()
    assert [await inbox.get(), await inbox.get()] == [1, 2]
    assert inbox.empty()
    waiting = asyncio.create_task(inbox.get())
    await asyncio.sleep(0)
    assert not waiting.done()
    inbox.put_nowait(3)
    assert await asyncio.wait_for(waiting, 1) == 3


async def test_a_cancelled_get_leaves_the_inbox_usable() -> None:
    inbox: Inbox[str] = Inbox()
    waiting = asyncio.create_task(inbox.get())
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    inbox.put_nowait("after")
    assert await asyncio.wait_for(inbox.get(), 1) == "after"


async def test_an_inbox_has_one_reader() -> None:
    inbox: Inbox[int] = Inbox()
    first = asyncio.create_task(inbox.get())
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError, match="one reader"):
        await inbox.get()
    inbox.put_nowait(7)
    assert await asyncio.wait_for(first, 1) == 7


async def test_the_gate_lets_all_waiters_through_when_set_and_holds_them_when_cleared() -> None:
    gate = Gate()
    assert not gate.is_set()
    waiters = [asyncio.create_task(gate.wait()) for _ in range(3)]
    await asyncio.sleep(0)
    assert not any(w.done() for w in waiters)
    waiters[0].cancel()  # one waiter giving up must not take the others with it
    await asyncio.sleep(0)
    gate.set()
    assert await asyncio.wait_for(asyncio.gather(*waiters[1:]), 1) == [True, True]
    assert gate.is_set() and await gate.wait()
    gate.clear()
    held = asyncio.create_task(gate.wait())
    await asyncio.sleep(0)
    assert not held.done()
    gate.set()
    assert await asyncio.wait_for(held, 1)
