"""The engine's exception tree: as drawn in errors.py, and raised where each one belongs."""

from __future__ import annotations

import re

import pytest

from brandubh import engine
from brandubh.engine import (
    EngineError,
    Game,
    GameOver,
    IllegalMove,
    InvalidMoveText,
    InvalidRecord,
    InvalidResult,
    MoveNotLegal,
    Result,
    parse_record,
)
from brandubh.engine import errors as errors_module


def _drawn_tree() -> dict[str, str]:
    """Each class in the docstring's tree, mapped to the class drawn above it."""
    doc = errors_module.__doc__ or ""
    parents: dict[str, str] = {}
    stack: list[tuple[int, str]] = []
    for line in doc.splitlines():
        m = re.match(r"^((?:[│ ]   )*)(?:[├└]── )?([A-Z][A-Za-z]+)\b", line)
        if m is None or not (line.startswith(("EngineError", "│", "├", "└", " "))):
            continue
        depth = len(m.group(1)) // 4 + (1 if "── " in line else 0)
        name = m.group(2)
        while stack and stack[-1][0] >= depth:
            stack.pop()
        parents[name] = stack[-1][1] if stack else "ValueError"
        stack.append((depth, name))
    return parents


def test_the_docstring_draws_the_real_tree() -> None:
    """Every exception in errors.py appears in the drawing under its real base class."""
    drawn = _drawn_tree()
    real = {
        name: cls.__bases__[0].__name__
        for name, cls in vars(errors_module).items()
        if isinstance(cls, type) and issubclass(cls, Exception)
    }
    assert drawn == real


def test_every_engine_error_is_a_value_error_and_exported() -> None:
    """Callers that catch ValueError (or EngineError) keep catching every engine error."""
    for name, cls in vars(errors_module).items():
        if isinstance(cls, type) and issubclass(cls, Exception):
            assert issubclass(cls, EngineError) and issubclass(cls, ValueError), name
            assert getattr(engine, name) is cls, name


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("hello", InvalidMoveText),
        ("d1-d8", InvalidMoveText),
        ("d1-c1x", InvalidMoveText),
        ("d1-d4", MoveNotLegal),
        ("Kd1-c1", MoveNotLegal),
        ("d1-c1xc2", MoveNotLegal),
    ],
)
def test_bad_text_and_a_move_not_allowed_are_told_apart(text: str, kind: type[IllegalMove]) -> None:
    """Both are IllegalMove, so ``except IllegalMove`` catches either; each has its own type."""
    with pytest.raises(IllegalMove) as info:
        Game().play(text)
    assert type(info.value) is kind


def test_an_ended_game_raises_game_over_for_moves_and_endings() -> None:
    game = Game()
    game.play("d1-c1")
    game.finish(None, "draw_agreed")
    with pytest.raises(GameOver, match="over"):
        game.play("d3-e3")
    with pytest.raises(GameOver, match="cannot end again"):
        game.finish("attackers", "resignation")


@pytest.mark.parametrize(
    ("winner", "reason", "needle"),
    [("kings", "resignation", "winner must be"), ("attackers", "bored", "unknown reason")],
)
def test_a_result_that_is_not_ours_raises_invalid_result(
    winner: str, reason: str, needle: str
) -> None:
    with pytest.raises(InvalidResult, match=needle):
        Result(winner, reason)  # type: ignore[arg-type]


def test_a_record_with_an_unknown_reason_is_an_invalid_record() -> None:
    with pytest.raises(InvalidRecord, match="Reason header: unknown reason 'bored'"):
        parse_record('[Result "draw"]\n[Reason "bored"]\n\n')
