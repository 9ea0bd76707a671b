"""Tournaments, the pure core: formats, pairings, points, standings, seeds, verification.

No I/O and no clock: the service (hub) calls these at the right moments and keeps what
they return; a verifier calls the same functions on a finished tournament's export
(``verify_tournament``). docs/tournaments.md states the rules these implement.
"""

from brandubh.tournaments.arena import (
    ArenaPlayer,
    ArenaScore,
    ArenaTally,
    Pairing,
    arena_points,
    pair_arena,
)
from brandubh.tournaments.errors import (
    InvalidExport,
    InvalidSeed,
    InvalidSettings,
    PairingImpossible,
    TournamentError,
)
from brandubh.tournaments.formats import FORMATS, Settings
from brandubh.tournaments.seed import commitment, new_seed, rng, seed_from_hex

__all__ = [
    "FORMATS",
    "ArenaPlayer",
    "ArenaScore",
    "ArenaTally",
    "InvalidExport",
    "InvalidSeed",
    "InvalidSettings",
    "Pairing",
    "PairingImpossible",
    "Settings",
    "TournamentError",
    "arena_points",
    "commitment",
    "new_seed",
    "pair_arena",
    "rng",
    "seed_from_hex",
]
