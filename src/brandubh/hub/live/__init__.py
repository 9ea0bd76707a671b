"""Games in play. What a change does to a game (``changes``, pure), committing it through
``commit.lua`` (the commit path: the cache of recent games, the event frames, the commit
call), the games' service that chooses each change, Redis's clock and the fair-clock
watermarks, the deadline scheduler, the bot's turns, conditional moves (stored, and their
replies played), endings, the archive and ratings (and the pass that reconciles the
archive's queue), two-game matches, the terms a game may have (``terms``: time per move,
bot levels, live or correspondence), the lists to browse (the watch list, each player's
games). It never imports the sockets (``wire``), the pages (``http``), mail, accounts,
chat, analysis or the lobby: they are built on it."""

from brandubh.hub.live import mygames
from brandubh.hub.live.bot_turns import BotWorker
from brandubh.hub.live.changes import Change
from brandubh.hub.live.clock import Marks, RedisClock
from brandubh.hub.live.conditional import Conditionals
from brandubh.hub.live.conditional_turns import POLL_S as CONDITIONAL_POLL_S
from brandubh.hub.live.conditional_turns import ConditionalWorker
from brandubh.hub.live.endings import Endings
from brandubh.hub.live.games import WAITING_TTL_S, GameService, new_game_id
from brandubh.hub.live.listings import Listings
from brandubh.hub.live.matches import MatchService
from brandubh.hub.live.rater import Rater
from brandubh.hub.live.reconcile import POLL_S as RECONCILE_POLL_S
from brandubh.hub.live.reconcile import Reconciler
from brandubh.hub.live.scheduler import Scheduler
from brandubh.hub.live.state import BOT_ID, GameState, Hash, Player, unpack_snapshot
from brandubh.hub.live.terms import LIVE_UNDER_S, check_quick, check_terms, is_live

__all__ = [
    "BOT_ID",
    "CONDITIONAL_POLL_S",
    "LIVE_UNDER_S",
    "RECONCILE_POLL_S",
    "WAITING_TTL_S",
    "BotWorker",
    "Change",
    "ConditionalWorker",
    "Conditionals",
    "Endings",
    "GameService",
    "GameState",
    "Hash",
    "Listings",
    "Marks",
    "MatchService",
    "Player",
    "Rater",
    "Reconciler",
    "RedisClock",
    "Scheduler",
    "check_quick",
    "check_terms",
    "is_live",
    "mygames",
    "new_game_id",
    "unpack_snapshot",
]
