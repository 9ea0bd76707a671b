"""Checking a learner's moves against a stage's goal, move by move, with the engine alone.

The other side answers with its best defence: the first of its legal moves (in the engine's
order) after which the learner can no longer force the goal in the moves left, else its
first legal move. So a stage's verdicts are a pure function of its moves, and a wrong move
is known as soon as it is made: the search below is exact, as the boards are small.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from brandubh.engine import Game, Move, Result, RuleSet, Side, get_ruleset, opponent
from brandubh.lessons.stages import Goal, GoalKind, Stage, learner_side

Status = Literal["continue", "success", "failure"]


class StageFinished(Exception):
    """Moves sent past the end of a stage (its success or its failure)."""


class NotABoard(Exception):
    """A stage with no board to move on (the first game against the bot)."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """What one learner move did: the stage goes on, is won, or is lost (with why)."""

    status: Status
    move: str  # the learner's move as the engine wrote it
    reply: str | None  # the other side's answer, when the stage goes on or was lost by it
    position: str  # the position after the move (and the reply)
    message: str  # the success message, or the reason of a failure; "" while going on
    moves_left: int


def start(stage: Stage, ruleset: str | RuleSet) -> Game:
    """The stage's game: its position, then its prelude played by the engine."""
    if stage.goal.kind is GoalKind.GAME:
        raise NotABoard(f"stage {stage.id!r} is a game against the bot, not a board")
    game = Game(get_ruleset(ruleset), stage.position)
    for text in stage.prelude:
        game.play(text)
    return game


def met(goal: Goal, game: Game, played: Move, captured: frozenset[str]) -> bool:
    """Whether the learner's move ``played`` (now on ``game``) reached the goal."""
    if goal.kind is GoalKind.REACH:
        return played.destination in goal.squares and (played.king or not goal.king)
    if goal.kind is GoalKind.CAPTURE:
        return set(goal.squares) <= captured
    return goal.result is not None and game.result == goal.result


def can_force(goal: Goal, game: Game, captured: frozenset[str], moves: int) -> bool:
    """Whether the learner, to move, can reach the goal within ``moves`` moves whatever the
    other side answers."""
    if moves <= 0 or game.is_over:
        return False
    for move in game.legal_moves():
        game.push(move.code, None)
        try:
            if _forced_after(goal, game, move, captured, moves):
                return True
        finally:
            game.pop()
    return False


def _forced_after(goal: Goal, game: Game, move: Move, captured: frozenset[str], moves: int) -> bool:
    now = captured | set(move.captures)
    if met(goal, game, move, now):
        return True
    if game.is_over or moves <= 1:
        return False
    for reply in game.legal_moves():
        game.push(reply.code, None)
        try:
            if not can_force(goal, game, now, moves - 1):
                return False
        finally:
            game.pop()
    return True


def best_reply(goal: Goal, game: Game, captured: frozenset[str], moves: int) -> Move:
    """The other side's answer: the first that stops the goal within ``moves``, else the first."""
    replies = game.legal_moves()
    for reply in replies:
        game.push(reply.code, None)
        try:
            if not can_force(goal, game, captured, moves):
                return reply
        finally:
            game.pop()
    return replies[0]


def check(stage: Stage, ruleset: str | RuleSet, moves: Sequence[str]) -> Verdict:
    """The verdict on the last of ``moves``, the learner's moves from the stage's start, each
    answered as above. Raises IllegalMove (the engine's reason) for an illegal move, and
    StageFinished for moves after the stage was won or lost."""
    if not moves:
        raise ValueError("no move to check")
    goal = stage.goal
    game = start(stage, ruleset)
    side = learner_side(stage.position, stage.prelude)
    captured: frozenset[str] = frozenset()
    for i, text in enumerate(moves):
        if i >= goal.moves:
            raise StageFinished(f"the stage allows {goal.moves} moves: start it again")
        played = game.play(text)
        captured |= set(played.captures)
        left = goal.moves - i - 1
        last = i == len(moves) - 1
        verdict = _judge(stage, game, played, captured, left, side)
        if verdict.status != "continue" and not last:
            raise StageFinished(
                f"the stage ended at your move {i + 1} ({played.text}): start it again"
            )
        if last:
            return verdict
    raise AssertionError("unreachable: the last move returns")  # pragma: no cover


def _judge(
    stage: Stage, game: Game, played: Move, captured: frozenset[str], left: int, side: Side
) -> Verdict:
    goal = stage.goal
    if met(goal, game, played, captured):
        return Verdict("success", played.text, None, game.position, stage.success, left)
    if game.result is not None:
        reason = f"{played.text} ends the game: {ending(game.result, side)}"
        return Verdict("failure", played.text, None, game.position, reason, left)
    if left == 0:
        reason = f"{played.text} does not {aim(goal)}, and that was your last move"
        return Verdict("failure", played.text, None, game.position, _missed(played, reason), 0)
    reply = best_reply(goal, game, captured, left)
    game.play(reply)
    if game.result is not None:
        reason = (
            f"after {played.text}, the {opponent(side)} answer {reply.text} and the game "
            f"ends: {ending(game.result, side)}"
        )
        return Verdict("failure", played.text, reply.text, game.position, reason, left)
    if not can_force(goal, game, captured, left):
        reason = (
            f"after {played.text}, the {opponent(side)} answer {reply.text}: you can no "
            f"longer {aim(goal)} in the {_moves(left)} left"
        )
        return Verdict("failure", played.text, reply.text, game.position, reason, left)
    return Verdict("continue", played.text, reply.text, game.position, "", left)


def _missed(played: Move, reason: str) -> str:
    if played.captures:
        return f"{reason} (it captures {', '.join(played.captures)})"
    return reason


def _moves(n: int) -> str:
    return "1 move" if n == 1 else f"{n} moves"


_RESULT_AIMS = {
    "king_escaped": "get the king to a corner",
    "king_captured": "capture the king",
    "repetition": "make the position come round a third time",
    "no_legal_moves": "leave the other side without a legal move",
    "attackers_eliminated": "capture every attacker",
    "defenders_eliminated": "capture every prince",
}


def aim(goal: Goal) -> str:
    """The goal as a verb phrase: "capture the piece on c3"."""
    if goal.kind is GoalKind.REACH:
        piece = "the king" if goal.king else "a piece"
        return f"bring {piece} to {' or '.join(goal.squares)}"
    if goal.kind is GoalKind.CAPTURE:
        pieces = "pieces" if len(goal.squares) > 1 else "piece"
        return f"capture the {pieces} on {' and '.join(goal.squares)}"
    if goal.kind is GoalKind.GAME:
        return "play a game against the bot"
    assert goal.result is not None
    return _RESULT_AIMS.get(goal.result.reason, f"end the game by {goal.result.reason}")


_ENDINGS = {
    "king_escaped": "the king reached a corner",
    "king_captured": "the king was captured",
    "attackers_eliminated": "every attacker was captured",
    "defenders_eliminated": "every prince was captured",
    "no_legal_moves": "a side was left without a legal move",
    "repetition": "the position came round a third time",
    "move_limit": "the move limit was reached",
}


def ending(result: Result, side: Side) -> str:
    """How a game ended, for the learner playing ``side``: "the king was captured: you lose"."""
    what = _ENDINGS.get(result.reason, result.reason)
    if result.winner is None:
        return f"{what}, a draw"
    return f"{what}: {'you win' if result.winner == side else 'you lose'}"
