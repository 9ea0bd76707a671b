"""The compiled search (mypyc): built by the install, refused when older than its source, and
move for move the same as the same code run uncompiled."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

import brandubh.uncompiled_bot
from brandubh.bot import bitboards, evaluation, search
from brandubh.bot.native import (
    StaleBuildError,
    check_fresh,
    is_compiled,
    search_is_compiled,
)
from brandubh.engine import RULESETS

COMPILED = search_is_compiled()

# Positions reached by random legal moves from the start, and each one's search within a
# node budget; printed as JSON so an uncompiled process can run the very same lines.
PROBE = """
import json, random, sys
from brandubh.bot import Searcher, evaluation, search
from brandubh.engine import RULESETS, Game

def probe():
    out = []
    for ruleset in sorted(RULESETS):
        for number, nodes in enumerate((6_000, 6_000, 30_000)):
            rng = random.Random(f"{ruleset}:{number}")
            game = Game(ruleset)
            for _ in range(6 + 5 * number):
                if game.result is not None:
                    break
                game.push(rng.choice(game.legal_moves()).code)
            if game.result is not None:
                continue
            search._EVAL_CACHES.clear()
            evaluation._RUNS.clear()
            evaluation.evaluator_for.cache_clear()
            found = Searcher(game, nodes).run(random.Random(number))
            out.append([ruleset, number, found.move, found.score, found.depth, found.nodes,
                        sorted(found.scores.items()), found.order])
    return out
"""


def _probe_here() -> list[object]:
    namespace: dict[str, object] = {}
    exec(PROBE, namespace)
    probe = namespace["probe"]
    assert callable(probe)
    return json.loads(json.dumps(probe()))  # type: ignore[no-any-return]


def _probe_pure() -> list[object]:
    script = (
        "import brandubh.uncompiled_bot\nbrandubh.uncompiled_bot.install()\n"
        + PROBE
        + """
from brandubh.bot import bitboards
assert bitboards.__file__.endswith(".py"), bitboards.__file__
print(json.dumps(probe()))
"""
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_the_install_compiled_the_search() -> None:
    if not COMPILED:
        if os.environ.get("BRANDUBH_REQUIRE_COMPILED") == "1":
            pytest.fail(f"the bot runs uncompiled: {search.__file__}")
        pytest.skip("the bot was installed without its mypyc build (HATCH_BUILD_NO_HOOKS)")
    for module in (bitboards, evaluation, search):
        assert Path(str(module.__file__)).suffix == ".so", module.__file__


@pytest.mark.skipif(not COMPILED, reason="the bot runs uncompiled here: nothing to compare with")
def test_compiled_and_uncompiled_search_agree() -> None:
    here = _probe_here()
    assert {row[0] for row in here} == set(RULESETS)  # type: ignore[index]
    assert here == _probe_pure()


def _fake_module(tmp_path: Path, suffix: str) -> types.ModuleType:
    module = types.ModuleType("brandubh.bot.search")
    built = tmp_path / f"search{suffix}"
    built.write_bytes(b"")
    (tmp_path / "search.py").write_text("")
    module.__file__ = str(built)
    return module


def test_a_build_older_than_its_source_is_refused(tmp_path: Path) -> None:
    module = _fake_module(tmp_path, ".cpython-311-x86_64-linux-gnu.so")
    os.utime(tmp_path / "search.py", (2_000_000_000, 2_000_000_000))
    os.utime(str(module.__file__), (1_000_000_000, 1_000_000_000))
    with pytest.raises(StaleBuildError, match=r"pip install -e \."):
        check_fresh(module)


def test_a_build_newer_than_its_source_is_used(tmp_path: Path) -> None:
    module = _fake_module(tmp_path, ".cpython-311-x86_64-linux-gnu.so")
    os.utime(tmp_path / "search.py", (1_000_000_000, 1_000_000_000))
    os.utime(str(module.__file__), (2_000_000_000, 2_000_000_000))
    check_fresh(module)
    assert is_compiled(module)


def test_an_uncompiled_module_is_never_stale(tmp_path: Path) -> None:
    module = _fake_module(tmp_path, ".py")
    assert not is_compiled(module)
    check_fresh(module)


def test_the_sources_cannot_replace_modules_already_imported() -> None:
    with pytest.raises(RuntimeError, match="already imported"):
        brandubh.uncompiled_bot.install()
    assert sys.meta_path[0].__class__.__name__ != "_SourceFinder"
