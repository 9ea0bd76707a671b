"""Puzzle records: written and read back exactly; a wrong line refused naming the field."""

from __future__ import annotations

import json

import pytest

from brandubh.engine import Game
from brandubh.puzzles import InvalidPuzzle, Puzzle, format_puzzle, parse_puzzle, puzzle_id


def a_puzzle() -> Puzzle:
    game = Game()
    position = game.position
    first = game.legal_texts()[0]
    game.play(first)
    reply = game.legal_texts()[-1]
    return Puzzle(
        id=puzzle_id("nielsen", position),
        ruleset="nielsen",
        position=position,
        solution=(first, reply),
        theme="escape",
        depth=1,
        source="selfplay:1:0",
        rating=1612.4,
    )


def test_a_puzzle_round_trips() -> None:
    puzzle = a_puzzle()
    line = format_puzzle(puzzle)
    assert "\n" not in line
    assert parse_puzzle(line) == puzzle


def test_the_id_is_the_position_under_its_rules() -> None:
    position = Game().position
    assert puzzle_id("nielsen", position) != puzzle_id("common", position)
    assert puzzle_id("nielsen", position) == puzzle_id("nielsen", position)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"theme": "mate"}, "theme"),
        ({"depth": 0}, "depth"),
        ({"depth": True}, "depth"),
        ({"solution": []}, "solution"),
        ({"solution": ["zz-zz"]}, "does not replay"),
        ({"rating": "high"}, "rating"),
        ({"ruleset": ""}, "ruleset"),
        ({"id": "0000000000"}, "id"),
    ],
)
def test_a_wrong_field_is_named(change: dict[str, object], named: str) -> None:
    raw = json.loads(format_puzzle(a_puzzle()))
    raw.update(change)
    with pytest.raises(InvalidPuzzle, match=named):
        parse_puzzle(json.dumps(raw))


def test_a_line_that_is_not_a_record_is_refused() -> None:
    with pytest.raises(InvalidPuzzle, match="JSON"):
        parse_puzzle("[1, 2]")
    raw = json.loads(format_puzzle(a_puzzle()))
    del raw["source"]
    with pytest.raises(InvalidPuzzle, match="lacks source"):
        parse_puzzle(json.dumps(raw))
