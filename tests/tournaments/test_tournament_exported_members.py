"""The tournament core's public API, pinned: a name added to or dropped from ``__all__``
shows here (the service and the verify route use these, and only these)."""

from __future__ import annotations

import brandubh.tournaments

EXPORTED = [
    "ARENA_PAIRING",
    "EXPORT_VERSION",
    "FORMATS",
    "PLAYERS",
    "ROUND_ROBIN_ORDER",
    "SWISS_ORDER",
    "TIEBREAKS",
    "ArenaPlayer",
    "ArenaScore",
    "ArenaTally",
    "Format",
    "InvalidExport",
    "InvalidSeed",
    "InvalidSettings",
    "Match",
    "MatchGame",
    "MatchScore",
    "Pairing",
    "PairingImpossible",
    "Settings",
    "Standing",
    "SwissPlayer",
    "SwissRound",
    "TallyError",
    "TournamentError",
    "arena_points",
    "arena_standings",
    "commitment",
    "export",
    "is_tournament_export",
    "match_score",
    "match_standings",
    "new_seed",
    "next_round",
    "pair_arena",
    "pair_swiss",
    "pairing_numbers",
    "rng",
    "round_robin",
    "seed_from_hex",
    "verify_tournament",
]


def test_all_is_exactly_the_pinned_list() -> None:
    assert brandubh.tournaments.__all__ == EXPORTED


def test_every_exported_name_exists() -> None:
    missing = [n for n in brandubh.tournaments.__all__ if not hasattr(brandubh.tournaments, n)]
    assert missing == []


def test_nothing_public_is_left_out_of_all() -> None:
    """Every public name the package defines or imports is in ``__all__`` (submodules
    aside, but ``export``, whose functions build the events, is named)."""
    public = {
        name
        for name, value in vars(brandubh.tournaments).items()
        if not name.startswith("_") and type(value).__name__ != "module"
    }
    assert public - {"annotations"} == set(EXPORTED) - {"export"}
