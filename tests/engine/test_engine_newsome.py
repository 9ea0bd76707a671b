"""newsome, Newsome's Gaelic game: docs/rules.md §newsome, its §Rule table column, §Decisions 5.

White squares: file index + rank index even (a1 = (0, 0)), so the corners and the throne
are white. On this board a1 b2 c3 c1 e1 b4 a5 ... are white; b1 c2 c4 d3 d5 ... are not.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from brandubh.engine import Game, MoveNotLegal, Result

Put = Callable[..., str]


def destinations(game: Game, origin: str) -> set[str]:
    return {m.destination for m in game.legal_moves() if m.origin == origin}


def newsome(position: str) -> Game:
    return Game.from_position(position, "newsome")


# -- movement: one step, diagonals from white squares, jumps ---------------------------------


@pytest.mark.parametrize(("piece", "enemy"), [("D", "A"), ("A", "D")])
def test_a_soldier_on_a_white_square_steps_any_way_or_jumps_two_diagonally(
    piece: str, enemy: str, put: Put
) -> None:
    """Decision 5: one step orthogonally or (from a white square) diagonally, or two squares
    diagonally along white squares; never onto or over the throne."""
    side = "d" if piece == "D" else "a"
    game = newsome(put(f"{piece}c3 {enemy}g6 Ka7", side))
    assert destinations(game, "c3") == {
        "c4", "c2", "b3", "d3",  # orthogonal steps
        "b4", "b2", "d2",  # diagonal steps (d4 is the throne)
        "a5", "a1", "e1",  # diagonal jumps (e5 would pass over the throne)
    }  # fmt: skip


@pytest.mark.parametrize(("piece", "enemy"), [("D", "A"), ("A", "D")])
def test_a_soldier_on_a_dark_square_steps_orthogonally_only(
    piece: str, enemy: str, put: Put
) -> None:
    """Decision 5: no diagonal move (step or jump) from a square that is not white."""
    side = "d" if piece == "D" else "a"
    game = newsome(put(f"{piece}c4 {enemy}g6 Ka7", side))
    assert destinations(game, "c4") == {"c5", "c3", "b4"}  # d4 is the throne
    for move in ("c4-b5", "c4-d5", "c4-b3", "c4-a6", "c4-e2"):
        with pytest.raises(MoveNotLegal):
            game.play(move)


def test_the_king_steps_one_square_and_may_stop_on_the_throne(put: Put) -> None:
    """Decision 5: the king steps one square (diagonally from white squares) and never jumps;
    only the king may stop on the throne."""
    white = newsome(put("Kc3 Ag6 Dg2", "d"))
    assert destinations(white, "c3") == {"c4", "c2", "b3", "d3", "b4", "b2", "d2", "d4"}
    with pytest.raises(MoveNotLegal, match="one square"):
        white.play("Kc3-a5")
    dark = newsome(put("Kc4 Ag6 Dg2", "d"))
    assert destinations(dark, "c4") == {"c5", "c3", "b4", "d4"}
    dark.play("Kc4-d4")
    assert dark.position == put("Kd4 Ag6 Dg2", "a")


def test_a_jump_is_blocked_by_any_piece_on_the_square_passed_over(put: Put) -> None:
    """Decision 5: a two-square diagonal move needs the square passed over empty."""
    game = newsome(put("Dc3 Ab4 Dd2 Ag6 Ka7", "d"))
    assert destinations(game, "c3") == {"c4", "c2", "b3", "d3", "b4", "b2", "a1"}
    with pytest.raises(MoveNotLegal, match="the path from c3 to a5 is blocked at b4"):
        game.play("c3-a5")
    with pytest.raises(MoveNotLegal, match="the path from c3 to e1 is blocked at d2"):
        game.play("c3-e1")


def test_a_jump_needs_an_empty_destination(put: Put) -> None:
    """Decision 5: a two-square move may not capture, nor land on a friend."""
    game = newsome(put("Dc3 Aa5 De1 Ag6 Ka7", "d"))
    assert not destinations(game, "c3") & {"a5", "e1"}
    with pytest.raises(MoveNotLegal, match="may not capture"):
        game.play("c3-a5")
    with pytest.raises(MoveNotLegal):
        game.play("c3-e1")


def test_a_jump_is_played(put: Put) -> None:
    """Decision 5 (positive): the jump moves the piece two squares, capturing nothing."""
    game = newsome(put("Dc3 Ag6 Ka7", "d"))
    move = game.play("c3-a5")
    assert move.captures == ()
    assert game.position == put("Da5 Ag6 Ka7", "a")


# -- the throne: only the king, on or over it ---------------------------------------------------


def test_only_the_king_may_stop_on_the_throne(put: Put) -> None:
    """Who may stop on the throne: the king only (any side's soldier is refused)."""
    prince = newsome(put("Dd3 Ag6 Ka7", "d"))
    assert "d4" not in destinations(prince, "d3")
    with pytest.raises(MoveNotLegal, match="throne"):
        prince.play("d3-d4")
    baron = newsome(put("Ad5 Dg6 Ka7", "a"))
    with pytest.raises(MoveNotLegal, match="throne"):
        baron.play("d5-d4")
    diagonal = newsome(put("Ac5 Dg6 Ka7", "a"))
    with pytest.raises(MoveNotLegal, match="throne"):
        diagonal.play("c5-d4")
    king = newsome(put("Kd5 Ag6 Dg2", "d"))
    king.play("Kd5-d4")
    assert king.position == put("Kd4 Ag6 Dg2", "a")


@pytest.mark.parametrize(("piece", "side"), [("D", "d"), ("A", "a")])
def test_only_the_king_may_pass_over_the_throne(piece: str, side: str, put: Put) -> None:
    """Who may pass over the empty throne: the king only, so no jump crosses d4."""
    enemy = "A" if piece == "D" else "D"
    for origin, dest in [("c3", "e5"), ("e5", "c3"), ("c5", "e3"), ("e3", "c5")]:
        game = newsome(put(f"{piece}{origin} {enemy}g6 Ka7", side))
        assert dest not in destinations(game, origin)
        with pytest.raises(MoveNotLegal, match="throne"):
            game.play(f"{origin}-{dest}")


# -- corners ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pieces", "side", "move"),
    [("Ab1 Dg4 Kd6", "a", "b1-a1"), ("Da2 Ag4 Kd6", "d", "a2-a1"), ("Kb1 Ag4 Dd6", "d", "Kb1-a1"),
     ("Ac3 Dg4 Kd6", "a", "c3-a1"), ("Db2 Ag4 Kd6", "d", "b2-a1")],
)  # fmt: skip
def test_everyone_may_stop_on_a_corner_and_it_wins_nothing(
    pieces: str, side: str, move: str, put: Put
) -> None:
    """Who may stop on a corner: everyone; the king on a corner is no escape in newsome."""
    game = newsome(put(pieces, side))
    game.play(move)
    assert game.result is None


