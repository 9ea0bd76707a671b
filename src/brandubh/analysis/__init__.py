"""Analysis by the bot: a finished game's evaluation per ply, judged moves, accuracy per
side, one position's evaluation, the analysis board's lines and the record with comments.

Pure: no I/O. ``analyse_game(ruleset, moves)`` -> ``GameAnalysis`` (``to_dict`` gives the
JSON that is stored and served), ``evaluate_position(ruleset, position)`` -> ``PositionEval``,
``walk(ruleset, position, moves)`` -> ``[Step]``, ``record_with_analysis(record, analysis)``.
Modules: ``winchance`` (score to the defenders' chance), ``judge`` (judgments, accuracy),
``analyse`` (the searches), ``exercise`` (a judged move tried again), ``board`` (lines
through the engine), ``export`` (the record).
docs/analysis.md explains the numbers.
"""

from brandubh.analysis.analyse import (
    ANALYSIS_VERSION,
    BOARD_NODES,
    NODES_PER_PLY,
    Forced,
    GameAnalysis,
    PlyAnalysis,
    PositionEval,
    analyse_game,
    evaluate_position,
)
from brandubh.analysis.board import IllegalLineMove, Step, walk
from brandubh.analysis.exercise import Exercise, TriedMove, exercises, try_move
from brandubh.analysis.export import record_with_analysis
from brandubh.analysis.judge import (
    BLUNDER,
    INACCURACY,
    MISTAKE,
    Judgment,
    SideSummary,
    judge,
    move_accuracy,
)
from brandubh.analysis.winchance import win_chance

__all__ = [
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
