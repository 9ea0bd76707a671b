"""The terms a game is played on, each stated once: the time per move a game may have, the
bot's levels, and which games are *live* rather than correspondence. The games' service
and the lobby refuse other terms here, with one message each; the sockets, the lobby and
move reminders tell live games from correspondence here; messages only check the types
(docs/protocol.md §2 and §3.6 state these terms).
"""

from __future__ import annotations

from typing import Final

from brandubh.bot import LEVELS
from brandubh.engine import RULESETS
from brandubh.hub.errors import Refusal

MIN_MOVE_TIME: Final = 60  # one minute; move times are whole minutes, in seconds
MAX_MOVE_TIME: Final = 7 * 24 * 3600  # one week
# A game with less time per move is *live*: quick pairing is for live games only, a live
# seek vanishes with its socket, and turn notices stay on one hub. Slower games are
# *correspondence*: seeks stay until taken, turn notices reach every hub, and players are
# reminded of their move by mail.
LIVE_UNDER_S: Final = 3600
BOT_LEVELS: Final = tuple(sorted(LEVELS))  # brandubh.bot's levels, the weakest first


def is_live(move_time: int) -> bool:
    """Whether a game with this time per move is live (else correspondence)."""
    return move_time < LIVE_UNDER_S


def check_terms(ruleset: str, move_time: int) -> None:
    """Refuse a rule set or time per move the service does not offer, saying which."""
    if ruleset not in RULESETS:
        raise Refusal("bad_field", f"unknown rule set {ruleset!r}: one of {', '.join(RULESETS)}")
    if not MIN_MOVE_TIME <= move_time <= MAX_MOVE_TIME or move_time % 60:
        raise Refusal(
            "bad_field",
            f"move_time must be seconds per move: whole minutes from {MIN_MOVE_TIME} to "
            f"{MAX_MOVE_TIME}",
        )


def check_bot_level(level: int) -> None:
    """Refuse a bot level the bot does not have."""
    if level not in BOT_LEVELS:
        raise Refusal("bad_field", f"bot_level must be {BOT_LEVELS[0]} to {BOT_LEVELS[-1]}")


def check_quick(ruleset: str, move_time: int) -> None:
    """Refuse terms quick pairing does not offer: it pairs live games only."""
    check_terms(ruleset, move_time)
    if not is_live(move_time):
        raise Refusal(
            "bad_field",
            f"quick pairing is for live games: a move_time under {LIVE_UNDER_S} seconds",
        )
