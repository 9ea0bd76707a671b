"""What each change does to a game (hub/live/changes.py), table by table, with no Redis."""

from __future__ import annotations

from typing import Any

import pytest

from brandubh.engine import Game, Result
from brandubh.hub.errors import Refusal
from brandubh.hub.live import changes
from brandubh.hub.live.state import BOT_ID, GameState, Player, pack_snapshot
from states import ALLOWANCE, A, D, running


def first_move(state: GameState) -> str:
    return str(state.game().legal_moves()[0])


def refusal(build: Any) -> str:
    with pytest.raises(Refusal) as err:
        build()
    return err.value.code


# -- moves ------------------------------------------------------------------------------------


def test_a_legal_move_advances_the_game_and_sets_the_next_deadline() -> None:
    state = running()
    move = first_move(state)
    change = changes.move(state, A.id, 0, move, "m1", ALLOWANCE)
    assert change.new.ply == 1 and change.new.seq == state.seq + 1
    assert change.new.moves == (move,) and change.new.turn == D.id
    assert change.event == {"kind": "move", "move": move, "by": "attackers"}
    assert (change.ply, change.require_turn, change.deadline_check) == (0, True, "before")
    assert (change.deadline_change, change.deadline_ms, change.bot_job) == ("set", ALLOWANCE, "")
    # Only what a move changes is written: no result, no draw offer, no bot job here.
    assert change.write == changes.PLAY_FIELDS
    assert {name: change.new.fields()[name] for name in changes.MOVE_FIELDS} == {
        **state.fields(changes.MOVE_FIELDS),
        **change.new.fields(changes.PLAY_FIELDS),
    }
    assert change.game is not None and change.game.ply == 1


@pytest.mark.parametrize(
    ("player", "ply", "text", "fields", "code"),
    [
        ("stranger", 0, None, {}, "not_a_player"),
        (A.id, 0, None, {"status": "waiting"}, "game_not_active"),
        (A.id, 0, None, {"status": "ended"}, "game_not_active"),
        (A.id, 3, None, {}, "stale_ply"),
        (D.id, 0, None, {}, "not_your_turn"),
        (A.id, 0, "zz-top", {}, "illegal_move"),
        (A.id, 0, "d1-d4", {}, "illegal_move"),  # jumps over pieces
    ],
)
def test_a_move_is_refused_saying_why(
    player: str, ply: int, text: str | None, fields: dict[str, Any], code: str
) -> None:
    state = running(**fields)
    move = text or first_move(running())
    assert refusal(lambda: changes.move(state, player, ply, move, "m1", ALLOWANCE)) == code


def test_playing_on_declines_the_opponents_draw_offer() -> None:
    state = running(draw_offer="defenders")
    change = changes.move(state, A.id, 0, first_move(state), "m1", ALLOWANCE)
    assert change.event["draw_declined"] is True
    assert change.new.draw_offer == ""
    assert change.new.draw_block == (0, changes.DRAW_OFFER_GAP + 1)
    assert change.write == changes.DECLINING_FIELDS  # the closed offer is written too


def test_the_bots_move_drops_its_job() -> None:
    bot = Player(BOT_ID, "Bot")
    state = running(joiner=bot, attacker=bot.id, defender=A.id, turn=bot.id, opponent="bot")
    change = changes.move(state, BOT_ID, 0, first_move(state), "b1", ALLOWANCE)
    assert change.new.turn == A.id and change.bot_job == "del"


def test_a_move_that_makes_it_the_bots_turn_queues_the_bot() -> None:
    bot = Player(BOT_ID, "Bot")
    state = running(joiner=bot, defender=bot.id, opponent="bot")
    change = changes.move(state, A.id, 0, first_move(state), "m1", ALLOWANCE)
    assert change.new.turn == BOT_ID and change.bot_job == "add"


