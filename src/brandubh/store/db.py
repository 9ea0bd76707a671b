"""Connecting to PostgreSQL and bringing its schema up to date (Alembic, migrations/).

``DATABASE_URL`` is a plain ``postgresql://`` URL (what pg_dump and psql take); the
SQLAlchemy engine reaches it through asyncpg. A Unix socket folder is given as
``?host=/path``, as libpq has it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Final

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

MIGRATIONS: Final = Path(__file__).parent / "migrations"
# Held while migrating, so that hubs starting together never migrate at once.
_MIGRATION_LOCK: Final = 0x6272_616E_6475_6268  # "brandubh"


class BadDatabaseURL(ValueError):
    """DATABASE_URL is not a PostgreSQL URL."""


def engine_url(url: str) -> str:
    """The SQLAlchemy URL (asyncpg driver) of a ``postgresql://`` URL."""
    try:
        parsed = make_url(url)
    except Exception:
        raise BadDatabaseURL(f"DATABASE_URL {url!r} is not a URL") from None
    if parsed.get_backend_name() not in ("postgresql", "postgres"):
        raise BadDatabaseURL(
            f"DATABASE_URL must name a PostgreSQL (postgresql://user:password@host/db), "
            f"not {parsed.drivername}"
        )
    return parsed.set(drivername="postgresql+asyncpg").render_as_string(hide_password=False)


def create_engine(url: str, *, pool_size: int = 10, timeout_s: float = 5.0) -> AsyncEngine:
    """An async engine whose connections fail fast (``timeout_s``) when the server is down,
    and are checked before use, so a restarted server costs no failed query."""
    return create_async_engine(
        engine_url(url),
        pool_size=pool_size,
        max_overflow=pool_size,
        pool_timeout=timeout_s,
        pool_pre_ping=True,
        connect_args={"timeout": timeout_s, "command_timeout": 30},
    )


def _config(url: str = "") -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    if url:
        cfg.set_main_option("sqlalchemy.url", url)
    return cfg


def head() -> str:
    """The newest revision the migrations know."""
    found = ScriptDirectory.from_config(_config()).get_current_head()
    assert found is not None
    return found


def _upgrade_on(connection: Connection) -> str:
    connection.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _MIGRATION_LOCK})
    cfg = _config()
    cfg.attributes["connection"] = connection
    command.upgrade(cfg, "head")
    return current_on(connection) or ""


def current_on(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


async def upgrade(engine: AsyncEngine) -> str:
    """Apply every migration not yet applied, in one transaction; the revision now."""
    async with engine.begin() as conn:
        return await conn.run_sync(_upgrade_on)


async def current(engine: AsyncEngine) -> str | None:
    async with engine.connect() as conn:
        return await conn.run_sync(current_on)


def upgrade_url(url: str) -> str:
    """``upgrade`` for callers without an event loop (the command line, ``serve``)."""

    async def go() -> str:
        engine = create_engine(url, pool_size=1)
        try:
            return await upgrade(engine)
        finally:
            await engine.dispose()

    return asyncio.run(go())
