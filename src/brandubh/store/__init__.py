"""The permanent record in PostgreSQL: accounts, ratings, the archive, game chat, personal
API tokens, follows and blocks, the lessons' stars (docs/storage.md)."""

from brandubh.store import tables
from brandubh.store.accounts import Account, Standing, UpgradeRefused
from brandubh.store.archive import (
    Archived,
    ExportedGame,
    FinalGame,
    FinishedGame,
    GamesQuery,
    Seat,
)
from brandubh.store.chat import Author, ChatLine, ChatReport
from brandubh.store.db import BadDatabaseURL, create_engine, upgrade, upgrade_url
from brandubh.store.errors import (
    EmailTaken,
    IdTaken,
    StoreError,
    StoreUnavailable,
    sqlstate,
    unreachable,
)
from brandubh.store.repository import Store
from brandubh.store.social import Made, Related
from brandubh.store.tokens import ApiToken

__all__ = [
    "Account",
    "ApiToken",
    "Archived",
    "Author",
    "BadDatabaseURL",
    "ChatLine",
    "ChatReport",
    "EmailTaken",
    "ExportedGame",
    "FinalGame",
    "FinishedGame",
    "GamesQuery",
    "IdTaken",
    "Made",
    "Related",
    "Seat",
    "Standing",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "UpgradeRefused",
    "create_engine",
    "sqlstate",
    "tables",
    "unreachable",
    "upgrade",
    "upgrade_url",
]
