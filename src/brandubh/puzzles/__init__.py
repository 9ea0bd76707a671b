"""Puzzles: positions from real play where the side to move has one proved way to win (or
to hold), their records, the solver that proves them and the generator that finds them.

Pure apart from ``generate`` (which reads the archive and runs worker processes).
"""

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

__all__ = [
    "THEMES",
    "InvalidPuzzle",
    "Puzzle",
    "Theme",
    "format_puzzle",
    "load_shipped",
    "parse_puzzle",
    "puzzle_id",
]