# -- capture by replacement ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pieces", "side", "move", "text", "after"),
    [
        ("Dc3 Ac4 Ag6 Ka7", "d", "c3-c4", "c3-c4xc4", "Dc4 Ag6 Ka7"),  # prince, orthogonal
        ("Ac3 Dc4 Dg6 Ka7", "a", "c3-c4", "c3-c4xc4", "Ac4 Dg6 Ka7"),  # baron, orthogonal
        ("Kc3 Ac4 Ag6 Dg2", "d", "c3-c4", "Kc3-c4xc4", "Kc4 Ag6 Dg2"),  # king, orthogonal
        ("Kc4 Ab4 Ag6 Dg2", "d", "c4-b4", "Kc4-b4xb4", "Kb4 Ag6 Dg2"),  # king from a dark square
        ("Dc3 Ab4 Ag6 Ka7", "d", "c3-b4", "c3-b4xb4", "Db4 Ag6 Ka7"),  # prince, diagonal
        ("Ac3 Db2 Dg6 Ka7", "a", "c3-b2", "c3-b2xb2", "Ab2 Dg6 Ka7"),  # baron, diagonal
        ("Ab1 Da1 Dg6 Kd7", "a", "b1-a1", "b1-a1xa1", "Aa1 Dg6 Kd7"),  # onto a corner
    ],
)
def test_capture_by_replacement(
    pieces: str, side: str, move: str, text: str, after: str, put: Put
) -> None:
    """Decision 5: a one-square move onto an enemy removes it; orthogonally by any piece,
    diagonally by princes and barons; the move text names the destination twice."""
    game = newsome(put(pieces, side))
    played = game.play(move)
    assert str(played) == text
    assert game.position == put(after, "a" if side == "d" else "d")
    assert game.moves[-1] == played


def test_the_king_does_not_capture_diagonally(put: Put) -> None:
    """Decision 5: diagonal captures are for princes and barons, not the king."""
    game = newsome(put("Kc3 Ab4 Ag6 Dg2", "d"))
    assert "b4" not in destinations(game, "c3")
    with pytest.raises(MoveNotLegal, match="orthogonally"):
        game.play("Kc3-b4")


