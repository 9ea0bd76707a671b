"""The engine's exceptions. Every one is a ValueError whose message says what was wrong.

EngineError (ValueError)
├── UnknownRuleSet
├── InvalidPosition
├── IllegalMove
└── InvalidRecord
"""

from __future__ import annotations


class EngineError(ValueError):
    """Base of every error the engine raises."""


class UnknownRuleSet(EngineError):
    """A rule set name that is not one of the five."""


class InvalidPosition(EngineError):
    """A position string that is malformed or describes an impossible board."""


class IllegalMove(EngineError):
    """A move that is malformed, not legal here, or played after the game ended."""


class InvalidRecord(EngineError):
    """A game record that cannot be read, or whose moves or result do not replay."""
