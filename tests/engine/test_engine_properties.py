"""Properties of random games in every rule set (hypothesis draws the move indices).

Round trips of records and position strings, replay determinism, snapshots that resume
identically, piece counts that never grow, no soldier on the throne (or, sliding, on a
corner), finished games that take no move, and push/pop that restores everything.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brandubh.engine import (
    ENGINE_REASONS,
    Game,
    GameOver,
    Record,
    format_position,
    format_record,
    parse_position,
    parse_record,
)

ALL = ["nielsen", "federation", "common", "walker", "newsome"]
CORNERS = {"a1", "a7", "g1", "g7"}
THRONE = "d4"

CHOICES = st.lists(st.integers(0, 1_000), min_size=1, max_size=120)
SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def pieces(position: str) -> dict[str, str]:
    """Square name -> piece letter, read from a position string (independently of the engine)."""
    out = {}
    for i, row in enumerate(position.split()[0].split("/")):
        file = 0
        for ch in row:
            if ch.isdigit():
                file += int(ch)
            else:
                out[f"{'abcdefg'[file]}{7 - i}"] = ch
                file += 1
    return out


def play_line(game: Game, choices: list[int], *, to_the_end: bool = False) -> Game:
    """Play the move at index ``choice % count`` for each choice (cycling through the choices
    again until the game ends, if ``to_the_end``)."""
    i = 0
    while game.result is None and (to_the_end or i < len(choices)):
        moves = game.legal_moves()
        game.play(moves[choices[i % len(choices)] % len(moves)])
        i += 1
    return game


def state(game: Game) -> tuple[object, ...]:
    return (
        game.position,
        game.side_to_move,
        game.ply,
        game.repetitions,
        game.result,
        game.legal_moves(),
        game.board.hash,
    )


@pytest.mark.parametrize("ruleset", ALL)
@SETTINGS
@given(choices=CHOICES)
def test_records_and_positions_round_trip(ruleset: str, choices: list[int]) -> None:
    """Record text -> record -> text is identical; record -> text -> record is equal; the
    replay reaches the same game; the position string reads back unchanged."""
    game = play_line(Game(ruleset), choices)
    record = Record.from_game(game, attackers="ann", defenders="bo")
    text = format_record(record)
    assert parse_record(text) == record
    assert format_record(parse_record(text)) == text
    replayed = parse_record(text).replay()
    assert (replayed.position, replayed.result, replayed.moves) == (
        game.position,
        game.result,
        game.moves,
    )
    position = game.position
    assert format_position(*parse_position(position)) == position
    fresh = Game.from_position(position, ruleset)
    assert fresh.position == position
    assert fresh.board.hash == game.board.hash
    if game.result is None:
        assert fresh.legal_moves() == game.legal_moves()


@pytest.mark.parametrize("ruleset", ALL)
@SETTINGS
@given(choices=CHOICES)
def test_replay_is_deterministic(ruleset: str, choices: list[int]) -> None:
    """The same moves from the same start give the same positions, captures and result."""

    def trace(game: Game) -> list[tuple[object, ...]]:
        out: list[tuple[object, ...]] = []
        for choice in choices:
            if game.result is not None:
                break
            moves = game.legal_moves()
            played = game.play(str(moves[choice % len(moves)]))
            out.append((played, game.position, game.repetitions, game.result))
        return out

    assert trace(Game(ruleset)) == trace(Game(ruleset))


@pytest.mark.parametrize("ruleset", ALL)
@SETTINGS
@given(choices=CHOICES, split=st.integers(0, 120))
def test_a_snapshot_resumes_identically(ruleset: str, choices: list[int], split: int) -> None:
    """snapshot()/from_snapshot(): the resumed game is in the same state and stays so."""
    game = play_line(Game(ruleset), choices[:split])
    resumed = Game.from_snapshot(game.snapshot())
    assert state(resumed) == state(game)
    for choice in choices[split:]:
        if game.result is not None:
            break
        moves = game.legal_moves()
        move = moves[choice % len(moves)]
        assert resumed.play(str(move)) == game.play(str(move))
        assert state(resumed) == state(game)
        assert resumed.snapshot() == game.snapshot()


def test_a_snapshot_keeps_the_repetition_count() -> None:
    """A game resumed halfway through a repetition still sees the third occurrence."""
    game = Game.from_position("7/5K1/2D4/7/7/1A5/7 a", "federation")
    cycle = ["b2-b3", "Kf6-f5", "b3-b2", "Kf5-f6"]
    for move in cycle + cycle[:2]:
        game.play(move)
    resumed = Game.from_snapshot(game.snapshot())
    for move in cycle[2:]:
        game.play(move)
        resumed.play(move)
    assert resumed.repetitions == game.repetitions == 3
    assert resumed.result == game.result
    assert resumed.result is not None
    assert resumed.result.reason == "repetition"


@pytest.mark.parametrize("split", [1, 2])
def test_a_snapshot_keeps_the_woods_count(split: int, put: Callable[..., str]) -> None:
    """newsome: a game resumed while a prince stands on a corner loses him on the same ply."""
    moves = ["b2-a1", "g5-g4", "f3-f2"]
    game = Game.from_position(put("Db2 Df3 Kd6 Ag5", "d"), "newsome")
    for move in moves[:split]:
        game.play(move)
    resumed = Game.from_snapshot(game.snapshot())
    for move in moves[split:]:
        game.play(move)
        resumed.play(move)
        assert state(resumed) == state(game)
    assert pieces(resumed.position) == {"d6": "K", "g4": "A", "f2": "D"}


@pytest.mark.parametrize("ruleset", ALL)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(choices=CHOICES)
def test_invariants_in_every_ply_of_a_whole_game(ruleset: str, choices: list[int]) -> None:
    """Played to its end: piece counts never grow, captures remove exactly the pieces named
    (newsome: plus a prince lost in the woods), no piece but the king stands on the throne
    or (sliding) a corner, the hash is that of the position, and the finished game has no
    legal move and takes none."""
    slide = ruleset != "newsome"
    game = Game(ruleset)
    before = pieces(game.position)
    i = 0
    while game.result is None:
        moves = game.legal_moves()
        assert moves
        move = game.play(moves[choices[i % len(choices)] % len(moves)])
        i += 1
        after = pieces(game.position)
        for kind in "ADK":
            assert sum(p == kind for p in after.values()) <= sum(p == kind for p in before.values())
        assert len(after) <= len(before)
        gone = set(before) - set(after) - {move.origin}
        if slide:
            assert gone == set(move.captures)
        else:
            assert set(move.captures) <= {move.destination}
            assert gone <= CORNERS
            assert all(before[sq] == "D" for sq in gone)
        assert after.get(THRONE, "K") == "K"
        if slide:
            assert all(after.get(corner, "K") == "K" for corner in CORNERS)
        assert sum(p == "K" for p in after.values()) <= 1
        assert game.board.hash == Game.from_position(game.position, ruleset).board.hash
        assert game.ply == i <= 400
        before = after
    assert game.result is not None
    assert game.result.reason in ENGINE_REASONS
    assert game.legal_moves() == []
    with pytest.raises(GameOver, match="over"):
        game.play(str(game.moves[-1]))


@pytest.mark.parametrize("ruleset", ALL)
@SETTINGS
@given(choices=CHOICES)
def test_push_and_pop_restore_everything(ruleset: str, choices: list[int]) -> None:
    """push/pop (and play/pop) of every legal move restore position, hash, ply, counts and
    result."""
    game = play_line(Game(ruleset), choices)
    before = state(game)
    moves, ply = game.moves, game.ply
    for move in game.legal_moves():
        game.push(move.code)
        assert game.ply == ply + 1
        game.pop()
        assert state(game) == before
        game.play(move)
        game.pop()
        assert state(game) == before
        assert game.moves == moves


@pytest.mark.parametrize("ruleset", ALL)
@SETTINGS
@given(choices=CHOICES)
def test_legal_texts_match_the_legal_moves_after_play_pop_and_resume(
    ruleset: str, choices: list[int]
) -> None:
    """The cached text of the legal moves is always that of ``legal_moves`` for the position
    the game is at now: after each move, after taking one back, and in a resumed game."""
    game = Game(ruleset)
    for choice in choices:
        if game.result is not None:
            break
        assert game.legal_texts() == [str(m) for m in game.legal_moves()]
        before = game.legal_texts()
        game.play(game.legal_moves()[choice % len(game.legal_moves())])
        if game.result is None:
            assert game.legal_texts() == [str(m) for m in game.legal_moves()]
        game.pop()
        assert game.legal_texts() == before
        assert game.position == game.board.position
        game.play(game.legal_moves()[choice % len(game.legal_moves())])
    resumed = Game.from_snapshot(game.snapshot())
    assert resumed.legal_texts() == game.legal_texts()
    assert resumed.position == game.position
