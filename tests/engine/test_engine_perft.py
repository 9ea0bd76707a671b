"""Perft figures, pinned: the number of move sequences of each length from a position.

The depth 1 and 2 figures from the start were counted by hand (see the docstrings); depth 3
is recomputed by the naive reference model in test_engine_reference.py; depth 4 is pinned as
the engine gives it today, so any change to move generation shows up here.
"""

from __future__ import annotations

import pytest

from brandubh.engine import Game, perft

SLIDE = ["nielsen", "federation", "common", "walker"]

# King beside the throne (d5), attackers e4 c5 b3 g6, defenders f6 g3, defenders to move.
BESIDE_THRONE = "7/5DA/2AK3/4A2/1A4D/7/7 d"


@pytest.mark.parametrize("ruleset", SLIDE)
def test_slide_perft_from_the_start(ruleset: str) -> None:
    """Rook slides from the start.

    Depth 1, by hand: each arm of two attackers has 10 moves (a4: a5 a6 a3 a2, the corner
    stopping it; b4: three up and three down), 4 arms = 40.
    Depth 2, by hand: the defenders have 24 replies (each of c4 e4 d3 d5 has 3 + 3; the king
    none), changed per attacker move as follows, left arm: a4-a5 and a4-a3 block one
    defender square (23 each), a4-a6 and a4-a2 block none (24); any b4 move frees b4 for c4
    (+1), b4-b5 and b4-b3 also block two squares of d5/d3 (23), the other four give 25: 94 +
    146 = 240 per arm, 960 in all.
    """
    game = Game(ruleset)
    assert [perft(game, depth) for depth in (1, 2, 3, 4)] == [40, 960, 39512, 1007392]
    assert game.position == "3A3/3A3/3D3/AADKDAA/3D3/3A3/3A3 a"
    assert game.ply == 0


def test_newsome_perft_from_the_start() -> None:
    """newsome from the start.

    Depth 1, by hand: per arm, the outer baron (dark square) steps 2 (a4: a5 a3) and the inner
    one (white square) 7 (b4: b5 b3, c4 capturing, a5 a3 c5 c3 diagonally; both jumps are
    blocked by the barons on d6 and d2): 9 per arm, 36.
    Depth 2, by hand: the defenders have 16 replies (each prince 3: two steps and the capture
    of the baron beside him; the king 4 diagonal steps). Left arm: a4's two moves leave 16;
    b4 to b5 b3 a5 a3 leaves 16 (c4 steps to b4 instead of capturing there); b4xc4 leaves 14
    (c4's three go, the king gains c4 capturing); b4-c5 and b4-c3 leave 15 (the king may not
    take diagonally): 32 + 108 = 140 per arm, 560 in all.
    """
    game = Game("newsome")
    assert [perft(game, depth) for depth in (1, 2, 3, 4)] == [36, 560, 19548, 356164]


@pytest.mark.parametrize(
    ("ruleset", "expected"),
    [
        ("nielsen", [26, 875, 20957]),
        ("federation", [26, 875, 20957]),
        ("common", [27, 908, 22228]),
        ("walker", [27, 917, 22302]),
    ],
)
def test_slide_perft_with_the_king_beside_the_throne(ruleset: str, expected: list[int]) -> None:
    """Where the slide rule sets part: in common and walker the king may step home to d4
    (depth 1, by hand: king 8 or 9, f6 11, g3 7 = 26 or 27); at depth 2 the throne is hostile
    to soldiers in common and not in walker, and walker takes the king on the throne by two.
    nielsen and federation differ only in who wins a stalemate or a repetition, which perft
    does not see, so their figures are the same everywhere."""
    game = Game.from_position(BESIDE_THRONE, ruleset)
    assert [perft(game, depth) for depth in (1, 2, 3)] == expected


@pytest.mark.parametrize("ruleset", [*SLIDE, "newsome"])
def test_perft_of_a_finished_game_is_zero(ruleset: str) -> None:
    """A game that has ended has no moves: perft counts nothing beyond depth 0."""
    game = Game(ruleset)
    game.finish(None, "draw_agreed")
    assert [perft(game, depth) for depth in (0, 1, 2)] == [1, 0, 0]
