"""The package holds to docs/architecture.md: each package of ``brandubh`` and each room of
the hub (a package, or a module at the top of the hub) imports only the rooms its row
names, other packages only through their public face (``__init__``'s ``__all__``, bar the
named reaches of ``REACH``), and nothing imports the composition root."""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterator
from pathlib import Path

from brandubh.native.uncompiled import COMPILED_MODULES

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "brandubh"
HUB = SRC / "hub"
DOC = ROOT / "docs" / "architecture.md"
PACKAGES = sorted(p.name for p in HUB.iterdir() if (p / "__init__.py").is_file())
TOP = sorted(p.stem for p in HUB.glob("*.py") if p.stem != "__init__")
# The packages of brandubh, and its modules (fairplay, ratings, __main__).
OURS = sorted(p.name for p in SRC.iterdir() if (p / "__init__.py").is_file())
OUR_MODULES = sorted(p.stem for p in SRC.glob("*.py") if p.stem != "__init__")

# (importer, module): each import past a package's public face that is allowed, and why.
REACH = {
    ("brandubh.__main__", "brandubh.run.cli"): "`python -m brandubh` runs the command line",
    ("brandubh.bot.bitboards", "brandubh.engine.board"): "compiled: the engine's Zobrist keys",
    ("brandubh.bot.bitboards", "brandubh.engine.rulesets"): "compiled: rule sets read natively",
    ("brandubh.bot.bitboards", "brandubh.engine.slide"): "compiled: the engine's slide tables",
    ("brandubh.bot.bitboards", "brandubh.engine.squares"): "compiled: the board's geometry",
    ("brandubh.bot.evaluation", "brandubh.engine.board"): "compiled: the board read natively",
    ("brandubh.bot.evaluation", "brandubh.engine.rulesets"): "compiled: rule sets read natively",
    ("brandubh.bot.evaluation", "brandubh.engine.squares"): "compiled: the board's geometry",
    ("brandubh.bot.search", "brandubh.engine.board"): "compiled: the engine's Zobrist keys",
    ("brandubh.bot.search", "brandubh.engine.rulesets"): "compiled: outcomes read natively",
    ("brandubh.bot.search", "brandubh.engine.squares"): "compiled: the board's geometry",
}


def room_of(path: Path) -> str:
    """The room a source file is in: a hub package, a hub top module, or a brandubh room."""
    rel = path.relative_to(SRC)
    if rel.parts[0] == "hub":
        return rel.parts[1] if len(rel.parts) > 2 else rel.stem
    return rel.parts[0].removesuffix(".py")


