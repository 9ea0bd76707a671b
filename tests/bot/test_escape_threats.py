"""Escape threats (issue 18): per corner, how many king moves to an open lane, and whether an
attacker can shut it in one move, on hand-built positions; and the search acting on them."""

from __future__ import annotations

import random

import pytest

from brandubh.bot import Searcher, escape_threats
from brandubh.bot.evaluation import MATE_BOUND, evaluator_for
from brandubh.engine import Game
from positions import put

SLIDE = ["nielsen", "federation", "common", "walker"]


@pytest.mark.parametrize("ruleset", SLIDE)
def test_open_edges_are_one_move_away_and_a_walled_attacker_cannot_shut_them(
    ruleset: str,
) -> None:
    # The king on c3 reaches a3, c1 and c7 and g3; the attacker on e5 is walled in.
    game = Game(ruleset, put("Kc3 Ae5 De6 De4 Dd5 Df5", "a"))
    threats = escape_threats(game.board)
    assert threats.distance == (1, 1, 1, 1)
    assert threats.closable == (False, False, False, False)


@pytest.mark.parametrize("ruleset", SLIDE)
def test_a_free_attacker_can_shut_the_lanes(ruleset: str) -> None:
    game = Game(ruleset, put("Kc3 Ae5", "a"))  # e5-e1 and e5-e7 reach every edge run
    assert escape_threats(game.board).closable == (True, True, True, True)


def test_two_king_moves_away() -> None:
    # Walled on three sides, the king reaches only d3 and e3 (f3 is held); from there the
    # first and seventh ranks, so every corner is two moves away.
    game = Game("nielsen", put("Kc3 Dc2 Db3 Dc4 Df3 Ab6", "a"))
    assert escape_threats(game.board).distance == (2, 2, 2, 2)


def test_a_lane_seen_now_is_distance_zero() -> None:
    game = Game("nielsen", put("Kc1 Ae1 Ab3 Af5 Ad6 Dd4", "d"))
    threats = escape_threats(game.board)
    assert threats.distance[0] == 0  # a1 down the empty b1
    assert threats.distance[1] > 0  # e1 shuts g1


def test_no_king_or_newsome_has_no_threats() -> None:
    assert escape_threats(Game("newsome").board).distance == (3, 3, 3, 3)


@pytest.mark.parametrize("ruleset", SLIDE)
def test_an_unshuttable_threat_scores_above_a_shuttable_one(ruleset: str) -> None:
    # The same king and lanes; only whether the attacker on e5 can reach the edges differs.
    walled = Game(ruleset, put("Kc3 Ae5 De6 De4 Dd5 Df5 Ab7", "d")).board
    free = Game(ruleset, put("Kc3 Ae5 Dd6 Db4 Dd2 Df6 Ab7", "d")).board
    evaluate = evaluator_for(walled.ruleset)
    assert escape_threats(free).closable != (False, False, False, False)
    walled_score = evaluate(walled.att, walled.dfn, walled.king, walled.side, walled.woods)
    free_score = evaluate(free.att, free.dfn, free.king, free.side, free.woods)
    assert walled_score > free_score


@pytest.mark.parametrize("ruleset", SLIDE)
def test_the_search_walks_to_an_unshuttable_lane(ruleset: str) -> None:
    # Defenders to move: Kc3-c1 (or a3) opens lanes no attacker can shut: a proved win.
    game = Game(ruleset, put("Kc3 Ae5 De6 De4 Dd5 Df5 Ab7", "d"))
    found = Searcher(game, 20_000).run(random.Random(0))
    assert found.score >= MATE_BOUND


@pytest.mark.parametrize("ruleset", [*SLIDE, "newsome"])
def test_the_same_seed_gives_the_same_search(ruleset: str) -> None:
    game = Game(ruleset)
    for _ in range(6):
        game.push(Searcher(Game.from_snapshot(game.snapshot()), 2_000).run(random.Random(1)).move)
    runs = [
        Searcher(Game.from_snapshot(game.snapshot()), 8_000).run(random.Random(7)) for _ in range(2)
    ]
    a, b = runs
    assert (a.move, a.score, a.depth, a.nodes, a.scores) == (
        b.move,
        b.score,
        b.depth,
        b.nodes,
        b.scores,
    )


def test_newsome_start_is_a_proved_win_for_the_barons() -> None:
    # docs/bot.md, balance: the search proves it (bench/newsome_proof.py checks exhaustively).
    found = Searcher(Game("newsome"), 50_000).run(random.Random(0))
    assert found.score >= MATE_BOUND
    assert found.score >= 100_000 - 7  # within seven plies
