"""The puzzle room's pure decisions, without servers: a move checked against the solution
(right with the defence's reply, solved, failed with the awaited move, refused when
illegal), a move that wins at once, the day's choice, an attempt as Redis keeps it, and
the Glicko-2 update an attempt's end makes."""

from __future__ import annotations

import pytest

from brandubh.hub.errors import Refusal
from brandubh.hub.puzzles import Attempt, rules
from brandubh.hub.puzzles.records import load_attempt
from brandubh.ratings import Rating, rate_game
from handmade_puzzles import handmade

ONE, TWO, _, CAPTURE = handmade()


def check(puzzle: object, ply: int, move: str) -> rules.Checked:
    return rules.check_move(puzzle.position, puzzle.ruleset, puzzle.solution, ply, move)  # type: ignore[attr-defined]


def test_the_solution_move_is_right_and_the_defence_replies() -> None:
    first = check(TWO, 0, "Kc3-c7")
    assert first.verdict == "right" and first.reply == "d4-d7" and first.played == "Kc3-c7"
    last = check(TWO, 2, "Kc7-a7")
    assert last.verdict == "solved" and last.reply is None
    assert last.game.result is not None and last.game.result.winner == "defenders"


def test_a_move_that_wins_at_once_is_right_too() -> None:
    # After Kc3-c7 d4-d7 the only escape is a7; the solution's move, written without K.
    assert check(TWO, 2, "c7-a7").verdict == "solved"
    assert check(ONE, 0, "b7-a7").verdict == "solved"


def test_a_capture_may_be_written_without_its_captures() -> None:
    solved = check(CAPTURE, 0, "e6-e7")
    assert solved.verdict == "solved" and solved.played == "e6-e7xd7"


def test_a_wrong_move_fails_and_names_the_awaited_one() -> None:
    failed = check(TWO, 0, "Kc3-c1")
    assert failed.verdict == "failed" and failed.expected == "Kc3-c7"
    assert failed.reply is None and failed.game.side_to_move == "attackers"


@pytest.mark.parametrize("move", ["Kc3-d5", "z9-z1", "c3-c8", "", "a" * 40])
def test_an_illegal_or_unreadable_move_is_refused(move: str) -> None:
    with pytest.raises(Refusal) as caught:
        check(TWO, 0, move)
    assert caught.value.code in ("illegal_move", "bad_field")


def test_a_winning_reply_is_found_when_there_is_one() -> None:
    # The king's wrong move leaves a7 and b7 open...; the attackers at a1 / g1 cannot win at
    # once here, so the refutation comes from the search instead (none found here).
    failed = check(TWO, 0, "Kc3-c1")
    assert rules.winning_reply(failed.game) is None
    # Attackers to move in the capture puzzle: e6-e7 captures the king.
    game = rules.replay(CAPTURE.position, CAPTURE.ruleset, ())
    assert rules.winning_reply(game) == "e6-e7xd7"
    assert game.result is None and game.ply == 0  # the search left the game as it was


def test_the_days_choice_is_the_same_for_any_order_and_changes_by_day() -> None:
    ids = [f"{n:010x}" for n in range(200)]
    day = rules.daily_choice("2026-12-07", ids)
    assert day == rules.daily_choice("2026-12-07", list(reversed(ids)))
    days = {rules.daily_choice(f"2026-12-{d:02}", ids) for d in range(1, 29)}
    assert len(days) > 20  # a different puzzle nearly every day
    assert rules.daily_choice("2026-12-07", []) is None
    assert rules.day_of(1796601600.0) == "2026-12-07"  # 00:00 UTC that day
    assert rules.day_of(1796601599.0) == "2026-12-06"


def test_the_side_and_prompt_follow_the_side_to_move() -> None:
    assert rules.solver_side(ONE.position, "nielsen") == "defenders"
    assert rules.solver_side(CAPTURE.position, "nielsen") == "attackers"
    assert rules.prompt("defenders") == "Find the best move for the defenders"


def test_an_attempt_is_kept_and_read_back() -> None:
    attempt = Attempt("0123456789", "streak", ply=2, streak=3, seen=("a", "b"))
    assert load_attempt(attempt.dump()) == attempt
    assert load_attempt(attempt.finished(False).dump()) == attempt.finished(False)
    for bad in (None, "", "[]", '{"mode": "blitz"}', '{"mode": "rated"}'):
        assert load_attempt(bad) is None


def test_an_attempts_end_moves_both_ratings_as_a_game() -> None:
    player, puzzle = Rating(), Rating(1400.0)
    won_player, won_puzzle = rate_game(player, puzzle, 1.0)
    assert won_player.rating > 1500 and won_puzzle.rating < 1400
    lost_player, lost_puzzle = rate_game(player, puzzle, 0.0)
    assert lost_player.rating < 1500 and lost_puzzle.rating > 1400
    # Beating an easier puzzle gains less than beating a harder one.
    assert rate_game(player, Rating(1000.0), 1.0)[0].rating < won_player.rating
