"""Whether the compiled modules (mypyc) run compiled, and a guard against a build older
than its source.

``pip install`` compiles the modules of ``uncompiled.COMPILED_MODULES`` to C extensions
(hatch_build.py); an editable install writes them beside their ``.py`` files, where Python
prefers them. Compiled or not, the code and so the results are the same
(docs/architecture.md, Compiled).
"""

from __future__ import annotations

from importlib import import_module
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from types import ModuleType

from brandubh.native import uncompiled

__all__ = [
    "EXTENSION_SUFFIXES",
    "StaleBuildError",
    "all_compiled",
    "built_file",
    "check_build",
    "check_fresh",
    "is_compiled",
    "modules_of",
    "summary",
]

# Files written by one install lie within a few seconds of each other; a source edited after
# its build is newer by more than that.
_SLACK_S = 2.0


class StaleBuildError(ImportError):
    """A compiled module is older than its source, so it would run code that is not there."""


def modules_of(package: str) -> list[str]:
    """The names of ``COMPILED_MODULES`` within ``package`` (``"brandubh"``: all of them)."""
    return [name for name in uncompiled.COMPILED_MODULES if name.startswith(package + ".")]


def is_compiled(module: ModuleType) -> bool:
    """True when ``module`` was loaded from a C extension rather than its ``.py`` file."""
    return not str(module.__file__).endswith(".py")


def built_file(source: Path) -> Path | None:
    """The extension Python would load instead of ``source`` (it tries them first), if any."""
    for suffix in EXTENSION_SUFFIXES:
        built = source.with_name(source.stem + suffix)
        if built.exists():
            return built
    return None


def check_fresh(source: Path) -> None:
    """Raise ``StaleBuildError`` if the build beside ``source`` is older than it."""
    built = built_file(source)
    if built is not None and source.stat().st_mtime > built.stat().st_mtime + _SLACK_S:
        raise StaleBuildError(
            f"{built.name} was compiled before {source} last changed, so it would run old "
            f"code: run `pip install -e .` again to rebuild it, or delete "
            f"{built.parent}/*.so to run it uncompiled"
        )


def check_build(package: str) -> None:
    """``check_fresh`` for each compiled module of ``package``, read from the files alone
    (nothing imported); none when ``uncompiled.install()`` runs the sources."""
    if uncompiled.installed():
        return
    for name in modules_of(package):
        check_fresh(uncompiled.source_of(name))


def all_compiled(package: str = "brandubh") -> bool:
    """True when every compiled module of ``package`` runs compiled (imports them)."""
    return all(is_compiled(import_module(name)) for name in modules_of(package))


def summary() -> str:
    """One line for a log: whether the hub's hot path (engine and hub modules) runs compiled."""
    names = [*modules_of("brandubh.engine"), *modules_of("brandubh.hub")]
    plain = [name for name in names if not is_compiled(import_module(name))]
    if not plain:
        return f"hot path compiled (mypyc): {len(names)} modules"
    how = "uncompiled" if len(plain) == len(names) else f"partly uncompiled ({', '.join(plain)})"
    return f"hot path {how}: the same results, more CPU a move (docs/architecture.md, Compiled)"
