"""The permanent record in PostgreSQL: accounts, ratings, the archive, game chat, personal
API tokens, follows and blocks, the lessons' stars, puzzles (docs/storage.md)."""

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
from brandubh.store.puzzles import AttemptOutcome, PuzzleFields, PuzzleStanding, StoredPuzzle
from brandubh.store.repository import Store
from brandubh.store.social import Made, Related
from brandubh.store.tokens import ApiToken

__all__ = [
    "Account",
    "ApiToken",
    "Archived",
    "AttemptOutcome",
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
    "PuzzleFields",
    "PuzzleStanding",
    "Related",
    "Seat",
    "Standing",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "StoredPuzzle",
    "UpgradeRefused",
    "create_engine",
    "sqlstate",
    "tables",
    "unreachable",
    "upgrade",
    "upgrade_url",
]
