"""The list of modules the install compiles (mypyc), and a loader that runs their ``.py``
sources instead in this process.

For comparing compiled and uncompiled code in one run (tests/test_compiled.py,
tests/bot/test_native.py, ``bench/compiled.py``) and for profiling as Python. Call
``install()`` before anything imports a compiled module; this module imports nothing of
ours, so importing it loads none of them.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Final

__all__ = ["COMPILED_MODULES", "install", "installed", "source_of"]

# The modules the build compiles: pyproject.toml's [tool.hatch.build.targets.wheel.hooks.custom]
# include, one line each there and here (tests/test_compiled.py checks that they agree).
COMPILED_MODULES: Final = (
    "brandubh.bot.bitboards",
    "brandubh.bot.evaluation",
    "brandubh.bot.search",
    "brandubh.engine.board",
    "brandubh.engine.game",
    "brandubh.engine.newsome",
    "brandubh.engine.notation",
    "brandubh.engine.result",
    "brandubh.engine.rules",
    "brandubh.engine.rulesets",
    "brandubh.engine.slide",
    "brandubh.engine.squares",
    "brandubh.hub.messages.frames",
    "brandubh.hub.messages.protocol",
)

_PACKAGE_DIR: Final = Path(__file__).parent.parent  # brandubh/


def source_of(name: str) -> Path:
    """The ``.py`` file of a module of ours, e.g. ``brandubh.engine.game``."""
    return _PACKAGE_DIR.joinpath(*name.split(".")[1:]).with_suffix(".py")


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Finds the compiled modules' ``.py`` files before the import system finds their builds."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names:
            return None
        return importlib.util.spec_from_file_location(fullname, source_of(fullname))


def installed() -> bool:
    """Whether ``install()`` made this process load the sources."""
    return any(isinstance(finder, _SourceFinder) for finder in sys.meta_path)


def install() -> None:
    """Make later imports of the compiled modules load their sources; refuses if too late."""
    names = frozenset(COMPILED_MODULES)
    loaded = sorted(names & sys.modules.keys())
    if loaded:
        raise RuntimeError(f"already imported, so already compiled: {', '.join(loaded)}")
    sys.meta_path.insert(0, _SourceFinder(names))
