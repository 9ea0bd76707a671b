"""How games end (docs/rules.md §Rule table, §Results, §Decisions 4, 6 and 7): wins, a side
with no legal move, the third repetition, the 400-ply limit, and the service's endings."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from brandubh.engine import Game, GameOver, InvalidResult, Result, Side

Put = Callable[..., str]
SLIDE = ["nielsen", "federation", "common", "walker"]
ALL = [*SLIDE, "newsome"]
CORNERS = frozenset({"a1", "a7", "g1", "g7"})


def pieces_on_board(game: Game) -> int:
    return sum(ch in "ADK" for ch in game.position.split()[0])


def shuffle_to(
    game: Game, ply: int, *, keep: frozenset[str] = frozenset(), avoid: frozenset[str] = frozenset()
) -> None:
    """Play quiet moves until ``game.ply == ply``: no capture, no piece lost, no ending; never
    move a piece standing on a square in ``keep`` nor enter a square in ``avoid``; prefer the
    move whose position has come round least often (so the game wanders, not repeats)."""
    while game.ply < ply:
        best: tuple[int, int] | None = None
        pieces = pieces_on_board(game)
        for move in game.legal_moves():
            if move.captures or move.origin in keep or move.destination in avoid:
                continue
            game.push(move.code)
            if game.result is None and pieces_on_board(game) == pieces:
                score = game.repetitions
                if best is None or score < best[0]:
                    best = (score, move.code)
            game.pop()
        assert best is not None, f"no quiet move left at ply {game.ply}: {game.position}"
        game.push(best[1])
        assert game.result is None


# -- the king escapes --------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", SLIDE)
@pytest.mark.parametrize(
    ("pieces", "move"),
    [("Ka3 Ag6 Dc6", "Ka3-a1"), ("Ka3 Ag6 Dc6", "Ka3-a7"), ("Kc1 Ag6 Dc6", "Kc1-g1"),
     ("Kg4 Ab6 Dc6", "Kg4-g7")],
)  # fmt: skip
def test_the_king_on_a_corner_wins_for_the_defenders(
    ruleset: str, pieces: str, move: str, put: Put
) -> None:
    """Defenders win by the king on a corner (each of the four)."""
    game = Game.from_position(put(pieces, "d"), ruleset)
    game.play(move)
    assert game.result == Result("defenders", "king_escaped")


@pytest.mark.parametrize("ruleset", SLIDE)
def test_the_king_on_an_edge_square_does_not_win(ruleset: str, put: Put) -> None:
    """Defenders win by a corner only (negative): an edge square beside it is not enough."""
    game = Game.from_position(put("Ka3 Ag6 Dc6", "d"), ruleset)
    game.play("Ka3-a2")
    assert game.result is None


# -- every attacker captured; the king captured --------------------------------------------------


@pytest.mark.parametrize("ruleset", SLIDE)
def test_capturing_the_last_attacker_wins_for_the_defenders(ruleset: str, put: Put) -> None:
    """Defenders win when every attacker is captured (decision 4: in walker too)."""
    game = Game.from_position(put("Ac6 Db6 Dd7 Kf2", "d"), ruleset)
    game.play("d7-d6")
    assert game.result == Result("defenders", "attackers_eliminated")


@pytest.mark.parametrize("ruleset", SLIDE)
def test_capturing_an_attacker_that_is_not_the_last_goes_on(ruleset: str, put: Put) -> None:
    """Defenders win by eliminating the attackers (negative): one left, the game goes on."""
    game = Game.from_position(put("Ac6 Db6 Dd7 Kf2 Ag7", "d"), ruleset)
    assert game.play("d7-d6").captures == ("c6",)
    assert game.result is None


@pytest.mark.parametrize("ruleset", SLIDE)
def test_a_position_without_attackers_is_already_won(ruleset: str, put: Put) -> None:
    """Decision 4: attackers with no piece left have lost, rather than being stuck (draw)."""
    game = Game.from_position(put("Kd4 Dc4", "a"), ruleset)
    assert game.result == Result("defenders", "attackers_eliminated")
    assert game.legal_moves() == []


@pytest.mark.parametrize("ruleset", SLIDE)
def test_every_enemy_gone_is_judged_before_the_king_escaping(ruleset: str, put: Put) -> None:
    """Decision 7: the king reaching a corner while capturing the last attacker wins by
    attackers_eliminated, which is judged first."""
    game = Game.from_position(put("Ka3 Ab1 Dc1", "d"), ruleset)
    move = game.play("Ka3-a1")
    assert move.captures == ("b1",)
    assert game.result == Result("defenders", "attackers_eliminated")


@pytest.mark.parametrize("ruleset", SLIDE)
def test_a_king_captured_as_the_last_defender_is_king_captured(ruleset: str, put: Put) -> None:
    """Decision 7: the king captured as the defenders' last piece: reason king_captured."""
    game = Game.from_position(put("Kc6 Ab6 Af6", "a"), ruleset)
    game.play("f6-d6")
    assert game.result == Result("attackers", "king_captured")