def test_no_diagonal_capture_from_a_dark_square(put: Put) -> None:
    """Decision 5: a diagonal capture is a diagonal move, so only from a white square."""
    game = newsome(put("Dc4 Ab5 Ag6 Ka7", "d"))
    with pytest.raises(MoveNotLegal, match="white"):
        game.play("c4-b5")


@pytest.mark.parametrize(("pieces", "move"), [("Ac3 Kc4 Dg2 Ag6", "c3-c4"),
                                              ("Aa5 Kb4 Dg2 Ag6", "a5-b4")])  # fmt: skip
def test_nothing_may_move_onto_the_king(pieces: str, move: str, put: Put) -> None:
    """Decision 5: the king can never be captured, so no baron may move onto him,
    orthogonally or diagonally."""
    game = newsome(put(pieces, "a"))
    assert move[-2:] not in {m.destination for m in game.legal_moves()}
    with pytest.raises(MoveNotLegal, match="never be captured"):
        game.play(move)


def test_the_king_surrounded_on_four_sides_is_not_captured(put: Put) -> None:
    """King captured: never, even with a baron on each of his four sides."""
    game = newsome(put("Kc6 Ab6 Ad6 Ac7 Ac4 Dg2", "a"))
    game.play("c4-c5")
    assert game.result is None
    assert {m.destination for m in game.legal_moves() if m.king} == {"b6", "d6", "c7", "c5"}


def test_a_piece_may_not_capture_its_own_side(put: Put) -> None:
    """Decision 5: a capture is onto an enemy piece only."""
    game = newsome(put("Dc3 Dc4 Ag6 Ka7", "d"))
    with pytest.raises(MoveNotLegal, match="your own"):
        game.play("c3-c4")


def test_one_move_captures_one_piece(put: Put) -> None:
    """Several captures by one move: one, the piece replaced, whatever stands around."""
    # Custodially, b4 (against a4) and c5 (against c6) would fall too.
    game = newsome(put("Dc3 Ac4 Ab4 Da4 Ac5 Dc6 Ag6 Ka7", "d"))
    assert game.play("c3-c4").captures == ("c4",)
    assert game.position == put("Dc4 Ab4 Da4 Ac5 Dc6 Ag6 Ka7", "a")


def test_there_is_no_custodial_capture(put: Put) -> None:
    """Capture in newsome is by replacement only: enclosing a piece between two takes nothing,
    and neither do corners or the throne."""
    game = newsome(put("Ab5 Dc5 Ad6 Ka7 Dg2", "a"))
    assert game.play("d6-d5").captures == ()
    assert game.position == put("Ab5 Dc5 Ad5 Ka7 Dg2", "d")
    corner = newsome(put("Ab1 Dc2 Kd6 Ag4", "d"))
    assert corner.play("c2-c1").captures == ()
    assert corner.position == put("Ab1 Dc1 Kd6 Ag4", "a")


def test_a_capture_suffix_must_name_the_destination(put: Put) -> None:
    """Move text: ``c3-c4xc4`` (or leave the suffix out); a wrong suffix is refused."""
    game = newsome(put("Dc3 Ac4 Ag6 Ka7", "d"))
    with pytest.raises(MoveNotLegal, match="captures c4"):
        game.play("c3-c4xc5")
    with pytest.raises(MoveNotLegal):
        game.play("c3-b3xb3")
    assert str(game.play("c3-c4xc4")) == "c3-c4xc4"


# -- winning --------------------------------------------------------------------------------------


def test_barons_win_by_removing_every_prince(put: Put) -> None:
    """Attackers (barons) win by every prince removed: defenders_eliminated."""
    game = newsome(put("Ac3 Dc4 Kg6 Ag1", "a"))
    game.play("c3-c4")
    assert game.result == Result("attackers", "defenders_eliminated")


def test_princes_win_by_removing_every_baron(put: Put) -> None:
    """Defenders win by every baron removed: attackers_eliminated (the king may take it)."""
    game = newsome(put("Dc3 Ac4 Kg6", "d"))
    game.play("c3-c4")
    assert game.result == Result("defenders", "attackers_eliminated")
    king = newsome(put("Kc3 Ac4 Dg6", "d"))
    king.play("Kc3-c4")
    assert king.result == Result("defenders", "attackers_eliminated")


def test_a_capture_that_leaves_enemies_goes_on(put: Put) -> None:
    """Winning (negative): a capture that leaves one enemy piece does not end the game."""
    barons = newsome(put("Ac3 Dc4 Df5 Kg6 Ag1", "a"))
    barons.play("c3-c4")
    assert barons.result is None
    princes = newsome(put("Dc3 Ac4 Af5 Kg6", "d"))
    princes.play("c3-c4")
    assert princes.result is None


