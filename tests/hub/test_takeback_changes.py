"""Takebacks as changes (hub/live/changes.py): against the bot at once, between people by
offer and answer in casual games only; pure, no Redis."""

from __future__ import annotations

import json
from typing import Any

import pytest

from brandubh.engine import Game
from brandubh.hub.botapi.lines import line_of
from brandubh.hub.errors import Refusal
from brandubh.hub.live import changes
from brandubh.hub.live.state import BOT_ID, GameState, Player
from brandubh.hub.messages import frames
from states import ALLOWANCE, A, D, running

BOT = Player(BOT_ID, "Bot")
# Four plies that come back to the start: its position then stands twice.
ROUND_TRIP = ("d1-c1", "d3-c3", "c1-d1", "c3-d3")


def against_bot(*moves: str, **fields: Any) -> GameState:
    """A (attackers) against the bot (defenders) after ``moves``, with its repetitions."""
    game = Game("nielsen")
    for m in moves:
        game.play(m)
    recent = game.snapshot().recent
    return running(*moves, joiner=BOT, defender=BOT_ID, opponent="bot", recent=recent, **fields)


def refusal(build: Any) -> str:
    with pytest.raises(Refusal) as err:
        build()
    return err.value.code


def test_against_the_bot_its_reply_and_the_players_move_go_back() -> None:
    state = against_bot("d1-c1", "d3-c3", "c1-d1", "c3-d3")
    change = changes.takeback(state, A.id, 4, "t1", ALLOWANCE)
    new = change.new
    assert (new.ply, new.moves, new.turn, new.seq) == (2, ROUND_TRIP[:2], A.id, state.seq + 1)
    assert change.event == {"kind": "takeback", "by": "attackers", "plies": 2}
    assert change.back_to == 2 and change.bot_job == "del"
    assert (change.deadline_change, change.deadline_ms) == ("set", ALLOWANCE)
    assert change.ply is None  # commit.lua's seq check catches a race; the build re-checks
    expected = Game("nielsen")
    for m in ROUND_TRIP[:2]:
        expected.play(m)
    assert new.game().position == expected.position and new.takebacks == 1
    assert new.fields(changes.TAKEBACK_FIELDS)["takebacks"] == "1"


def test_before_the_bot_replies_one_ply_goes_back() -> None:
    state = against_bot("d1-c1", "d3-c3", "c1-d1")  # the bot's turn
    change = changes.takeback(state, A.id, 3, "t1", ALLOWANCE)
    assert (change.new.ply, change.new.turn, change.event["plies"]) == (2, A.id, 1)
    assert change.bot_job == "del"  # the bot must not answer a position that is gone


def test_a_reply_that_came_meanwhile_goes_too_to_the_same_position() -> None:
    # Asked at ply 3 (the bot's turn); the bot replied first: still back to ply 2.
    state = against_bot(*ROUND_TRIP)
    assert changes.takeback(state, A.id, 3, "t1", ALLOWANCE).new.ply == 2


def test_the_repetitions_are_counted_again_for_the_moves_that_remain() -> None:
    state = against_bot(*ROUND_TRIP)
    assert state.game().repetitions == 2
    state = against_bot(*ROUND_TRIP, "d1-c1", "d3-c3")
    back = changes.takeback(state, A.id, 6, "t1", ALLOWANCE).new
    assert back.ply == 4 and back.game().repetitions == 2  # the start, twice: kept
    back = changes.takeback(back, A.id, 4, "t2", ALLOWANCE).new
    assert back.ply == 2 and back.game().repetitions == 1 and back.takebacks == 2


@pytest.mark.parametrize(
    ("moves", "ply", "code"),
    [
        ((), 0, "nothing_to_take_back"),  # A to move, no move of theirs yet
        (("d1-c1", "d3-c3"), 0, "stale_ply"),  # a second takeback that lost the race
        (("d1-c1", "d3-c3"), 5, "stale_ply"),
    ],
)
def test_a_takeback_against_the_bot_is_refused_saying_why(
    moves: tuple[str, ...], ply: int, code: str
) -> None:
    state = against_bot(*moves)
    assert refusal(lambda: changes.takeback(state, A.id, ply, "t", ALLOWANCE)) == code


def test_a_defender_against_an_attacking_bot_has_nothing_to_take_back_at_first() -> None:
    bot_attacks = {"joiner": BOT, "attacker": BOT_ID, "defender": A.id, "opponent": "bot"}
    state = running("d1-c1", turn=A.id, **bot_attacks)
    assert refusal(lambda: changes.takeback(state, A.id, 1, "t", ALLOWANCE)) == (
        "nothing_to_take_back"
    )
    # The bot's turn after A's first move: that move goes back.
    state = running("d1-c1", "d3-c3", turn=BOT_ID, **bot_attacks)
    back = changes.takeback(state, A.id, 2, "t", ALLOWANCE)
    assert (back.new.ply, back.new.turn) == (1, A.id)


