"""Arena pairing and points: whoever is free is paired at once, by score then rating.

``pair_arena`` is a pure function of the free players (each with their score, rating,
sides played and last opponent: ``ArenaPlayer``), whether anyone else is still playing,
and a generator derived from the tournament's seed and the pairing's number
(``seed.ARENA_PAIRING``), so a verifier recomputes every pairing from the export.
``ArenaTally`` folds an arena's games and results, in order, into those players and
their scores; ``arena_points`` scores one player's results with lichess's streaks.
The rules, in words: docs/tournaments.md §Arena.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from brandubh.tournaments.errors import PairingImpossible, TallyError

Outcome = Literal["win", "draw", "loss"]
Result = Literal["attackers", "defenders", "draw", "aborted"]
RESULTS: Final[tuple[Result, ...]] = ("attackers", "defenders", "draw", "aborted")
WIN: Final = 2
DRAW: Final = 1
STREAK: Final = 2  # wins in a row after which results count double


@dataclass(frozen=True)
class ArenaPlayer:
    """A free player as the pairer sees them."""

    id: str
    rating: float
    score: int = 0
    attacked: int = 0  # games played as the attackers
    defended: int = 0
    last_opponent: str | None = None

    @property
    def lean(self) -> int:
        """Attacker games minus defender games: above 0, this player should defend next."""
        return self.attacked - self.defended


@dataclass(frozen=True)
class Pairing:
    """One arena game to create: who attacks, who defends."""

    attackers: str
    defenders: str

    @property
    def players(self) -> frozenset[str]:
        return frozenset((self.attackers, self.defenders))


@dataclass(frozen=True)
class ArenaScore:
    """One player's arena score from their results in order."""

    points: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    on_fire: bool = False  # two wins in a row or more: the next result counts double

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


def arena_points(outcomes: Iterable[Outcome]) -> ArenaScore:
    """Win 2, draw 1, loss 0; after two wins in a row each result counts double until
    one that is not a win (a draw on fire: 2, as on lichess)."""
    points = wins = draws = losses = run = 0
    for outcome in outcomes:
        factor = 2 if run >= STREAK else 1
        if outcome == "win":
            points, wins, run = points + WIN * factor, wins + 1, run + 1
        elif outcome == "draw":
            points, draws, run = points + DRAW * factor, draws + 1, 0
        else:
            losses, run = losses + 1, 0
    return ArenaScore(points, wins, draws, losses, run >= STREAK)


def pair_arena(
    free: Sequence[ArenaPlayer], rng: random.Random, *, others_playing: bool
) -> list[Pairing]:
    """Pair the free players (the rest wait), by the rules of docs/tournaments.md
    §Arena: by score then rating, never the same two in a row, sides kept even."""
    by_id = sorted(free, key=lambda p: p.id)
    if len({p.id for p in by_id}) != len(by_id):
        raise PairingImpossible("a player is listed twice among the free players")
    draw = {p.id: rng.random() for p in by_id}
    ranked = sorted(by_id, key=lambda p: (-p.score, -p.rating, draw[p.id]))
    pairs = _match(ranked, lambda a, b: _may_meet(a, b) and _sides_fit(a, b))
    if not others_playing:
        paired = {p.id for pair in pairs for p in pair}
        left = [p for p in ranked if p.id not in paired]
        pairs += _match(left, _may_meet)
        rank = {p.id: i for i, p in enumerate(ranked)}
        pairs.sort(key=lambda pair: min(rank[pair[0].id], rank[pair[1].id]))
    return [_sides(a, b, rng) for a, b in pairs]


def _may_meet(a: ArenaPlayer, b: ArenaPlayer) -> bool:
    """Never the same two in a row."""
    return a.last_opponent != b.id and b.last_opponent != a.id


def _sides_fit(a: ArenaPlayer, b: ArenaPlayer) -> bool:
    """Whether sides can be given so that neither moves further from even."""
    return not (a.lean > 0 and b.lean > 0) and not (a.lean < 0 and b.lean < 0)


def _sides(a: ArenaPlayer, b: ArenaPlayer, rng: random.Random) -> Pairing:
    if a.lean < b.lean or (a.lean == b.lean and rng.random() < 0.5):
        return Pairing(a.id, b.id)
    return Pairing(b.id, a.id)


Pair = tuple[ArenaPlayer, ArenaPlayer]
Fits = Callable[[ArenaPlayer, ArenaPlayer], bool]


