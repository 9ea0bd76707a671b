"""Tournaments, the pure core: formats, pairings, points, standings, seeds, verification.

No I/O and no clock: the service (hub) calls these at the right moments and keeps what
they return; a verifier calls the same functions on a finished tournament's export.

- ``Settings.parse`` validates a new tournament (``InvalidSettings`` names the field).
- Seeds: ``new_seed``, ``commitment``; every choice is ``rng(seed, context)`` with the
  contexts ``ARENA_PAIRING.format(n=...)``, ``ROUND_ROBIN_ORDER``, ``SWISS_ORDER``.
- Arena: keep an ``ArenaTally`` (``paired``, ``finished``); to pair, take every free
  player as ``tally.player(id, rating)`` and call ``pair_arena(players,
  rng(seed, ARENA_PAIRING.format(n=n)), others_playing=tally.anyone_playing())``;
  ``arena_standings`` ranks.
- Round robin: ``round_robin(players, rng(seed, ROUND_ROBIN_ORDER))`` at the start, the
  whole schedule. Swiss: ``pairing_numbers(ratings, rng(seed, SWISS_ORDER))`` at the
  start, then ``next_round(numbers, matches, byes, withdrawn)`` after each round.
  ``match_standings`` ranks both (``Match`` / ``MatchGame`` hold the games).
- ``export`` builds the events and the export; ``verify_tournament`` checks one.

docs/tournaments.md states the rules.
"""

from brandubh.tournaments import export
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
    TallyError,
    TournamentError,
)
from brandubh.tournaments.export import EXPORT_VERSION, is_tournament_export
from brandubh.tournaments.formats import FORMATS, PLAYERS, Format, Settings
from brandubh.tournaments.roundrobin import round_robin
from brandubh.tournaments.seed import (
    ARENA_PAIRING,
    ROUND_ROBIN_ORDER,
    SWISS_ORDER,
    commitment,
    new_seed,
    rng,
    seed_from_hex,
)
from brandubh.tournaments.standings import (
    TIEBREAKS,
    Match,
    MatchGame,
    MatchScore,
    Standing,
    arena_standings,
    match_score,
    match_standings,
)
from brandubh.tournaments.swiss import (
    SwissPlayer,
    SwissRound,
    next_round,
    pair_swiss,
    pairing_numbers,
)
from brandubh.tournaments.verify import verify_tournament

__all__ = [
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
