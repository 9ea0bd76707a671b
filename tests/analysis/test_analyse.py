"""A game's analysis: deterministic, judged from its mover's side, proved wins named."""

from __future__ import annotations

import json
import random

import pytest

from brandubh.analysis import (
    ANALYSIS_VERSION,
    Forced,
    GameAnalysis,
    IllegalLineMove,
    PositionEval,
    SideSummary,
    analyse_game,
    evaluate_position,
)
from brandubh.analysis import analyse as analyse_module
from brandubh.engine import Game, InvalidPosition, UnknownRuleSet

NODES = 3_000  # small: the tests check the bookkeeping, not the bot's strength


def sample_moves(ruleset: str, plies: int, seed: int) -> list[str]:
    """A game of seeded random moves (it may end before ``plies``)."""
    rng, game = random.Random(seed), Game(ruleset)
    while game.result is None and game.ply < plies:
        game.play(rng.choice(game.legal_texts()))
    return [str(m) for m in game.moves]


@pytest.mark.parametrize("ruleset", ["nielsen", "walker", "newsome"])
def test_the_same_game_analysed_twice_gives_the_same_analysis(ruleset: str) -> None:
    moves = sample_moves(ruleset, 14, seed=7)
    first = analyse_game(ruleset, moves, nodes=NODES).to_dict()
    second = analyse_game(ruleset, moves, nodes=NODES).to_dict()
    assert first == second
    assert json.loads(json.dumps(first)) == first  # plain JSON, nothing lost on the way
    assert first["version"] == ANALYSIS_VERSION and first["nodes"] == NODES
    assert [p["move"] for p in first["plies"]] == moves


def test_the_json_reads_back_to_the_same_analysis() -> None:
    analysis = analyse_game("nielsen", sample_moves("nielsen", 10, seed=3), nodes=NODES)
    assert GameAnalysis.from_dict(json.loads(json.dumps(analysis.to_dict()))) == analysis


def test_progress_is_reported_after_each_ply() -> None:
    moves = sample_moves("common", 6, seed=1)
    seen: list[tuple[int, int]] = []
    analyse_game("common", moves, nodes=NODES, on_ply=lambda done, of: seen.append((done, of)))
    assert seen == [(i, len(moves)) for i in range(1, len(moves) + 1)]


def test_an_illegal_move_is_refused_naming_its_index() -> None:
    with pytest.raises(IllegalLineMove) as caught:
        analyse_game("nielsen", ["d1-e1", "d1-e1"], nodes=NODES)
    assert caught.value.index == 1
    assert "move 2" in str(caught.value)


def test_a_won_race_is_marked_forced_and_ends_certain() -> None:
    """The king on c7 runs to g7 or a7: the search proves it from the first position."""
    analysis = analyse_game(
        "nielsen", ["Kc7-d7", "e4-e5", "Kd7-g7"], position="2K4/7/7/4A2/7/2D2A1/7 d", nodes=NODES
    )
    assert analysis.start.forced is not None
    assert analysis.start.forced.winner == "defenders"
    assert analysis.start.forced.text.startswith("the king escapes in ")
    assert analysis.plies[-1].eval.chance == 1.0
    assert analysis.plies[-1].eval.forced is None  # over, not forced
    assert analysis.start.chance == 1.0


# -- judgments on a made-up sequence of chances -------------------------------------------

MOVES = ["d1-e1", "d3-e3", "e1-e2", "Kd4-d3"]  # the first legal move each ply
# The defenders' chance in each position (the start, then after each move), and the move
# the "search" preferred there.
CHANCES = [0.5, 0.6, 0.3, 0.3, 0.9]
BESTS = ["d1-c1", "d3-c3", "e1-e2", "Kd4-d5", None]


def fake_search(game: Game, nodes: int) -> analyse_module._Searched:
    i = game.ply
    best = BESTS[i]
    return analyse_module._Searched(
        PositionEval(round(CHANCES[i] * 100), CHANCES[i], None, (best,) if best else ()), best
    )


def test_each_move_is_judged_by_the_drop_in_its_movers_chance(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(analyse_module, "_search", fake_search)
    analysis = analyse_game("nielsen", MOVES)
    got = [(p.side, p.judgment, p.accuracy, p.best) for p in analysis.plies]
    assert got == [
        # the attackers' chance 0.5 -> 0.4: a drop of 0.10, an inaccuracy;
        # 103.1668 * exp(-0.043544 * 10) - 3.1669 = 63.6
        ("attackers", "inaccuracy", 63.6, "d1-c1"),
        # the defenders' 0.6 -> 0.3: 0.30, a blunder; exp(-0.043544 * 30): 24.8
        ("defenders", "blunder", 24.8, "d3-c3"),
        # the attackers played the search's own move: not judged, 100
        ("attackers", None, 100.0, None),
        # the defenders' 0.3 -> 0.9: a gain
        ("defenders", None, 100.0, "Kd4-d5"),
    ]
    assert analysis.plies[0].line == ("d1-c1",)
    assert analysis.sides == {
        "attackers": SideSummary(inaccuracy=1, mistake=0, blunder=0, accuracy=81.8),
        "defenders": SideSummary(inaccuracy=0, mistake=0, blunder=1, accuracy=62.4),
    }


@pytest.mark.parametrize(
    ("position", "plies", "text"),
    [
        # The king on c3 steps to c1: two open lanes (to a1 and g1), one can be blocked.
        ("4A2/4AA1/7/3D3/2K4/7/7 d", 3, "the king escapes in 2 moves"),
        # The attackers to move first: whatever they do, the same fork follows.
        ("4A2/4AA1/7/3D3/2K4/7/7 a", 4, "the king escapes in 2 moves"),
        # The king already on c1 with both lanes open: one block, then out.
        ("4A2/4AA1/7/3D3/7/7/2K4 a", 2, "the king escapes in 1 move"),
    ],
)
def test_a_forced_escape_is_found_and_its_line_ends_in_a_corner(
    position: str, plies: int, text: str
) -> None:
    ev = evaluate_position("nielsen", position, nodes=5_000)
    assert ev.forced == Forced("defenders", plies, text)
    assert len(ev.pv) == plies
    game = Game("nielsen", position)
    for move in ev.pv:
        game.play(move)
    assert game.result is not None
    assert (game.result.winner, game.result.reason) == ("defenders", "king_escaped")


def test_a_position_already_over_is_certain_without_a_search() -> None:
    """The king on a corner: the defenders have won; nothing to search."""
    ev = evaluate_position("nielsen", "K6/7/7/4A2/7/2D2A1/7 a", nodes=1)
    assert (ev.chance, ev.forced, ev.pv) == (1.0, None, ())


def test_a_bad_position_or_rule_set_is_the_engines_error() -> None:
    with pytest.raises(InvalidPosition):
        evaluate_position("nielsen", "8/8 a")
    with pytest.raises(UnknownRuleSet):
        evaluate_position("chess", "K6/7/7/4A2/7/2D2A1/7 a")
