"""Alembic's environment: migrations run on a connection that upgrade() hands in, or on
an async engine of their own when the ``alembic`` command runs them."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

from brandubh.store.db import create_engine
from brandubh.store.tables import metadata


def run_on(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=metadata)
    with context.begin_transaction():
        context.run_migrations()


async def run_async(url: str) -> None:
    engine = create_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(run_on)
    finally:
        await engine.dispose()


given = context.config.attributes.get("connection")
if given is not None:
    run_on(given)
else:
    asyncio.run(run_async(context.config.get_main_option("sqlalchemy.url") or ""))
