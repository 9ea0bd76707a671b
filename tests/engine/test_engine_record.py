"""Game records: written and read back exactly, replayed to the same game, and refused with a
message naming the move or result that does not hold."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from brandubh.engine import (
    Game,
    InvalidRecord,
    Record,
    Result,
    Side,
    format_record,
    parse_record,
)

Put = Callable[..., str]
ALL = ["nielsen", "federation", "common", "walker", "newsome"]


def sample_game(ruleset: str, plies: int = 30) -> Game:
    """A deterministic game: each ply plays the legal move at a shifting index."""
    game = Game(ruleset)
    for i in range(plies):
        moves = game.legal_moves()
        if not moves:
            break
        game.play(moves[(7 * i + 3) % len(moves)])
    return game


def finished_game(put: Put, ruleset: str = "nielsen") -> Game:
    """A short game the defenders win: the king runs to g7 on the second move."""
    game = Game.from_position(put("Kc6 Dc2 Ae5 Af2", "d"), ruleset)
    for move in ("Kc6-g6", "e5-e4", "Kg6-g7"):
        game.play(move)
    assert game.result == Result("defenders", "king_escaped")
    return game


@pytest.mark.parametrize("ruleset", ALL)
def test_text_to_record_to_text_is_identical(ruleset: str) -> None:
    """format_record then parse_record then format_record gives the same text."""
    record = Record.from_game(
        sample_game(ruleset),
        game_id="g-0001",
        attackers="ann",
        defenders="bo",
        start="2026-11-30T16:39:03Z",
        commitment="ab" * 32,
        seed="cd" * 16,
    )
    text = format_record(record)
    again = parse_record(text)
    assert again == record
    assert format_record(again) == text


def test_a_finished_game_round_trips_with_its_result(put: Put) -> None:
    """The result and its reason are part of the record and come back."""
    record = Record.from_game(finished_game(put))
    assert record.result == Result("defenders", "king_escaped")
    assert record.moves == ("Kc6-g6", "e5-e4", "Kg6-g7")
    text = format_record(record)
    assert parse_record(text) == record
    assert format_record(parse_record(text)) == text


def test_header_values_with_quotes_and_backslashes_round_trip() -> None:
    """Header values are escaped on the way out and unescaped on the way in."""
    record = Record(attackers='a "quoted" name', defenders="back\\slash", extra=(("Site", "x"),))
    text = format_record(record)
    assert parse_record(text) == record
    assert format_record(parse_record(text)) == text


@pytest.mark.parametrize("ruleset", ALL)
def test_replay_gives_the_same_game(ruleset: str) -> None:
    """Record.from_game(...).replay() reaches the same position, moves and result."""
    game = sample_game(ruleset, plies=60)
    replayed = Record.from_game(game).replay()
    assert replayed.position == game.position
    assert replayed.result == game.result
    assert replayed.moves == game.moves
    assert replayed.ply == game.ply


def test_a_record_from_a_position_with_the_defenders_to_move(put: Put) -> None:
    """A record keeps its start position (the defenders moving first) and replays from it."""
    game = finished_game(put, "common")
    record = Record.from_game(game)
    assert record.position == put("Kc6 Dc2 Ae5 Af2", "d")
    text = format_record(record)
    assert parse_record(text) == record
    replayed = parse_record(text).replay()
    assert replayed.position == game.position
    assert replayed.result == game.result


@pytest.mark.parametrize(
    ("winner", "reason"),
    [("attackers", "timeout"), ("defenders", "resignation"), (None, "draw_agreed")],
)
def test_an_ending_the_service_recorded_replays(winner: Side | None, reason: str) -> None:
    """Decision 6: a record ending by deadline, resignation or agreement replays to it."""
    game = sample_game("nielsen", plies=10)
    game.finish(winner, reason)
    record = parse_record(format_record(Record.from_game(game)))
    assert record.result == game.result
    assert record.replay().result == game.result


def test_a_changed_move_is_refused_naming_it() -> None:
    """A record with a move that is not legal there raises InvalidRecord naming the ply."""
    record = Record.from_game(sample_game("nielsen", plies=8))
    moves = list(record.moves)
    moves[4] = "a4-a1"
    with pytest.raises(InvalidRecord) as info:
        replace(record, moves=tuple(moves)).replay()
    assert "ply 5" in str(info.value)
    assert "a4-a1" in str(info.value)
    assert "a1 is a corner" in str(info.value)


def test_a_changed_move_in_the_text_is_refused_naming_it(put: Put) -> None:
    """The same, from a record's text: the changed move is named; a changed move that is
    still legal shows as a result that no longer follows."""
    text = format_record(Record.from_game(finished_game(put)))
    assert "Kg6-g7" in text
    with pytest.raises(InvalidRecord, match=r"ply 3 \(2\.\.\. Kg6-e4\)"):
        parse_record(text.replace("Kg6-g7", "Kg6-e4")).replay()
    with pytest.raises(InvalidRecord, match=r"ply 2 \(2\. e5-f6\)"):
        parse_record(text.replace("e5-e4", "e5-f6")).replay()
    with pytest.raises(InvalidRecord, match="king_escaped"):
        parse_record(text.replace("Kg6-g7", "Kg6-g5")).replay()


def test_a_wrong_capture_suffix_in_a_record_is_refused(put: Put) -> None:
    """A record's capture suffix must match the real captures."""
    game = Game.from_position(put("Ab1 Dd1 Kf5 Af7", "d"))
    game.play("d1-c1")
    record = Record.from_game(game)
    assert record.moves == ("d1-c1xb1",)
    with pytest.raises(InvalidRecord, match="d1-c1xb2"):
        replace(record, moves=("d1-c1xb2",)).replay()


def test_a_wrong_result_is_refused_naming_it(put: Put) -> None:
    """A record whose result does not follow from its moves raises InvalidRecord naming it."""
    game = finished_game(put)
    record = Record.from_game(game)
    with pytest.raises(InvalidRecord, match=r"attackers win \(king_captured\)"):
        record.with_result(Result("attackers", "king_captured")).replay()
    with pytest.raises(InvalidRecord, match="king_escaped"):
        record.with_result(None).replay()
    with pytest.raises(InvalidRecord, match="resignation"):
        record.with_result(Result("attackers", "resignation")).replay()
    running = Record.from_game(sample_game("walker", plies=6))
    with pytest.raises(InvalidRecord, match="draw"):
        running.with_result(Result(None, "repetition")).replay()
    assert record.replay().result == game.result


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[Ruleset "chess"]\n\n', "chess"),
        ('[Ruleset "nielsen"\n\n', "line 1"),
        ('[Ruleset "nielsen"]\n[Result "attackers"]\n\n', "Reason"),
        ('[Ruleset "nielsen"]\n[Result "nobody"]\n[Reason "timeout"]\n\n', "nobody"),
        ('[Ruleset "nielsen"]\n[Result "draw"]\n[Reason "boredom"]\n\n', "boredom"),
        ('[Ruleset "nielsen"]\n[Ruleset "walker"]\n\n', "twice"),
    ],
)
def test_an_unreadable_record_is_refused_saying_why(text: str, message: str) -> None:
    """A record that cannot be read raises InvalidRecord naming the problem."""
    with pytest.raises(InvalidRecord, match=message):
        parse_record(text)


def test_a_record_with_an_invalid_start_position_is_refused() -> None:
    """A record's start position must load."""
    with pytest.raises(InvalidRecord, match="start"):
        Record(position="3A3/3A3 a").replay()
