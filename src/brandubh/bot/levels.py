"""The five bot levels: their names, how many nodes each may search, how deep, how it errs.

Budgets are counted in nodes, never seconds, so a move is a pure function of the position
and the game's seed. Level 5's budget is about 1 to 1.5 s of CPU a move on one core of the
reference machine (2 cores, CPython 3.11); docs/bot.md has the figures of bench/bot.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class Level:
    """How one level plays.

    ``noise``: each root move's score gets a uniform offset in ``[-noise, noise]`` (points, a
    soldier ~100) before the best is taken; ``blunder``: the chance of playing a random move
    among those not proved lost instead. Both need exact root scores, which costs nodes, so
    the noisy levels search every root move with a full window. A proved win is always
    played and a proved loss avoided when possible, at every level.
    """

    number: int
    name: str  # what a player can expect, shown beside the number
    nodes: int
    depth: int
    noise: int = 0
    blunder: float = 0.0
    q_checks: int = 2  # quiescence plies in which king moves that open a lane are tried

    @property
    def exact_root(self) -> bool:
        return self.noise > 0 or self.blunder > 0


LEVELS: Final[dict[int, Level]] = {
    # Levels 2 to 5 search to full depth without deliberate errors, each with four to seven
    # times the nodes of the one below; level 1 has level 2's budget but is held to depth 2
    # and errs. Tuned so that each scores 65-80 % against the one below per rule set
    # (docs/bot.md, "The ladder").
    1: Level(1, "beginner", nodes=5_400, depth=2, noise=30, blunder=0.03, q_checks=1),
    2: Level(2, "casual player", nodes=5_400, depth=64),
    3: Level(3, "improver", nodes=36_000, depth=64),
    4: Level(4, "club player", nodes=180_000, depth=64),
    5: Level(5, "strong club player", nodes=720_000, depth=64),
}

# Level number -> name, for the client and the docs.
LEVEL_NAMES: Final[dict[int, str]] = {n: level.name for n, level in LEVELS.items()}


def level_for(number: int) -> Level:
    """The level numbered 1 to 5; ValueError otherwise."""
    level = LEVELS.get(number)
    if level is None:
        raise ValueError(f"bot level must be {min(LEVELS)} to {max(LEVELS)}, not {number!r}")
    return level
