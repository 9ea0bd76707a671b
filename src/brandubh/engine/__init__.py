"""The rules engine: five Brandubh rule sets, notation, positions, results and records, and
OpenTafl notation (``otn``).

Pure: no I/O. The hub, scheduler, bot, verifier and CLI all build on it. The install
compiles its hot modules with mypyc (docs/architecture.md, Compiled).
"""

from brandubh import native
from brandubh.engine.board import START_POSITION, Board, format_position, parse_position
from brandubh.engine.errors import (
    EngineError,
    GameOver,
    IllegalMove,
    InvalidMoveText,
    InvalidPosition,
    InvalidRecord,
    InvalidResult,
    MoveNotLegal,
    UnknownRuleSet,
)
from brandubh.engine.game import Game, Snapshot
from brandubh.engine.notation import Move, MoveText, format_move, make_move, parse_move
from brandubh.engine.otn import (
    OTN_RULES,
    InvalidOtn,
    OtnMove,
    OtnRules,
    OtnUnsupported,
    format_otn_move,
    format_otn_position,
    format_otn_record,
    format_otn_rules,
    move_from_otn,
    otn_from_move,
    parse_otn_move,
    parse_otn_position,
    parse_otn_record,
    parse_otn_rules,
    replay_otn,
)
from brandubh.engine.perft import perft
from brandubh.engine.record import Record, format_record, parse_record
from brandubh.engine.result import ENGINE_REASONS, REASONS, SITE_REASONS, Result, Side, opponent
from brandubh.engine.rulesets import DEFAULT_RULESET, RULESETS, RuleSet, get_ruleset

# A compiled module older than its source would run code that is not there.
native.check_build(__name__)

__all__ = [
    "DEFAULT_RULESET",
    "ENGINE_REASONS",
    "OTN_RULES",
    "REASONS",
    "RULESETS",
    "SITE_REASONS",
    "START_POSITION",
    "Board",
    "EngineError",
    "Game",
    "GameOver",
    "IllegalMove",
    "InvalidMoveText",
    "InvalidOtn",
    "InvalidPosition",
    "InvalidRecord",
    "InvalidResult",
    "Move",
    "MoveNotLegal",
    "MoveText",
    "OtnMove",
    "OtnRules",
    "OtnUnsupported",
    "Record",
    "Result",
    "RuleSet",
    "Side",
    "Snapshot",
    "UnknownRuleSet",
    "format_move",
    "format_otn_move",
    "format_otn_position",
    "format_otn_record",
    "format_otn_rules",
    "format_position",
    "format_record",
    "get_ruleset",
    "make_move",
    "move_from_otn",
    "opponent",
    "otn_from_move",
    "parse_move",
    "parse_otn_move",
    "parse_otn_position",
    "parse_otn_record",
    "parse_otn_rules",
    "parse_position",
    "parse_record",
    "perft",
    "replay_otn",
]
