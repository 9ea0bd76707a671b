"""OpenTafl notation (engine/otn.py): the spec's own examples, round trips of random games in
the rule sets OTN can state, and the refusals of what it cannot."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brandubh.engine import (
    OTN_RULES,
    START_POSITION,
    EngineError,
    Game,
    InvalidOtn,
    OtnMove,
    OtnUnsupported,
    Record,
    Result,
    format_otn_move,
    format_otn_position,
    format_otn_record,
    format_otn_rules,
    move_from_otn,
    parse_otn_move,
    parse_otn_position,
    parse_otn_record,
    parse_otn_rules,
    replay_otn,
)

BRANDUB = "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"
CHOICES = st.lists(st.integers(0, 1_000), min_size=1, max_size=120)
SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def play_line(game: Game, choices: list[int]) -> Game:
    for choice in choices:
        if game.result is not None:
            break
        moves = game.legal_moves()
        game.play(moves[choice % len(moves)])
    return game


# -- positions ---------------------------------------------------------------------------


def test_the_spec_s_brandub_start_is_our_start() -> None:
    assert parse_otn_position(BRANDUB) == START_POSITION
    assert format_otn_position(START_POSITION) == BRANDUB


def test_rows_run_from_rank_one_upwards() -> None:
    # One attacker on a1 and the king on g7: rank 1 is the record's first row.
    ours = parse_otn_position("/t6/7/7/7/7/7/6K/", "defenders")
    assert ours == "6K/7/7/7/7/7/A6 d"
    assert format_otn_position(ours) == "/t6/7/7/7/7/7/6K/"


def test_runs_of_empty_squares_are_read_however_written() -> None:
    assert parse_otn_position("/3t03/3t3/3T3/ttTKTtt/3T3/3t3/003t3/") == START_POSITION
    assert format_otn_position("3A3/3A3/3D3/AADKDAA/3D3/3A3/3A21 a") == BRANDUB


@pytest.mark.parametrize(
    ("text", "error", "words"),
    [
        ("3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3", InvalidOtn, "start and end with '/'"),
        ("/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3x3/", InvalidOtn, "unexpected 'x'"),
        ("/3t3/3t3/3T3/ttTKTtt/3T3/3t3/", OtnUnsupported, "7x7"),
        ("/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t4/", OtnUnsupported, "covers 8 squares"),
        ("/3t3/3c3/3T3/ttTKTtt/3T3/3t3/3t3/", OtnUnsupported, "commander"),
        ("/3t3/3t3/3K3/ttTKTtt/3T3/3t3/3t3/", InvalidOtn, "more than one king"),
    ],
)
def test_bad_positions_are_refused_in_words(
    text: str, error: type[EngineError], words: str
) -> None:
    with pytest.raises(error, match=words):
        parse_otn_position(text)


# -- moves -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("d2-d4", OtnMove("d2", "d4")),
        ("c5-c3xc2", OtnMove("c5", "c3", captures=("c2",))),
        ("Kd4-a4-", OtnMove("d4", "a4", king=True, info="-")),
        ("Kb1-a1--", OtnMove("b1", "a1", king=True, info="--")),
        ("a3-e3+", OtnMove("a3", "e3", info="+")),
        ("e3-e4++", OtnMove("e3", "e4", info="++")),
        ("c4-c5xKd5/b5", OtnMove("c4", "c5", captures=("b5", "d5"), king_captured=True)),
    ],
)
def test_move_records_both_ways(text: str, move: OtnMove) -> None:
    assert parse_otn_move(text) == move
    assert parse_otn_move(format_otn_move(move)) == move


def test_the_spec_s_seven_by_seven_examples_read() -> None:
    # The spec's examples that fit our board (e5-e8xe9 and the berserk ones do not).
    for text in ("Ke5-e1-", "Ke1-a1--", "a3-e3+", "e3-e4++"):
        parse_otn_move(text)


@pytest.mark.parametrize(
    ("text", "error", "words"),
    [
        ("e5e8", InvalidOtn, "not an OTN move"),
        ("d2-d4x", InvalidOtn, "not an OTN move"),
        ("e5-e8xe9", OtnUnsupported, "off our 7x7 board"),
        ("ce6^e8", OtnUnsupported, "jump or berserk"),
        ("Ne8=e4xe3", OtnUnsupported, "jump or berserk"),
        ("Nd2-d4", OtnUnsupported, "knight"),
        ("---", OtnUnsupported, "resignation"),
    ],
)
def test_bad_moves_are_refused_in_words(text: str, error: type[EngineError], words: str) -> None:
    with pytest.raises(error, match=words):
        parse_otn_move(text)


def test_a_simple_move_is_start_dash_end() -> None:
    assert format_otn_move(OtnMove("d4", "a4", king=True, info="-"), simple=True) == "d4-a4"
    assert move_from_otn(parse_otn_move("Kd4-a4xa3")) == "Kd4-a4xa3"


# -- rules -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(OTN_RULES))
def test_rules_both_ways(name: str) -> None:
    text = format_otn_rules(name)
    rules = parse_otn_rules(text)
    assert rules.ruleset.name == name
    assert rules.position == START_POSITION


def test_defaults_and_aliases_read_as_the_same_rule_set() -> None:
    # The spec's Brandub string, with surrounding made not fatal: Walker's rules.
    rules = parse_otn_rules(f"dim:7 surf:n ks:n cenhe: cenh: start:{BRANDUB}")
    assert rules.ruleset.name == "walker"
    # Inverted start, entries in another order, pieces we do not have in the lists.
    nielsen = parse_otn_rules(f"dim:7 cenhe:tcnkmTCNKM ks:c surf:n cens: starti:{BRANDUB}")
    assert nielsen.ruleset.name == "nielsen"


def test_opentafl_s_own_brandub_is_walker() -> None:
    # What OpenTafl's RulesSerializer writes for its built-in Brandub (rules/brandub).
    text = f"dim:7 name:Brandub surf:n atkf:y ks:w cenh: cenhe: start:{BRANDUB}"
    assert parse_otn_rules(text).ruleset.name == "walker"


def test_atkf_sets_the_side_to_move_of_the_start() -> None:
    rules = parse_otn_rules(f"dim:7 atkf:n surf:n ks:w cenh: cenhe: start:{BRANDUB}")
    assert rules.position == START_POSITION[:-1] + "d"
    assert "atkf:n" in format_otn_rules("walker", rules.position)


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("federation", "third repetition loses for the defenders"),
        ("common", "king strength"),
        ("newsome", "step one square"),
    ],
)
def test_rule_sets_otn_cannot_state_are_refused(name: str, words: str) -> None:
    with pytest.raises(OtnUnsupported, match=words):
        format_otn_rules(name)


@pytest.mark.parametrize(
    ("text", "error", "words"),
    [
        (f"dim:7 ks:n cenhe: cenh: start:{BRANDUB}", OtnUnsupported, "surf:y where walker"),
        (f"dim:7 surf:n ks:n cenhe: cenh: sw:s start:{BRANDUB}", OtnUnsupported, "shieldwall"),
        (f"dim:7 surf:n esc:e ks:n cenhe: cenh: start:{BRANDUB}", OtnUnsupported, "esc:e"),
        # The spec's per-piece reading and OpenTafl's per-side one part: refused.
        (f"dim:7 surf:n ks:c cens: cenhe:tT start:{BRANDUB}", OtnUnsupported, "cenhe:tT where"),
        ("dim:11 start:/11/11/11/11/11/11/11/11/11/11/11/", OtnUnsupported, "7x7"),
        (f"ks:n start:{BRANDUB}", InvalidOtn, "starts with the board size"),
        ("dim:7 ks:n", InvalidOtn, "ends with the start position"),
        (f"dim:7 ks:q start:{BRANDUB}", InvalidOtn, "ks:q must be one of"),
        (f"dim:7 zz:y start:{BRANDUB}", InvalidOtn, "not an OTN rules entry"),
    ],
)
def test_bad_rules_are_refused_in_words(text: str, error: type[EngineError], words: str) -> None:
    with pytest.raises(error, match=words):
        parse_otn_rules(text)


# -- game records ------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", sorted(OTN_RULES))
@given(choices=CHOICES)
@SETTINGS
def test_random_games_round_trip(ruleset: str, choices: list[int]) -> None:
    game = play_line(Game(ruleset), choices)
    if game.result is None and choices[0] % 2:
        game.finish("defenders" if game.side_to_move == "attackers" else "attackers", "resignation")
    record = Record.from_game(game, attackers="ann", defenders="bob")
    text = format_otn_record(record)
    back = parse_otn_record(text)
    assert back.ruleset == record.ruleset
    assert back.moves == record.moves
    assert back.result == record.result
    assert back.position == record.position
    assert (back.attackers, back.defenders) == ("ann", "bob")
    assert format_otn_record(back) == text
    assert replay_otn(text).position == game.position
    # Every move record is full OTN: reading each back gives our move again.
    for line, move in zip(_move_records(text), record.moves, strict=False):
        assert move_from_otn(parse_otn_move(line)) == move


def _move_records(text: str) -> list[str]:
    out: list[str] = []
    for line in text.splitlines():
        if line[:1].isdigit():
            out.extend(r for r in line.split()[1:] if r != "---")
    return out


def test_a_finished_game_s_record_names_its_result() -> None:
    game = Game("walker")
    while game.result is None:
        play_line(game, [7, 3, 11, 2, 5])
    text = format_otn_record(Record.from_game(game))
    assert f"[variant:walker]\n[rules:{format_otn_rules('walker')}]\n\n1. " in text
    tag = {"attackers": "1", "defenders": "-1", None: "0"}[game.result.winner]
    assert f"[result:{tag}]" in text


def test_a_king_capture_is_marked() -> None:
    game = Game("walker", "7/7/1AK4/7/7/7/3A3 a")
    game.play("d1-d5")
    assert game.result == Result("attackers", "king_captured")
    record = Record.from_game(game)
    text = format_otn_record(record)
    assert "1. d1-d5xKc5++" in text
    assert parse_otn_record(text).result == Result("attackers", "king_captured")


def test_an_illegal_move_names_its_turn() -> None:
    text = f"[rules:{format_otn_rules('nielsen')}]\n\n1. d2-c2 d3-c3\n2. d1-d7\n"
    with pytest.raises(InvalidOtn, match=r"turn 2, the attackers' move d1-d7 does not replay"):
        parse_otn_record(text)


def test_a_wrong_capture_is_refused() -> None:
    text = f"[rules:{format_otn_rules('nielsen')}]\n\n1. d2-c2xc3\n"
    with pytest.raises(InvalidOtn, match="turn 1"):
        parse_otn_record(text)


def test_records_with_rules_we_cannot_play_are_refused() -> None:
    text = f"[rules:dim:7 ks:n cenhe: cenh: start:{BRANDUB}]\n\n1. d2-c2\n"
    with pytest.raises(OtnUnsupported, match="surf"):
        replay_otn(text)


def test_comments_and_variations_are_read_past() -> None:
    text = (
        f"[attackers:ann]\n[rules:{format_otn_rules('walker')}]\n\n"
        "1. d2-c2 d3-e3 [a quiet start|and a reply]\n"
        "1b.1.1a. ..... d3-c3\n"
        "2. d1-d3\n"
    )
    record = parse_otn_record(text)
    assert record.moves == ("d2-c2", "d3-e3", "d1-d3")
    assert record.attackers == "ann"
    assert record.result is None


def test_a_result_tag_the_moves_contradict_is_refused() -> None:
    game = Game("walker", "7/7/1AK4/7/7/7/3A3 a")
    game.play("d1-d5")
    text = format_otn_record(Record.from_game(game)).replace("[result:1]", "[result:-1]")
    with pytest.raises(InvalidOtn, match="moves give attackers win"):
        parse_otn_record(text)


def test_a_record_must_have_rules_and_turns() -> None:
    with pytest.raises(InvalidOtn, match=r"\[rules:"):
        parse_otn_record("[attackers:ann]\n\n1. d2-c2\n")
    with pytest.raises(InvalidOtn, match="neither a"):
        parse_otn_record(f"[rules:{format_otn_rules('walker')}]\n\nd2-c2\n")


def test_a_record_of_a_rule_set_otn_cannot_state_is_refused() -> None:
    game = Game("federation")
    game.play("d2-c2")
    with pytest.raises(OtnUnsupported, match="federation rule set cannot be written"):
        format_otn_record(Record.from_game(game))


# A game OpenTafl v0.4.8.0b hosted headlessly (its network server, two --headless clients),
# our `brandubh engine` the attackers and OpenTafl's AI the defenders, as OpenTafl saved it:
# each turn followed by its commentary line, the clocks at that turn.
OPENTAFL_SAVED_TURNS = [
    "g4-g5 d3-f3",
    "d2-f2xf3 Kd4-d3",
    "b4-b3 Kd3-g3",
    "f2-g2 Kg3-e3",
    "g2-e2 Ke3-g3",
    "e2-g2 Kg3-e3",
    "b3-b2 Ke3-g3xg2",
    "b2-g2 Kg3-e3",
    "g5-g3 Ke3-b3",
    "d6-b6 c4-c2",
    "a4-a3 Kb3-b2",
    "a3-a2 c2-f2",
    "g3-c3 Kb2-b4",
    "b6-a6 e4-e7",
    "d1-b1 d5-a5xa6",
    "a2-a4 Kb4-b6",
    "f4-f7xe7 a5-c5",
    "d7-d6 f2-b2",
    "d6-c6 Kb6-b5",
    "c6-b6 b2-b4",
    "f7-c7 c5-f5",
    "c7-c5 f5-d5xc5",
    "c3-c5 b4-c4",
    "a4-a5xKb5",
]


def test_a_game_opentafl_saved_replays_with_its_commentary_lines() -> None:
    header = (
        "[date:2026.12.07]\n[result:1]\n[compiler:OpenTafl]\n[time-control:300 10/3 0i]\n"
        "[time-remaining:291 10/3, 283 10/3]\n"
        "[rules:dim:7 name:Brandub surf:n atkf:y ks:w cenh: cenhe: "
        "starti:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/]\n\n"
    )
    turns = "".join(
        f"{n}. {moves} \n[291 10/3 0i |283 10/3 0i ]\n\n"
        for n, moves in enumerate(OPENTAFL_SAVED_TURNS, start=1)
    )
    record = parse_otn_record(header + turns)
    assert record.ruleset == "walker" and len(record.moves) == 47
    assert record.result == Result("attackers", "king_captured")
    # A commentary line before any turn is no turn's: still refused.
    with pytest.raises(InvalidOtn, match="neither a"):
        parse_otn_record(header + "[a comment on nothing]\n" + turns)
