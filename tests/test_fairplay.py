"""Fair play's verifier: the seed, the sides (from the seed, or from the match) and the moves."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from brandubh import fairplay
from brandubh.engine import Game, Record, Result, Side, format_record, opponent
from brandubh.fairplay import MatchGame, VerificationFailed, match_of, verify
from brandubh.run.cli import main

CREATOR, JOINER = "Ann", "Bob"


def seed_for(game_id: str, creator_attacks: bool) -> bytes:
    """A fixed seed under which the sides formula gives the creator the side asked for."""
    for i in range(1000):
        seed = hashlib.sha256(f"test seed {i}".encode()).digest()
        if fairplay.creator_attacks(seed, game_id) == creator_attacks:
            return seed
    raise AssertionError("no seed found")  # pragma: no cover - each try is a coin toss


def quiet(ruleset: str, plies: int, start: tuple[str, ...] = ()) -> tuple[str, ...]:
    """``start`` then the first non-capturing legal move, ``plies`` moves in all."""
    game = Game(ruleset)
    for move in start:
        game.play(move)
    moves = list(start)
    while len(moves) < plies:
        move = next(m for m in game.legal_moves() if not m.captures)
        game.play(move)
        moves.append(str(move))
    return tuple(moves)


def record(
    game_id: str,
    creator: Side,
    *,
    seed_says: Side | None = None,
    match: str | None = None,
    ruleset: str = "nielsen",
    moves: tuple[str, ...] | None = None,
    result: Result | None = None,
) -> Record:
    """A finished game's record. ``seed_says``: the creator's side by the seed (default:
    ``creator``, so the formula holds); ``match``: its Match header."""
    seed = seed_for(game_id, (seed_says or creator) == "attackers")
    extra = [("Creator", creator)]
    if match is not None:
        extra.append(("Match", match))
    return Record(
        ruleset=ruleset,
        moves=quiet(ruleset, 2) if moves is None else moves,
        result=result or Result("attackers", "resignation"),
        game_id=game_id,
        attackers=CREATOR if creator == "attackers" else JOINER,
        defenders=JOINER if creator == "attackers" else CREATOR,
        commitment=fairplay.commitment(seed),
        seed=seed.hex(),
        extra=tuple(extra),
    )


# -- a game outside a match ---------------------------------------------------------------


def test_a_game_whose_sides_follow_from_its_seed_verifies() -> None:
    game = verify(record("g1", "attackers"))
    assert game.result == Result("attackers", "resignation")


def test_sides_against_the_seed_are_refused() -> None:
    with pytest.raises(VerificationFailed, match="the sides do not follow from the seed"):
        verify(record("g1", "defenders", seed_says="attackers"))


# -- a match's second game ----------------------------------------------------------------


def test_a_record_cannot_exempt_itself_by_saying_it_is_game_2() -> None:
    """The sides check was skipped for any record whose own Match header said "game 2"."""
    forged = record("g2", "defenders", seed_says="attackers", match="m1 game 2")
    with pytest.raises(VerificationFailed, match="game 2 of match m1: its sides follow from"):
        verify(forged)
    with pytest.raises(VerificationFailed, match="game 3 of match m1"):
        verify(record("g3", "defenders", seed_says="attackers", match="m1 game 3"))


def test_game_2_verifies_against_game_1_with_the_sides_swapped() -> None:
    first = record("g1", "attackers", match="m1 game 1")
    # Game 2's seed would give its creator the attack; the match gives it the defence.
    second = record("g2", "defenders", seed_says="attackers", match="m1 game 2")
    assert verify(second, [first]).result == Result("attackers", "resignation")


def test_game_2_with_game_1s_sides_is_refused() -> None:
    first = record("g1", "attackers", match="m1 game 1")
    second = record("g2", "attackers", match="m1 game 2")  # the seed would allow it
    with pytest.raises(VerificationFailed, match="game 2 swaps game 1's sides"):
        verify(second, [first])


def test_game_2_is_checked_against_its_own_match_only() -> None:
    other = record("g9", "attackers", match="m9 game 1")
    second = record("g2", "defenders", match="m1 game 2")
    with pytest.raises(VerificationFailed, match="earlier record 1 is not game 1 of that match"):
        verify(second, [other])
    outside = record("g8", "attackers")
    with pytest.raises(VerificationFailed, match="is not game 1 of that match"):
        verify(second, [outside])


def test_the_first_game_given_must_itself_verify() -> None:
    bad_first = record("g1", "defenders", seed_says="attackers", match="m1 game 1")
    second = record("g2", "attackers", match="m1 game 2")
    with pytest.raises(VerificationFailed, match="game 1 of match m1: the sides do not follow"):
        verify(second, [bad_first])


def test_game_2_keeps_the_players_and_the_rule_set() -> None:
    first = record("g1", "attackers", match="m1 game 1")
    second = record("g2", "defenders", match="m1 game 2")
    strangers = replace(second, attackers="Cy", defenders="Di")
    with pytest.raises(VerificationFailed, match="the players do not follow from the match"):
        verify(strangers, [first])
    walker = record("g2", "defenders", match="m1 game 2", ruleset="walker")
    with pytest.raises(VerificationFailed, match="a match keeps one rule set"):
        verify(walker, [first])


def test_game_1_of_a_match_still_follows_its_seed() -> None:
    with pytest.raises(VerificationFailed, match="the sides do not follow from the seed"):
        verify(record("g1", "defenders", seed_says="attackers", match="m1 game 1"))


def test_earlier_games_for_a_game_outside_a_match_are_refused() -> None:
    with pytest.raises(VerificationFailed, match="not a later game of a match"):
        verify(record("g5", "attackers"), [record("g1", "attackers", match="m1 game 1")])


@pytest.mark.parametrize("header", ["m1", "m1 game 4", "m1 game two", "m 1 game 2", ""])
def test_a_malformed_match_header_is_refused(header: str) -> None:
    with pytest.raises(VerificationFailed, match="the Match header"):
        verify(record("g1", "attackers", match=header))


def test_match_of_reads_the_header() -> None:
    assert match_of(record("g1", "attackers")) is None
    assert match_of(record("g2", "defenders", match="mAb-_9 game 2")) == MatchGame("mAb-_9", 2)


# -- newsome's tie-breaker ----------------------------------------------------------------


# -- endings the service decides ------------------------------------------------------------


def test_a_timeout_is_lost_by_the_side_to_move_only() -> None:
    # Nielsen: the attackers move first, so after two plies they are to move.
    fair = record(
        "g1", "attackers", moves=quiet("nielsen", 2), result=Result("defenders", "timeout")
    )
    assert verify(fair).result == Result("defenders", "timeout")
    # One move more (or less) and the same result blames the side that had just moved.
    for moves in (quiet("nielsen", 3), quiet("nielsen", 5)):
        shifted = replace(fair, moves=moves)
        with pytest.raises(VerificationFailed, match="only the side to move runs out of time"):
            verify(shifted)
    with pytest.raises(VerificationFailed, match="aborted, not lost"):
        verify(replace(fair, moves=quiet("nielsen", 1), result=Result("attackers", "timeout")))


@pytest.mark.parametrize(
    ("plies", "result", "needle"),
    [
        (4, Result(None, "aborted"), "only a game of fewer than two plies"),
        (1, Result("attackers", "aborted"), "with no winner"),
        (3, Result(None, "resignation"), "names no winner"),
        (3, Result("defenders", "draw_agreed"), "an agreed draw, but the defenders won"),
        (1, Result("defenders", "abandoned"), "claimed only after both sides moved"),
    ],
)
def test_an_ending_must_agree_with_the_moves(plies: int, result: Result, needle: str) -> None:
    bad = record("g1", "attackers", moves=quiet("nielsen", plies), result=result)
    with pytest.raises(VerificationFailed, match=needle):
        verify(bad)


@pytest.mark.parametrize(
    ("plies", "result"),
    [
        (0, Result(None, "aborted")),
        (1, Result(None, "aborted")),
        (3, Result("attackers", "resignation")),
        (0, Result("defenders", "resignation")),
        (6, Result(None, "draw_agreed")),
        (7, Result("attackers", "timeout")),
        (4, Result("defenders", "abandoned")),  # a claimed victory, on either side's turn
        (5, Result(None, "abandoned")),  # a claim called a draw
    ],
)
def test_endings_as_the_service_writes_them_verify(plies: int, result: Result) -> None:
    fine = record("g1", "attackers", moves=quiet("nielsen", plies), result=result)
    assert verify(fine).result == result


def newsome_match() -> tuple[Record, Record]:
    """1-1 with unequal margins: Bob wins game 1 as defenders after losing a prince (4 left),
    Ann wins game 2 as defenders with all five."""
    first = record(
        "g1",
        "attackers",
        match="m1 game 1",
        ruleset="newsome",
        moves=quiet("newsome", 2, ("d2-d3xd3",)),
        result=Result("defenders", "resignation"),
    )
    second = record(
        "g2",
        "defenders",
        match="m1 game 2",
        ruleset="newsome",
        moves=quiet("newsome", 2),
        result=Result("defenders", "resignation"),
    )
    return first, second


@pytest.mark.parametrize("creator", ["attackers", "defenders"])
def test_a_tie_breaker_after_1_1_with_unequal_margins_verifies(creator: Side) -> None:
    """The chooser picks the sides, so either side is the creator's; the seed plays no part."""
    first, second = newsome_match()
    third = record("g3", creator, seed_says=opponent(creator), match="m1 game 3", ruleset="newsome")
    assert verify(third, [first, second]).result == Result("attackers", "resignation")


