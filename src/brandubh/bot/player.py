"""Choosing the bot's move: a level's search, then its deliberate errors, all seeded.

``choose_move(game, rng, level)`` is what the hub calls in-process; ``think(snapshot, seed,
game_id, level)`` takes plain, picklable values for a process pool and returns canonical
move text. Both are deterministic: the same position (with its repetition history), seed,
game id, ply and level give the same move in any process.
"""

from __future__ import annotations

import hashlib
import random

from brandubh.bot.evaluation import MATE_BOUND
from brandubh.bot.levels import Level, level_for
from brandubh.bot.search import Searcher, SearchResult
from brandubh.engine import Game, Move, Snapshot, make_move

_DOMAIN = b"brandubh-live/bot/v1:"


def rng_for(seed: bytes, game_id: str, ply: int) -> random.Random:
    """The bot's randomness for one turn: derived from the game's seed, id and ply."""
    digest = hashlib.sha256(_DOMAIN + seed + game_id.encode() + ply.to_bytes(4, "big")).digest()
    return random.Random(int.from_bytes(digest, "big"))


def search_position(game: Game, rng: random.Random, level: int | Level) -> SearchResult:
    """Search the game's position at a level (on a private copy; ``game`` is not touched)."""
    lv = level if isinstance(level, Level) else level_for(level)
    # A copy from the snapshot keeps the repetition history and leaves the caller's game be.
    work = Game.from_snapshot(game.snapshot())
    searcher = Searcher(work, lv.nodes, lv.depth, lv.q_checks, exact_root=lv.exact_root)
    return searcher.run(rng)


def decide(game: Game, rng: random.Random, level: int | Level) -> tuple[int, SearchResult]:
    """The engine int of the move the bot plays at ``level``, and the search behind it."""
    lv = level if isinstance(level, Level) else level_for(level)
    found = search_position(game, rng, lv)
    if not lv.exact_root or found.score >= MATE_BOUND or len(found.order) == 1:
        return found.move, found
    scores = found.scores
    # Moves not proved lost; if every move loses, the one that lasts longest.
    safe = [m for m in found.order if scores[m] > -MATE_BOUND] or [found.move]
    if lv.blunder and rng.random() < lv.blunder:
        return safe[rng.randrange(len(safe))], found
    noisy = {m: scores[m] + rng.randint(-lv.noise, lv.noise) for m in safe}
    return max(safe, key=noisy.__getitem__), found


def choose_code(game: Game, rng: random.Random, level: int | Level) -> int:
    """The engine int of the move the bot plays at ``level``."""
    return decide(game, rng, level)[0]


def choose_move(game: Game, rng: random.Random, level: int = 1) -> Move:
    """The bot's move at ``level`` (1 to 5) in a running game, with its captures."""
    code = choose_code(game, rng, level)
    board = game.board
    return make_move(code, bool(board.side) and code & 63 == board.king, board.captures(code))


def think(snapshot: Snapshot, seed: bytes, game_id: str, level: int) -> str:
    """Canonical move text of the bot's move; plain arguments, for a process pool."""
    game = Game.from_snapshot(snapshot)
    return str(choose_move(game, rng_for(seed, game_id, snapshot.ply), level))
