"""Swiss pairing, Dutch-style, by match points: no pairing is ever repeated.

Players carry a pairing number fixed at the start (``pairing_numbers``: by rating, ties
drawn from the seed, ``seed.SWISS_ORDER``). Each round they are ranked by match points,
then pairing number, and paired score group by score group from the top: in a group the
top half meets the bottom half in order (1st with the first of the bottom half, ...);
where that would repeat a pairing, the next of the bottom half is tried, then one of the
top half. A group's odd player out, or one who can meet nobody left there, floats down
to the top of the next group. When no pairing of the groups below works, the search goes
back up and tries the next option above (backtracking). With an odd count, the lowest
ranked player who has not had a bye has one. The rules in words: docs/tournaments.md §Swiss.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from brandubh.tournaments.errors import PairingImpossible
from brandubh.tournaments.standings import Match, match_standings

# How many partial pairings the search may try before it gives up: far more than any
# tournament of the allowed size needs (16 players, 5 rounds: a few hundred).
SEARCH_BUDGET: Final = 500_000


@dataclass(frozen=True)
class SwissPlayer:
    """A player to pair: their match points so far and their pairing number."""

    id: str
    points: float
    number: int  # 1 is the highest rated


@dataclass(frozen=True)
class SwissRound:
    """One round: the matches, each (first player, second), and who has the bye."""

    pairings: list[tuple[str, str]]
    bye: str | None


def pairing_numbers(ratings: dict[str, float], rng: random.Random) -> dict[str, int]:
    """Each player's pairing number: 1 for the highest rating, equal ratings in an order
    drawn from ``rng`` (one draw a player, in the order of their ids)."""
    draw = {pid: rng.random() for pid in sorted(ratings)}
    order = sorted(ratings, key=lambda pid: (-ratings[pid], draw[pid]))
    return {pid: i + 1 for i, pid in enumerate(order)}


def pair_swiss(
    players: Sequence[SwissPlayer],
    met: Collection[frozenset[str]],
    had_bye: Collection[str] = (),
) -> SwissRound:
    """The next round's pairings; ``met`` holds every pair that has met already.
    Raises ``PairingImpossible`` when no pairing avoids a repeat."""
    if len({p.id for p in players}) != len(players):
        raise PairingImpossible("a player is listed twice")
    ranked = sorted(players, key=lambda p: (-p.points, p.number))
    search = _Search(frozenset(met))
    if len(ranked) % 2 == 0:
        pairs = search.groups(ranked)
        if pairs is None:
            raise search.impossible(len(ranked))
        return SwissRound(pairs, None)
    # The bye: the lowest ranked who has not had one (all have had one: the lowest).
    candidates = [p for p in reversed(ranked) if p.id not in had_bye] or list(reversed(ranked))
    for bye in candidates:
        pairs = search.groups([p for p in ranked if p is not bye])
        if pairs is not None:
            return SwissRound(pairs, bye.id)
    raise search.impossible(len(ranked))


class _Search:
    def __init__(self, met: frozenset[frozenset[str]]) -> None:
        self.met = met
        self.budget = SEARCH_BUDGET
        self.known: dict[frozenset[str], bool] = {}  # possible(), by the set of players

    def impossible(self, n: int) -> PairingImpossible:
        if self.budget <= 0:
            return PairingImpossible(
                f"no pairing of {n} players found within {SEARCH_BUDGET} tries: "
                f"fewer rounds would do"
            )
        return PairingImpossible(
            f"the {n} players cannot all be paired without a repeat: too many rounds for "
            f"this many players"
        )

    def groups(self, ranked: list[SwissPlayer]) -> list[tuple[str, str]] | None:
        """Pair the ranked players group by group, with backtracking."""
        if not self.possible([p.id for p in ranked]):
            return None  # not at all: no need to search in order
        groups = [list(g) for _, g in itertools.groupby(ranked, key=lambda p: p.points)]
        return self._from(groups, 0, [])

    def possible(self, ids: list[str]) -> bool:
        """Whether the players can be paired at all without a repeat, in any order."""
        # Most constrained player first, failed sets remembered; a search that runs out
        # of budget answers True and leaves the ordered search to decide.
        key = frozenset(ids)
        if key not in self.known:
            self.known[key] = self._possible(ids)
        return self.known[key]

    def _possible(self, ids: list[str]) -> bool:
        index = {pid: i for i, pid in enumerate(ids)}
        partners = [0] * len(ids)
        for a, b in itertools.combinations(ids, 2):
            if frozenset((a, b)) not in self.met:
                partners[index[a]] |= 1 << index[b]
                partners[index[b]] |= 1 << index[a]
        failed: set[int] = set()
        budget = [SEARCH_BUDGET]

        def pair(left: int) -> bool:
            if not left:
                return True
            if left in failed:
                return False
            budget[0] -= 1
            if budget[0] <= 0:
                return True
            first = min(_bits(left), key=lambda i: (partners[i] & left).bit_count())
            for j in _bits(partners[first] & left):
                if pair(left & ~(1 << first) & ~(1 << j)):
                    return True
            failed.add(left)
            return False

        return pair((1 << len(ids)) - 1)

    def _from(
        self, groups: list[list[SwissPlayer]], i: int, carried: list[SwissPlayer]
    ) -> list[tuple[str, str]] | None:
        if i == len(groups):
            return [] if not carried else None
        group = carried + groups[i]
        last = i == len(groups) - 1
        below = [p.id for g in groups[i + 1 :] for p in g]
        for pairs, floaters in self._options(group, last):
            if not self.possible([p.id for p in floaters] + below):
                continue  # the groups below could not take these floaters: next option
            rest = self._from(groups, i + 1, floaters)
            if rest is not None:
                return pairs + rest
            if self.budget <= 0:
                return None
        return None

    def _options(
        self, group: list[SwissPlayer], last: bool
    ) -> Iterator[tuple[list[tuple[str, str]], list[SwissPlayer]]]:
        """Ways to pair a group, best first: the fewest floaters, taken from the bottom;
        for each, the pairings in Dutch order."""
        n = len(group)
        for floats in range(n % 2, (n % 2 if last else n) + 1, 2):
            for out in itertools.combinations(range(n - 1, -1, -1), floats):
                floaters = [group[k] for k in sorted(out)]
                rest = [p for k, p in enumerate(group) if k not in out]
                if not self.possible([p.id for p in rest]):
                    continue
                bottom = {p.id for p in rest[len(rest) // 2 :]}
                for pairs in self._matchings(rest, bottom):
                    yield pairs, floaters
                    if self.budget <= 0:
                        return

    def _matchings(
        self, left: list[SwissPlayer], bottom: set[str]
    ) -> Iterator[list[tuple[str, str]]]:
        """Perfect matchings of ``left`` in Dutch order: its top player takes the first of
        the bottom half they have not met, then the next ..., then one of the top half."""
        if not left:
            yield []
            return
        self.budget -= 1
        if self.budget <= 0:
            return
        top, others = left[0], left[1:]
        lower = [q for q in others if q.id in bottom]
        upper = [q for q in others if q.id not in bottom]
        for q in lower + upper:
            if frozenset((top.id, q.id)) in self.met:
                continue
            remaining = [p for p in others if p.id != q.id]
            for rest in self._matchings(remaining, bottom):
                yield [(top.id, q.id), *rest]


def next_round(
    numbers: Mapping[str, int],
    matches: Iterable[Match],
    byes: Iterable[str] = (),
    withdrawn: Collection[str] = (),
) -> SwissRound:
    """The next round of a Swiss from its rounds so far: every player of ``numbers``
    (their pairing numbers) but the withdrawn, by match points (byes included)."""
    matches, byes = list(matches), list(byes)
    table = match_standings("swiss", numbers, matches, byes, withdrawn)
    points = {row.player: row.points for row in table}
    active = [
        SwissPlayer(pid, points[pid], n) for pid, n in numbers.items() if pid not in withdrawn
    ]
    met = {frozenset((m.a, m.b)) for m in matches}
    return pair_swiss(active, met, set(byes))


def _bits(mask: int) -> Iterator[int]:
    """The indices of a mask's set bits, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low
