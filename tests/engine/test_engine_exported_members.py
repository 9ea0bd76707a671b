"""The engine's public API, pinned: a name added to or dropped from ``__all__`` shows here."""

from __future__ import annotations

import brandubh.engine

EXPORTED = [
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


def test_all_is_exactly_the_pinned_list() -> None:
    assert brandubh.engine.__all__ == EXPORTED


def test_every_exported_name_exists() -> None:
    missing = [name for name in brandubh.engine.__all__ if not hasattr(brandubh.engine, name)]
    assert missing == []


def test_nothing_public_is_left_out_of_all() -> None:
    """Every public name the package defines or imports is in ``__all__`` (submodules aside)."""
    public = {
        name
        for name, value in vars(brandubh.engine).items()
        if not name.startswith("_") and type(value).__name__ != "module"
    }
    assert public - {"annotations"} == set(EXPORTED)
