"""The service's one door to the pure core (brandubh.tournaments): a tournament read from
Redis turned into the core's inputs, and its answers turned back. Every pairing and
standing the service shows comes from the core, fed with the tournament's seed and its
log, so that ``verify_tournament`` recomputes the same from the export."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Literal, cast

from brandubh.hub.tournaments.records import EntrantState, RoundMatch
from brandubh.tournaments import (
    ARENA_PAIRING,
    ROUND_ROBIN_ORDER,
    SWISS_ORDER,
    ArenaTally,
    Match,
    MatchGame,
    Pairing,
    PairingImpossible,
    Result,
    Standing,
    arena_standings,
    match_score,
    match_standings,
    next_round,
    pair_arena,
    pairing_numbers,
    round_robin,
    seed_from_hex,
)
from brandubh.tournaments import rng as core_rng

if TYPE_CHECKING:
    from brandubh.hub.tournaments.records import Entrant
    from brandubh.hub.tournaments.state import Tournament


def rng(t: Tournament, context: str) -> random.Random:
    return core_rng(seed_from_hex(t.seed), context)


def tally(t: Tournament) -> ArenaTally:
    """An arena's games and results folded in order: the pairer's view of each player."""
    folded = ArenaTally()
    for g in t.ordered_games():
        folded.paired(g.id, Pairing(g.attackers, g.defenders))
        if g.result:
            folded.finished(g.id, cast(Result, g.result))
    return folded


def arena_wave(t: Tournament, free: list[Entrant]) -> list[tuple[str, str]]:
    """The next wave's pairings (attacker, defender) among the free players."""
    folded = tally(t)
    n = t.number("waves") or 0  # the log counts pairings from 0
    pairs = pair_arena(
        [folded.player(p.id, p.rating) for p in free],
        rng(t, ARENA_PAIRING.format(n=n)),
        others_playing=folded.anyone_playing(),
    )
    return [(p.attackers, p.defenders) for p in pairs]


def withdrawn(t: Tournament) -> set[str]:
    return {p.id for p in t.players.values() if p.state == EntrantState.WITHDRAWN}


def _match(m: RoundMatch, results: dict[str, str]) -> Match:
    games = tuple(
        MatchGame(m.sides[gid][0], m.sides[gid][1], cast(Result | None, results.get(gid)))
        for gid in m.games
    )
    return Match(m.round, m.a, m.b, games)


def matches(t: Tournament) -> list[Match]:
    """Every match so far (byes aside) with its games and their results."""
    return [_match(m, m.results) for m in t.ordered_matches() if m.b]


def byes(t: Tournament) -> list[str]:
    return [m.a for m in t.ordered_matches() if not m.b]


def decided(t: Tournament, m: RoundMatch, results: dict[str, str]) -> bool:
    """Whether a match is decided with these results of its games."""
    return match_score(_match(m, results), withdrawn(t)) is not None


def next_pairings(t: Tournament) -> tuple[list[tuple[str, str]], str | None] | None:
    """The next round's pairings and bye, or None after the last round (or when no
    further Swiss round can be paired without a repeat: docs/tournaments.md)."""
    r = (t.number("round") or 0) + 1
    ratings = t.roster
    roster = sorted(ratings)
    if t.format == "round_robin":
        schedule = round_robin(roster, rng(t, ROUND_ROBIN_ORDER))
        return (schedule[r - 1], None) if r <= len(schedule) else None
    if r > (t.number("rounds") or 0):
        return None
    numbers = pairing_numbers(ratings, rng(t, SWISS_ORDER))
    try:
        chosen = next_round(numbers, matches(t), byes(t), withdrawn(t))
    except PairingImpossible:
        return None  # no round left without a repeat: the Swiss ends early
    return chosen.pairings, chosen.bye


def standings(t: Tournament) -> list[Standing]:
    """The standings by the core's rules (docs/tournaments.md §Standings)."""
    out = withdrawn(t)
    if t.arena:
        paused = {p.id for p in t.players.values() if p.state == EntrantState.PAUSED}
        joined = [p.id for p in sorted(t.players.values(), key=lambda p: p.n)]
        return arena_standings(joined, tally(t), out, paused)
    ratings = t.roster
    if not ratings:
        return []
    fmt = cast(Literal["round_robin", "swiss"], t.format)
    return match_standings(fmt, sorted(ratings), matches(t), byes(t), out)
