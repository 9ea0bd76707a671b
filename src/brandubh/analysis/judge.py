"""Judging a move by how much it lowered its mover's chance to win, and accuracy per side.

Chances are 0..1 (docs/analysis.md, "Judgments" and "Accuracy"): a move that drops its
mover's chance by ``INACCURACY`` or more is an inaccuracy, by ``MISTAKE`` a mistake, by
``BLUNDER`` a blunder. A move's accuracy is lichess's curve on the same drop, in percent.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal

Judgment = Literal["inaccuracy", "mistake", "blunder"]
JUDGMENTS: Final[tuple[Judgment, ...]] = ("inaccuracy", "mistake", "blunder")

# Drops of the mover's chance (0..1). Lichess's 0.1 / 0.2 / 0.3 on its -1..1 "winning
# chances" are 0.05 / 0.10 / 0.15 here; ours are a little wider because a node-limited
# search's chance wobbles by a few hundredths between one ply and the next.
INACCURACY: Final = 0.07
MISTAKE: Final = 0.14
BLUNDER: Final = 0.25

# lichess's accuracy curve (lila, AccuracyPercent.scala): percent from a drop in percent.
_A: Final = 103.1668100711649
_K: Final = 0.04354415386753951
_C: Final = 3.166924740191411


def judge(before: float, after: float) -> Judgment | None:
    """The judgment of a move that took its mover's chance from ``before`` to ``after``."""
    drop = before - after
    if drop >= BLUNDER:
        return "blunder"
    if drop >= MISTAKE:
        return "mistake"
    if drop >= INACCURACY:
        return "inaccuracy"
    return None


def move_accuracy(before: float, after: float) -> float:
    """A move's accuracy, 0..100, from its mover's chance before and after (0..1 each)."""
    drop = max(0.0, before - after) * 100.0
    return min(100.0, max(0.0, _A * math.exp(-_K * drop) - _C))


@dataclass(frozen=True, slots=True)
class SideSummary:
    """One side's judgments counted, and its accuracy (the mean of its moves', 0..100)."""

    inaccuracy: int = 0
    mistake: int = 0
    blunder: int = 0
    accuracy: float | None = None  # None when the side made no move

    def to_dict(self) -> dict[str, int | float | None]:
        return {
            "inaccuracy": self.inaccuracy,
            "mistake": self.mistake,
            "blunder": self.blunder,
            "accuracy": self.accuracy,
        }

    @classmethod
    def from_dict(cls, data: dict[str, int | float | None]) -> SideSummary:
        accuracy = data.get("accuracy")
        return cls(
            int(data["inaccuracy"] or 0),
            int(data["mistake"] or 0),
            int(data["blunder"] or 0),
            None if accuracy is None else float(accuracy),
        )


def summarise(moves: Iterable[tuple[Judgment | None, float]]) -> SideSummary:
    """A side's summary from its moves' (judgment, accuracy) pairs."""
    counts = dict.fromkeys(JUDGMENTS, 0)
    accuracies: list[float] = []
    for judgment, accuracy in moves:
        if judgment is not None:
            counts[judgment] += 1
        accuracies.append(accuracy)
    mean = round(sum(accuracies) / len(accuracies), 1) if accuracies else None
    return SideSummary(counts["inaccuracy"], counts["mistake"], counts["blunder"], mean)
