"""The analysis board's lines: play moves from a position under a rule set's rules.

``walk`` gives one ``Step`` per position of a line (the start, then one per move) with what
the board needs to show it; ``replay`` gives the engine's ``Game`` at the line's end. Both
raise ``IllegalLineMove`` naming the index of the first move that cannot be played.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from brandubh.engine import Game, IllegalMove, Side

__all__ = ["IllegalLineMove", "Step", "play_move", "replay", "start_game", "walk"]


class IllegalLineMove(ValueError):
    """A move of a line that cannot be played; ``index`` counts from 0."""

    def __init__(self, index: int, move: str, reason: str) -> None:
        super().__init__(f"move {index + 1} ({move!r}) cannot be played: {reason}")
        self.index = index
        self.move = move
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Step:
    """One position of a line: its text, the side to move, the legal moves, the result."""

    position: str
    turn: Side
    legal: tuple[str, ...]
    result: tuple[Side | None, str] | None  # (winner or None for a draw, reason)
    move: str | None = None  # the canonical text of the move that led here (None at the start)

    def to_dict(self) -> dict[str, object]:
        result = self.result
        return {
            "position": self.position,
            "turn": self.turn,
            "legal": list(self.legal),
            "result": None if result is None else {"winner": result[0], "reason": result[1]},
            "move": self.move,
        }


def _step(game: Game, move: str | None) -> Step:
    result = game.result
    return Step(
        position=game.position,
        turn=game.side_to_move,
        legal=tuple(game.legal_texts()),
        result=None if result is None else (result.winner, result.reason),
        move=move,
    )


def start_game(ruleset: str, position: str | None) -> Game:
    """The line's first position; the engine's error (UnknownRuleSet, InvalidPosition) if not."""
    return Game(ruleset) if position is None else Game(ruleset, position)


def play_move(game: Game, index: int, text: str) -> str:
    """Play move ``index`` of a line; its canonical text, or IllegalLineMove."""
    try:
        return str(game.play(text))
    except IllegalMove as exc:
        raise IllegalLineMove(index, text, str(exc)) from exc


def replay(ruleset: str, position: str | None, moves: Sequence[str]) -> Game:
    """The game after ``moves`` from ``position`` (the rule set's start if None)."""
    game = start_game(ruleset, position)
    for index, text in enumerate(moves):
        play_move(game, index, text)
    return game


def walk(ruleset: str, position: str | None, moves: Sequence[str]) -> list[Step]:
    """Each position of the line: the start, then one step per move (canonical move texts)."""
    game = start_game(ruleset, position)
    steps = [_step(game, None)]
    for index, text in enumerate(moves):
        steps.append(_step(game, play_move(game, index, text)))
    return steps
