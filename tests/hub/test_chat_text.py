"""A chat line's text: invisible characters go by their Unicode properties, marks are capped,
and a line that draws nothing is refused (hub/chat/text.py). Pure."""

from __future__ import annotations

import pytest

from brandubh.hub.chat.text import MAX_MARKS, clean, shows_something

# Each is default-ignorable or a format character: kept, they hide or reorder text.
INVISIBLE = [
    "\u061c",  # Arabic letter mark
    "\u180e",  # Mongolian vowel separator
    "\U000e0041",  # tag Latin capital A
    "\U000e007f",  # cancel tag
    "\u115f",  # Hangul choseong filler
    "\u3164",  # Hangul filler
    "\uffa0",  # halfwidth Hangul filler
    "\u034f",  # combining grapheme joiner
    "\u17b4",  # Khmer vowel inherent aq
    "\u200b",  # zero width space
    "\u202e",  # right-to-left override
    "\u2066",  # left-to-right isolate
    "\ufeff",  # byte order mark
    "\u00ad",  # soft hyphen
]


@pytest.mark.parametrize("char", INVISIBLE, ids=[f"U+{ord(c):04X}" for c in INVISIBLE])
def test_an_invisible_character_goes(char: str) -> None:
    assert clean(f"a{char}b") == "ab"
    assert not shows_something(clean(char * 5))


def test_controls_become_spaces_and_spaces_one() -> None:
    assert clean("  a\x00b\n\tc\u2028d\x7f ") == "a b c d"


def test_a_long_run_of_marks_keeps_its_first_few() -> None:
    zalgo = "e" + "\u0301\u0316" * 20 + "x"
    kept = clean(zalgo)
    assert kept == "e" + ("\u0301\u0316" * 2)[:MAX_MARKS] + "x"
    # Stacked accents of real scripts stay whole.
    for word in ("Việt", "नमस्ते", "ḗ"):
        assert clean(word) == word


@pytest.mark.parametrize(
    "line",
    ["\u3164\u3164", "\u115f", "\U000e0041\U000e0042", "\u2800 \u2800", "\u0301\u0302", " \u200b "],
)
def test_a_line_that_draws_nothing_is_refused(line: str) -> None:
    assert not shows_something(clean(line))


def test_text_and_emoji_show() -> None:
    for line in ("hi", "<b>x</b>", "😀", "❤️", "a\u0301"):
        assert shows_something(clean(line)), line
