"""Proving a puzzle record again: what the shipped set's test and bench ask of every line."""

from __future__ import annotations

from brandubh.puzzles.record import Puzzle
from brandubh.puzzles.solver import MAX_DEPTH, Solver


def prove_puzzle(puzzle: Puzzle, solver: Solver | None = None) -> str | None:
    """None when the solver proves the puzzle as recorded (the same line, unique at every
    move, the shortest win; for defend the one move that holds); else what differs."""
    solver = solver or Solver(puzzle.ruleset)
    if puzzle.theme == "defend":
        horizon = min(2, MAX_DEPTH)
        hold = solver.defend(puzzle.position, horizon)
        if hold is None:
            return "no single move holds"
        if (hold.move,) != puzzle.solution or puzzle.depth != 1:
            return f"the move that holds is {hold.move}"
        return None
    if not 1 <= puzzle.depth <= MAX_DEPTH:
        return f"depth {puzzle.depth} is past the solver's {MAX_DEPTH}"
    verdict = solver.solve(puzzle.position, puzzle.depth)
    if verdict.win is None:
        return "not a unique win within its depth" if verdict.win_depth else "no win"
    win = verdict.win
    if (win.theme, win.depth, win.line) != (puzzle.theme, puzzle.depth, puzzle.solution):
        return f"proved {win.theme} in {win.depth}: {' '.join(win.line)}"
    return None