# -- no legal move ----------------------------------------------------------------------------

STUCK_OUTCOME = {
    "nielsen": "draw",
    "federation": "loses",
    "common": "loses",
    "walker": "draw",
}


def stuck_result(ruleset: str, stuck_side: str) -> Result:
    if STUCK_OUTCOME[ruleset] == "draw":
        return Result(None, "no_legal_moves")
    return Result("attackers" if stuck_side == "defenders" else "defenders", "no_legal_moves")


@pytest.mark.parametrize("ruleset", SLIDE)
def test_defenders_left_without_a_legal_move(ruleset: str, put: Put) -> None:
    """Side to move has no legal move: draw in nielsen/walker, that side loses in
    federation/common. Here the attackers' last move shuts every defender in."""
    # King d1 walled in by his defenders c1 e1 d2, they by attackers b1 c2 e2 f1; d6 closes d3.
    game = Game.from_position(put("Kd1 Dc1 De1 Dd2 Ab1 Af1 Ac2 Ae2 Ad6", "a"), ruleset)
    assert game.play("d6-d3").captures == ()
    assert game.result == stuck_result(ruleset, "defenders")
    assert game.legal_moves() == []


@pytest.mark.parametrize("ruleset", SLIDE)
def test_attackers_left_without_a_legal_move(ruleset: str, put: Put) -> None:
    """Side to move has no legal move: the attacker on a2 (corner a1 below him, defenders on
    a3 and b2) cannot move once the defenders play elsewhere."""
    game = Game.from_position(put("Aa2 Da3 Db2 Kf5", "d"), ruleset)
    game.play("Kf5-f6")
    assert game.result == stuck_result(ruleset, "attackers")


@pytest.mark.parametrize("ruleset", SLIDE)
def test_a_side_with_one_legal_move_is_not_stuck(ruleset: str, put: Put) -> None:
    """Side to move has no legal move (negative): one free square is enough to play on."""
    game = Game.from_position(put("Aa2 Da3 Dc2 Kf5", "d"), ruleset)
    game.play("Kf5-f6")
    assert game.result is None
    assert {str(m) for m in game.legal_moves()} == {"a2-b2"}


@pytest.mark.parametrize("ruleset", SLIDE)
def test_a_position_whose_side_to_move_is_stuck_is_judged_at_once(ruleset: str, put: Put) -> None:
    """Side to move has no legal move, given as a position: judged before any move."""
    game = Game.from_position(put("Aa2 Da3 Db2 Kf5", "a"), ruleset)
    assert game.result == stuck_result(ruleset, "attackers")


# -- the third repetition -----------------------------------------------------------------------

# Attackers to move: the defenders' fourth move makes the start position come round.
CYCLE_DEFENDERS_REPEAT = ["b2-b3", "Kf6-f5", "b3-b2", "Kf5-f6"]
# Defenders to move: the attackers' fourth move makes the start position come round.
CYCLE_ATTACKERS_REPEAT = ["Kf6-f5", "b2-b3", "Kf5-f6", "b3-b2"]


