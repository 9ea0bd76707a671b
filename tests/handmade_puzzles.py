"""Puzzles built by hand for the tests, each with an obvious forced win under nielsen (the
shipped set changes; no test depends on it): an escape in 1 at each end of the top edge,
an escape in 2 (a double threat), a capture in 1. Their ratings are the tests' own."""

from __future__ import annotations

from pathlib import Path

from brandubh.puzzles import Puzzle, Theme, format_puzzle, puzzle_id

# (position, solution, theme, rating, a legal first move that is wrong)
LINES: list[tuple[str, tuple[str, ...], Theme, float, str]] = [
    ("1K1A3/7/7/3A3/7/2D4/A5A d", ("Kb7-a7",), "escape", 1000.0, "Kb7-b1"),
    ("7/7/7/3A3/2K4/7/A5A d", ("Kc3-c7", "d4-d7", "Kc7-a7"), "escape", 1400.0, "Kc3-c1"),
    ("3A1K1/7/7/3A3/7/2D4/A5A d", ("Kf7-g7",), "escape", 1800.0, "Kf7-f1"),
    ("2AK3/4A2/7/3A3/7/7/A5A a", ("e6-e7xd7",), "capture", 2200.0, "e6-e5"),
]


def handmade(ruleset: str = "nielsen") -> list[Puzzle]:
    """The hand-made puzzles, easiest first."""
    return [
        Puzzle(
            id=puzzle_id(ruleset, position),
            ruleset=ruleset,
            position=position,
            solution=solution,
            theme=theme,
            depth=(len(solution) + 1) // 2,
            source="test:handmade",
            rating=rating,
        )
        for position, solution, theme, rating, _ in LINES
    ]


def wrong_move(puzzle: Puzzle) -> str:
    """A legal first move of the puzzle that is not its solution's."""
    return next(w for position, *_, w in LINES if position == puzzle.position)


def write_set(path: Path, puzzles: list[Puzzle]) -> Path:
    """A JSONL puzzle set, as `brandubh puzzles generate` writes one."""
    path.write_text("".join(format_puzzle(p) + "\n" for p in puzzles), "utf-8")
    return path
