"""The defenders' chance to win, from a search score: a logistic curve per rule set.

``win_chance(ruleset, score)`` maps a score in the defenders' view (a soldier is about 100)
to the defenders' expected result, a win counted 1 and a draw 1/2, by
``1 / (1 + exp(-(scale * score + bias)))``. nielsen's and common's constants were fitted on
human games (``bench/fit_human.py``), the others' on self-play (``bench/fit_winchance.py``):
docs/analysis.md, "The curve". A score of 0 is not 1/2: the defenders win most games from a
level position. A proved result (a score past
the bot's ``MATE_BOUND``) is certain: 1 or 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from brandubh.bot import MATE_BOUND
from brandubh.engine import get_ruleset


@dataclass(frozen=True, slots=True)
class Curve:
    """One rule set's logistic: the defenders' chance is sigmoid(scale * score + bias)."""

    scale: float
    bias: float


# nielsen and common: fitted by bench/fit_human.py on 6 December 2026 on human games (the
# aagenielsen.dk archive's, lines 1-400 of the file; lines 401-525 held out), every 8th
# position searched at the analysis's 250,000 nodes: 717 nielsen and 319 common positions.
# Held out, their log loss is 0.542 and 0.511, against 0.652 and 0.655 for a constant chance
# and 0.619 and 0.652 for the self-play curves they replace (docs/analysis.md, "The curve").
# federation, walker, newsome: no human games here; fitted by bench/fit_winchance.py on 3
# December 2026 on 109 self-play games at 250,000 nodes a move (one scale for the slide rule
# sets, which share an evaluation, a bias each).
CURVES: Final[dict[str, Curve]] = {
    "nielsen": Curve(0.006984, 2.8722),
    "federation": Curve(0.010457, 4.5493),
    "common": Curve(0.006202, 1.8768),
    "walker": Curve(0.010457, 3.8773),
    "newsome": Curve(0.007175, 1.4721),
}


def win_chance(ruleset: str, score: int) -> float:
    """The defenders' chance to win (0..1, a draw counting half) for a defenders' score."""
    curve = CURVES[get_ruleset(ruleset).name]
    if score >= MATE_BOUND:
        return 1.0
    if score <= -MATE_BOUND:
        return 0.0
    x = curve.scale * score + curve.bias
    # Written so that neither branch overflows for a large |x|.
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)