def test_a_move_that_ends_the_game_removes_the_deadline_and_the_bot_turn() -> None:
    # The king on f7 steps to the corner g7 (docs/rules.md: escape).
    game = Game("nielsen", "7/5K1/7/7/7/7/7 d")
    state = running(snap=pack_snapshot(game.snapshot()), turn=D.id)
    change = changes.move(state, D.id, 0, "f6-f7", "m1", ALLOWANCE)
    assert change.new.status == "ended" and change.new.turn == ""
    assert change.new.result is not None and change.new.result.winner == "defenders"
    assert change.event["result"] == {"winner": "defenders", "reason": change.new.result.reason}
    assert (change.deadline_change, change.bot_job, change.deadline_check) == (
        "del",
        "del",
        "before",
    )


# -- resigning, aborting --------------------------------------------------------------------


def test_resigning_gives_the_game_to_the_other_side() -> None:
    change = changes.resign(running(), D.id, "r")
    assert change.new.result == Result("attackers", "resignation")
    assert change.event["by"] == "defenders" and change.deadline_change == "del"


@pytest.mark.parametrize(
    ("moves", "ok"), [((), True), (("d1-c1",), True), (("d1-c1", "d3-c3"), False)]
)
def test_aborting_is_allowed_only_before_both_sides_moved(moves: tuple[str, ...], ok: bool) -> None:
    state = running(*moves)
    if ok:
        assert changes.abort(state, A.id, "x").new.result == Result(None, "aborted")
    else:
        assert refusal(lambda: changes.abort(state, A.id, "x")) == "cannot_abort"


def test_a_spectator_cannot_resign_and_nobody_acts_in_an_ended_game() -> None:
    assert refusal(lambda: changes.resign(running(), "stranger", "r")) == "not_a_player"
    assert refusal(lambda: changes.resign(running(status="ended"), A.id, "r")) == "game_not_active"


# -- draws ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"opponent": "bot"}, "bot_declines"),
        ({"draw_offer": "attackers"}, "draw_offer_open"),
        ({"draw_offer": "defenders"}, "draw_offer_open"),
        ({"draw_block": (5, 0)}, "draw_offer_too_soon"),
    ],
)
def test_a_draw_offer_is_refused_saying_why(fields: dict[str, Any], code: str) -> None:
    assert refusal(lambda: changes.offer_draw(running(**fields), A.id, "o")) == code


def test_a_draw_offer_is_recorded_and_answered() -> None:
    offered = changes.offer_draw(running(), A.id, "o")
    assert offered.new.draw_offer == "attackers" and offered.write == changes.DRAW_FIELDS
    state = offered.new
    assert refusal(lambda: changes.answer_draw(state, A.id, True, "y")) == "no_draw_offer"
    agreed = changes.answer_draw(state, D.id, True, "y")
    assert agreed.new.result == Result(None, "draw_agreed")
    declined = changes.answer_draw(state, D.id, False, "n")
    assert declined.new.draw_offer == "" and declined.new.draw_block == (10, 0)


# -- deadlines --------------------------------------------------------------------------------


def test_a_due_deadline_ends_the_game_on_time_or_aborts_a_first_move() -> None:
    late = changes.expiry(running("d1-c1", "d3-c3"), [])
    assert late.new.result == Result("defenders", "timeout")
    assert late.event == {
        "kind": "timeout",
        "side": "attackers",
        "result": {"winner": "defenders", "reason": "timeout"},
    }
    assert late.deadline_check == "after"
    first = changes.expiry(running(), [])
    assert first.new.result == Result(None, "aborted") and first.event["timeout"] == "attackers"


def test_an_outage_moves_the_deadline_on_instead() -> None:
    change = changes.expiry(running("d1-c1", "d3-c3"), [(6_000, 9_000)])
    assert change.new.status == "active"
    assert (change.deadline_change, change.deadline_ms) == ("at", 13_000)
    assert change.event == {"kind": "deadline_extended", "deadline": 13_000}


