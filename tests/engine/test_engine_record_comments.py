"""Comments in records: written and read back exactly, read leniently, refused clearly."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from brandubh.engine import Game, InvalidRecord, Record, format_record, parse_record


def game_record(plies: int, defenders_first: bool = False) -> Record:
    position = "3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3 " + ("d" if defenders_first else "a")
    game = Game("nielsen", position)
    for i in range(plies):
        texts = game.legal_texts()
        game.play(texts[(5 * i + 1) % len(texts)])
    return Record.from_game(game)


WORD = st.text(
    alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zs"), blacklist_characters="{}"),
    min_size=1,
    max_size=12,
).filter(lambda w: w.split() == [w])
COMMENT = st.lists(WORD, min_size=1, max_size=20).map(" ".join)


@given(
    st.integers(0, 12),
    st.booleans(),
    st.dictionaries(st.integers(0, 12), COMMENT, max_size=8),
)
def test_comments_round_trip_exactly(
    plies: int, defenders_first: bool, found: dict[int, str]
) -> None:
    record = game_record(plies, defenders_first)
    comments = tuple(sorted((p, c) for p, c in found.items() if p <= len(record.moves)))
    record = replace(record, comments=comments)
    text = format_record(record)
    assert parse_record(text) == record
    assert format_record(parse_record(text)) == text
    assert all(len(line) <= 80 or " " not in line for line in text.splitlines())


def test_a_defenders_move_after_a_comment_carries_its_number() -> None:
    record = replace(game_record(4), comments=((1, "first"), (4, "last")))
    moves = record.moves
    text = format_record(record)
    assert f"1. {moves[0]} {{first}} 1... {moves[1]} 2. {moves[2]} {moves[3]} {{last}}" in text


def test_no_comments_write_what_they_wrote_before() -> None:
    record = game_record(6)
    moves = record.moves
    assert format_record(record).endswith(
        f"1. {moves[0]} {moves[1]} 2. {moves[2]} {moves[3]} 3. {moves[4]} {moves[5]}\n"
    )


def test_reading_is_lenient() -> None:
    text = '[Ruleset "nielsen"]\n\n{ before }1.d1-e1{ a\n   b }{c} d3-e3 {} 2. e1-e2\n'
    record = parse_record(text)
    assert record.moves == ("d1-e1", "d3-e3", "e1-e2")
    assert record.comments == ((0, "before"), (1, "a b c"))


@pytest.mark.parametrize(
    ("moves", "message"),
    [
        ("1. d1-e1 {never closed", "a comment opened after move 1 is not closed by }"),
        ("1. d1-e1 } d3-e3", "a } after move 1 closes no comment"),
        ("1. d1-e1 {a {b}}", "a comment opened after move 1 is not closed by }"),
    ],
)
def test_unbalanced_braces_are_refused_naming_the_move(moves: str, message: str) -> None:
    with pytest.raises(InvalidRecord, match=message):
        parse_record(f'[Ruleset "nielsen"]\n\n{moves}\n')


@pytest.mark.parametrize(
    "comments",
    [
        ((1, "two  spaces"),),
        ((1, " padded"),),
        ((1, "a {brace}"),),
        ((1, ""),),
        ((2, "x"), (1, "y")),
        ((1, "x"), (1, "y")),
        ((5, "past the end"),),
    ],
)
def test_a_comment_that_would_not_read_back_is_refused(
    comments: tuple[tuple[int, str], ...],
) -> None:
    with pytest.raises(InvalidRecord, match="comment at ply"):
        format_record(replace(game_record(2), comments=comments))
