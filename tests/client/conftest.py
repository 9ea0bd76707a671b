"""The browser tests' fixtures beyond tests/conftest.py's."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pages import PHONE, Page


@pytest.fixture
def touch_page(browser: Any) -> Iterator[Callable[[dict[str, int]], Page]]:
    """Pages in fresh contexts; at the phone's size a touch screen (taps, not clicks).
    Each test fails if a page raised a JavaScript error."""
    contexts: list[Any] = []
    pages: list[Page] = []

    def make(size: dict[str, int]) -> Page:
        phone = size is PHONE
        ctx = browser.new_context(viewport=size, has_touch=phone, is_mobile=phone)
        ctx.set_default_timeout(30_000)
        contexts.append(ctx)
        page = ctx.new_page()
        page.errors = []
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        pages.append(page)
        return page

    yield make
    errors = [e for p in pages for e in p.errors]
    for ctx in contexts:
        ctx.close()
    assert errors == [], errors
