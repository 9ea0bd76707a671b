"""The search's int positions (issue 18): moves, captures, make and hashes agree with the
engine move for move, and taking a move back restores the position and hash exactly."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from brandubh.bot.bitboards import ALL_BB, Position, SlideKernel, full_hash, kernel_for
from brandubh.engine import RULESETS, Game

ALL = list(RULESETS)


def _position(game: Game) -> Position:
    b = game.board
    return (b.att, b.dfn, b.king, b.side, b.hash, b.woods)


@settings(max_examples=60, deadline=None)
@given(ruleset=st.sampled_from(ALL), choices=st.lists(st.integers(0, 10_000), max_size=80))
def test_make_matches_the_engine_and_unmake_restores(ruleset: str, choices: list[int]) -> None:
    game = Game(ruleset)
    kernel = kernel_for(game.ruleset)
    pos = _position(game)
    for choice in choices:
        if game.result is not None:
            break
        att, dfn, king, side = pos[:4]
        engine_moves = game.board.legal_moves()
        assert sorted(kernel.gen(att, dfn, king, side)) == sorted(engine_moves)
        assert kernel.has_move(att, dfn, king, side)
        targets = kernel.targets(att, dfn, king, side)
        for m in engine_moves:
            caps = kernel.captures(att, dfn, king, side, m)
            assert caps == sum(1 << sq for sq in game.board.captures(m)), m
            if caps:
                assert targets >> (m >> 6) & 1, "targets must hold every capturing landing"
        dests = targets | (1 << 40) - 1  # any set of destinations
        want = sorted(m for m in engine_moves if dests >> (m >> 6) & 1)
        assert sorted(kernel.moves_to(att, dfn, king, side, dests)) == want
        if isinstance(kernel, SlideKernel):
            every_capture = {
                m: caps for m in engine_moves if (caps := kernel.captures(att, dfn, king, side, m))
            }
            assert kernel.capture_moves(att, dfn, king, side, ALL_BB) == every_capture
            within = 0x1555555555555 >> (choice & 1)  # every other square
            assert kernel.capture_moves(att, dfn, king, side, within) == {
                m: caps for m, caps in every_capture.items() if within >> (m >> 6) & 1
            }
        # Every move int (a killer may come from anywhere): legal exactly when listed.
        legal = set(engine_moves)
        for m in range(4096):
            assert kernel.is_legal(att, dfn, king, side, m) == (m in legal), m
        move = engine_moves[choice % len(engine_moves)]
        before = pos
        after = kernel.make(pos, move, kernel.captures(att, dfn, king, side, move))
        assert pos == before, "make must not change the position it was given"
        game.push(move)
        assert after == _position(game)
        assert after[4] == full_hash(*after[:4])
        game.pop()
        assert _position(game) == before  # unmake: the old position, hash included
        game.push(move)
        pos = after


def test_won_judges_pieces_as_the_engine() -> None:
    kernel = kernel_for(RULESETS["nielsen"])
    assert kernel.won(0, 1, 24, 1) == 1  # no attacker left: defenders (to move) won
    assert kernel.won(1, 0, -1, 1) == -1  # king taken
    assert kernel.won(1 << 10, 0, 0, 0) == -1  # king on a1: attackers (to move) lost
    assert kernel.won(1 << 10, 1 << 11, 24, 0) == 0
