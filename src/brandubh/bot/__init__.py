"""The bot: chooses moves on the engine. Deterministic for a given game seed and position."""

from __future__ import annotations

import hashlib
import random

from brandubh.engine import Game, Move

_DOMAIN = b"brandubh-live/bot/v1:"


def rng_for(seed: bytes, game_id: str, ply: int) -> random.Random:
    """The bot's randomness for one turn: derived from the game's seed, id and ply."""
    digest = hashlib.sha256(_DOMAIN + seed + game_id.encode() + ply.to_bytes(4, "big")).digest()
    return random.Random(int.from_bytes(digest, "big"))


def choose_move(game: Game, rng: random.Random, level: int = 1) -> Move:
    """A legal move: one that wins at once if there is one, else one chosen by ``rng``."""
    moves = game.legal_moves()
    if not moves:
        raise ValueError("the side to move has no legal move")
    for move in moves:
        game.push(move.code)
        result = game.result
        game.pop()
        if result is not None and result.winner == game.side_to_move:
            return move
    return moves[rng.randrange(len(moves))]
