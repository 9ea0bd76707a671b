"""A judged move tried again (brandubh.analysis.exercise), with real searches: the search's
own move is good, so is a second move that loses no more than an inaccuracy's worth, a
blunder is not; proved results are exact (a move allowing the forced loss the game's move
allowed is refused, a move that wins at once is good, one that lets a proved win go is not);
the same inputs give the same verdict."""

from __future__ import annotations

import dataclasses

import pytest

from brandubh.analysis import (
    INACCURACY,
    Exercise,
    IllegalLineMove,
    PositionEval,
    TriedMove,
    analyse_game,
    exercises,
    try_move,
)

# nielsen: the attackers let the king out, the defenders let it be taken, then the attackers
# let it escape (at 20,000 nodes: a mistake at ply 3, blunders at plies 6 and 7).
GAME = ["g4-g3", "d5-g5", "g3-g2", "Kd4-d5", "g2-g3", "Kd5-a5", "g3-g2", "Ka5-a7"]
NODES = 20_000


@pytest.fixture(scope="module")
def judged() -> dict[int, Exercise]:
    analysis = analyse_game("nielsen", GAME, nodes=NODES)
    return {e.ply: e for e in exercises(analysis)}


def tried(exercise: Exercise, move: str) -> TriedMove:
    return try_move(exercise, "nielsen", GAME[: exercise.ply - 1], move, nodes=NODES)


def test_the_exercises_are_the_judged_moves_in_order(judged: dict[int, Exercise]) -> None:
    assert [(e.ply, e.side, e.played, e.judgment) for e in judged.values()] == [
        (3, "attackers", "g3-g2", "mistake"),
        (6, "defenders", "Kd5-a5", "blunder"),
        (7, "attackers", "g3-g2", "blunder"),
    ]
    analysis = analyse_game("nielsen", GAME, nodes=NODES)
    assert [e.ply for e in exercises(analysis, "defenders")] == [6]
    # The position before each is the analysis's: the start's, or the ply before's.
    assert judged[3].before == analysis.plies[1].eval and judged[3].best == "b4-b5"
    assert Exercise.from_dict(judged[6].to_dict()) == judged[6]


def test_the_best_move_and_a_second_good_move_are_accepted(judged: dict[int, Exercise]) -> None:
    best = tried(judged[3], "B4-B5")  # read as leniently as any move text
    assert (best.move, best.good, best.why, best.nodes) == ("b4-b5", True, "best", 0)
    second = tried(judged[3], "f4-f6")
    assert second.move != judged[3].best
    assert second.good and second.why == "chance" and second.judgment is None
    assert second.before - second.after < INACCURACY and second.nodes > NODES // 2
    assert TriedMove.from_dict(second.to_dict()) == second


def test_a_worse_move_is_refused_with_its_judgment(judged: dict[int, Exercise]) -> None:
    worse = tried(judged[3], "b4-b7")
    assert not worse.good and worse.why == "chance" and worse.judgment == "mistake"
    assert worse.before - worse.after >= INACCURACY
    # The move played is refused as the analysis judged it, without a search.
    played = tried(judged[3], "g3-g2")
    assert (played.good, played.why, played.judgment, played.nodes) == (
        False,
        "played",
        "mistake",
        0,
    )
    assert played.eval == judged[3].after


def test_a_move_allowing_the_forced_loss_is_refused(judged: dict[int, Exercise]) -> None:
    # Ply 6: Kd5-a5 let the king be captured in one; Kd5-b5 allows the same capture.
    also_lost = tried(judged[6], "Kd5-b5")
    assert not also_lost.good and also_lost.why == "lost" and also_lost.after == 0.0
    assert also_lost.eval.forced is not None and also_lost.eval.forced.winner == "attackers"
    assert also_lost.judgment == "blunder"
    best = tried(judged[6], "g5-g4xf4")
    assert best.good and best.why == "best"
    # Ply 7: the king could be captured at once (a proved win); every other move lets it out.
    assert judged[7].before.forced is not None and judged[7].before.forced.winner == "attackers"
    for move in ("d1-e1", "d6-d5", "b4-b5"):
        lost = tried(judged[7], move)
        assert not lost.good and lost.why == "lost" and lost.after == 0.0, move


def test_a_move_that_wins_is_good_and_one_that_lets_a_proved_win_go_is_not(
    judged: dict[int, Exercise],
) -> None:
    # As if the search had preferred another move at ply 7: capturing the king still wins.
    other = dataclasses.replace(judged[7], best="d1-e1")
    won = tried(other, "d6-a6xa5")
    assert won.good and won.why == "won" and won.after == 1.0 and won.nodes == 0
    # As if ply 3's position had been a proved win for the attackers: a move the search
    # does not prove a win after is not good, whatever its chance.
    proved = PositionEval(-99_990, 0.0)
    from_win = dataclasses.replace(judged[3], before=proved)
    kept = tried(from_win, "f4-f6")
    assert not kept.good and kept.why == "win_lost"


def test_the_same_inputs_give_the_same_verdict(judged: dict[int, Exercise]) -> None:
    assert tried(judged[3], "d6-g6") == tried(judged[3], "d6-g6")


def test_an_illegal_move_names_the_engines_reason(judged: dict[int, Exercise]) -> None:
    with pytest.raises(IllegalLineMove) as raised:
        tried(judged[3], "a1-a2")
    assert raised.value.index == 2 and raised.value.reason
