"""Which challenges the bridge accepts: a challenge and the accept rules in, accept or a
decline with one of the service's reasons out. Pure (docs/bridge.md, "Accept rules")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from brandubh.bridge.records import Challenge

__all__ = ["DECLINE_REASONS", "AcceptRules", "Decision", "decide"]

# The reasons the service takes with a decline (docs/protocol.md, challenges).
DECLINE_REASONS: Final = (
    "generic",
    "later",
    "tooFast",
    "tooSlow",
    "timeControl",
    "rated",
    "casual",
    "ruleset",
    "noBot",
    "onlyBot",
)


@dataclass(frozen=True, slots=True)
class AcceptRules:
    """What the bridge plays: rule sets, seconds per move, rated or casual games, bots or
    people as opponents, and how many games at once."""

    rulesets: tuple[str, ...] = ("nielsen", "walker")
    min_move_time: int = 60
    max_move_time: int = 7 * 24 * 3600
    rated: bool = True
    casual: bool = True
    bots: bool = True
    people: bool = True
    max_games: int = 1


@dataclass(frozen=True, slots=True)
class Decision:
    """Accept, or decline with ``reason`` (one of DECLINE_REASONS); ``why`` for the log."""

    accept: bool
    reason: str = ""
    why: str = ""


def decide(challenge: Challenge, rules: AcceptRules, playing: int, stopping: bool) -> Decision:
    """Accept ``challenge`` or decline it with the first rule it breaks; ``playing``: games
    in progress or accepted; ``stopping``: the bridge is stopping (every one waits)."""
    c = challenge
    if stopping:
        return Decision(False, "later", "the bridge is stopping")
    if c.challenger.bot and not rules.bots:
        return Decision(False, "noBot", f"{c.challenger.name} is a bot; bots are not accepted")
    if not c.challenger.bot and not rules.people:
        return Decision(False, "onlyBot", f"{c.challenger.name} is a person; only bots are")
    if c.ruleset not in rules.rulesets:
        return Decision(False, "ruleset", f"{c.ruleset} is not one of {', '.join(rules.rulesets)}")
    if c.move_time < rules.min_move_time:
        return Decision(
            False, "tooFast", f"{c.move_time} s a move is under {rules.min_move_time} s"
        )
    if c.move_time > rules.max_move_time:
        return Decision(False, "tooSlow", f"{c.move_time} s a move is over {rules.max_move_time} s")
    if c.rated and not rules.rated:
        return Decision(False, "casual", "rated games are not accepted")
    if not c.rated and not rules.casual:
        return Decision(False, "rated", "casual games are not accepted")
    if playing >= rules.max_games:
        return Decision(False, "later", f"{playing} games already, the most is {rules.max_games}")
    return Decision(True, why="it meets every accept rule")
