"""Run the bot from its ``.py`` sources in this process even where they are compiled.

For comparing the compiled search with the same code uncompiled (tests/bot/test_native.py,
``bench/bot.py --speed N --uncompiled``) and for profiling it as Python. Call ``install()``
before anything imports ``brandubh.bot``; it lives outside that package because importing
the package loads the compiled modules.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

__all__ = ["BOT_DIR", "COMPILED_MODULES", "install"]

BOT_DIR = Path(__file__).parent / "bot"
# The modules the build compiles (pyproject.toml's include; brandubh.bot.native uses this).
COMPILED_MODULES = ("bitboards", "evaluation", "search")


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Finds the compiled modules' ``.py`` files before the import system finds their builds."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names:
            return None
        return importlib.util.spec_from_file_location(
            fullname, BOT_DIR / (fullname.rpartition(".")[2] + ".py")
        )


def install() -> None:
    """Make later imports of the compiled modules load their sources; refuses if too late."""
    names = frozenset(f"brandubh.bot.{name}" for name in COMPILED_MODULES)
    loaded = sorted(names & sys.modules.keys())
    if loaded:
        raise RuntimeError(f"already imported, so already compiled: {', '.join(loaded)}")
    sys.meta_path.insert(0, _SourceFinder(names))
