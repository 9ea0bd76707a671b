"""The rules engine: five Brandubh rule sets, notation, positions, results and records.

Pure: no I/O. The hub, scheduler, bot, verifier and CLI all build on it.
"""

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
from brandubh.engine.notation import Move, MoveText, format_move, parse_move
from brandubh.engine.perft import perft
from brandubh.engine.record import Record, format_record, parse_record
from brandubh.engine.result import ENGINE_REASONS, REASONS, SITE_REASONS, Result, Side, opponent
from brandubh.engine.rulesets import DEFAULT_RULESET, RULESETS, RuleSet, get_ruleset

__all__ = [
    "DEFAULT_RULESET",
    "ENGINE_REASONS",
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
    "InvalidPosition",
    "InvalidRecord",
    "InvalidResult",
    "Move",
    "MoveNotLegal",
    "MoveText",
    "Record",
    "Result",
    "RuleSet",
    "Side",
    "Snapshot",
    "UnknownRuleSet",
    "format_move",
    "format_position",
    "format_record",
    "get_ruleset",
    "opponent",
    "parse_move",
    "parse_position",
    "parse_record",
    "perft",
]
