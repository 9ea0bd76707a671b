"""The analysis package's public API, pinned: a name added to or dropped from ``__all__``
shows here (the hub's analysis and routes use these, and only these)."""

from __future__ import annotations

import brandubh.analysis

EXPORTED = [
    "ANALYSIS_VERSION",
    "BLUNDER",
    "BOARD_NODES",
    "INACCURACY",
    "MISTAKE",
    "NODES_PER_PLY",
    "Exercise",
    "Forced",
    "GameAnalysis",
    "IllegalLineMove",
    "Judgment",
    "PlyAnalysis",
    "PositionEval",
    "SideSummary",
    "Step",
    "TriedMove",
    "analyse_game",
    "evaluate_position",
    "exercises",
    "judge",
    "move_accuracy",
    "record_with_analysis",
    "try_move",
    "walk",
    "win_chance",
]


def test_all_is_exactly_the_pinned_list() -> None:
    assert brandubh.analysis.__all__ == EXPORTED


def test_every_exported_name_exists() -> None:
    missing = [n for n in brandubh.analysis.__all__ if not hasattr(brandubh.analysis, n)]
    assert missing == []


def test_nothing_public_is_left_out_of_all() -> None:
    """Every public name the package defines or imports is in ``__all__`` (submodules
    aside)."""
    public = {
        name
        for name, value in vars(brandubh.analysis).items()
        if not name.startswith("_") and type(value).__name__ != "module"
    }
    assert public - {"annotations"} == set(EXPORTED)