def _match(ranked: list[ArenaPlayer], fits: Fits) -> list[Pair]:
    """Greedy from the top, then one repair pass: a player left over takes the place of a
    paired one whose partner can take another left-over player (two more games)."""
    pairs: list[Pair] = []
    taken: set[str] = set()
    for i, p in enumerate(ranked):
        if p.id in taken:
            continue
        for q in ranked[i + 1 :]:
            if q.id not in taken and fits(p, q):
                pairs.append((p, q))
                taken |= {p.id, q.id}
                break
    left = [p for p in ranked if p.id not in taken]
    repaired = True
    while repaired and len(left) >= 2:
        repaired = False
        for k, (x, y) in enumerate(pairs):
            found = _repair(x, y, left, fits)
            if found:
                u, v, first, second = found
                pairs[k : k + 1] = [first, second]
                left = [p for p in left if p.id not in (u.id, v.id)]
                repaired = True
                break
    return pairs


def _repair(
    x: ArenaPlayer, y: ArenaPlayer, left: list[ArenaPlayer], fits: Fits
) -> tuple[ArenaPlayer, ArenaPlayer, Pair, Pair] | None:
    """Two left-over players u, v (the highest ranked that do) with x-u and y-v."""
    us = [u for u in left if fits(x, u)]
    vs = [v for v in left if fits(y, v)]
    for u in us:
        for v in vs:
            if u.id != v.id:
                return u, v, (x, u), (y, v)
    return None


@dataclass
class ArenaTally:
    """An arena's games and results, folded in the order they happened: what the pairer
    needs to know of each player, and each player's score. Pure; no clock."""

    games: dict[str, Pairing] = field(default_factory=dict)
    results: dict[str, Result] = field(default_factory=dict)
    _outcomes: dict[str, list[Outcome]] = field(default_factory=dict)
    _attacked: dict[str, int] = field(default_factory=dict)
    _defended: dict[str, int] = field(default_factory=dict)
    _last: dict[str, str] = field(default_factory=dict)
    _busy: dict[str, str] = field(default_factory=dict)  # player -> game without a result

    def paired(self, game_id: str, pairing: Pairing) -> None:
        """A game was created for a pairing."""
        if game_id in self.games:
            raise TallyError(f"game {game_id} is paired twice")
        for pid in pairing.players:
            if pid in self._busy:
                raise TallyError(f"{pid} is paired while still playing game {self._busy[pid]}")
        a, d = pairing.attackers, pairing.defenders
        self.games[game_id] = pairing
        self._attacked[a] = self._attacked.get(a, 0) + 1
        self._defended[d] = self._defended.get(d, 0) + 1
        self._last[a], self._last[d] = d, a
        self._busy[a] = self._busy[d] = game_id

    def finished(self, game_id: str, result: Result) -> None:
        """A game of the arena ended (an aborted game scores nothing for either player)."""
        pairing = self.games.get(game_id)
        if pairing is None:
            raise TallyError(f"game {game_id} ended but was never paired")
        if game_id in self.results:
            raise TallyError(f"game {game_id} ended twice")
        if result not in RESULTS:
            raise TallyError(f"game {game_id}: unknown result {result!r}")
        self.results[game_id] = result
        for pid in pairing.players:
            del self._busy[pid]
        if result == "aborted":
            return
        a, d = pairing.attackers, pairing.defenders
        won: dict[str, Outcome] = {"attackers": "win", "defenders": "loss", "draw": "draw"}
        lost: dict[str, Outcome] = {"attackers": "loss", "defenders": "win", "draw": "draw"}
        self._outcomes.setdefault(a, []).append(won[result])
        self._outcomes.setdefault(d, []).append(lost[result])

    def busy(self, player_id: str) -> str | None:
        """The game a player is in (paired, no result yet), or None."""
        return self._busy.get(player_id)

    def anyone_playing(self, besides: Iterable[str] = ()) -> bool:
        """Whether a game is in progress, not counting the given players'."""
        return bool(set(self._busy) - set(besides))

    def score(self, player_id: str) -> ArenaScore:
        return arena_points(self._outcomes.get(player_id, ()))

    def outcomes(self, player_id: str) -> list[Outcome]:
        return list(self._outcomes.get(player_id, ()))

    def player(self, player_id: str, rating: float) -> ArenaPlayer:
        """The player as the pairer takes them, at their current rating."""
        return ArenaPlayer(
            player_id,
            rating,
            self.score(player_id).points,
            self._attacked.get(player_id, 0),
            self._defended.get(player_id, 0),
            self._last.get(player_id),
        )
