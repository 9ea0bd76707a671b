"""Our bot as an OpenTafl Engine Protocol (OTEP) engine: ``brandubh engine`` (docs/otep.md).

Modules: ``commands`` (the protocol's lines, read and written; pure), ``session`` (one
host's game as a state machine; pure, the search passed in), ``think`` (the bot's search
held to the clock's seconds), ``loop`` (stdin and stdout).
"""

from brandubh.otep.commands import BadCommand, Command, parse_command
from brandubh.otep.loop import run, run_engine
from brandubh.otep.session import Reply, Session, budget_seconds
from brandubh.otep.think import Thinker

__all__ = [
    "BadCommand",
    "Command",
    "Reply",
    "Session",
    "Thinker",
    "budget_seconds",
    "parse_command",
    "run",
    "run_engine",
]
