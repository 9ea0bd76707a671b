"""Puzzles, the service's side: a player's next puzzle near their puzzle rating, the day's
puzzle, streaks, and each move checked against the hidden solution (pure, rules.py), the
attempt and the routes' JSON shapes (records.py), rated once at its end (service.py)."""

from brandubh.hub.puzzles import rules
from brandubh.hub.puzzles.records import Answer, Attempt, PuzzleView, Standing, Started
from brandubh.hub.puzzles.service import THEMES, Puzzles

__all__ = ["THEMES", "Answer", "Attempt", "PuzzleView", "Puzzles", "Standing", "Started", "rules"]