# -- lost in the woods -----------------------------------------------------------------------


def test_a_prince_ending_three_plies_on_a_corner_is_lost(put: Put) -> None:
    """Lost in the woods: the ply he arrives on is the first; both sides' plies count; he is
    removed at the end of the third."""
    game = newsome(put("Db2 Df3 Kd6 Ag5", "d"))
    game.play("b2-a1")  # ply 1: arrives
    assert game.position == put("Da1 Df3 Kd6 Ag5", "a")
    game.play("g5-g4")  # ply 2
    assert game.position == put("Da1 Df3 Kd6 Ag4", "d")
    game.play("f3-f2")  # ply 3: removed at its end
    assert game.position == put("Df2 Kd6 Ag4", "a")
    assert game.result is None


def test_a_prince_leaving_the_corner_on_his_third_ply_stays(put: Put) -> None:
    """Lost in the woods (negative): leaving the corner before the third ply ends saves him."""
    game = newsome(put("Db2 Df3 Kd6 Ag5", "d"))
    for move in ("b2-a1", "g5-g4", "a1-a2"):
        game.play(move)
    assert game.position == put("Da2 Df3 Kd6 Ag4", "a")


def test_a_prince_returning_to_a_corner_starts_counting_again(put: Put) -> None:
    """Lost in the woods: three *consecutive* plies; leaving and returning starts again."""
    game = newsome(put("Db2 Df3 Kd6 Ag5", "d"))
    for move in ("b2-a1", "g5-g4", "a1-a2", "g4-g5", "a2-a1", "g5-g4"):
        game.play(move)
    assert game.position == put("Da1 Df3 Kd6 Ag4", "d")
    game.play("f3-f2")
    assert game.position == put("Df2 Kd6 Ag4", "a")


@pytest.mark.parametrize(
    ("side", "moves", "between"),
    [("a", ["g5-g4", "f3-f2"], "Da1 Df3 Kd6 Ag4"), ("d", ["f3-f2", "g5-g4"], "Da1 Df2 Kd6 Ag5")],
)
def test_a_prince_given_on_a_corner_has_ended_one_ply_there(
    side: str, moves: list[str], between: str, put: Put
) -> None:
    """Lost in the woods: from_position counts a prince already on a corner as having ended
    one ply there, so he is removed at the end of the second ply played (either side's)."""
    game = newsome(put("Da1 Df3 Kd6 Ag5", side))
    game.play(moves[0])
    assert game.position == put(between, "d" if side == "a" else "a")
    game.play(moves[1])
    assert game.position == put("Df2 Kd6 Ag4", side)


def test_every_corner_counts(put: Put) -> None:
    """Lost in the woods: each of the four corners, counted separately."""
    game = newsome(put("Da1 Dg7 Db6 Kd2 Ae3", "d"))
    game.play("b6-a7")  # a1 and g7 have ended two plies, a7 one
    assert game.position == put("Da1 Dg7 Da7 Kd2 Ae3", "a")
    game.play("e3-e4")  # a1 and g7 lost
    assert game.position == put("Da7 Kd2 Ae4", "d")
    assert game.result is None
    game.play("Kd2-d1")  # a7 lost: no prince left
    assert game.position == put("Kd1 Ae4", "a")
    assert game.result == Result("attackers", "defenders_eliminated")


def test_barons_and_the_king_are_never_lost_in_the_woods(put: Put) -> None:
    """Lost in the woods: a prince only."""
    game = newsome(put("Aa1 Kg7 Dd6 Ac3", "a"))
    for move in ("c3-c4", "d6-d7", "c4-c3", "d7-d6", "c3-c4"):
        game.play(move)
    assert game.position == put("Aa1 Kg7 Dd6 Ac4", "d")


def test_the_last_prince_lost_in_the_woods_loses_the_game(put: Put) -> None:
    """Barons win when every prince is removed, by the woods too."""
    game = newsome(put("Da1 Kd6 Ag5", "a"))
    game.play("g5-g4")
    assert game.result is None
    game.play("Kd6-d7")
    assert game.result == Result("attackers", "defenders_eliminated")


def test_every_enemy_gone_is_judged_before_the_movers_own_loss(put: Put) -> None:
    """Decision 7: the king taking the last baron on the ply his last prince is lost in the
    woods: every enemy piece gone is judged first, so the defenders win."""
    game = newsome(put("Da1 Kd6 Ae7", "a"))
    game.play("e7-d7")
    game.play("Kd6-d7")
    assert game.position == put("Kd7", "a")
    assert game.result == Result("defenders", "attackers_eliminated")
