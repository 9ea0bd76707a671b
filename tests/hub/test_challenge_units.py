"""The pure parts of challenges (hub/challenges/records.py, streams.py; changes.decline,
games.seed_seating): the terms and their defaults, who may challenge whom, a decline's
reason, a challenge's status and record, each player's game line, the bounded event
stream, and a chosen side's seed."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace

import pytest

from brandubh import fairplay
from brandubh.engine import Result
from brandubh.hub.challenges import records
from brandubh.hub.challenges.records import Extra, Party, Terms
from brandubh.hub.challenges.streams import EventStream, EventStreams
from brandubh.hub.errors import Refusal
from brandubh.hub.live import changes
from brandubh.hub.live.games import seed_seating
from states import A, D, running

PERSON, OTHER = Party("pa", "Ann"), Party("pb", "Ben")
BOT, BOT2 = Party("pk", "Knot", bot=True), Party("pl", "Loom", bot=True)


def code_of(call: object) -> str:
    assert callable(call)
    with pytest.raises(Refusal) as caught:
        call()
    return caught.value.code


def waiting(**fields: object) -> object:
    """A challenge from A to D, waiting."""
    return running(
        status="waiting",
        joiner=None,
        attacker="",
        defender="",
        turn="",
        invitee=D.id,
        origin="challenge",
        created=1234,
        **fields,
    )


def test_terms_and_their_defaults() -> None:
    assert records.parse_terms({}) == Terms("nielsen", 300, True, "random")
    terms = records.parse_terms(
        {"ruleset": "walker", "move_time": 3600, "rated": False, "side": "defenders"}
    )
    assert terms == Terms("walker", 3600, False, "defenders")
    assert terms.creator_side == "defenders"
    assert records.parse_terms({"side": "random"}).creator_side == ""
    for bad in (
        {"ruleset": 1},
        {"ruleset": "chess"},
        {"move_time": 90},
        {"move_time": 300.0},
        {"move_time": True},
        {"side": "white"},
        {"rated": 1},
        {"invitee": "x"},
    ):
        assert code_of(lambda b=bad: records.parse_terms(b)) == "bad_field", bad


def test_who_may_challenge_whom() -> None:
    records.refusal_to_challenge(PERSON, OTHER, False)
    records.refusal_to_challenge(PERSON, BOT, False)
    records.refusal_to_challenge(BOT, BOT2, False)
    records.refusal_to_challenge(BOT, PERSON, True)
    assert code_of(lambda: records.refusal_to_challenge(BOT, PERSON, False)) == "challenges_closed"
    assert code_of(lambda: records.refusal_to_challenge(PERSON, PERSON, True)) == "bad_field"


def test_a_decline_s_reason() -> None:
    assert records.check_reason(None) == "generic"
    assert [records.check_reason(r) for r in records.REASONS] == list(records.REASONS)
    for bad in ("", "nope", 3, "Generic"):
        assert code_of(lambda b=bad: records.check_reason(b)) == "bad_field"


def test_a_challenge_s_status_and_record() -> None:
    extra = Extra(Party(D.id, D.name), False, "attackers")
    assert Extra.unpack(extra.pack()) == extra
    open_one = waiting()
    view = records.challenge_view(open_one, extra)  # type: ignore[arg-type]
    assert view == {
        "id": "game0001",
        "url": "/g/game0001",
        "status": "created",
        "from": {"id": A.id, "name": A.name, "bot": False},
        "to": {"id": D.id, "name": D.name, "bot": False},
        "ruleset": "nielsen",
        "move_time": 60,
        "rated": False,
        "side": "attackers",
        "created": 1234,
    }
    declined = changes.decline(open_one, D.id, "later").new  # type: ignore[arg-type]
    assert records.status_of(declined) == "declined"
    assert records.challenge_view(declined, extra)["declineReason"] == "later"
    cancelled = changes.withdraw(open_one, A.id).new  # type: ignore[arg-type]
    assert records.status_of(cancelled) == "canceled"
    assert "declineReason" not in records.challenge_view(cancelled, extra)
    assert records.status_of(running()) == "accepted"
    assert records.status_of(running(status="ended", result=Result("attackers", "resignation")))


def test_decline_is_the_invitee_s_and_only_while_waiting() -> None:
    open_one = waiting()
    change = changes.decline(open_one, D.id, "tooSlow")  # type: ignore[arg-type]
    assert change.status == "waiting" and "declined" in change.write
    assert change.event["kind"] == "withdraw" and change.event["declined"] == "tooSlow"
    assert change.new.withdrawn() and change.new.public()["declined"] == "tooSlow"
    assert "declined" not in running().public()  # other games' states are as they were
    assert code_of(lambda: changes.decline(open_one, A.id, "later")) == "not_invited"  # type: ignore[arg-type]
    assert code_of(lambda: changes.decline(running(invitee=D.id), D.id, "later")) == (
        "game_not_waiting"
    )


def test_each_player_s_game_line() -> None:
    state = running(bots=(D.id,), rated=True)
    view = records.game_view(state)
    mine = records.game_line(view, A.id)
    assert mine == {
        "id": "game0001",
        "url": "/g/game0001",
        "ruleset": "nielsen",
        "move_time": 60,
        "rated": True,
        "side": "attackers",
        "opponent": {"id": D.id, "name": D.name, "bot": True},
        "status": "active",
        "result": None,
    }
    theirs = records.game_line(view, D.id)
    assert theirs is not None and theirs["side"] == "defenders"
    assert theirs["opponent"] == {"id": A.id, "name": A.name, "bot": False}
    assert records.game_line(view, "someone else") is None
    text = records.line(records.GAME_FINISH, view, A.id)
    assert text is not None and text.endswith(b"\n")
    assert json.loads(text) == {"type": "gameFinish", "game": mine}
    assert records.line(records.ACCEPTED, {"id": "x"}, A.id) is None
    ended = records.game_view(running(status="ended", result=Result(None, "draw_agreed")))
    assert ended["result"] == {"winner": None, "reason": "draw_agreed"}


async def read_all(stream: EventStream) -> list[bytes]:
    return [chunk async for chunk in stream.lines()]


async def test_a_stream_s_opening_comes_first_and_a_slow_reader_is_let_go() -> None:
    stream = EventStream("pa", max_queued=3)
    stream.tell(b"live 1\n")  # told while the opening was read: after it
    stream.start([b"open 1\n", b"open 2\n"])
    stream.tell(b"live 2\n")
    stream.tell(b"live 3\n")  # 3 live lines unread besides the opening: the next ends it
    stream.tell(b"live 4\n")
    stream.tell(b"live 5\n")  # after the end: dropped
    got = await asyncio.wait_for(read_all(stream), 5)
    assert got[:5] == [b"open 1\n", b"open 2\n", b"live 1\n", b"live 2\n", b"live 3\n"]
    assert json.loads(got[5])["code"] == "too_slow" and len(got) == 6


async def test_streams_per_account_and_their_end() -> None:
    streams = EventStreams(per_account=2)
    one, two = streams.open("pa"), streams.open("pa")
    assert code_of(lambda: streams.open("pa")) == "too_many_streams"
    other = streams.open("pb")
    streams.close(one)
    three = streams.open("pa")
    for s in (two, three, other):
        s.start([])
    streams.tell("pa", b"x\n")
    streams.end_all()
    assert await asyncio.wait_for(read_all(two), 5) == [b"x\n"]
    assert await asyncio.wait_for(read_all(other), 5) == []
    assert not streams.has("nobody") and streams.has("pa")


def test_a_chosen_side_s_seed_seats_the_challenger_and_binds() -> None:
    for game_id in ("abcdefghijkl", "zzzzzzzzzzzz", "q1w2e3r4t5y6"):
        for attacks in (True, False):
            seed = seed_seating(game_id, attacks)
            assert fairplay.creator_attacks(seed, game_id) is attacks
            assert len(fairplay.commitment(seed)) == 64
    # Random, not fixed: two draws for one seat differ.
    assert seed_seating("abcdefghijkl", True) != seed_seating("abcdefghijkl", True)


def test_a_terms_record_is_immutable() -> None:
    terms = Terms("nielsen", 300, True, "random")
    with pytest.raises(AttributeError):
        terms.side = "attackers"  # type: ignore[misc]
    assert replace(terms, side="attackers").creator_side == "attackers"
