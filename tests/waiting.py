"""The one way a test waits for something: poll a condition until it holds, else fail
naming what was awaited (tests/test_test_layout.py keeps polling loops here)."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


async def wait_for(
    check: Callable[[], T | Awaitable[T]],
    what: str,
    timeout: float = 30.0,
    every: float = 0.05,
    ignore: tuple[type[BaseException], ...] = (),
) -> T:
    """Call ``check`` (plain or async) until it gives a true value, and return that value;
    an exception of a type in ``ignore`` counts as "not yet"."""
    deadline = time.monotonic() + timeout
    while True:
        value = await _value_of(check, ignore)
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"waited {timeout:g} s in vain for {what} (last: {value!r})")
        await asyncio.sleep(every)


def wait_for_sync(
    check: Callable[[], T],
    what: str,
    timeout: float = 30.0,
    every: float = 0.05,
    ignore: tuple[type[BaseException], ...] = (),
) -> T:
    """The same, blocking, for tests with no event loop (browser pages, processes)."""
    deadline = time.monotonic() + timeout
    while True:
        value: T | None
        try:
            value = check()
        except ignore:
            value = None
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"waited {timeout:g} s in vain for {what} (last: {value!r})")
        time.sleep(every)


async def _value_of(
    check: Callable[[], T | Awaitable[T]], ignore: tuple[type[BaseException], ...]
) -> T | None:
    try:
        value = check()
        if inspect.isawaitable(value):
            return await value
        return value
    except ignore:
        return None
