"""The shipped puzzle set: enough puzzles, every theme, and a deterministic sample proved
again by the solver and, independently, by plain minimax on the engine (every line is
proved by ``python bench/puzzles.py --prove-all``)."""

from __future__ import annotations

import collections

import puzzle_brute as brute

from brandubh.puzzles import SUPPORTED_RULESETS, Puzzle, Solver, load_shipped, prove_puzzle


def sample(puzzles: list[Puzzle], size: int) -> list[Puzzle]:
    """Every k-th puzzle by id: the same sample on every run."""
    ordered = sorted(puzzles, key=lambda p: p.id)
    step = max(1, len(ordered) // size)
    return ordered[::step][:size]


def test_the_set_has_every_supported_rule_set_and_theme() -> None:
    puzzles = load_shipped()
    by_ruleset = collections.Counter(p.ruleset for p in puzzles)
    assert set(by_ruleset) == set(SUPPORTED_RULESETS)
    assert by_ruleset["nielsen"] >= 150
    nielsen = [p for p in puzzles if p.ruleset == "nielsen"]
    assert {p.theme for p in nielsen} == {"escape", "capture", "defend"}
    assert {p.depth for p in nielsen if p.theme != "defend"} >= {1, 2, 3}
    assert len({(p.ruleset, p.id) for p in puzzles}) == len(puzzles)


def test_a_sample_is_proved_again() -> None:
    puzzles = list(load_shipped())
    solvers = {rs: Solver(rs) for rs in SUPPORTED_RULESETS}
    checked = sample(puzzles, 30)
    assert [prove_puzzle(p, solvers[p.ruleset]) for p in checked] == [None] * len(checked)


def test_plain_minimax_finds_no_second_solution_and_no_false_win() -> None:
    """Wins in one and two, and defences at horizon one, of a sample: the recorded first
    move is the only one, and no shorter win exists."""
    puzzles = [p for p in load_shipped() if p.theme != "defend" and p.depth <= 2]
    for puzzle in sample(puzzles, 6):
        game = puzzle.game()
        assert brute.winning_moves(game, puzzle.depth) == [puzzle.solution[0]], puzzle.id
        if puzzle.depth > 1:
            assert not brute.wins(game, puzzle.depth - 1), puzzle.id
