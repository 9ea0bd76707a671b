"""The bot's public API is pinned: ``brandubh.bot.__all__`` is exactly this list."""

from __future__ import annotations

import brandubh.bot

EXPORTED = [
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


def test_all_is_the_pinned_list() -> None:
    assert brandubh.bot.__all__ == EXPORTED


def test_every_exported_name_exists() -> None:
    missing = [name for name in brandubh.bot.__all__ if not hasattr(brandubh.bot, name)]
    assert missing == []


def test_level_names_say_what_to_expect() -> None:
    names = brandubh.bot.LEVEL_NAMES
    assert list(names) == [1, 2, 3, 4, 5]
    assert names[1] == "beginner"
    assert names[5] == "strong club player"
    assert all(brandubh.bot.level_for(n).name == name for n, name in names.items())
