"""The analysis board's lines: each position stepped through the engine, or the first
illegal move named."""

from __future__ import annotations

import pytest

from brandubh.analysis import IllegalLineMove, walk
from brandubh.engine import START_POSITION, Game, InvalidPosition, UnknownRuleSet


def test_a_legal_line_gives_one_step_per_position() -> None:
    steps = walk("nielsen", None, ["d1-e1", "d3-e3", "e1-e2"])
    assert len(steps) == 4
    assert steps[0].position == START_POSITION and steps[0].move is None
    assert [s.turn for s in steps] == ["attackers", "defenders", "attackers", "defenders"]
    assert [s.move for s in steps[1:]] == ["d1-e1", "d3-e3", "e1-e2"]
    game = Game("nielsen")
    for step, move in zip(steps[1:], ["d1-e1", "d3-e3", "e1-e2"], strict=True):
        game.play(move)
        assert step.position == game.position
        assert list(step.legal) == game.legal_texts()
    assert all(s.result is None for s in steps)


def test_a_line_that_ends_the_game_says_how_and_offers_no_move() -> None:
    steps = walk("nielsen", "2K4/7/7/4A2/7/2D2A1/7 d", ["Kc7-a7"])
    assert steps[-1].result == ("defenders", "king_escaped")
    assert steps[-1].legal == ()
    assert steps[-1].to_dict()["result"] == {"winner": "defenders", "reason": "king_escaped"}


def test_moves_are_read_leniently_and_given_back_canonical() -> None:
    """The engine's reading: an x-suffix may be left out; the step names the capture."""
    steps = walk("nielsen", "7/7/7/3K3/1AD4/7/3A3 a", ["d1-d3", "d4-d5"])
    assert steps[1].move == "d1-d3xc3"
    assert steps[2].move == "Kd4-d5"


@pytest.mark.parametrize(
    ("moves", "index"),
    [(["d1-d2"], 0), (["d1-e1", "d3-e3", "e1-e1"], 2), (["d1-e1", "hello"], 1)],
)
def test_an_illegal_move_is_named_by_its_index(moves: list[str], index: int) -> None:
    with pytest.raises(IllegalLineMove) as caught:
        walk("nielsen", None, moves)
    assert caught.value.index == index
    assert caught.value.move == moves[index]
    assert str(caught.value).startswith(f"move {index + 1} ({moves[index]!r}) cannot be played")


def test_a_move_after_the_end_is_illegal() -> None:
    with pytest.raises(IllegalLineMove) as caught:
        walk("nielsen", "2K4/7/7/4A2/7/2D2A1/7 d", ["Kc7-a7", "e4-e5"])
    assert caught.value.index == 1


def test_a_bad_start_is_the_engines_error() -> None:
    with pytest.raises(InvalidPosition):
        walk("nielsen", "not a position", [])
    with pytest.raises(UnknownRuleSet):
        walk("chess", None, [])
