"""What every part of ``Store`` stands on: the engine and one short transaction."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from brandubh.store.errors import StoreError, StoreUnavailable, unreachable


class Base:
    """An async engine (a pool of asyncpg connections) and its transactions."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    @contextlib.asynccontextmanager
    async def _begin(self) -> AsyncIterator[AsyncConnection]:
        """A transaction; StoreUnavailable when the server cannot be reached."""
        try:
            async with self.engine.begin() as conn:
                yield conn
        except StoreError:
            raise
        except Exception as exc:
            if unreachable(exc):
                raise StoreUnavailable(str(exc)) from exc
            raise