def test_a_tie_breaker_needs_a_1_1_score() -> None:
    first, second = newsome_match()
    ann_again = replace(first, result=Result("attackers", "resignation"))
    third = record("g3", "attackers", match="m1 game 3", ruleset="newsome")
    with pytest.raises(VerificationFailed, match="one player won both earlier games"):
        verify(third, [ann_again, second])
    drawn = replace(second, result=Result(None, "draw_agreed"))
    with pytest.raises(VerificationFailed, match="game 2 was drawn"):
        verify(third, [first, drawn])


def test_a_tie_breaker_needs_unequal_margins() -> None:
    first, second = newsome_match()
    level = replace(first, moves=quiet("newsome", 2))
    third = record("g3", "attackers", match="m1 game 3", ruleset="newsome")
    with pytest.raises(VerificationFailed, match="both wins left 5 pieces"):
        verify(third, [level, second])


def test_only_newsome_has_a_third_game() -> None:
    first = record("g1", "attackers", match="m1 game 1", result=Result("defenders", "timeout"))
    second = record("g2", "defenders", match="m1 game 2", result=Result("defenders", "timeout"))
    third = record("g3", "attackers", match="m1 game 3")
    with pytest.raises(VerificationFailed, match="a nielsen match has only two games"):
        verify(third, [first, second])
    with pytest.raises(VerificationFailed, match="2 needed"):
        verify(third, [first])


# -- the command line ---------------------------------------------------------------------


def test_the_command_line_verifies_a_match_given_in_order(tmp_path: Path) -> None:
    first = record("g1", "attackers", match="m1 game 1")
    second = record("g2", "defenders", seed_says="attackers", match="m1 game 2")
    one, two = tmp_path / "one.txt", tmp_path / "two.txt"
    one.write_text(format_record(first))
    two.write_text(format_record(second))
    runner = CliRunner()

    both = runner.invoke(main, ["verify", str(one), str(two)])
    assert both.exit_code == 0, both.output
    assert "two.txt: game g2" in both.output
    assert "the sides follow from game 1 of match m1" in both.output

    alone = runner.invoke(main, ["verify", str(two)])
    assert alone.exit_code == 1
    assert "FAILED: this record is game 2 of match m1" in alone.output

    reversed_order = runner.invoke(main, ["verify", str(two), str(one)])
    assert reversed_order.exit_code == 1
    assert "two.txt: this record is game 2" in reversed_order.output
