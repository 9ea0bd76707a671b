"""The compiled search (mypyc): move for move the same as the same code run uncompiled.
(tests/test_compiled.py checks the build itself, and the engine and hub modules.)"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from brandubh.bot import bitboards, evaluation, search, search_is_compiled
from brandubh.engine import RULESETS
from compiled_probe import run_uncompiled

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
    return run_uncompiled(PROBE + "\nprint(json.dumps(probe()))")  # type: ignore[no-any-return]


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