@pytest.mark.parametrize(
    ("ruleset", "side", "cycle", "winner"),
    [
        ("nielsen", "a", CYCLE_DEFENDERS_REPEAT, None),
        ("nielsen", "d", CYCLE_ATTACKERS_REPEAT, None),
        ("walker", "a", CYCLE_DEFENDERS_REPEAT, None),
        ("walker", "d", CYCLE_ATTACKERS_REPEAT, None),
        # federation: the defenders lose, whoever repeated.
        ("federation", "a", CYCLE_DEFENDERS_REPEAT, "attackers"),
        ("federation", "d", CYCLE_ATTACKERS_REPEAT, "attackers"),
        # common: the player whose move made it loses.
        ("common", "a", CYCLE_DEFENDERS_REPEAT, "attackers"),
        ("common", "d", CYCLE_ATTACKERS_REPEAT, "defenders"),
    ],
)
def test_the_third_repetition(
    ruleset: str, side: str, cycle: list[str], winner: Side | None, put: Put
) -> None:
    """A position coming round the third time with the same side to move: draw in
    nielsen/walker; defenders lose in federation; the repeater loses in common. The position
    has come round twice (``repetitions == 2``) after the second cycle, and play goes on."""
    game = Game.from_position(put("Ab2 Kf6 Dc6", side), ruleset)
    assert game.repetitions == 1
    for move in cycle:
        game.play(move)
    assert game.repetitions == 2
    assert game.result is None
    for move in cycle[:-1]:
        game.play(move)
        assert game.result is None
    game.play(cycle[-1])
    assert game.repetitions == 3
    assert game.result == Result(winner, "repetition")
    assert game.legal_moves() == []


@pytest.mark.parametrize("ruleset", ALL)
def test_the_same_board_with_the_other_side_to_move_is_another_position(
    ruleset: str, put: Put
) -> None:
    """A repetition needs the same side to move: the attacker goes round a three-move cycle
    and the king a two-move one, so after five plies the board is back with the defenders to
    move, and that counts as a first occurrence."""
    game = Game.from_position(put("Ab2 Kf6 Dc6", "a"), ruleset)
    if ruleset == "newsome":  # b2 and c3 are white: b2-b3, b3-c3, c3-b2 diagonally
        moves = ["b2-b3", "Kf6-f5", "b3-c3", "Kf5-f6", "c3-b2"]
    else:
        moves = ["b2-b4", "Kf6-f5", "b4-b3", "Kf5-f6", "b3-b2"]
    for move in moves:
        game.play(move)
    assert game.position == put("Ab2 Kf6 Dc6", "d")
    assert game.repetitions == 1


@pytest.mark.parametrize("ruleset", ALL)
def test_repetitions_counts_every_occurrence(ruleset: str, put: Put) -> None:
    """The warning after the second occurrence is shown in every rule set: ``repetitions``
    is 1, then 2 after the position has come round once."""
    game = Game.from_position(put("Ab2 Kf6 Dc6", "a"), ruleset)
    assert game.repetitions == 1
    game.play("b2-b3")
    assert game.repetitions == 1
    game.play("Kf6-f5")
    game.play("b3-b2")
    game.play("Kf5-f6")
    assert game.repetitions == 2
    assert game.result is None


def test_newsome_third_repetition_is_a_draw(put: Put) -> None:
    """newsome: a position coming round the third time is a draw."""
    game = Game.from_position(put("Ab2 Kf6 Dc6", "a"), "newsome")
    for _ in range(2):
        for move in CYCLE_DEFENDERS_REPEAT:
            game.play(move)
    assert game.result == Result(None, "repetition")


# -- the 400-ply limit ----------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", ALL)
def test_four_hundred_plies_draw(ruleset: str, put: Put) -> None:
    """400 plies played: a draw (move_limit), not one ply earlier."""
    game = Game.from_position(put("Kc6 Dc2 Ae5 Af2", "a"), ruleset)
    shuffle_to(game, 399, avoid=CORNERS)
    assert game.result is None
    assert game.ply == 399
    quiet = [m for m in game.legal_moves() if not m.captures and m.destination not in CORNERS]
    game.play(quiet[0])
    assert game.ply == 400
    assert game.result == Result(None, "move_limit")
    with pytest.raises(GameOver, match="over"):
        game.play(quiet[1])


