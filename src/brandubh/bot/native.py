"""Whether the bot's search runs compiled (mypyc): ``brandubh.native`` for its modules."""

from __future__ import annotations

from brandubh.native import all_compiled

__all__ = ["search_is_compiled"]


def search_is_compiled() -> bool:
    """True when ``bitboards``, ``evaluation`` and ``search`` all run compiled."""
    return all_compiled("brandubh.bot")
