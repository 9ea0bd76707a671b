"""The lessons without servers: every stage of every course is solvable within its moves,
every wrong move is refused or failed with a reason, and the courses differ where the rule
sets do."""

from __future__ import annotations

import pytest

from brandubh.engine import RULESETS, IllegalMove, parse_position
from brandubh.lessons import (
    COURSES,
    DEFAULT_COURSE,
    GoalKind,
    NotABoard,
    Stage,
    StageFinished,
    can_force,
    check,
    learner_side,
    start,
)

BOARDS = [
    pytest.param(name, stage, id=f"{name}-{stage.id}")
    for name, course in COURSES.items()
    for stage in course.stages
    if stage.goal.kind is not GoalKind.GAME
]


def _winning_line(name: str, stage: Stage) -> list[str]:
    """A line of the learner's moves that the checker accepts to the end, found by search
    over the legal moves, each answered by the checker's own reply."""
    moves: list[str] = []
    game = start(stage, name)
    while True:
        verdict = None
        for candidate in game.legal_moves():
            verdict = check(stage, name, [*moves, candidate.text])
            if verdict.status != "failure":
                break
        assert verdict is not None and verdict.status != "failure", (name, stage.id, moves)
        moves.append(verdict.move)
        assert len(moves) <= stage.goal.moves
        if verdict.status == "success":
            return moves
        assert verdict.reply is not None
        game.play(verdict.move)
        game.play(verdict.reply)


def test_every_rule_set_has_a_course_nielsen_first() -> None:
    assert set(COURSES) == set(RULESETS)
    assert DEFAULT_COURSE == "nielsen"
    for course in COURSES.values():
        ids = [s.id for s in course.stages]
        assert len(ids) == len(set(ids)), course.ruleset
        last = course.stages[-1]
        assert last.goal.kind is GoalKind.GAME and last.bot_level == 1


@pytest.mark.parametrize(("name", "stage"), BOARDS)
def test_every_stage_is_solvable_within_its_moves(name: str, stage: Stage) -> None:
    game = start(stage, name)
    parse_position(stage.position)  # the engine's own position text
    assert game.result is None
    assert game.side_to_move == learner_side(stage.position, stage.prelude)
    assert can_force(stage.goal, game, frozenset(), stage.goal.moves)
    assert not can_force(stage.goal, game, frozenset(), 0)
    line = _winning_line(name, stage)
    assert check(stage, name, line).message == stage.success
    for words in (stage.task, stage.explanation, stage.hint, stage.success):
        assert words.strip()


@pytest.mark.parametrize(("name", "stage"), BOARDS)
def test_every_wrong_first_move_fails_with_a_reason(name: str, stage: Stage) -> None:
    game = start(stage, name)
    failed = 0
    for move in game.legal_moves():
        verdict = check(stage, name, [move.text])
        if verdict.status == "failure":
            failed += 1
            assert verdict.message.startswith((move.text, f"after {move.text}")), verdict
            assert verdict.message != stage.success
        else:
            # A move that keeps the stage going really keeps the goal in reach.
            after = start(stage, name)
            after.play(move.text)
            if verdict.status == "continue":
                assert verdict.reply is not None
                after.play(verdict.reply)
                assert can_force(stage.goal, after, frozenset(move.captures), verdict.moves_left)
    assert failed > 0, "a stage where every move wins teaches nothing"


@pytest.mark.parametrize(("name", "stage"), BOARDS)
def test_an_illegal_move_is_refused_with_the_engine_s_reason(name: str, stage: Stage) -> None:
    game = start(stage, name)
    with pytest.raises(IllegalMove) as refused:
        check(stage, name, ["hello"])
    assert "hello" in str(refused.value)
    legal = {m.origin + m.destination for m in game.legal_moves()}
    tried = 0
    for o in ("a1", "b2", "d2", "d4", "g7", "c3"):
        for d in ("a7", "d4", "c1", "g1", "b6"):
            if o != d and o + d not in legal:
                with pytest.raises(IllegalMove) as refused:
                    check(stage, name, [f"{o}-{d}"])
                assert str(refused.value)
                tried += 1
    assert tried


def test_moves_after_the_end_are_refused() -> None:
    stage = COURSES["nielsen"].stages[0]
    assert check(stage, "nielsen", ["d2-d6"]).status == "success"
    with pytest.raises(StageFinished, match="ended at your move 1"):
        check(stage, "nielsen", ["d2-d6", "d6-d5"])
    escape = COURSES["nielsen"].stage("escape")
    assert escape is not None
    lost = check(escape, "nielsen", ["Kc3-c4"])
    assert lost.status == "failure" and "no longer get the king to a corner" in lost.message
    with pytest.raises(StageFinished, match="ended at your move 1"):
        check(escape, "nielsen", ["Kc3-c4", "Kc4-c5"])
    with pytest.raises(ValueError, match="no move"):
        check(escape, "nielsen", [])


def test_the_first_game_is_not_a_board() -> None:
    stage = COURSES["nielsen"].stages[-1]
    with pytest.raises(NotABoard):
        start(stage, "nielsen")


def _stage(name: str, stage_id: str) -> Stage:
    found = COURSES[name].stage(stage_id)
    assert found is not None
    return found


def test_the_courses_differ_where_the_rule_sets_do() -> None:
    # The king beside the throne: three attackers in nielsen and federation, two elsewhere.
    for name in ("nielsen", "federation"):
        assert "three" in _stage(name, "king-beside-throne").explanation
    for name in ("common", "walker"):
        assert "two attackers in a line" in _stage(name, "king-beside-throne").explanation
    # Two in a line beside the throne do not capture in nielsen: the same move in common does.
    common = _stage("common", "king-beside-throne")
    assert check(common, "common", ["g3-c3"]).status == "success"
    assert check(common, "nielsen", ["g3-c3"]).status == "failure"
    # On the throne: four, but two in walker.
    walker = _stage("walker", "king-on-throne")
    assert check(walker, "walker", ["a3-d3"]).status == "success"
    assert check(walker, "nielsen", ["a3-d3"]).status == "failure"
    # The empty throne captures a soldier in nielsen, not in walker.
    throne = _stage("nielsen", "throne")
    assert check(throne, "nielsen", ["f6-d6"]).status == "success"
    assert check(throne, "walker", ["f6-d6"]).message.startswith("f6-d6 does not capture")
    # The king goes home to the throne in common and walker only.
    home = _stage("common", "king")
    assert check(home, "common", ["Kb4-d4"]).status == "success"
    with pytest.raises(IllegalMove, match="the king once he has left it"):
        check(home, "nielsen", ["Kb4-d4"])
    # A blocked side: a draw in nielsen, a loss in federation.
    assert _stage("nielsen", "blocked").goal.result.winner is None  # type: ignore[union-attr]
    assert check(_stage("federation", "blocked"), "federation", ["g2-d2"]).status == "success"
    # Repetition: a draw in nielsen, the attackers' win in federation, the repeater's loss
    # in common.
    assert check(_stage("nielsen", "repetition"), "nielsen", ["Kf6-e6"]).status == "success"
    lost = check(_stage("common", "repetition"), "common", ["Kf6-e6"])
    assert lost.status == "failure" and lost.message.endswith("a third time: you lose")
    assert check(_stage("federation", "repetition"), "federation", ["b3-b2"]).status == "success"
    # newsome is another game: no escape or king-capture stages.
    assert {s.id for s in COURSES["newsome"].stages}.isdisjoint({"escape", "king-two"})
