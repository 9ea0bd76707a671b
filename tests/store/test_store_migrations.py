"""The schema: Alembic's migrations, from an empty database, against a real PostgreSQL."""

from __future__ import annotations

import asyncio
import secrets

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from brandubh.run.postgres_server import EmbeddedPostgres
from brandubh.store import create_engine, upgrade
from brandubh.store.db import current, head
from brandubh.store.tables import metadata
from services import create_database


async def empty_database(server: EmbeddedPostgres) -> str:
    name = f"e_{secrets.token_hex(6)}"
    await create_database(server.url, name)
    return server.url_for(name)


async def test_migrations_build_every_table_from_empty(postgres_server: EmbeddedPostgres) -> None:
    engine = create_engine(await empty_database(postgres_server))
    try:
        assert await current(engine) is None
        assert await upgrade(engine) == head()

        def look(conn: Connection) -> tuple[set[str], list[object]]:
            names = set(inspect(conn).get_table_names())
            diff = compare_metadata(MigrationContext.configure(conn), metadata)
            return names, diff

        async with engine.connect() as conn:
            names, diff = await conn.run_sync(look)
        assert set(metadata.tables) <= names
        # The migrations make exactly what tables.py says: no column, index or key differs.
        assert diff == []
    finally:
        await engine.dispose()


async def test_upgrade_twice_changes_nothing(postgres_server: EmbeddedPostgres) -> None:
    engine = create_engine(await empty_database(postgres_server))
    try:
        await upgrade(engine)
        async with engine.begin() as conn:
            await conn.execute(
                text("INSERT INTO accounts VALUES ('u1', 'a@b.c', 'Ann', 'h', 1, false)")
            )
        assert await upgrade(engine) == head()
        async with engine.connect() as conn:
            assert await conn.scalar(text("SELECT count(*) FROM accounts")) == 1
    finally:
        await engine.dispose()


async def test_hubs_starting_together_migrate_once(postgres_server: EmbeddedPostgres) -> None:
    url = await empty_database(postgres_server)
    engines = [create_engine(url, pool_size=1) for _ in range(4)]
    try:
        revisions = await asyncio.gather(*(upgrade(e) for e in engines))
        assert revisions == [head()] * 4
    finally:
        for e in engines:
            await e.dispose()
