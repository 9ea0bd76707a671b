"""The solver: hand-built positions with known answers under each rule set, uniqueness, the
defend theme, and agreement with plain minimax on the engine (tests/puzzles/brute.py)."""

from __future__ import annotations

import random

import puzzle_brute as brute
import pytest

from brandubh.engine import Game
from brandubh.puzzles.solver import SUPPORTED, Solver, UnsupportedRuleSet
from positions import put


@pytest.mark.parametrize("ruleset", SUPPORTED)
def test_escape_in_one_with_one_way_out(ruleset: str) -> None:
    verdict = Solver(ruleset).solve(put("Kc7 Ae7 Ad1 Ag3", "d"), 3)
    assert verdict.win is not None
    assert (verdict.win.theme, verdict.win.depth, verdict.win.line) == ("escape", 1, ("Kc7-a7",))


@pytest.mark.parametrize("ruleset", SUPPORTED)
def test_two_winning_moves_are_not_a_puzzle(ruleset: str) -> None:
    verdict = Solver(ruleset).solve(put("Kc7 Ad1 Ag3", "d"), 3)
    assert verdict.win_depth == 1
    assert verdict.win is None and verdict.ambiguous
    assert sorted(Solver(ruleset).winning_moves(put("Kc7 Ad1 Ag3", "d"), 1)) == [
        "Kc7-a7",
        "Kc7-g7",
    ]


def test_escape_in_two_and_three() -> None:
    two = Solver("nielsen").solve("7/2D4/2A4/1A5/2K1A2/6D/4A2 d", 3)
    assert two.win is not None
    assert two.win.line == ("Kc3-a3", "b4-a4", "Ka3-a1")
    three = Solver("nielsen").solve("3A3/1A3A1/7/1D1K2A/7/2A4/2D4 d", 3)
    assert three.win is not None and three.win.depth == 3
    assert three.win.line == ("Kd4-d1", "f6-f1", "Kd1-e1xf1", "b6-a6", "Ke1-g1")
    # Not within two, so the depth is the shortest win.
    assert Solver("nielsen").win_depth("3A3/1A3A1/7/1D1K2A/7/2A4/2D4 d", 2) is None


def test_capture_in_two() -> None:
    verdict = Solver("nielsen").solve("4AA1/7/7/7/2A2A1/5K1/7 a", 3)
    assert verdict.win is not None
    assert (verdict.win.theme, verdict.win.line) == ("capture", ("e7-e2", "Kf2-f1", "e2-e1xf1"))


@pytest.mark.parametrize(
    ("ruleset", "line"),
    [("nielsen", None), ("federation", None), ("common", ("e2-e5xd5",)), ("walker", ("e2-e5xd5",))],
)
def test_the_king_beside_the_throne_by_the_rule_set(
    ruleset: str, line: tuple[str, ...] | None
) -> None:
    """Two attackers take the king beside the throne under common and walker; nielsen and
    federation need three."""
    verdict = Solver(ruleset).solve(put("Kd5 Ac5 Ae2 Ag1 Aa2", "a"), 2)
    assert (verdict.win.line if verdict.win else None) == line


@pytest.mark.parametrize(
    ("ruleset", "taken"),
    [("nielsen", False), ("federation", False), ("common", False), ("walker", True)],
)
def test_the_king_on_the_throne_by_the_rule_set(ruleset: str, taken: bool) -> None:
    verdict = Solver(ruleset).solve(put("Kd4 Ac4 Ae2 Ag1 Aa2 Ad6", "a"), 2)
    assert (verdict.win_depth == 1) is taken


@pytest.mark.parametrize("ruleset", SUPPORTED)
def test_the_king_against_the_edge(ruleset: str) -> None:
    verdict = Solver(ruleset).solve(put("Ka4 Aa5 Ac3 Af6", "a"), 2)
    assert verdict.win is not None and verdict.win.line == ("c3-a3xa4",)


def test_no_win_within_the_depth() -> None:
    position = "7/3A3/6A/3K1D1/4A2/4A2/7 a"
    assert Solver("nielsen").solve(position, 3).win_depth is None
    assert not brute.wins(Game.from_position(position, "nielsen"), 2)


def test_the_one_move_that_holds() -> None:
    position = "1DD4/5A1/7/7/7/1K5/3A3 a"
    hold = Solver("nielsen").defend(position, 2)
    assert hold is not None and hold.move == "f6-f3"
    assert brute.holding_moves(Game.from_position(position, "nielsen"), 2) == ["f6-f3"]


def test_newsome_is_refused() -> None:
    with pytest.raises(UnsupportedRuleSet, match="woods"):
        Solver("newsome")


@pytest.mark.parametrize("ruleset", SUPPORTED)
def test_the_solver_agrees_with_plain_minimax(ruleset: str) -> None:
    """Every move's verdict at depths 1 and 2, and the defence's one holding move, on
    seeded random late-game positions."""
    solver = Solver(ruleset)
    rng = random.Random(f"brute:{ruleset}")
    checked = wins = 0
    while checked < 30:
        position = brute.late_position(ruleset, rng)
        if position is None:
            continue
        checked += 1
        game = Game.from_position(position, ruleset)
        for depth in (1, 2):
            found = sorted(solver.winning_moves(position, depth))
            assert found == sorted(brute.winning_moves(game, depth)), (position, depth)
            wins += bool(found)
        hold = solver.defend(position, 1)
        if hold is not None:
            assert brute.holding_moves(game, 1) == [hold.move], position
    assert 0 < wins < 2 * checked  # both answers occurred


def test_a_line_with_two_answers_later_is_not_a_puzzle() -> None:
    """One move wins in two here, but after the defence's reply the king has two ways out."""
    position = "2A4/6A/3A3/D2KA2/7/7/7 d"
    game = Game.from_position(position, "nielsen")
    [first] = brute.winning_moves(game, 2)
    assert Solver("nielsen").winning_moves(position, 2) == [first]
    verdict = Solver("nielsen").solve(position, 3)
    assert verdict.win_depth == 2 and verdict.win is None and verdict.ambiguous


@pytest.mark.parametrize(
    ("ruleset", "line"),
    [("nielsen", None), ("federation", ("b5-b2",)), ("common", ("b5-b2",)), ("walker", None)],
)
def test_a_side_left_without_a_move(ruleset: str, line: tuple[str, ...] | None) -> None:
    """Shutting in the last attacker wins under federation and common, draws under nielsen
    and walker (where it is no win)."""
    position = put("Ab1 Dc1 Db5 Kd4", "d")
    verdict = Solver(ruleset).solve(position, 1)
    assert (verdict.win.line if verdict.win else None) == line
    if verdict.win:
        assert verdict.win.reason == "no_legal_moves"
    game = Game.from_position(position, ruleset)
    assert brute.winning_moves(game, 1) == list(line or ())
