"""The permanent record in PostgreSQL: accounts, ratings, the archive (docs/storage.md)."""

from brandubh.store.db import BadDatabaseURL, create_engine, upgrade, upgrade_url
from brandubh.store.repository import (
    Account,
    Archived,
    EmailTaken,
    FinalGame,
    FinishedGame,
    IdTaken,
    Seat,
    Store,
    StoreError,
    StoreUnavailable,
)

__all__ = [
    "Account",
    "Archived",
    "BadDatabaseURL",
    "EmailTaken",
    "FinalGame",
    "FinishedGame",
    "IdTaken",
    "Seat",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "create_engine",
    "upgrade",
    "upgrade_url",
]
