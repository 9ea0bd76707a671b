"""Game records built by hand with no Redis: a running game between two known players."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from brandubh.engine import Game
from brandubh.hub.live.state import GameState, Player, pack_snapshot

A, D = Player("pa", "Ann"), Player("pd", "Dan")
ALLOWANCE = 60_000


def running(*moves: str, **fields: Any) -> GameState:
    """A game between A (attackers) and D (defenders) after ``moves``."""
    game = Game("nielsen")
    for m in moves:
        game.play(m)
    turn = A.id if game.side_to_move == "attackers" else D.id
    base = GameState(
        id="game0001",
        ruleset="nielsen",
        status="active",
        seq=1 + len(moves),
        ply=len(moves),
        created=0,
        move_time=60,
        opponent="friend",
        bot_level=0,
        creator=A,
        joiner=D,
        attacker=A.id,
        defender=D.id,
        turn=turn,
        snap=pack_snapshot(game.snapshot()),
        moves=tuple(moves),
        commitment="c" * 64,
        invite="",
        result=None,
        deadline=10_000,
        deadline_set=4_000,
    )
    return replace(base, **fields)