@pytest.mark.parametrize(
    ("outages", "expected"),
    [
        ([], 10_000),
        ([(11_000, 12_000)], 10_000),  # after the deadline fell
        ([(1_000, 3_000)], 10_000),  # before it was set
        ([(2_000, 5_000)], 11_000),  # counted from the setting
        ([(5_000, 6_000), (7_000, 9_000)], 13_000),
    ],
)
def test_outage_extension(outages: list[tuple[int, int]], expected: int) -> None:
    assert changes.extend_for_outages(10_000, 4_000, outages) == expected


def test_no_deadline_no_expiry() -> None:
    assert refusal(lambda: changes.expiry(running(deadline=0), [])) == "game_not_active"


# -- starting ---------------------------------------------------------------------------------


def test_starting_seats_the_joiner_and_queues_a_bot_that_attacks() -> None:
    waiting = running(status="waiting", joiner=None, attacker="", defender="", turn="")
    bot = Player(BOT_ID, "Bot")
    change = changes.start(waiting, bot, bot, A, ALLOWANCE)
    assert change.new.status == "active" and change.new.turn == BOT_ID
    assert (change.status, change.bot_job, change.deadline_change) == ("waiting", "add", "set")
    assert refusal(lambda: changes.start(change.new, bot, bot, A, ALLOWANCE)) == (
        "game_not_waiting"
    )


# -- withdrawing an invitation ------------------------------------------------------------


def waiting_invitation(**fields: Any) -> GameState:
    return running(status="waiting", joiner=None, attacker="", defender="", turn="", **fields)


def test_withdrawing_an_invitation_ends_it_unstarted_with_no_result() -> None:
    change = changes.withdraw(waiting_invitation(), A.id)
    assert change.new.status == "ended" and change.new.result == Result(None, "aborted")
    assert change.new.withdrawn() and change.new.public()["withdrawn"] is True
    assert change.event == {
        "kind": "withdraw",
        "by": None,
        "result": {"winner": None, "reason": "aborted"},
    }
    # commit.lua checks it still waits: a join that came first wins the race.
    assert (change.status, change.deadline_change, change.bot_job) == ("waiting", "del", "del")
    assert change.write == changes.END_FIELDS


def test_a_join_or_withdrawal_that_lost_the_race_is_game_not_waiting() -> None:
    # Built against a waiting game; commit.lua then finds the other came first.
    withdrawal = changes.withdraw(waiting_invitation(), A.id)
    lost = changes.script_refusal("wrong_status", "active", withdrawal)
    assert lost.code == "game_not_waiting" and "resign or abort" in lost.message
    join = changes.start(waiting_invitation(), D, A, D, ALLOWANCE)
    assert changes.script_refusal("wrong_status", "ended", join).code == "game_not_waiting"
    # A move still hears that the game is not running.
    move = changes.script_refusal("wrong_status", "ended", changes.resign(running(), A.id, "r"))
    assert move.code == "game_not_active"


@pytest.mark.parametrize(
    ("state", "player", "code"),
    [
        (waiting_invitation(), D.id, "not_yours"),
        (waiting_invitation(), "", "not_yours"),
        (running(), A.id, "game_not_waiting"),
        (running(status="ended", result=Result(None, "resignation")), A.id, "game_not_waiting"),
        (waiting_invitation(opponent="bot"), A.id, "game_not_waiting"),
    ],
)
def test_only_the_creator_withdraws_and_only_while_it_waits(
    state: GameState, player: str, code: str
) -> None:
    assert refusal(lambda: changes.withdraw(state, player)) == code


def test_a_started_or_ended_game_is_not_a_withdrawn_invitation() -> None:
    assert not running().withdrawn() and not waiting_invitation().withdrawn()
    ended = changes.resign(running(), A.id, "r").new
    assert not ended.withdrawn() and ended.public()["withdrawn"] is False


