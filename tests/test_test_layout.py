"""The tests' own layout (issue #36): no test module imports another (what they share is
in helper modules: pages.py, waiting.py, services.py, wsclient.py, ...), and nothing
polls in a loop of its own: a test waits with waiting.wait_for (or wait_for_sync)."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent

# Loops that sleep and stop on a condition yet are no waiting: each acts every round.
# (path relative to tests/, function): why.
NOT_WAITING = {
    ("hub/test_claims.py", "claim_when_due"): "claims again after the time each refusal names",
    ("hub/test_cluster.py", "play_moves"): "resends a move refused while a master fails over",
    ("hub/test_faults.py", "play_on"): "plays moves until told to stop, resending through faults",
    ("hub/test_tournaments.py", "play_arena_through_faults"): "plays until told to stop",
}


def python_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if "node_modules" not in p.parts)


def imported_modules(tree: ast.AST) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
    return found


def test_no_test_module_imports_another() -> None:
    wrong = [
        f"{path.relative_to(TESTS)}:{line} imports {module}"
        for path in python_files()
        for line, module in imported_modules(ast.parse(path.read_text()))
        if module.rsplit(".", 1)[-1].startswith("test_") or module.startswith("conftest")
    ]
    assert wrong == [], "shared helpers belong in helper modules, not test modules"


def sleeps(node: ast.AST) -> bool:
    return any(
        isinstance(n, ast.Call)
        and (
            (isinstance(n.func, ast.Attribute) and n.func.attr in ("sleep", "wait_for_timeout"))
            or (isinstance(n.func, ast.Name) and n.func.id == "sleep")
        )
        for n in ast.walk(node)
    )


def stops_on_a_condition(loop: ast.While | ast.For | ast.AsyncFor) -> bool:
    if isinstance(loop, ast.While) and not (
        isinstance(loop.test, ast.Constant) and loop.test.value is True
    ):
        return True
    return bool(loop.orelse) or any(isinstance(n, (ast.Break, ast.Return)) for n in ast.walk(loop))


def polling_loops(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, enclosing function) of each loop that sleeps and stops on a condition."""
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = function
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = function or child.name
            if (
                isinstance(child, (ast.While, ast.For, ast.AsyncFor))
                and sleeps(child)
                and stops_on_a_condition(child)
            ):
                found.append((child.lineno, name))
                continue
            visit(child, name)

    visit(tree, "")
    return found


def test_nothing_polls_but_the_waiting_helper() -> None:
    wrong = []
    for path in python_files():
        where = path.relative_to(TESTS).as_posix()
        if where == "waiting.py":
            continue
        for line, function in polling_loops(ast.parse(path.read_text())):
            if (where, function) not in NOT_WAITING:
                wrong.append(f"{where}:{line} in {function or 'the module'}")
    assert wrong == [], "wait with waiting.wait_for / wait_for_sync, naming what is awaited"


def test_the_loops_that_are_no_waiting_still_exist() -> None:
    seen = {
        (path.relative_to(TESTS).as_posix(), function)
        for path in python_files()
        for _, function in polling_loops(ast.parse(path.read_text()))
    }
    assert set(NOT_WAITING) <= seen, set(NOT_WAITING) - seen
