"""Today's bot frozen as the reference opponent for bench/bot.py (issue 18); never edit.

A verbatim copy of ``brandubh.bot``'s search, evaluation, levels and player at commit
3dec3a1, imports renamed to this package: ``decide(game, rng, level)`` plays as the old bot.
"""

from frozen_bot.levels import LEVELS, Level, level_for
from frozen_bot.player import decide, rng_for
from frozen_bot.search import Searcher

__all__ = ["LEVELS", "Level", "Searcher", "decide", "level_for", "rng_for"]
