"""Whether the search runs compiled (mypyc), and a guard against a build older than its source.

``pip install`` compiles ``bitboards``, ``evaluation`` and ``search`` to C extensions (with
mypyc, by hatch_build.py); an editable install writes them beside their ``.py``
files, where Python prefers them. Compiled or not, the code and so the moves are the same.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from types import ModuleType

from brandubh.uncompiled_bot import COMPILED_MODULES

__all__ = [
    "COMPILED_MODULES",
    "StaleBuildError",
    "check_build",
    "check_fresh",
    "is_compiled",
    "search_is_compiled",
]

# Files written by one install lie within a few seconds of each other; a source edited after
# its build is newer by more than that.
_SLACK_S = 2.0


class StaleBuildError(ImportError):
    """A compiled module is older than its source, so it would run code that is not there."""


def is_compiled(module: ModuleType) -> bool:
    """True when ``module`` was loaded from a C extension rather than its ``.py`` file."""
    return not str(module.__file__).endswith(".py")


def check_fresh(module: ModuleType) -> None:
    """Raise ``StaleBuildError`` if ``module`` is compiled from an older ``.py`` beside it."""
    if not is_compiled(module):
        return
    built = Path(str(module.__file__))
    source = built.with_name(module.__name__.rpartition(".")[2] + ".py")
    if source.exists() and source.stat().st_mtime > built.stat().st_mtime + _SLACK_S:
        raise StaleBuildError(
            f"{built.name} was compiled before {source} last changed, so it would run old "
            f"code: run `pip install -e .` again to rebuild it, or delete "
            f"{built.parent}/*.so to run the bot uncompiled"
        )


def _modules() -> list[ModuleType]:
    return [import_module(f"brandubh.bot.{name}") for name in COMPILED_MODULES]


def search_is_compiled() -> bool:
    """True when every module of ``COMPILED_MODULES`` runs compiled."""
    return all(is_compiled(module) for module in _modules())


def check_build() -> None:
    """``check_fresh`` for each module of ``COMPILED_MODULES``."""
    for module in _modules():
        check_fresh(module)
