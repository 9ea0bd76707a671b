"""The compiled modules (mypyc): the list agrees with the build's, the install compiled
them, a build older than its source is refused, and compiled and uncompiled agree on the
engine's perft vectors, on recorded games ply by ply, and on client frames and server
frames (tests/compiled_probe.py computes them; tests/bot/test_native.py does the search)."""

from __future__ import annotations

import json
import os
import tomllib
import types
from importlib import import_module
from pathlib import Path

import pytest

import brandubh.engine
import brandubh.hub.messages  # noqa: F401  (imported, so install must refuse)
import compiled_probe
from brandubh import native
from brandubh.native import StaleBuildError, check_build, check_fresh, uncompiled

ROOT = Path(__file__).resolve().parents[1]
COMPILED = native.all_compiled()
EVERY_MODULE_RUNS_COMPILED = os.environ.get("BRANDUBH_REQUIRE_COMPILED") == "1"
NOT_BUILT = "installed without its mypyc build (no C compiler, or HATCH_BUILD_NO_HOOKS)"


def test_the_list_is_the_build_s() -> None:
    """One module a line in pyproject.toml's include and in COMPILED_MODULES, the same."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    include = config["tool"]["hatch"]["build"]["targets"]["wheel"]["hooks"]["custom"]["include"]
    built = sorted(
        path.removeprefix("/src/").removesuffix(".py").replace("/", ".") for path in include
    )
    assert built == sorted(uncompiled.COMPILED_MODULES)
    for name in uncompiled.COMPILED_MODULES:
        assert uncompiled.source_of(name).is_file(), name


def test_the_install_compiled_every_listed_module() -> None:
    plain = [
        name for name in uncompiled.COMPILED_MODULES if not native.is_compiled(import_module(name))
    ]
    if plain and not EVERY_MODULE_RUNS_COMPILED and len(plain) == len(uncompiled.COMPILED_MODULES):
        pytest.skip(f"brandubh was {NOT_BUILT}")
    assert plain == [], "these run uncompiled (BRANDUBH_REQUIRE_COMPILED=1 or a partial build)"


def test_the_hub_says_how_its_hot_path_runs() -> None:
    line = native.summary()
    assert line.startswith("hot path compiled" if COMPILED else "hot path uncompiled"), line


def _stale_pair(tmp_path: Path, built_at: int, source_at: int) -> Path:
    source = tmp_path / "game.py"
    source.write_text("")
    built = tmp_path / f"game{native.EXTENSION_SUFFIXES[0]}"
    built.write_bytes(b"")
    os.utime(source, (source_at, source_at))
    os.utime(built, (built_at, built_at))
    return source


def test_a_build_older_than_its_source_is_refused(tmp_path: Path) -> None:
    source = _stale_pair(tmp_path, built_at=1_000_000_000, source_at=2_000_000_000)
    with pytest.raises(StaleBuildError, match=r"pip install -e \."):
        check_fresh(source)


def test_a_build_newer_than_its_source_is_used(tmp_path: Path) -> None:
    source = _stale_pair(tmp_path, built_at=2_000_000_000, source_at=1_000_000_000)
    check_fresh(source)
    assert native.built_file(source) == tmp_path / f"game{native.EXTENSION_SUFFIXES[0]}"


def test_a_module_without_a_build_is_never_stale(tmp_path: Path) -> None:
    source = tmp_path / "game.py"
    source.write_text("")
    assert native.built_file(source) is None
    check_fresh(source)


def test_each_compiled_package_checks_its_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    """engine, bot and hub call check_build at import, over their own modules only."""
    checked: list[Path] = []
    monkeypatch.setattr(native, "check_fresh", checked.append)
    for package in ("brandubh.engine", "brandubh.bot", "brandubh.hub"):
        assert "check_build(__name__)" in uncompiled.source_of(package + ".__init__").read_text()
        checked.clear()
        check_build(package)
        assert checked == [uncompiled.source_of(n) for n in native.modules_of(package)]
        assert checked, package


def test_an_uncompiled_module_reports_so() -> None:
    module = types.ModuleType("brandubh.engine.game")
    module.__file__ = str(uncompiled.source_of("brandubh.engine.game"))
    assert not native.is_compiled(module)


def test_the_sources_cannot_replace_modules_already_imported() -> None:
    """(This process imported the engine and the hub's messages above.)"""
    with pytest.raises(RuntimeError, match="already imported"):
        uncompiled.install()
    assert not uncompiled.installed()


@pytest.mark.skipif(
    not COMPILED and not EVERY_MODULE_RUNS_COMPILED, reason=f"brandubh was {NOT_BUILT}"
)
def test_compiled_and_uncompiled_agree() -> None:
    given = compiled_probe.inputs()
    here = json.loads(json.dumps(compiled_probe.probe(given)))
    assert [row[2][:3] for row in here["perft"][:1]] == [[40, 960, 39512]]
    assert len(given["records"]) == 20
    assert sum(len(plies) for plies in here["games"]) > 1000
    assert {row[0] for row in here["messages"]} > {"refused", "Move", "Seek", "Watch"}
    there = compiled_probe.run_uncompiled("import compiled_probe\ncompiled_probe.main()", given)
    for key in ("perft", "messages", "frames"):
        assert here[key] == there[key], key
    for text, ours, theirs in zip(given["records"], here["games"], there["games"], strict=True):
        for ply, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            assert a == b, f"{text.splitlines()[0]}: row {ply}"
