"""The store's public API, pinned: a name added to or dropped from ``__all__`` shows here
(the hub and the operations in brandubh.run use these, and only these)."""

from __future__ import annotations

import brandubh.store

EXPORTED = [
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


def test_all_is_exactly_the_pinned_list() -> None:
    assert brandubh.store.__all__ == EXPORTED


def test_every_exported_name_exists() -> None:
    missing = [n for n in brandubh.store.__all__ if not hasattr(brandubh.store, n)]
    assert missing == []


def test_nothing_public_is_left_out_of_all() -> None:
    """Every public name the package defines or imports is in ``__all__`` (submodules
    aside, but ``tables``, the tables' definitions for the migration out of Redis, is
    named)."""
    public = {
        name
        for name, value in vars(brandubh.store).items()
        if not name.startswith("_") and type(value).__name__ != "module"
    }
    assert public - {"annotations"} == set(EXPORTED) - {"tables"}