# -- where a game came from -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "origin"),
    [
        ({"origin": "seek"}, "seek"),
        ({"origin": "quick", "opponent": "friend"}, "quick"),
        ({}, "person"),  # a game from before the field: a person, path unknown
        ({"opponent": "bot"}, "bot"),
        ({"match": "m1", "match_no": 2}, "match"),
        ({"invitee": D.id}, "challenge"),
    ],
)
def test_the_origin_is_stored_or_guessed_for_older_games(
    fields: dict[str, Any], origin: str
) -> None:
    state = running(**fields)
    assert state.origin_or_guess() == origin == state.public()["origin"]


def test_the_origin_survives_the_hash_and_an_older_hash_has_none() -> None:
    state = running(origin="rematch")
    h = {k.encode(): v if isinstance(v, bytes) else v.encode() for k, v in state.fields().items()}
    assert GameState.from_hash(state.id, h).origin == "rematch"
    del h[b"origin"]
    assert GameState.from_hash(state.id, h).origin == ""


def test_a_fingerprint_tells_actions_apart() -> None:
    assert changes.fingerprint("move", "0:d1-c1") != changes.fingerprint("move", "0:d1-b1")
    assert changes.fingerprint("resign") == "resign"


# -- claims: an opponent who left ------------------------------------------------------------

ABSENCE = changes.Absence("", 30_000, 5_000, 9_000, 30_000)


def test_a_claim_ends_the_game_and_names_the_opponent_for_commit_lua_to_check() -> None:
    state = running("d1-c1", "d3-c3")
    won = changes.claim(state, D.id, False, "c1", ABSENCE)
    assert won.new.result == Result("defenders", "abandoned")
    assert won.event == {
        "kind": "claim",
        "by": "defenders",
        "draw": False,
        "result": {"winner": "defenders", "reason": "abandoned"},
    }
    assert won.absent == ABSENCE._replace(player=A.id)  # the attackers must be gone
    assert won.deadline_change == "del" and not won.require_turn  # on either side's turn
    drawn = changes.claim(state, A.id, True, "c2", ABSENCE)
    assert drawn.new.result == Result(None, "abandoned") and drawn.absent is not None
    assert drawn.absent.player == D.id


@pytest.mark.parametrize(
    ("state", "who", "code"),
    [
        (running("d1-c1", "d3-c3", move_time=3600), A.id, "not_live"),  # correspondence
        (running("d1-c1", "d3-c3", opponent="bot"), A.id, "not_live"),
        (running("d1-c1"), D.id, "claim_too_soon"),  # before both moved: abort instead
        (running("d1-c1", "d3-c3"), "someone", "not_a_player"),
        (running("d1-c1", "d3-c3", status="ended"), A.id, "game_not_active"),
    ],
)
def test_a_claim_is_refused_saying_why(state: GameState, who: str, code: str) -> None:
    assert refusal(lambda: changes.claim(state, who, False, "c", ABSENCE)) == code


def test_commit_luas_claim_refusals_say_the_time_left() -> None:
    change = changes.claim(running("d1-c1", "d3-c3"), A.id, False, "c", ABSENCE)
    soon = changes.script_refusal("claim_too_soon", "12001", change)
    assert soon.code == "claim_too_soon" and "in 13 s" in soon.message
    assert changes.script_refusal("opponent_back", "", change).code == "opponent_back"
    never = changes.script_refusal("opponent_back", "never", change)
    assert "has not left" in never.message


def test_a_tournament_game_names_its_tournament_and_no_other_game_does() -> None:
    state = running(origin="tournament", tournament="tAbCdEfGh")
    h = {k.encode(): v if isinstance(v, bytes) else v.encode() for k, v in state.fields().items()}
    read = GameState.from_hash(state.id, h)
    assert read.tournament == "tAbCdEfGh" == read.public()["tournament"]
    assert "tournament" not in running(origin="seek").public()  # other frames do not grow
    del h[b"tournament"]  # a hash of before the field
    assert "tournament" not in GameState.from_hash(state.id, h).public()