@pytest.mark.parametrize("ruleset", SLIDE)
def test_a_king_escaping_on_ply_400_wins(ruleset: str, put: Put) -> None:
    """Decision 7: a win on ply 400 stands (the king reaches a1 with the last ply)."""
    game = Game.from_position(put("Ka3 Dc6 Ae5 Af2", "a"), ruleset)
    shuffle_to(game, 399, keep=frozenset({"a3"}), avoid=frozenset({"a2"}))
    game.play("Ka3-a1")
    assert game.ply == 400
    assert game.result == Result("defenders", "king_escaped")
    game.pop()
    game.play("Ka3-a2")
    assert game.result == Result(None, "move_limit")


def test_newsome_capturing_the_last_prince_on_ply_400_wins(put: Put) -> None:
    """Decision 7 (newsome): a win on ply 400 stands (the baron on c3 takes the last prince)."""
    game = Game.from_position(put("Ac3 Dc4 Kf6 Ag2", "d"), "newsome")
    shuffle_to(game, 399, keep=frozenset({"c3", "c4"}))
    game.play("c3-c4")
    assert game.ply == 400
    assert game.result == Result("attackers", "defenders_eliminated")


@pytest.mark.parametrize("ruleset", SLIDE)
def test_no_legal_move_on_ply_400_is_judged_before_the_limit(ruleset: str, put: Put) -> None:
    """Decision 7: the opponent left without a legal move is judged before the 400-ply limit
    (a game resumed from a snapshot at ply 399)."""
    start = Game.from_position(put("Kd1 Dc1 De1 Dd2 Ab1 Af1 Ac2 Ae2 Ad6", "a"), ruleset)
    game = Game.from_snapshot(replace(start.snapshot(), ply=399))
    game.play("d6-d3")
    assert game.ply == 400
    assert game.result == stuck_result(ruleset, "defenders")
    game = Game.from_snapshot(replace(start.snapshot(), ply=399))
    game.play("d6-d5")
    assert game.result == Result(None, "move_limit")


@pytest.mark.parametrize("ruleset", SLIDE)
def test_repetition_on_ply_400_is_judged_before_the_limit(ruleset: str, put: Put) -> None:
    """Decision 7: a third repetition is judged before the 400-ply limit."""
    start = Game.from_position(put("Ab2 Kf6 Dc6", "a"), ruleset)
    for move in CYCLE_DEFENDERS_REPEAT * 2:
        start.play(move)
    start.pop()
    game = Game.from_snapshot(replace(start.snapshot(), ply=399))
    game.play(CYCLE_DEFENDERS_REPEAT[-1])
    assert game.ply == 400
    assert game.result is not None
    assert game.result.reason == "repetition"


# -- endings the service records (decision 6) ---------------------------------------------------


@pytest.mark.parametrize("ruleset", ALL)
@pytest.mark.parametrize(
    ("winner", "reason"),
    [("attackers", "timeout"), ("defenders", "resignation"), (None, "draw_agreed")],
)
def test_the_service_ends_a_game_for_its_own_reasons(
    ruleset: str, winner: Side | None, reason: str
) -> None:
    """Decision 6: deadline, resignation and agreement are recorded with their reason; the
    game then takes no move."""
    game = Game(ruleset)
    game.play(str(game.legal_moves()[0]))
    result = game.finish(winner, reason)
    assert result == game.result == Result(winner, reason)
    assert game.legal_moves() == []
    with pytest.raises(GameOver):
        game.play(str(Game(ruleset).legal_moves()[0]))
    with pytest.raises(GameOver):
        game.finish(None, "draw_agreed")


@pytest.mark.parametrize(
    "reason",
    ["king_escaped", "king_captured", "attackers_eliminated", "no_legal_moves", "repetition",
     "move_limit", "defenders_eliminated", "bored"],
)  # fmt: skip
def test_the_service_cannot_claim_an_ending_the_board_decides(reason: str) -> None:
    """Decision 6: every other ending is reported by the engine itself, never by finish()."""
    game = Game()
    with pytest.raises(InvalidResult, match=reason):
        game.finish("attackers", reason)
    assert game.result is None
