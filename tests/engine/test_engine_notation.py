"""Move text (docs/rules.md §Move text): lenient input, canonical output, capture order,
and illegal moves that say what is wrong and leave the game as it was."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from brandubh.engine import Game, GameOver, IllegalMove, InvalidMoveText, Move, MoveNotLegal

Put = Callable[..., str]
ALL = ["nielsen", "federation", "common", "walker", "newsome"]
START = "3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3 a"

# The defender on f7 slides to c7 and closes on b7 (against the corner a7) and on c6
# (against the defender on c5). By square index c6 comes before b7; by file it comes after.
TWO_CAPTURES = "Df7 Ab7 Ac6 Dc5 Kg3 Ae2"


@pytest.mark.parametrize("text", ["d1-c1", "D1-C1", "d1-C1", " d1-c1 ", "d1 - c1", "\td1-c1\n"])
def test_case_and_spaces_do_not_matter(text: str) -> None:
    """Input is lenient about case and spaces; the move comes back canonical."""
    game = Game()
    move = game.play(text)
    assert str(move) == "d1-c1"
    assert [str(m) for m in game.moves] == ["d1-c1"]
    assert game.position == "3A3/3A3/3D3/AADKDAA/3D3/3A3/2A4 d"


@pytest.mark.parametrize("text", ["Kc5-c7", "c5-c7", "kc5-c7", "K c5-c7", "KC5-C7"])
def test_the_king_prefix_may_be_left_out(text: str, put: Put) -> None:
    """A king move starts with K in canonical text; on input the K may be left out."""
    game = Game.from_position(put("Kc5 Ag2 Dg6", "d"))
    move = game.play(text)
    assert move == Move("c5", "c7", king=True)
    assert str(move) == "Kc5-c7"


@pytest.mark.parametrize("ruleset", ALL)
def test_a_king_prefix_on_another_piece_is_refused(ruleset: str) -> None:
    """The K names the king: written on any other piece it does not match, and is refused."""
    game = Game(ruleset)
    with pytest.raises(MoveNotLegal, match="not the king"):
        game.play("Kd1-c1")
    assert game.ply == 0
    game.play("d1-c1")
    with pytest.raises(MoveNotLegal, match="not the king"):
        game.play("Kd3-c3")
    assert game.ply == 1


@pytest.mark.parametrize(
    "text",
    ["f7-c7", "f7-c7xb7xc6", "F7-C7XB7XC6", "f7-c7 x b7 x c6", "f7 - c7 xb7 xc6"],
)
def test_the_capture_suffix_may_be_left_out(text: str, put: Put) -> None:
    """The capture suffix is optional on input; the move as played lists every capture."""
    game = Game.from_position(put(TWO_CAPTURES, "d"))
    move = game.play(text)
    assert move.captures == ("b7", "c6")
    assert str(move) == "f7-c7xb7xc6"
    assert game.position == put("Dc7 Dc5 Kg3 Ae2", "a")


def test_captures_are_listed_by_file_then_rank(put: Put) -> None:
    """Captured squares follow in ascending order, file first, then rank."""
    game = Game.from_position(put(TWO_CAPTURES, "d"))
    (move,) = (m for m in game.legal_moves() if m.origin == "f7" and m.destination == "c7")
    assert str(move) == "f7-c7xb7xc6"
    three = Game.from_position(put("Dc1 Ab3 Da3 Ad3 De3 Ac4 Dc5 Kg5 Af7", "d"))
    assert str(three.play("c1-c3")) == "c1-c3xb3xc4xd3"


@pytest.mark.parametrize(
    ("text", "real"),
    [("f7-c7xb7", "b7, c6"), ("f7-c7xc6", "b7, c6"), ("f7-c7xb7xc6xd7", "b7, c6"),
     ("f7-c7xb6xc6", "b7, c6")],
)  # fmt: skip
def test_a_wrong_capture_suffix_is_refused_saying_so(text: str, real: str, put: Put) -> None:
    """A given suffix that does not match the real captures is an error that says so."""
    game = Game.from_position(put(TWO_CAPTURES, "d"))
    before = game.position
    with pytest.raises(MoveNotLegal, match=f"captures {real}"):
        game.play(text)
    assert game.position == before


def test_a_capture_suffix_on_a_quiet_move_is_refused() -> None:
    """A suffix on a move that captures nothing does not match either."""
    game = Game()
    with pytest.raises(MoveNotLegal, match="captures nothing"):
        game.play("d1-c1xc2")
    assert game.ply == 0


@pytest.mark.parametrize("ruleset", ALL)
def test_canonical_text_of_every_legal_move_plays_back(ruleset: str) -> None:
    """Canonical output reads back as the same move, in every rule set."""
    game = Game(ruleset)
    for _ in range(6):
        for move in game.legal_moves():
            replica = Game.from_position(game.position, ruleset)
            assert replica.play(str(move)) == move
        game.play(game.legal_moves()[len(game.legal_moves()) // 2])


def test_a_move_object_may_be_played() -> None:
    """play() takes a Move as well as text."""
    game = Game()
    move = game.legal_moves()[0]
    assert game.play(move) == move


# -- illegal moves: messages -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pieces", "side", "text", "message"),
    [
        ("Kb6 Ad6 Dg2", "a", "d6-d4", "d4 is the throne: no piece may stop there"),
        (None, "a", "c3-c2", "c3 holds no piece of the side to move"),
        (None, "a", "d3-c3", "d3 holds no piece of the side to move"),
        (None, "a", "Kd4-c3", "d4 holds no piece of the side to move"),
        ("Ag5 Kb2 Dc3", "a", "g5-g7", "g7 is a corner: only the king may stop there"),
        ("Ka4 Aa6 Dc3 Ag2", "d", "Ka4-a7", "the path from a4 to a7 is blocked at a6"),
        ("Ka4 Aa6 Dc3 Ag2", "d", "a4-a6", "the path from a4 to a6 is blocked at a6"),
        (None, "a", "d1-e2", "d1-e2 is not along a rank or file"),
        (None, "a", "d1-d1", "d1-d1 does not move the piece"),
        (None, "a", "hello", "'hello' is not a move"),
        (None, "a", "h1-h2", "'h1-h2' is not a move"),
        (None, "a", "d1-d8", "'d1-d8' is not a move"),
        (None, "a", "", "'' is not a move"),
    ],
)
def test_an_illegal_move_names_the_problem(
    pieces: str | None, side: str, text: str, message: str, put: Put
) -> None:
    """Error messages name the problem and the squares concerned."""
    game = Game() if pieces is None else Game.from_position(put(pieces, side))
    with pytest.raises(IllegalMove) as info:
        game.play(text)
    assert message in str(info.value)
    # Text that is not a move at all is told apart from a move the position does not allow.
    assert type(info.value) is (InvalidMoveText if "is not a move" in message else MoveNotLegal)


# Illegal after the two plies in OPENING (attackers to move again).
OPENING = {"newsome": ["a4-a5", "d3-e3"]}
ILLEGAL = {
    "nielsen": ["d1-d4", "d4-d5", "c1-e2", "a4-a1", "c1-a1", "Kc1-b1", "c1-b1xb2", "x", "z9-a1"],
    "federation": ["d2-d4", "b4-c4", "g4-g1", "d3-c3", "d1-c1"],
    "common": ["a4-a7", "d6-d4", "f4-f4", "e3-e2"],
    "walker": ["b4-b7xa7", "d7-g7", "Kd4-d5"],
    "newsome": ["d2-d4", "b4-d6", "a4-b5", "b4-a6", "d1-d3", "b4-c4xc5", "d2-c3xc3", "Kd2-c3"],
}


MALFORMED = {"x", "z9-a1"}  # not move text at all; every other entry is a move not allowed


@pytest.mark.parametrize(("ruleset", "text"), [(r, t) for r, ts in ILLEGAL.items() for t in ts])
def test_an_illegal_move_leaves_the_game_unchanged(ruleset: str, text: str) -> None:
    """After any IllegalMove the game is unchanged: position, ply, moves, counts, result."""
    game = Game(ruleset)
    for move in OPENING.get(ruleset, ["d1-c1", "d3-e3"]):
        game.play(move)
    before = (
        game.position,
        game.ply,
        list(game.moves),
        game.repetitions,
        game.result,
        game.legal_moves(),
    )
    with pytest.raises(InvalidMoveText if text in MALFORMED else MoveNotLegal):
        game.play(text)
    after = (
        game.position,
        game.ply,
        list(game.moves),
        game.repetitions,
        game.result,
        game.legal_moves(),
    )
    assert after == before


@pytest.mark.parametrize("ruleset", ["nielsen", "federation", "common", "walker"])
def test_no_move_after_the_game_ended(ruleset: str, put: Put) -> None:
    """A move after the game ended raises GameOver (an IllegalMove); there are no legal moves."""
    game = Game.from_position(put("Ka3 Ag6 Dc6", "d"), ruleset)
    game.play("Ka3-a1")
    assert game.result is not None
    assert game.legal_moves() == []
    with pytest.raises(GameOver, match="over"):
        game.play("g6-g5")
    with pytest.raises(GameOver, match="over"):
        game.play("a1-a2")
    assert game.ply == 1
