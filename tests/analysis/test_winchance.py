"""The win-chance curve: monotonic, certain at proved results, in the defenders' view."""

from __future__ import annotations

import itertools

import pytest

from brandubh.analysis import evaluate_position, win_chance
from brandubh.bot import WIN
from brandubh.bot.evaluation import MATE_BOUND
from brandubh.engine import RULESETS, UnknownRuleSet

SCORES = [-MATE_BOUND + 1, -3000, -800, -250, -100, -30, 0, 30, 100, 250, 800, 3000, MATE_BOUND - 1]


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_the_chance_rises_with_the_score_and_stays_inside_zero_and_one(ruleset: str) -> None:
    chances = [win_chance(ruleset, s) for s in SCORES]
    assert all(0.0 <= c <= 1.0 for c in chances)
    assert all(a <= b for a, b in itertools.pairwise(chances))
    assert chances[0] < chances[len(chances) // 2] < chances[-1]


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_proved_results_are_certain(ruleset: str) -> None:
    assert win_chance(ruleset, WIN - 3) == 1.0
    assert win_chance(ruleset, MATE_BOUND) == 1.0
    assert win_chance(ruleset, 3 - WIN) == 0.0
    assert win_chance(ruleset, -MATE_BOUND) == 0.0


def test_an_unknown_rule_set_is_refused() -> None:
    with pytest.raises(UnknownRuleSet):
        win_chance("chess", 0)


# The king on c3, a defender on d4, three attackers far off (tests/engine/conftest.py's put).
KING_RUNS_DEFENDERS = "4A2/4AA1/7/3D3/2K4/7/7 d"
KING_RUNS_ATTACKERS = "4A2/4AA1/7/3D3/2K4/7/7 a"


@pytest.mark.parametrize("position", [KING_RUNS_DEFENDERS, KING_RUNS_ATTACKERS])
def test_scores_and_chances_are_the_defenders_whoever_is_to_move(position: str) -> None:
    """The same won position for the defenders reads as theirs with either side to move."""
    ev = evaluate_position("nielsen", position, nodes=5_000)
    assert ev.score >= MATE_BOUND
    assert ev.chance == 1.0
    assert ev.forced is not None and ev.forced.winner == "defenders"
