"""The engine's exceptions. Every one is a ValueError whose message says what was wrong.

EngineError (ValueError)
├── UnknownRuleSet        a rule set name that is not one of the five
├── InvalidPosition       a position string that cannot be read
├── IllegalMove           a move that cannot be played (catch this for all three below)
│   ├── InvalidMoveText   the text is not a move at all: "hello", "d1-d8", "d1-c1x"
│   ├── MoveNotLegal      a well-formed move the position does not allow, or a wrong K or x-suffix
│   └── GameOver          a move, or a second ending, after the game has ended
├── InvalidResult         a winner or reason that is not one of ours, or one the board decides
└── InvalidRecord         a game record that cannot be read, or does not replay
"""

from __future__ import annotations


class EngineError(ValueError):
    """Base of every error the engine raises."""


class UnknownRuleSet(EngineError):
    """A rule set name that is not one of the five."""


class InvalidPosition(EngineError):
    """A position string that is malformed or describes an impossible board."""


class IllegalMove(EngineError):
    """A move that cannot be played; the subclasses say why."""


class InvalidMoveText(IllegalMove):
    """Text that is not a move in our notation (docs/rules.md §Move text)."""


class MoveNotLegal(IllegalMove):
    """A well-formed move that the rules do not allow in this position."""


class GameOver(IllegalMove):
    """A move played, or an ending claimed, after the game has ended."""


class InvalidResult(EngineError):
    """A result whose winner or reason is not one the engine knows, or not the service's to give."""


class InvalidRecord(EngineError):
    """A game record that cannot be read, or whose moves or result do not replay."""
