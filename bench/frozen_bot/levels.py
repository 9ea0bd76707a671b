"""The five bot levels: how many nodes each may search, how deep, and how it errs.

Budgets are counted in nodes, never seconds, so a move is a pure function of the position
and the game's seed. Level 5's budget is calibrated to stay under 2 s a move on one core of
the reference machine (2 cores, CPython 3.11); see bench/bot.py for the figures.
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
    nodes: int
    depth: int
    noise: int = 0
    blunder: float = 0.0
    q_checks: int = 2  # quiescence plies in which king moves that open a lane are tried

    @property
    def exact_root(self) -> bool:
        return self.noise > 0 or self.blunder > 0


LEVELS: Final[dict[int, Level]] = {
    1: Level(1, nodes=400, depth=1, noise=150, blunder=0.25, q_checks=0),
    2: Level(2, nodes=1_500, depth=2, noise=60, blunder=0.05, q_checks=1),
    3: Level(3, nodes=4_000, depth=3, noise=15),
    4: Level(4, nodes=12_000, depth=64),
    5: Level(5, nodes=60_000, depth=64),
}


def level_for(number: int) -> Level:
    """The level numbered 1 to 5; ValueError otherwise."""
    level = LEVELS.get(number)
    if level is None:
        raise ValueError(f"bot level must be 1 to 5, not {number!r}")
    return level
