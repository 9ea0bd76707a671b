"""A round robin's whole schedule, by the circle method, fixed when the tournament starts.

The players are put in an order drawn from the seed (``seed.ROUND_ROBIN_ORDER``); with an
odd count a rest is added. Each round the first stays and the others turn one place, and
the i-th meets the i-th from the end: everyone meets everyone exactly once, each meeting
a two-game match with the sides swapped (live/matches.py).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from brandubh.tournaments.errors import PairingImpossible

Round = list[tuple[str, str]]  # (the match's first player, the second)


def round_robin(players: Sequence[str], rng: random.Random) -> list[Round]:
    """Every round's pairings: ``len(players) - 1`` rounds, or ``len(players)`` when odd
    (each player then rests once, in the round where they meet the rest)."""
    if len(set(players)) != len(players):
        raise PairingImpossible("a player is listed twice")
    if len(players) < 2:
        raise PairingImpossible(f"a round robin needs two players at least, not {len(players)}")
    names = sorted(players)
    rng.shuffle(names)
    order: list[str | None] = list[str | None](names)
    if len(order) % 2:
        order.append(None)
    n = len(order)
    rounds: list[Round] = []
    for _ in range(n - 1):
        pairs: Round = []
        for i in range(n // 2):
            a, b = order[i], order[n - 1 - i]
            if a is not None and b is not None:
                pairs.append((a, b))
        rounds.append(pairs)
        order = [order[0], order[-1], *order[1:-1]]
    return rounds
