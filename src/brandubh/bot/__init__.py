"""The bot: chooses moves on the engine. Deterministic for a given game seed and position.

In-process: ``choose_move(game, rng_for(seed, game_id, ply), level) -> Move``.
For a process pool (``ProcessPoolExecutor``), pass plain values and get move text back::

    text = pool.submit(think, game.snapshot(), seed, game_id, level).result()
    game.play(text)

``think(snapshot, seed, game_id, level) -> str`` rebuilds the game with
``Game.from_snapshot`` (position, ply, repetition history), derives the turn's randomness
from ``rng_for(seed, game_id, snapshot.ply)`` and returns canonical move text such as
``"Kc5-c7"`` or ``"c4-c7xb7xc6"``. Everything it needs is picklable and nothing depends on
the clock or on earlier calls: each search has its own transposition table and a budget
counted in nodes (``levels.LEVELS``), so a finished bot game replays move for move.

Modules: ``bitboards`` (the search's int positions: moves, captures, make per rule set),
``evaluation`` (tafl features and escape threats, newsome material, forced escapes),
``search`` (PVS with a transposition table and quiescence), ``native`` (whether the
first three run compiled: mypyc, docs/architecture.md), ``levels`` (the five levels and
their names), ``player`` (seeded choice, ``choose_move``, ``think``). docs/bot.md explains
how it plays and what it measures.
"""

from brandubh.bot.bitboards import Kernel, SlideKernel, kernel_for
from brandubh.bot.evaluation import (
    MATE_BOUND,
    WIN,
    EscapeThreats,
    escape_threats,
    evaluate,
    forced_escape,
    open_lanes,
)
from brandubh.bot.levels import LEVEL_NAMES, LEVELS, Level, level_for
from brandubh.bot.native import search_is_compiled
from brandubh.bot.player import (
    choose_code,
    choose_move,
    decide,
    rng_for,
    search_position,
    think,
)
from brandubh.bot.search import Searcher, SearchResult, table_key
from brandubh.native import StaleBuildError, check_build

check_build(__name__)  # a compiled module older than its source would run code that is not there

__all__ = [
    "LEVELS",
    "LEVEL_NAMES",
    "MATE_BOUND",
    "WIN",
    "EscapeThreats",
    "Kernel",
    "Level",
    "SearchResult",
    "Searcher",
    "SlideKernel",
    "StaleBuildError",
    "choose_code",
    "choose_move",
    "decide",
    "escape_threats",
    "evaluate",
    "forced_escape",
    "kernel_for",
    "level_for",
    "open_lanes",
    "rng_for",
    "search_is_compiled",
    "search_position",
    "table_key",
    "think",
]
