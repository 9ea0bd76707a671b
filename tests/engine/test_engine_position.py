"""Position strings (docs/rules.md §Position strings): read and written both ways, and
malformed ones refused with a message that says what is wrong."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brandubh.engine import Game, InvalidPosition, format_position, parse_position

Put = Callable[..., str]
ALL = ["nielsen", "federation", "common", "walker", "newsome"]
START = "3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3 a"
SQUARES = [f"{f}{r}" for r in range(1, 8) for f in "abcdefg"]


def test_the_put_helper_writes_the_start_as_the_rules_spell_it(put: Put) -> None:
    """The test helper itself: the start position as docs/rules.md §Position strings gives it."""
    start = "Ad7 Ad6 Dd5 Aa4 Ab4 Dc4 Kd4 De4 Af4 Ag4 Dd3 Ad2 Ad1"
    assert put(start, "a") == START
    assert put("", "d") == "7/7/7/7/7/7/7 d"
    assert put("Aa1 Dg7 Kd4", "a") == "6D/7/7/3K3/7/7/A6 a"


@pytest.mark.parametrize("ruleset", ALL)
def test_every_rule_set_starts_from_the_same_position(ruleset: str) -> None:
    """Start: king d4; defenders c4 e4 d3 d5; attackers a4 b4 f4 g4 d1 d2 d6 d7; attackers
    move first."""
    game = Game(ruleset)
    assert game.position == START
    assert game.side_to_move == "attackers"
    assert game.ply == 0
    assert game.moves == []
    assert game.result is None


@pytest.mark.parametrize(
    "position",
    [
        START,
        "3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3 d",
        "7/7/7/7/7/7/7 a",
        "K6/7/7/7/7/7/6A d",
        "AAAAAAA/DDDDDDD/7/3K3/7/1A1D1A1/A5D a",
        "6K/5A1/4D2/3A3/2D4/1A5/D6 d",
    ],
)
@pytest.mark.parametrize("ruleset", ALL)
def test_a_position_string_reads_and_writes_back(position: str, ruleset: str) -> None:
    """Position strings both ways: a canonical string comes back unchanged."""
    assert Game.from_position(position, ruleset).position == position
    assert format_position(*parse_position(position)) == position


def test_the_side_to_move_is_read() -> None:
    """The letter after the board is the side to move: a attackers, d defenders."""
    assert Game.from_position("3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3 d").side_to_move == "defenders"
    assert Game.from_position("3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3 a").side_to_move == "attackers"


def test_squares_are_placed_from_rank_seven_down_and_file_a_across(put: Put) -> None:
    """Ranks run 7 down to 1, files a to g left to right: a lone attacker on b2 moves from
    b2, and the king on f6 from f6."""
    game = Game.from_position("7/5K1/7/7/7/1A5/7 a")
    assert {m.origin for m in game.legal_moves()} == {"b2"}
    game.play("b2-b3")
    assert {m.origin for m in game.legal_moves()} == {"f6"}


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    placement=st.dictionaries(st.sampled_from(SQUARES), st.sampled_from("AD"), max_size=20),
    king=st.none() | st.sampled_from(SQUARES),
    side=st.sampled_from("ad"),
)
def test_random_boards_read_and_write_back(
    placement: dict[str, str], king: str | None, side: str, put: Put
) -> None:
    """Position strings both ways, for any arrangement of pieces."""
    pieces = {**placement, **({king: "K"} if king else {})}
    text = put(" ".join(kind + square for square, kind in pieces.items()), side)
    assert format_position(*parse_position(text)) == text
    assert Game.from_position(text, "newsome").position == text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "needs the board and the side to move"),
        ("3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3", "needs the board and the side to move"),
        ("3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3 a d", "needs the board and the side to move"),
        ("3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3 x", "side to move must be 'a' or 'd'"),
        ("3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3 A", "side to move must be 'a' or 'd'"),
        ("3A3/3A3/3D3/AADKDAA/3D3/3A3 a", "7 ranks"),
        ("3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3/7 a", "7 ranks"),
        ("3A3/3A3/3D3/AADKDAA/3D3/3A3/3A4 a", "rank 1"),
        ("3A3/3A3/3D3/AADKDAA/3D3/3A3/3A2 a", "rank 1"),
        ("3A3/3A3/3D3/AADKDAAA/3D3/3A3/3A3 a", "rank 4"),
        ("3A3/3A3/3D3/AADKDAA//3A3/3A3 a", "rank 3"),
        ("3B3/3A3/3D3/AADKDAA/3D3/3A3/3A3 a", "'B' in rank 7"),
        ("3a3/3A3/3D3/AADKDAA/3D3/3A3/3A3 a", "'a' in rank 7"),
        ("8/3A3/3D3/AADKDAA/3D3/3A3/3A3 a", "rank 7"),
        ("0A6/3A3/3D3/AADKDAA/3D3/3A3/3A3 a", "'0' in rank 7"),
        ("K6/3A3/3D3/AADKDAA/3D3/3A3/3A3 a", "more than one king"),
    ],
)
@pytest.mark.parametrize("ruleset", ["nielsen", "newsome"])
def test_a_malformed_position_is_refused_saying_why(text: str, message: str, ruleset: str) -> None:
    """Malformed position strings raise InvalidPosition naming the part that is wrong."""
    with pytest.raises(InvalidPosition) as info:
        Game.from_position(text, ruleset)
    assert message in str(info.value)
    with pytest.raises(InvalidPosition):
        parse_position(text)
