"""Judgments and accuracy on chance drops computed by hand."""

from __future__ import annotations

import math

import pytest

from brandubh.analysis import BLUNDER, INACCURACY, MISTAKE, SideSummary, judge, move_accuracy
from brandubh.analysis.judge import summarise


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        (0.80, 0.80, None),
        (0.50, 0.45, None),  # a drop of 0.05: below INACCURACY (0.07)
        (0.40, 0.60, None),  # the mover gained
        (0.80, 0.70, "inaccuracy"),  # 0.10
        (0.80, 0.60, "mistake"),  # 0.20
        (0.90, 0.64, "blunder"),  # 0.26
        (1.00, 0.00, "blunder"),
    ],
)
def test_a_move_is_judged_by_its_movers_drop(before: float, after: float, expected: str) -> None:
    assert judge(before, after) == expected


def test_the_thresholds_are_inclusive_and_ordered() -> None:
    assert 0 < INACCURACY < MISTAKE < BLUNDER < 1
    assert judge(0.5 + INACCURACY, 0.5) == "inaccuracy"
    assert judge(0.5 + MISTAKE, 0.5) == "mistake"
    assert judge(0.5 + BLUNDER, 0.5) == "blunder"


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        (0.5, 0.5, 100.0),  # 103.1668 - 3.1669, clamped
        (0.7, 0.9, 100.0),  # a gain counts as no drop
        # 103.1668100711649 * exp(-0.04354415386753951 * 10) - 3.166924740191411
        (0.6, 0.5, 63.5798),
        # the same with a drop of 50 (percent points)
        (0.9, 0.4, 8.5278),
        (1.0, 0.0, 0.0),  # 103.1668 * exp(-4.354) - 3.1669 < 0: clamped
    ],
)
def test_move_accuracy_follows_lichess(before: float, after: float, expected: float) -> None:
    assert move_accuracy(before, after) == pytest.approx(expected, abs=1e-3)


def test_the_curve_by_hand() -> None:
    """The constants, written out: a drop of 25 percent points."""
    by_hand = 103.1668100711649 * math.exp(-0.04354415386753951 * 25) - 3.166924740191411
    assert move_accuracy(0.75, 0.5) == pytest.approx(by_hand)


def test_a_side_is_summarised_by_counts_and_mean_accuracy() -> None:
    summary = summarise(
        [(None, 100.0), ("inaccuracy", 80.0), ("blunder", 10.0), ("inaccuracy", 70.0)]
    )
    assert summary == SideSummary(inaccuracy=2, mistake=0, blunder=1, accuracy=65.0)
    assert summarise([]) == SideSummary(0, 0, 0, None)
    assert SideSummary.from_dict(summary.to_dict()) == summary
