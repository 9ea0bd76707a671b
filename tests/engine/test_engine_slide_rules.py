"""The rule table of docs/rules.md (§Rule table) for the four rook-slide rule sets, row by row.

Every test builds its position by hand (``put`` lists the pieces) and checks the positive and
the negative case of one row or numbered decision. Rows that read the same in several rule
sets are parametrized over them; rows that differ carry the expectation per rule set.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from brandubh.engine import Game, MoveNotLegal, Result

Put = Callable[..., str]
SLIDE = ["nielsen", "federation", "common", "walker"]


def destinations(game: Game, origin: str) -> set[str]:
    """Where the piece on ``origin`` may move."""
    return {m.destination for m in game.legal_moves() if m.origin == origin}


# -- movement: rook slide ---------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", SLIDE)
def test_a_soldier_slides_any_distance_along_rank_and_file(ruleset: str, put: Put) -> None:
    """Movement: a soldier moves like a rook over empty squares, never diagonally."""
    game = Game.from_position(put("Ab2 Kf6 Df5", "a"), ruleset)
    assert destinations(game, "b2") == {
        "b1", "b3", "b4", "b5", "b6", "b7", "a2", "c2", "d2", "e2", "f2", "g2",
    }  # fmt: skip
    with pytest.raises(MoveNotLegal):
        game.play("b2-c3")
    with pytest.raises(MoveNotLegal):
        game.play("b2-d3")


@pytest.mark.parametrize("ruleset", SLIDE)
def test_the_king_slides_like_a_rook_too(ruleset: str, put: Put) -> None:
    """Movement: the king also moves any distance (no one-step king in these rule sets)."""
    game = Game.from_position(put("Kb2 Af6 Ag6", "d"), ruleset)
    assert destinations(game, "b2") == {
        "b1", "b3", "b4", "b5", "b6", "b7", "a2", "c2", "d2", "e2", "f2", "g2",
    }  # fmt: skip
    assert all(m.king for m in game.legal_moves() if m.origin == "b2")
    game.play("Kb2-b7")
    assert game.position == put("Kb7 Af6 Ag6", "a")


@pytest.mark.parametrize("ruleset", SLIDE)
def test_a_piece_may_not_jump_or_land_on_another(ruleset: str, put: Put) -> None:
    """Movement: no piece jumps another or lands on one."""
    game = Game.from_position(put("Ab2 Dd2 Kf6 Af5", "a"), ruleset)
    assert destinations(game, "b2") == {"b1", "b3", "b4", "b5", "b6", "b7", "a2", "c2"}
    for move in ("b2-d2", "b2-e2", "b2-g2"):
        with pytest.raises(MoveNotLegal, match="blocked at d2"):
            game.play(move)


# -- the throne ------------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", SLIDE)
def test_no_soldier_may_stop_on_the_throne(ruleset: str, put: Put) -> None:
    """Who may stop on the throne: never an attacker or a defender."""
    attackers = Game.from_position(put("Ad6 Kb6 Dg2", "a"), ruleset)
    assert "d4" not in destinations(attackers, "d6")
    with pytest.raises(MoveNotLegal, match="d4 is the throne"):
        attackers.play("d6-d4")
    defenders = Game.from_position(put("Dd6 Kb6 Ag2", "d"), ruleset)
    assert "d4" not in destinations(defenders, "d6")
    with pytest.raises(MoveNotLegal, match="d4 is the throne"):
        defenders.play("d6-d4")


@pytest.mark.parametrize(
    ("ruleset", "may_return"),
    [("nielsen", False), ("federation", False), ("common", True), ("walker", True)],
)
def test_whether_the_king_may_return_to_the_throne(
    ruleset: str, may_return: bool, put: Put
) -> None:
    """Who may stop on the throne: nobody in nielsen/federation; the king in common/walker."""
    game = Game.from_position(put("Kd5 Ab7 Ag2", "d"), ruleset)
    assert ("d4" in destinations(game, "d5")) is may_return
    if may_return:
        game.play("Kd5-d4")
        assert game.position == put("Kd4 Ab7 Ag2", "a")
        assert game.result is None
    else:
        with pytest.raises(MoveNotLegal, match="d4 is the throne"):
            game.play("Kd5-d4")


@pytest.mark.parametrize("ruleset", SLIDE)
def test_everyone_may_pass_over_the_empty_throne(ruleset: str, put: Put) -> None:
    """Who may pass over the empty throne: everyone, the king included."""
    attackers = Game.from_position(put("Ad6 Kb6 Dg2", "a"), ruleset)
    assert {"d5", "d3", "d2", "d1"} <= destinations(attackers, "d6")
    attackers.play("d6-d1")
    defenders = Game.from_position(put("Dd6 Kb6 Ag2", "d"), ruleset)
    assert {"d5", "d3", "d2", "d1"} <= destinations(defenders, "d6")
    king = Game.from_position(put("Kd6 Ab2 Ag2", "d"), ruleset)
    assert {"d5", "d3", "d2", "d1"} <= destinations(king, "d6")
    king.play("Kd6-d2")
    assert king.position == put("Kd2 Ab2 Ag2", "a")


@pytest.mark.parametrize("ruleset", SLIDE)
def test_nobody_passes_over_the_throne_while_the_king_is_on_it(ruleset: str, put: Put) -> None:
    """Passing over the throne is allowed only while it is empty."""
    game = Game.from_position(put("Ad6 Kd4 Dg2", "a"), ruleset)
    assert destinations(game, "d6") >= {"d5"}
    assert not destinations(game, "d6") & {"d3", "d2", "d1"}
    with pytest.raises(MoveNotLegal, match="blocked at d4"):
        game.play("d6-d2")


# -- corners ---------------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", SLIDE)
def test_only_the_king_may_stop_on_a_corner(ruleset: str, put: Put) -> None:
    """Who may stop on a corner: the king only."""
    attackers = Game.from_position(put("Aa3 Ag5 Kc6 Dd6", "a"), ruleset)
    assert destinations(attackers, "a3") == {"a2", "a4", "a5", "a6", "b3", "c3", "d3", "e3",
                                             "f3", "g3"}  # fmt: skip
    with pytest.raises(MoveNotLegal, match="a1 is a corner: only the king may stop there"):
        attackers.play("a3-a1")
    with pytest.raises(MoveNotLegal, match="g7 is a corner: only the king may stop there"):
        attackers.play("g5-g7")
    defenders = Game.from_position(put("Da5 Kc6 Ag2", "d"), ruleset)
    with pytest.raises(MoveNotLegal, match="a7 is a corner"):
        defenders.play("a5-a7")
    king = Game.from_position(put("Ka5 Dc6 Ag2", "d"), ruleset)
    assert {"a7", "a1"} <= destinations(king, "a5")


# -- custodial capture by the mover only (decision 8) -------------------------------------------


@pytest.mark.parametrize("ruleset", SLIDE)
def test_the_mover_captures_by_closing_on_a_piece(ruleset: str, put: Put) -> None:
    """Capture: custodial, a piece enclosed in a line between the mover and a friend."""
    game = Game.from_position(put("Ab5 Dc5 Ad7 Kf2 Dg6", "a"), ruleset)
    move = game.play("d7-d5")
    assert move.captures == ("c5",)
    assert str(move) == "d7-d5xc5"
    assert game.position == put("Ab5 Ad5 Kf2 Dg6", "d")


@pytest.mark.parametrize("ruleset", SLIDE)
def test_no_capture_without_a_friend_beyond(ruleset: str, put: Put) -> None:
    """Capture: an enemy beside the mover with an empty square beyond it stays."""
    game = Game.from_position(put("Dc5 Ad7 Kf2 Dg6", "a"), ruleset)
    assert game.play("d7-d5").captures == ()
    assert game.position == put("Dc5 Ad5 Kf2 Dg6", "d")


@pytest.mark.parametrize("ruleset", SLIDE)
def test_diagonals_do_not_capture(ruleset: str, put: Put) -> None:
    """Capture: only along a rank or file; enclosing on a diagonal takes nothing."""
    game = Game.from_position(put("Ad7 De6 Af2 Kb2 Dg6", "a"), ruleset)
    assert game.play("f2-f5").captures == ()
    assert game.position == put("Ad7 De6 Af5 Kb2 Dg6", "d")


@pytest.mark.parametrize("ruleset", SLIDE)
def test_a_soldier_may_walk_in_between_two_enemies(ruleset: str, put: Put) -> None:
    """Decision 8: a piece that moves between two enemies is safe; they did not close on it."""
    game = Game.from_position(put("Ab5 Ad5 Dc7 Kf2 Ag4", "d"), ruleset)
    assert game.play("c7-c5").captures == ()
    assert game.position == put("Ab5 Ad5 Dc5 Kf2 Ag4", "a")
    # A third attacker arriving elsewhere does not take it either: it encloses nothing.
    assert game.play("g4-c4").captures == ()
    assert game.position == put("Ab5 Ad5 Dc5 Ac4 Kf2", "d")


@pytest.mark.parametrize("ruleset", SLIDE)
def test_walked_in_piece_is_taken_when_an_enemy_moves_away_and_back(ruleset: str, put: Put) -> None:
    """Decision 8: to take a piece that walked in, one enemy must leave and close again."""
    game = Game.from_position(put("Ab5 Ad5 Dc5 Kf2 Dg6", "a"), ruleset)
    game.play("d5-e5")
    game.play("Kf2-f1")
    assert game.play("e5-d5").captures == ("c5",)


@pytest.mark.parametrize("ruleset", SLIDE)
def test_the_king_may_walk_in_between_two_attackers(ruleset: str, put: Put) -> None:
    """Decision 8 for the king: standing between two attackers he walked in on, he is safe,
    also when a third attacker arrives elsewhere; an attacker closing again takes him."""
    game = Game.from_position(put("Ab6 Ad6 Kc7 Ac2 Dg2", "d"), ruleset)
    game.play("Kc7-c6")
    assert game.result is None
    assert game.play("c2-c5").captures == ()
    assert game.result is None
    game.play("g2-g3")
    game.play("d6-e6")
    game.play("g3-g2")
    assert game.play("e6-d6").captures == ("c6",)
    assert game.result == Result("attackers", "king_captured")


# -- hostile corners -------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", SLIDE)
def test_a_corner_is_hostile_to_attackers(ruleset: str, put: Put) -> None:
    """Corners hostile to all: an attacker beside a corner falls to one defender."""
    game = Game.from_position(put("Ab1 Dd1 Kf5 Af7", "d"), ruleset)
    assert game.play("d1-c1").captures == ("b1",)
    assert game.position == put("Dc1 Kf5 Af7", "a")


@pytest.mark.parametrize("ruleset", SLIDE)
def test_a_corner_is_hostile_to_defenders(ruleset: str, put: Put) -> None:
    """Corners hostile to all: a defender beside a corner falls to one attacker."""
    game = Game.from_position(put("Da2 Aa4 Kf5 Df7", "a"), ruleset)
    assert game.play("a4-a3").captures == ("a2",)
    assert game.position == put("Aa3 Kf5 Df7", "d")


@pytest.mark.parametrize("ruleset", SLIDE)
def test_a_corner_is_hostile_to_the_king(ruleset: str, put: Put) -> None:
    """Corners hostile to all, king included: attacker + corner captures him."""
    game = Game.from_position(put("Kb7 Ac3 Dg2", "a"), ruleset)
    assert game.play("c3-c7").captures == ("b7",)
    assert game.result == Result("attackers", "king_captured")


@pytest.mark.parametrize("ruleset", SLIDE)
def test_an_ordinary_empty_square_is_not_hostile(ruleset: str, put: Put) -> None:
    """Corners hostile (negative): the same shape one square from the corner takes nothing."""
    soldier = Game.from_position(put("Ab2 Dd2 Kf5 Af7", "d"), ruleset)
    assert soldier.play("d2-c2").captures == ()
    king = Game.from_position(put("Kb6 Ac3 Dg2", "a"), ruleset)
    assert king.play("c3-c6").captures == ()
    assert king.result is None


# -- the empty throne, and the throne with the king on it -------------------------------------


@pytest.mark.parametrize(
    ("ruleset", "hostile"),
    [("nielsen", True), ("federation", True), ("common", True), ("walker", False)],
)
def test_the_empty_throne_and_an_attacker_beside_it(ruleset: str, hostile: bool, put: Put) -> None:
    """Empty throne hostile to attackers in nielsen/federation/common, to nobody in walker."""
    game = Game.from_position(put("Ad5 Df6 Kb2 Af2", "d"), ruleset)
    assert game.play("f6-d6").captures == (("d5",) if hostile else ())


@pytest.mark.parametrize(
    ("ruleset", "hostile"),
    [("nielsen", True), ("federation", True), ("common", True), ("walker", False)],
)
def test_the_empty_throne_and_a_defender_beside_it(ruleset: str, hostile: bool, put: Put) -> None:
    """Empty throne hostile to defenders in nielsen/federation/common, to nobody in walker."""
    game = Game.from_position(put("Dd5 Af6 Kb2 Dg2", "a"), ruleset)
    assert game.play("f6-d6").captures == (("d5",) if hostile else ())
    game = Game.from_position(put("Dc4 Ab6 Kf2 Dg2", "a"), ruleset)
    assert game.play("b6-b4").captures == (("c4",) if hostile else ())


@pytest.mark.parametrize("ruleset", SLIDE)
def test_the_empty_throne_alone_never_takes_the_king(ruleset: str, put: Put) -> None:
    """Empty throne: one attacker and the throne never capture the king beside it (in
    nielsen/federation he needs three attackers, in common the throne is never hostile to him,
    in walker it is hostile to nobody)."""
    for pieces, move in [
        ("Kd5 Af6 Dg2", "f6-d6"),
        ("Ke4 Af6 Db2", "f6-f4"),
        ("Kd3 Ab2 Dg6", "b2-d2"),
        ("Kc4 Ab6 Dg2", "b6-b4"),
    ]:
        game = Game.from_position(put(pieces, "a"), ruleset)
        assert game.play(move).captures == (), pieces
        assert game.result is None, pieces


@pytest.mark.parametrize("ruleset", SLIDE)
def test_the_throne_with_the_king_on_it_is_not_hostile_to_defenders(ruleset: str, put: Put) -> None:
    """Empty throne only: a defender beside the occupied throne is safe from one attacker."""
    game = Game.from_position(put("Kd4 Dd5 Af6 Ab2", "a"), ruleset)
    assert game.play("f6-d6").captures == ()
    assert game.position == put("Kd4 Dd5 Ad6 Ab2", "d")


@pytest.mark.parametrize("ruleset", SLIDE)
def test_the_king_on_the_throne_is_an_armed_enemy_of_attackers(ruleset: str, put: Put) -> None:
    """Throne with the king on it: he is an enemy of attackers, so a defender closing on an
    attacker against him captures it."""
    game = Game.from_position(put("Kd4 Ad5 Df6 Ab2", "d"), ruleset)
    assert game.play("f6-d6").captures == ("d5",)
    assert game.position == put("Kd4 Dd6 Ab2", "a")


# -- the armed king --------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", SLIDE)
def test_the_king_captures_as_the_hammer(ruleset: str, put: Put) -> None:
    """King armed: the king moving in captures an attacker against a defender."""
    game = Game.from_position(put("Ac6 Db6 Kd7 Ag2", "d"), ruleset)
    move = game.play("Kd7-d6")
    assert move.captures == ("c6",)
    assert str(move) == "Kd7-d6xc6"
    assert game.position == put("Db6 Kd6 Ag2", "a")


@pytest.mark.parametrize("ruleset", SLIDE)
def test_the_king_captures_as_the_anvil(ruleset: str, put: Put) -> None:
    """King armed: a defender captures an attacker against the king."""
    game = Game.from_position(put("Ac6 Kb6 Dd7 Ag2", "d"), ruleset)
    assert game.play("d7-d6").captures == ("c6",)
    assert game.position == put("Kb6 Dd6 Ag2", "a")


@pytest.mark.parametrize("ruleset", SLIDE)
def test_the_king_beside_an_attacker_alone_captures_nothing(ruleset: str, put: Put) -> None:
    """King armed (negative): no friend or hostile square beyond, no capture."""
    game = Game.from_position(put("Ac6 Kd7 Ag2 Dg6", "d"), ruleset)
    assert game.play("Kd7-d6").captures == ()


# -- capturing the king ----------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", SLIDE)
def test_the_king_is_captured_by_two_attackers_in_a_line(ruleset: str, put: Put) -> None:
    """King captured on the open board: between two attackers on a rank or file."""
    game = Game.from_position(put("Kc6 Ab6 Af6 Dg2", "a"), ruleset)
    assert game.play("f6-d6").captures == ("c6",)
    assert game.result == Result("attackers", "king_captured")
    game = Game.from_position(put("Kc5 Ac6 Ae4 Dg2", "a"), ruleset)
    assert game.play("e4-c4").captures == ("c5",)
    assert game.result == Result("attackers", "king_captured")


@pytest.mark.parametrize("ruleset", SLIDE)
def test_two_attackers_not_in_a_line_do_not_capture_the_king(ruleset: str, put: Put) -> None:
    """King captured on the open board (negative): two attackers at a right angle."""
    game = Game.from_position(put("Kc6 Ab6 Ae7 Dg2", "a"), ruleset)
    assert game.play("e7-c7").captures == ()
    assert game.result is None


@pytest.mark.parametrize(
    ("ruleset", "pieces", "move", "captured"),
    [
        # Three attackers on his other sides, the mover completing them (decision 8).
        *[(rs, "Kd5 Ac5 Ae5 Af6 Dg2", "f6-d6", rs in ("nielsen", "federation")) for rs in SLIDE],
        *[(rs, "Ke4 Ae5 Ae3 Af7 Da6", "f7-f4", rs in ("nielsen", "federation")) for rs in SLIDE],
        *[(rs, "Ke4 Ae5 Af7 Da6", "f7-f4", False) for rs in SLIDE],  # two of the three
        # Two attackers in a line across him.
        *[(rs, "Kd5 Ac5 Ae7 Dg2", "e7-e5", rs in ("common", "walker")) for rs in SLIDE],
        *[(rs, "Kc4 Ac5 Ab3 Dg2", "b3-c3", rs in ("common", "walker")) for rs in SLIDE],
        *[(rs, "Kd3 Ac3 Ag3 Db6", "g3-e3", rs in ("common", "walker")) for rs in SLIDE],
        # Two attackers at a right angle: nowhere enough.
        *[(rs, "Kd5 Ac5 Ae6 Dg2", "e6-d6", False) for rs in SLIDE],
    ],
)
def test_the_king_beside_the_throne(
    ruleset: str, pieces: str, move: str, captured: bool, put: Put
) -> None:
    """King captured beside the throne: three attackers on his other sides in
    nielsen/federation; two in a line, like anywhere, in common and walker."""
    game = Game.from_position(put(pieces, "a"), ruleset)
    king = pieces.split()[0][1:]
    assert game.play(move).captures == ((king,) if captured else ())
    assert game.result == (Result("attackers", "king_captured") if captured else None)


@pytest.mark.parametrize("ruleset", SLIDE)
def test_the_king_may_walk_in_beside_the_throne_among_three_attackers(
    ruleset: str, put: Put
) -> None:
    """Decision 8 beside the throne: the king stepping off the throne among three attackers
    is not captured; the mover must complete the enclosure."""
    game = Game.from_position(put("Kd4 Ac5 Ae5 Ad6 Ag2 Db2", "d"), ruleset)
    game.play("Kd4-d5")
    assert game.result is None
    assert game.position == put("Kd5 Ac5 Ae5 Ad6 Ag2 Db2", "a")


@pytest.mark.parametrize(
    ("ruleset", "pieces", "move", "captured"),
    [
        # Three attackers there already, the fourth arrives.
        *[(rs, "Kd4 Ac4 Ad3 Ad5 Ae6 Dg2", "e6-e4", True) for rs in SLIDE],
        # Two in a line across the throne.
        *[(rs, "Kd4 Ac4 Ae6 Dg2", "e6-e4", rs == "walker") for rs in SLIDE],
        *[(rs, "Kd4 Ad3 Af5 Dg2", "f5-d5", rs == "walker") for rs in SLIDE],
        # Three, not four.
        *[(rs, "Kd4 Ac4 Ad3 Ae6 Dg2", "e6-e4", rs == "walker") for rs in SLIDE],
        # Two at a right angle.
        *[(rs, "Kd4 Ad3 Ae6 Dg2", "e6-e4", False) for rs in SLIDE],
    ],
)
def test_the_king_on_the_throne(
    ruleset: str, pieces: str, move: str, captured: bool, put: Put
) -> None:
    """King captured on the throne: four attackers in nielsen/federation/common, two in a
    line in walker."""
    game = Game.from_position(put(pieces, "a"), ruleset)
    assert game.play(move).captures == (("d4",) if captured else ())
    assert game.result == (Result("attackers", "king_captured") if captured else None)


# -- the board edge --------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", SLIDE)
def test_nothing_is_captured_against_the_board_edge(ruleset: str, put: Put) -> None:
    """Captures against the board edge: no, for soldiers and for the king."""
    attacker = Game.from_position(put("Aa5 Db7 Kf2 Ag2", "d"), ruleset)
    assert attacker.play("b7-b5").captures == ()
    defender = Game.from_position(put("Da5 Ab7 Kf2 Dg3", "a"), ruleset)
    assert defender.play("b7-b5").captures == ()
    king = Game.from_position(put("Ka4 Ab6 Dg2 Ag6", "a"), ruleset)
    assert king.play("b6-b4").captures == ()
    assert king.result is None
    top = Game.from_position(put("Kd7 Af6 Ab2 Dg2", "a"), ruleset)
    assert top.play("f6-d6").captures == ()
    assert top.result is None


@pytest.mark.parametrize("ruleset", SLIDE)
def test_pieces_on_the_edge_are_captured_along_it(ruleset: str, put: Put) -> None:
    """Captures against the board edge (contrast): along the edge two enemies still capture."""
    soldier = Game.from_position(put("Aa5 Da6 Dc4 Kf2 Ag2", "d"), ruleset)
    assert soldier.play("c4-a4").captures == ("a5",)
    king = Game.from_position(put("Ka4 Aa5 Ac3 Dg2", "a"), ruleset)
    assert king.play("c3-a3").captures == ("a4",)
    assert king.result == Result("attackers", "king_captured")


# -- several captures ------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", SLIDE)
def test_defenders_capture_three_attackers_with_one_move(ruleset: str, put: Put) -> None:
    """Several captures by one move: up to three, in different directions."""
    game = Game.from_position(put("Dc1 Ab3 Da3 Ad3 De3 Ac4 Dc5 Kg5 Af7", "d"), ruleset)
    move = game.play("c1-c3")
    assert move.captures == ("b3", "c4", "d3")
    assert str(move) == "c1-c3xb3xc4xd3"
    assert game.position == put("Dc3 Da3 De3 Dc5 Kg5 Af7", "a")
    assert game.result is None


@pytest.mark.parametrize("ruleset", SLIDE)
def test_attackers_capture_three_defenders_with_one_move(ruleset: str, put: Put) -> None:
    """Several captures by one move: attackers take three defenders at once."""
    game = Game.from_position(put("Ac1 Db3 Aa3 Dd3 Ae3 Dc4 Ac5 Kg5", "a"), ruleset)
    assert game.play("c1-c3").captures == ("b3", "c4", "d3")
    assert game.position == put("Ac3 Aa3 Ae3 Ac5 Kg5", "d")
    assert game.result is None


@pytest.mark.parametrize("ruleset", SLIDE)
def test_only_the_enclosed_pieces_of_a_multiple_capture_go(ruleset: str, put: Put) -> None:
    """Several captures (negative): an enemy beside the mover with nothing beyond stays."""
    game = Game.from_position(put("Dc1 Ab3 Da3 Ad3 Ac4 Dc5 Kg5 Af7", "d"), ruleset)
    assert game.play("c1-c3").captures == ("b3", "c4")
    assert game.position == put("Dc3 Da3 Ad3 Dc5 Kg5 Af7", "a")
