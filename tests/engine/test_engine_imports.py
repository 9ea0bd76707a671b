"""The engine's modules import one another without a cycle, counting imports made for
types only (``if TYPE_CHECKING:``): the board and its movement modules meet in rules.py."""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "src" / "brandubh" / "engine"


def imported(path: Path) -> set[str]:
    """The engine modules a module imports, at any depth of its code."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        module = node.module if isinstance(node, ast.ImportFrom) else None
        if module and module.startswith("brandubh.engine."):
            out.add(module.removeprefix("brandubh.engine."))
    return out


def test_no_module_of_the_engine_imports_itself_round_a_cycle() -> None:
    graph = {p.stem: imported(p) for p in ENGINE.glob("*.py") if p.stem != "__init__"}
    assert graph["slide"] and graph["board"]  # the scan sees imports
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as exc:
        raise AssertionError(f"import cycle: {' -> '.join(exc.args[1])}") from None
