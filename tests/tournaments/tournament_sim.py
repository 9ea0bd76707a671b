"""Simulated tournaments driven through the pure core as the service drives it, each
giving its export: the verifier's input, and the ground the property tests stand on."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from brandubh.tournaments import (
    ARENA_PAIRING,
    ROUND_ROBIN_ORDER,
    SWISS_ORDER,
    ArenaTally,
    Match,
    MatchGame,
    Pairing,
    PairingImpossible,
    Settings,
    SwissRound,
    arena_standings,
    commitment,
    export,
    match_standings,
    next_round,
    pair_arena,
    pairing_numbers,
    rng,
    round_robin,
)

START = 1_800_000_000_000
SEED = bytes(range(32))


@dataclass
class ArenaRun:
    export: dict[str, Any]
    pairings: list[list[Pairing]] = field(default_factory=list)
    leftovers: list[int] = field(default_factory=list)  # per pairing: free players not paired
    waits: list[int] = field(default_factory=list)  # ms from free to paired


def simulate_arena(
    players: int = 20, seed: bytes = SEED, chance: int = 0, minutes: int = 30, pauses: bool = True
) -> ArenaRun:
    """An arena: everyone joins at the start (a few later), games last 20 s to 4 min,
    results at random, some players pause a while; pairing each second when anyone is
    free, as the service does."""
    r = random.Random(chance)
    settings = Settings.parse(
        {
            "name": "Sim arena",
            "format": "arena",
            "ruleset": "nielsen",
            "move_time": 60,
            "starts_at": START,
            "duration_min": minutes,
        }
    )
    assert settings.ends_at is not None
    ids = [f"p{i:02d}" for i in range(players)]
    rating = {p: float(r.randrange(1200, 1900, 25)) for p in ids}
    joins = {
        p: START if i < players - 3 else START + r.randrange(60_000, 600_000)
        for i, p in enumerate(ids)
    }
    events: list[dict[str, Any]] = []
    tally = ArenaTally()
    joined: set[str] = set()
    paused: dict[str, int] = {}  # player -> resumes at
    ends: dict[str, int] = {}  # game -> ends at
    free_since: dict[str, int] = {}
    run = ArenaRun({})
    n = 0
    t = START
    while t < settings.ends_at or ends:
        for gid in sorted(g for g, at in ends.items() if at <= t):
            del ends[gid]
            outcome = r.choice(["attackers", "defenders", "attackers", "draw"])
            events.append(export.result(t, gid, outcome))  # type: ignore[arg-type]
            tally.finished(gid, outcome)  # type: ignore[arg-type]
            free_since.update(dict.fromkeys(tally.games[gid].players, t))
        if t < settings.ends_at:
            for p in ids:
                if p not in joined and joins[p] <= t:
                    joined.add(p)
                    free_since[p] = t
                    events.append(export.join(t, p, rating[p]))
            for p, back in sorted(paused.items()):
                if back <= t:
                    del paused[p]
                    free_since[p] = t
                    events.append(export.resume(t, p))
            if pauses and r.random() < 0.02:
                p = r.choice(sorted(joined - set(paused)))
                paused[p] = t + r.randrange(10_000, 120_000)
                events.append(export.pause(t, p))
            free = [p for p in sorted(joined) if p not in paused and tally.busy(p) is None]
            if free:
                ratings = {p: rating[p] for p in free}
                made = pair_arena(
                    [tally.player(p, rating[p]) for p in free],
                    rng(seed, ARENA_PAIRING.format(n=n)),
                    others_playing=tally.anyone_playing(),
                )
                if made:
                    games = [(f"g{n}-{k}", pairing) for k, pairing in enumerate(made)]
                    events.append(export.pairing(t, n, ratings, games))
                    for gid, pairing in games:
                        tally.paired(gid, pairing)
                        ends[gid] = t + r.randrange(20_000, 240_000)
                        for p in pairing.players:
                            run.waits.append(t - free_since.pop(p))
                    run.pairings.append(made)
                    run.leftovers.append(len(free) - 2 * len(made))
                    n += 1
        t += 1000
    events.append(export.end(t))
    table = arena_standings(sorted(joined), tally, (), set(paused))
    run.export = export.export(
        "tsim", settings, seed, commitment(seed), {p: p.upper() for p in ids}, events, table
    )
    return run


def simulate_matches(
    fmt: str,
    players: int,
    rounds: int | None = None,
    seed: bytes = SEED,
    chance: int = 0,
    withdraw: tuple[str, int] | None = None,
    ruleset: str = "nielsen",
) -> tuple[dict[str, Any], list[SwissRound]]:
    """A round robin or a Swiss: every round paired as the service pairs it, each match
    two games with the sides swapped, results at random; ``withdraw`` = (player, round):
    that player withdraws after the first game of that round."""
    r = random.Random(chance)
    settings = Settings.parse(
        {
            "name": "Sim",
            "format": fmt,
            "ruleset": ruleset,
            "move_time": 86400,
            "starts_at": START,
            "rounds": rounds,
            "max_players": max(players, 4),
        }
    )
    ids = [f"p{i:02d}" for i in range(players)]
    rating = {p: float(r.choice([1500, 1600, 1700, 1800])) for p in ids}
    events = [export.join(START - 1000, p, rating[p]) for p in ids]
    events.append(export.start(START, rating))
    t = START
    withdrawn: set[str] = set()
    matches: list[Match] = []
    byes: list[str] = []
    paired: list[SwissRound] = []
    schedule = round_robin(ids, rng(seed, ROUND_ROBIN_ORDER)) if fmt == "round_robin" else None
    numbers = pairing_numbers(rating, rng(seed, SWISS_ORDER))
    total = len(schedule) if schedule is not None else rounds or 0
    for number in range(1, total + 1):
        t += 1000
        if schedule is not None:
            this = SwissRound(schedule[number - 1], None)
        else:
            try:
                this = next_round(numbers, matches, byes, withdrawn)
            except PairingImpossible:
                break  # no round left to pair without a repeat: it ends here
        paired.append(this)
        events.append(export.round_paired(t, number, this))
        if this.bye:
            byes.append(this.bye)
        for a, b in this.pairings:
            games: list[MatchGame] = []
            for k in range(2):
                if a in withdrawn or b in withdrawn:
                    break
                t += 1000
                gid = f"r{number}-{a}-{b}-{k + 1}"
                sides = (a, b) if k == 0 else (b, a)
                events.append(export.game(t, number, gid, *sides))
                outcome = r.choice(["attackers", "defenders", "draw"])
                events.append(export.result(t, gid, outcome))  # type: ignore[arg-type]
                games.append(MatchGame(*sides, outcome))  # type: ignore[arg-type]
                if withdraw and withdraw[1] == number and withdraw[0] in (a, b) and k == 0:
                    t += 1
                    events.append(export.withdraw(t, withdraw[0]))
                    withdrawn.add(withdraw[0])
            matches.append(Match(number, a, b, tuple(games)))
    t += 1000
    events.append(export.end(t))
    table = match_standings(fmt, ids, matches, byes, withdrawn)  # type: ignore[arg-type]
    data = export.export(
        "tsim", settings, seed, commitment(seed), {p: p.upper() for p in ids}, events, table
    )
    return data, paired
