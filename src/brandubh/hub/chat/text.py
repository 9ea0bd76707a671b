"""A chat line's text as kept: what would act rather than show goes, and a line with
nothing to show is refused (docs/protocol.md, "Chat"). Pure.

By the Unicode properties, not a list of our own: every default-ignorable code point (zero
widths, joiners, direction marks, variation selectors, tag characters, Hangul fillers…)
and every format character (category Cf) is removed; every other control, line or
paragraph separator becomes a space. A run of more than ``MAX_MARKS`` combining marks on one
character keeps its first ``MAX_MARKS`` (enough for any script's stacked accents; the rest
only paints over the lines around it). White space runs become one space, none at the ends.
"""

from __future__ import annotations

from typing import Final

import regex

__all__ = ["MAX_MARKS", "clean", "shows_something"]

MAX_MARKS: Final = 4

_GONE: Final = regex.compile(r"[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cs}]+")
_SPACE: Final = regex.compile(r"[\p{Cc}\p{Zl}\p{Zp}]")
_MARKS: Final = regex.compile(rf"(\p{{M}}{{{MAX_MARKS}}})\p{{M}}+")
_SPACES: Final = regex.compile(r"\s+")
# Characters that are neither white space nor marks yet draw nothing: the Braille blank.
_BLANK: Final = regex.compile(r"[\s\p{M}\u2800]*")


def clean(text: str) -> str:
    """The text of a line as kept (markup stays text: clients never parse it)."""
    text = _SPACE.sub(" ", _GONE.sub("", text))
    return _SPACES.sub(" ", _MARKS.sub(r"\1", text)).strip()


def shows_something(text: str) -> bool:
    """Whether a cleaned line has a character that draws something."""
    return _BLANK.fullmatch(text) is None
