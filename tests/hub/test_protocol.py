"""The messages a client may send, parsed once into typed values (messages/protocol.py):
what parse accepts and builds, and the error, word for word, for what it refuses. Pure: no
servers."""

from __future__ import annotations

import typing
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from brandubh.engine import RULESETS
from brandubh.hub.errors import ProtocolError
from brandubh.hub.messages import protocol
from brandubh.hub.messages.protocol import (
    MAX_EVENT,
    MAX_PLY,
    MESSAGES,
    ChooseSides,
    Claim,
    FollowLobby,
    FollowTournament,
    Move,
    Ping,
    Pong,
    Seek,
    Unwatch,
    Watch,
    parse,
    reply_to,
)

Raw = dict[str | bytes, object]

# A good value for each field, by its name (and by message type where a name means two things).
GAME_IDS = st.from_regex(r"[A-Za-z0-9_-]{6,32}", fullmatch=True)
GOOD: dict[str, st.SearchStrategy[Any]] = {
    "game": GAME_IDS,
    "seek": GAME_IDS,
    "tournament": GAME_IDS,
    "id": st.from_regex(r"[A-Za-z0-9_.:-]{1,64}", fullmatch=True),
    "since": st.integers(0, MAX_EVENT),
    "n": st.integers(0, MAX_EVENT),
    "ply": st.integers(0, MAX_PLY),
    "move": st.text(min_size=1, max_size=32),
    "lines": st.lists(st.lists(st.text(min_size=1, max_size=32), max_size=6), max_size=4),
    "ruleset": st.sampled_from(sorted(RULESETS)),
    "move_time": st.sampled_from([60, 180, 600, 3600, 86400, 604800]),
    "side": st.sampled_from(["attackers", "defenders"]),
    "accept": st.booleans(),
    "draw": st.booleans(),
    "on": st.booleans(),
    "rated": st.booleans(),
    "match": st.booleans(),
    "room": st.sampled_from(["players", "spectators"]),
    "text": st.text(min_size=1, max_size=140),
    "line": st.integers(0, MAX_EVENT),
}
GOOD_BY_TYPE: dict[tuple[str, str], st.SearchStrategy[Any]] = {("choose_sides", "match"): GAME_IDS}
# Anything a frame may carry: what the fields get when they are not good.
ANYTHING = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=40)
    | st.binary(max_size=8)
    | st.sampled_from(["abcdefgh", "abcdefgh\n", "nielsen", "attackers", "d1-c1", "m-1"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=6,
)


def good_value(kind: str, name: str) -> st.SearchStrategy[Any]:
    return GOOD_BY_TYPE.get((kind, name), GOOD[name])


@st.composite
def good_messages(draw: st.DrawFn) -> Raw:
    """A message of any type with every field good; each optional field perhaps left out."""
    kind = draw(st.sampled_from(sorted(MESSAGES)))
    msg: Raw = {"t": kind}
    for field in MESSAGES[kind].fields:
        if field.default is protocol.REQUIRED or draw(st.booleans()):
            msg[field.name] = draw(good_value(kind, field.name))
    return msg


@st.composite
def near_messages(draw: st.DrawFn) -> Raw:
    """A message good but for a few things: a field left out or wrong, a key too many."""
    msg = draw(good_messages())
    names = [f.name for f in MESSAGES[str(msg["t"])].fields]
    for name in draw(st.lists(st.sampled_from(names), max_size=2)):
        if draw(st.booleans()):
            msg.pop(name, None)
        else:
            msg[name] = draw(ANYTHING)
    if draw(st.integers(0, 4)) == 0:
        msg[draw(st.sampled_from(["extra", "id", "game", "T"]))] = draw(ANYTHING)
    return msg


def refusal(msg: Raw) -> tuple[str, str, str | None]:
    with pytest.raises(ProtocolError) as err:
        parse(msg)
    return err.value.code, err.value.message, err.value.msg_id


# -- what parse builds --------------------------------------------------------------------


def test_every_documented_shape_becomes_its_typed_value() -> None:
    game = "abcdefgh"
    assert parse({"t": "watch", "game": game}) == Watch(game, None)
    assert parse({"t": "watch", "game": game, "since": 3}) == Watch(game, 3)
    assert parse({"t": "unwatch", "game": game}) == Unwatch(game)
    move = parse({"t": "move", "game": game, "ply": 0, "move": "d1-c1", "id": "m-1"})
    assert type(move) is Move and move == Move(game, 0, "d1-c1", "m-1")
    assert move.ply == 0 and move.move == "d1-c1"
    assert parse({"t": "lobby", "on": True}) == FollowLobby(True)
    follow = {"t": "follow_tournament", "tournament": "tAbCdEfGh", "on": True}
    assert parse(follow) == FollowTournament("tAbCdEfGh", True)
    seek = parse({"t": "seek", "ruleset": "nielsen", "move_time": 600, "id": "s"})
    assert type(seek) is Seek and (seek.rated, seek.match) == (True, False)  # the defaults
    sides = parse({"t": "choose_sides", "match": game, "side": "attackers", "id": "c"})
    assert type(sides) is ChooseSides and sides.side == "attackers"
    claim = parse({"t": "claim", "game": game, "draw": False, "id": "c-1"})
    assert type(claim) is Claim and claim == Claim(game, False, "c-1")
    assert type(parse({"t": "ping"})) is Ping and parse({"t": "ping"}) == Ping(0)
    assert type(parse({"t": "pong", "n": 4})) is Pong and parse({"t": "pong", "n": 4}) == Pong(4)


@given(good_messages())
def test_a_good_message_becomes_its_class_with_its_values(msg: Raw) -> None:
    shape = MESSAGES[str(msg["t"])]
    value = parse(msg)
    assert type(value) is shape.make
    for field, got in zip(shape.fields, value, strict=True):
        sent = msg.get(field.name, field.default)
        assert got == sent and type(got) is type(sent)


def test_each_class_has_the_fields_of_its_message_in_order() -> None:
    for kind, shape in MESSAGES.items():
        cls = typing.cast(Any, shape.make)
        assert cls._fields == tuple(f.name for f in shape.fields), kind
        assert shape.kind == kind


def test_every_message_is_following_or_acting_on_a_game_or_in_the_lobby() -> None:
    groups = [
        set(typing.get_args(protocol.Following)),
        set(typing.get_args(protocol.GameAction)),
        set(typing.get_args(protocol.LobbyAction)),
        set(typing.get_args(protocol.ChatAction)),
    ]
    classes = {shape.make for shape in MESSAGES.values()}
    assert set().union(*groups) == classes == set(typing.get_args(protocol.ClientMessage))
    assert sum(len(g) for g in groups) == len(classes) == len(MESSAGES)  # each in one group
    assert set(typing.get_args(protocol.Acting)) == groups[1] | groups[2] | groups[3]


def test_an_error_names_the_id_and_game_of_the_message_it_answers() -> None:
    assert reply_to(Move("abcdefgh", 3, "d1-c1", "m-1")) == ("m-1", "abcdefgh")
    assert reply_to(parse({"t": "seek", "ruleset": "nielsen", "move_time": 60, "id": "s"})) == (
        "s",
        None,
    )
    assert reply_to(Watch("abcdefgh", None)) == (None, "abcdefgh")
    assert reply_to(Ping(1)) == (None, None)
    assert reply_to(None) == (None, None)  # refused before it was parsed


# -- what parse refuses, word for word ----------------------------------------------------

KNOWN = (
    "abort, accept_seek, answer_draw, cancel_quick, cancel_seek, chat, choose_sides, claim, "
    "conditional, decline_rematch, follow_analysis, follow_tournament, get_conditional, lobby, "
    "move, offer_draw, ping, pong, quick, rematch, report, resign, seek, takeback, "
    "takeback_answer, takeback_offer, unwatch, watch"
)


@pytest.mark.parametrize(
    ("msg", "expected"),
    [
        ({"game": "abcdefgh"}, ("bad_frame", "a message needs a 't' field naming its type", None)),
        ({"t": 5}, ("bad_frame", "a message needs a 't' field naming its type", None)),
        ({"t": ["move"]}, ("bad_frame", "a message needs a 't' field naming its type", None)),
        (
            {"t": "teleport", "id": "m-1"},
            ("unknown_type", f"unknown message type 'teleport': one of {KNOWN}", None),
        ),
        (
            {"t": "move", "game": "abcdefgh", "ply": 1, "move": "d1-c1"},
            (
                "bad_field",
                "move: missing field 'id': a message id of 1-64 letters, digits or '_.:-'",
                None,
            ),
        ),
        (
            {"t": "move", "game": "abcdefgh", "ply": True, "move": "d1-c1", "id": "m-1"},
            (
                "bad_field",
                "move: field 'ply' must be the ply the move is for (the state's 'ply'), got True",
                "m-1",
            ),
        ),
        (
            {"t": "watch", "game": "abcdefgh", "since": -3},
            (
                "bad_field",
                "watch: field 'since' must be the last event number seen, 0 for none, got -3",
                None,
            ),
        ),
        (
            {"t": "watch", "game": [1, 2]},
            (
                "bad_field",
                "watch: field 'game' must be a game id (6-32 letters, digits, '-' or '_'), "
                "got an array of 2 items",
                None,
            ),
        ),
        (
            {"t": "ping", "n": 1, "extra": 0},
            ("bad_field", "ping: unexpected field 'extra'; fields: n", None),
        ),
        (
            # An unexpected key is named before a field that is wrong.
            {"t": "resign", "game": "x", "as": 1, "id": "r-1"},
            ("bad_field", "resign: unexpected field 'as'; fields: game, id", "r-1"),
        ),
        (
            {"t": "choose_sides", "match": "abcdefgh", "side": "kings", "id": "m-2"},
            (
                "bad_field",
                "choose_sides: field 'side' must be 'attackers' or 'defenders', got 'kings'",
                "m-2",
            ),
        ),
        (
            {"t": "seek", "ruleset": "nielsen", "move_time": 600, "rated": "yes", "id": "s-1"},
            ("bad_field", "seek: field 'rated' must be true for a rated game, got 'yes'", "s-1"),
        ),
        (
            # A bad id is named as the field it is, and not given back.
            {"t": "abort", "game": "abcdefgh", "id": "a b"},
            ("bad_field", "abort: field 'id' must be a message id, got 'a b'", None),
        ),
    ],
)
def test_a_refusal_says_what_is_wrong(msg: Raw, expected: tuple[str, str, str | None]) -> None:
    assert refusal(msg) == expected


@given(near_messages())
def test_the_quick_path_and_the_field_by_field_path_agree(msg: Raw) -> None:
    """parse reads a message that sends every field by one path and the rest field by field;
    both give the same value, or the same refusal."""
    shape = MESSAGES[str(msg["t"])]

    def outcome(read: Any) -> object:
        try:
            value = read()
        except ProtocolError as exc:
            return exc.code, exc.message, exc.msg_id
        return type(value), value

    assert outcome(lambda: parse(msg)) == outcome(lambda: protocol._parse_fields(shape, msg))


@given(good_messages(), st.data())
def test_one_field_wrong_is_named(msg: Raw, data: st.DataObject) -> None:
    kind = str(msg["t"])
    field = data.draw(st.sampled_from(MESSAGES[kind].fields))
    value = data.draw(ANYTHING)
    try:
        good = bool(field.check(value))
    except TypeError:
        good = False
    if good:
        return
    msg[field.name] = value
    code, message, _ = refusal(msg)
    assert code == "bad_field"
    assert message.startswith(f"{kind}: field {field.name!r} must be {field.expect}, got ")


@given(good_messages(), st.text(max_size=8))
def test_a_key_the_message_does_not_have_is_named(msg: Raw, key: str) -> None:
    names = [f.name for f in MESSAGES[str(msg["t"])].fields]
    if key in names or key == "t":
        return
    msg[key] = 1
    code, message, _ = refusal(msg)
    assert code == "bad_field" and "unexpected field" in message
    assert message.endswith(f"; fields: {', '.join(names)}")


@pytest.mark.parametrize(
    "msg",
    [
        {"t": "watch", "game": "abcdef\n"},
        {"t": "resign", "game": "abcdef", "id": "m1\n"},
    ],
)
def test_an_id_with_a_trailing_newline_is_refused(msg: Raw) -> None:
    """A regular expression's ``$`` also matches before a final newline: ids end at ``\\Z``."""
    with pytest.raises(ProtocolError) as err:
        parse(msg)
    assert err.value.code == "bad_field"