def test_nobody_else_takes_back_and_not_in_an_ended_game() -> None:
    state = against_bot("d1-c1", "d3-c3")
    assert refusal(lambda: changes.takeback(state, "x", 2, "t", ALLOWANCE)) == "not_a_player"
    ended = state.evolve(status="ended")
    assert refusal(lambda: changes.takeback(ended, A.id, 2, "t", ALLOWANCE)) == "game_not_active"


# -- between people ---------------------------------------------------------------------------


def test_between_people_an_offer_is_accepted_or_declined() -> None:
    state = running("d1-c1")  # D's turn: A asks to take d1-c1 back
    assert refusal(lambda: changes.takeback(state, A.id, 1, "t", ALLOWANCE)) == (
        "takeback_not_allowed"
    )
    offered = changes.offer_takeback(state, A.id, "o")
    assert offered.event == {"kind": "takeback_offer", "by": "attackers"}
    assert offered.new.takeback_offer == "attackers"
    assert offered.write == changes.TAKEBACK_OFFER_FIELDS
    open_ = offered.new
    assert refusal(lambda: changes.offer_takeback(open_, A.id, "o2")) == "takeback_offer_open"
    assert refusal(lambda: changes.answer_takeback(open_, A.id, True, "y", ALLOWANCE)) == (
        "no_takeback_offer"
    )
    accepted = changes.answer_takeback(open_, D.id, True, "y", ALLOWANCE)
    assert accepted.event == {"kind": "takeback", "by": "attackers", "plies": 1}
    assert (accepted.new.ply, accepted.new.turn, accepted.new.takeback_offer) == (0, A.id, "")
    assert accepted.bot_job == "" and accepted.back_to == 0
    declined = changes.answer_takeback(open_, D.id, False, "n", ALLOWANCE)
    assert declined.event == {"kind": "takeback_declined", "by": "defenders"}
    assert declined.new.takeback_offer == "" and declined.new.takeback_block == (2, 0)
    # Not again before the next move.
    assert refusal(lambda: changes.offer_takeback(declined.new, A.id, "o3")) == (
        "takeback_offer_too_soon"
    )


def test_a_move_closes_an_open_takeback_offer() -> None:
    state = changes.offer_takeback(running("d1-c1"), A.id, "o").new
    moved = changes.move(state, D.id, 1, "d3-c3", "m", ALLOWANCE)
    assert moved.event["takeback_closed"] is True and moved.new.takeback_offer == ""
    assert "takeback_offer" in moved.write


def test_an_accepted_offer_on_the_proposers_turn_takes_back_the_reply_too() -> None:
    state = changes.offer_takeback(running("d1-c1", "d3-c3"), A.id, "o").new
    accepted = changes.answer_takeback(state, D.id, True, "y", ALLOWANCE)
    assert (accepted.new.ply, accepted.new.turn, accepted.event["plies"]) == (0, A.id, 2)


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"rated": True}, "takeback_not_allowed"),
        ({"tournament": "t1"}, "takeback_not_allowed"),
        ({"takeback_offer": "defenders"}, "takeback_offer_open"),
    ],
)
def test_a_takeback_offer_is_refused_saying_why(fields: dict[str, Any], code: str) -> None:
    state = running("d1-c1", "d3-c3", "c1-d1", **fields)
    assert refusal(lambda: changes.offer_takeback(state, A.id, "o")) == code


def test_a_rated_game_says_why_no_takeback() -> None:
    with pytest.raises(Refusal) as err:
        changes.offer_takeback(running("d1-c1", rated=True), A.id, "o")
    assert "rated" in err.value.message
    assert refusal(lambda: changes.offer_takeback(running(), A.id, "o")) == ("nothing_to_take_back")
    bot_game = against_bot("d1-c1")
    assert refusal(lambda: changes.offer_takeback(bot_game, A.id, "o")) == ("takeback_not_allowed")


def test_the_bot_api_stream_passes_a_takeback_on_as_a_game_state_line() -> None:
    offered = changes.offer_takeback(running("d1-c1", "d3-c3", "c1-d1"), A.id, "o").new
    change = changes.answer_takeback(offered, D.id, True, "y", ALLOWANCE)
    frame = frames.event(change.new.id, change.new.seq, change.event, change.new.public())
    line = line_of(frame)
    assert line is not None and not line.final
    (sent,) = [json.loads(x) for x in line.text.splitlines() if x.strip()]
    assert sent["type"] == "gameState"
    assert sent["event"] == {"kind": "takeback", "by": "attackers", "plies": 1}
    assert sent["state"]["ply"] == 2 and sent["state"]["last"] == "d3-c3"
    assert sent["state"]["takeback_offer"] is None