def imports(path: Path) -> Iterator[tuple[str, tuple[str, ...], int]]:
    """(module imported, the names taken from it, line) for each import of ours."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("brandubh"):
            yield node.module, tuple(a.name for a in node.names), node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("brandubh"):
                    yield alias.name, (), node.lineno


def rooms_imported(module: str, names: tuple[str, ...]) -> set[str]:
    parts = module.split(".")
    if parts == ["brandubh", "hub"]:
        return set(names)  # from brandubh.hub import config: the module is the room
    if parts[:2] == ["brandubh", "hub"]:
        return {parts[2]}
    return {parts[1]} if len(parts) > 1 else set(names)


def doc_rows() -> dict[str, set[str]]:
    """room -> the rooms it may import, from the doc's table of the hub's rooms."""
    table: dict[str, set[str]] = {}
    for line in DOC.read_text().splitlines():
        m = re.match(r"\| `(\w+)(?:/|\.py)` \| .* \| (.*) \|$", line)
        if m:
            allowed = m.group(2)
            table[m.group(1)] = (
                {"*"} if allowed == "anything" else set(re.findall(r"`(\w+)`", allowed))
            )
    return table


def test_every_room_has_a_row() -> None:
    assert set(doc_rows()) == set(PACKAGES) | set(TOP), (
        "docs/architecture.md must list exactly the hub's packages and top modules"
    )


def test_the_doc_lists_each_package_s_modules() -> None:
    """Under "### `live/`" and the like, one bullet per module of the package, no more."""
    listed: dict[str, set[str]] = {}
    package = None
    for line in DOC.read_text().splitlines():
        heading = re.match(r"### `(\w+)/`$", line)
        if heading:
            package = heading.group(1)
            listed[package] = set()
        elif line.startswith("#"):
            package = None
        elif package and (bullet := re.match(r"- `(\w+)\.py`", line)):
            listed[package].add(bullet.group(1))
    actual = {p: {m.stem for m in (HUB / p).glob("*.py") if m.stem != "__init__"} for p in PACKAGES}
    assert listed == actual


def test_each_room_imports_only_what_its_row_allows() -> None:
    table = doc_rows()
    wrong = []
    for path in sorted(HUB.rglob("*.py")):
        if path.parent == HUB and path.stem == "__init__":
            continue
        room = room_of(path)
        allowed = table[room]
        if "*" in allowed:
            continue
        for module, names, line in imports(path):
            for other in rooms_imported(module, names) - {room}:
                if other not in allowed:
                    wrong.append(f"{path.relative_to(SRC)}:{line} imports {other}")
    assert wrong == []


def module_of(path: Path) -> str:
    """``brandubh.hub.live.games`` for its file (a package's ``__init__`` is the package)."""
    parts = ("brandubh", *path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def face_of(module: str, path: Path) -> str | None:
    """The public face ``module`` is reached through from ``path``: the package it is in,
    a hub package for the hub's; None for a module of the importer's own package, and for
    the modules that are rooms of their own (the hub's top ones, fairplay, ratings)."""
    parts = module.split(".")
    if len(parts) < 2:
        return None
    rel = path.relative_to(SRC).parts
    if parts[1] == "hub":
        if len(parts) < 3 or parts[2] not in PACKAGES:
            return None
        own = rel[0] == "hub" and len(rel) > 2 and rel[1] == parts[2]
        return None if own else ".".join(parts[:3])
    if parts[1] not in OURS or rel[0] == parts[1]:
        return None
    return ".".join(parts[:2])


def reaches() -> Iterator[tuple[str, str, str, tuple[str, ...], str]]:
    """(importer, face, module, names, where) for each import of another package of ours."""
    for path in sorted(SRC.rglob("*.py")):
        for module, names, line in imports(path):
            face = face_of(module, path)
            if face is not None:
                yield module_of(path), face, module, names, f"{path.relative_to(SRC)}:{line}"


def test_packages_are_reached_only_through_their_public_face() -> None:
    """Outside a package, ``from brandubh.hub.live import GameService`` or ``from
    brandubh.engine import Game`` (a name in its ``__all__``); its modules are its own."""
    wrong = []
    for importer, face, module, names, where in reaches():
        if module != face:
            if (importer, module) not in REACH:
                wrong.append(f"{where} reaches into {module}")
            continue
        public = importlib.import_module(module).__all__
        wrong += [f"{where} takes {n}, not in {module}.__all__" for n in names if n not in public]
    assert wrong == []


def test_each_reach_past_a_face_is_used_and_compiled() -> None:
    """The allow-list names no import that is gone, and, the entry point aside, only the
    compiled hot path's (mypyc calls a compiled module's functions natively)."""
    used = {(importer, module) for importer, _, module, _, _ in reaches()}
    assert set(REACH) <= used
    compiled = set(COMPILED_MODULES)
    assert all(
        importer in compiled and module in compiled
        for importer, module in REACH
        if importer != "brandubh.__main__"
    )


def package_rows() -> dict[str, set[str]]:
    """package -> the packages it may import, from the doc's table of the package."""
    table: dict[str, set[str]] = {}
    for line in DOC.read_text().splitlines():
        m = re.match(r"\| `brandubh\.(\w+)` \| .* \| (.*) \|$", line)
        if m:
            table[m.group(1)] = set(re.findall(r"`(\w+)`", m.group(2)))
    return table


def test_every_package_of_brandubh_has_a_row() -> None:
    assert set(package_rows()) == set(OURS) | set(OUR_MODULES), (
        "docs/architecture.md's table of the package must list exactly its packages and modules"
    )


def test_each_package_imports_only_what_its_row_allows() -> None:
    table = package_rows()
    wrong = []
    for path in sorted(SRC.rglob("*.py")):
        if path == SRC / "__init__.py":
            continue
        room = path.relative_to(SRC).parts[0].removesuffix(".py")
        for module, names, line in imports(path):
            parts = module.split(".")
            for other in (set(parts[1:2]) if len(parts) > 1 else set(names)) - {room}:
                if other not in table[room]:
                    wrong.append(f"{path.relative_to(SRC)}:{line} imports {other}")
    assert wrong == []


def test_outside_rooms_stay_outside_the_hub() -> None:
    """The engine, the bot, ratings, fair play, tournaments and the store know nothing of
    the service."""
    for room in ("engine", "bot", "ratings", "fairplay", "tournaments", "store"):
        base = SRC / room
        files = list(base.rglob("*.py")) if base.is_dir() else [SRC / f"{room}.py"]
        for path in files:
            for module, _, line in imports(path):
                assert not module.startswith("brandubh.hub"), f"{path}:{line} imports {module}"


def test_nothing_imports_the_composition_root() -> None:
    """(uvicorn is told its name, "brandubh.hub.app:create_app", by serve.py: no import.)"""
    for path in SRC.rglob("*.py"):
        for module, names, line in imports(path):
            assert module != "brandubh.hub.app", f"{path}:{line}"
            assert not (module == "brandubh.hub" and "app" in names), f"{path}:{line}"
