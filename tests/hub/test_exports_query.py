"""An export's query and lines (hub/exports/), pure: every parameter read or refused by
name, and each format's bytes."""

from __future__ import annotations

import json

import pytest

from brandubh.hub.errors import Refusal
from brandubh.hub.exports import MAX_GAMES, line, parse_query
from brandubh.store import ExportedGame, GamesQuery


def test_no_parameter_is_every_game_as_ndjson() -> None:
    q = parse_query({})
    assert q.games == GamesQuery(None, None, None, MAX_GAMES) and q.format == "ndjson"


def test_every_parameter_is_read() -> None:
    q = parse_query(
        {"ruleset": "walker", "since": "10", "until": "20", "max": "3", "format": "record"}
    )
    assert q.games == GamesQuery(("walker",), 10, 20, 3) and q.format == "record"


def test_otn_takes_only_the_rule_sets_it_can_say() -> None:
    assert parse_query({"format": "otn"}).games.rulesets == ("nielsen", "walker")
    assert parse_query({"format": "otn", "ruleset": "walker"}).games.rulesets == ("walker",)
    with pytest.raises(Refusal) as refused:
        parse_query({"format": "otn", "ruleset": "common"})
    assert refused.value.code == "no_otn" and "common" in refused.value.message


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"color": "white"}, "'color'"),
        ({"ruleset": "chess"}, "ruleset"),
        ({"since": "yesterday"}, "since"),
        ({"until": "-5"}, "until"),
        ({"since": "²"}, "since"),
        ({"since": "9", "until": "8"}, "since must not be later"),
        ({"max": "0"}, "max"),
        ({"max": str(MAX_GAMES + 1)}, "max"),
        ({"format": "pgn"}, "format"),
    ],
)
def test_a_wrong_parameter_is_refused_by_name(params: dict[str, str], named: str) -> None:
    with pytest.raises(Refusal) as refused:
        parse_query(params)
    assert refused.value.code == "bad_field" and named in refused.value.message


GAME = ExportedGame({"id": "g1", "ruleset": "nielsen"}, ["g4-g3", "d5-g5"], '[Game "g1"]\n')


def test_an_ndjson_line_is_one_json_object_and_a_newline() -> None:
    data = line(GAME, "ndjson")
    assert data.endswith(b"\n") and data.count(b"\n") == 1
    assert json.loads(data) == {
        "id": "g1",
        "ruleset": "nielsen",
        "moves": ["g4-g3", "d5-g5"],
        "record": '[Game "g1"]\n',
    }


def test_a_record_is_its_text_and_a_blank_line() -> None:
    assert line(GAME, "record") == b'[Game "g1"]\n\n'
