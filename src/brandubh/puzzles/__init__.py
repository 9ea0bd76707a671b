"""Puzzles: positions from real play where the side to move has one proved way to win (or
to hold), their records, the solver that proves them and the generator that finds them.

Pure apart from ``generate`` (which reads the archive and runs worker processes).
"""

from brandubh.puzzles.generate import (
    ProgressMismatch,
    Source,
    Summary,
    estimate_rating,
    examine,
    generate,
    progress_path,
    read_archive,
    selfplay_sources,
)
from brandubh.puzzles.record import (
    THEMES,
    InvalidPuzzle,
    Puzzle,
    Theme,
    format_puzzle,
    parse_puzzle,
    puzzle_id,
)
from brandubh.puzzles.shipped import load_shipped
from brandubh.puzzles.solver import (
    MAX_DEPTH,
    Hold,
    Solver,
    UnsupportedRuleSet,
    Verdict,
    Win,
    supported,
)
from brandubh.puzzles.solver import (
    SUPPORTED as SUPPORTED_RULESETS,
)
from brandubh.puzzles.verify import prove_puzzle

__all__ = [
    "MAX_DEPTH",
    "SUPPORTED_RULESETS",
    "THEMES",
    "Hold",
    "InvalidPuzzle",
    "ProgressMismatch",
    "Puzzle",
    "Solver",
    "Source",
    "Summary",
    "Theme",
    "UnsupportedRuleSet",
    "Verdict",
    "Win",
    "estimate_rating",
    "examine",
    "format_puzzle",
    "generate",
    "load_shipped",
    "parse_puzzle",
    "progress_path",
    "prove_puzzle",
    "puzzle_id",
    "read_archive",
    "selfplay_sources",
    "supported",
]
