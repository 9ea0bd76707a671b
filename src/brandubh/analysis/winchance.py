"""The defenders' chance to win, from a search score: a logistic curve per rule set.

``win_chance(ruleset, score)`` maps a score in the defenders' view (a soldier is about 100)
to the defenders' expected result, a win counted 1 and a draw 1/2, by
``1 / (1 + exp(-(scale * score + bias)))``. The constants were fitted by
``bench/fit_winchance.py`` (docs/analysis.md, "The curve"). A proved result (a score past
the bot's ``MATE_BOUND``) is certain: 1 or 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from brandubh.bot.evaluation import MATE_BOUND
from brandubh.engine import get_ruleset


@dataclass(frozen=True, slots=True)
class Curve:
    """One rule set's logistic: the defenders' chance is sigmoid(scale * score + bias)."""

    scale: float
    bias: float


# Fitted by bench/fit_winchance.py (see docs/analysis.md, "The curve"): placeholders until
# the first fit is written in.
CURVES: Final[dict[str, Curve]] = {
    "nielsen": Curve(0.004, 0.0),
    "federation": Curve(0.004, 0.0),
    "common": Curve(0.004, 0.0),
    "walker": Curve(0.004, 0.0),
    "newsome": Curve(0.004, 0.0),
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
