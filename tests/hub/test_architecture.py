"""docs/architecture.md's table of the hub's rooms is true: every module has a row, and
each imports only what its row allows; nothing imports the composition root."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HUB = ROOT / "src" / "brandubh" / "hub"
DOC = ROOT / "docs" / "architecture.md"


def ours(path: Path) -> set[str]:
    """The rooms of ours a module imports: hub modules by name, other rooms by name."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("brandubh"):
            parts = node.module.split(".")
            if parts == ["brandubh"] or parts == ["brandubh", "hub"]:
                found |= {alias.name for alias in node.names}
            elif parts[1] == "hub":
                found.add(parts[2])
            else:
                found.add(parts[1])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("brandubh."):
                    found.add(alias.name.split(".")[-1])
    return found - {"hub"}


def rows() -> dict[str, set[str] | None]:
    """module -> what it may import (None: anything)."""
    table: dict[str, set[str] | None] = {}
    for line in DOC.read_text().splitlines():
        m = re.match(r"\| `(\w+)\.py` \| .* \| (.*) \|$", line)
        if m:
            allowed = m.group(2)
            table[m.group(1)] = (
                None if allowed == "every hub module" else set(re.findall(r"`(\w+)`", allowed))
            )
    return table


def test_every_hub_module_has_a_row_and_keeps_to_it() -> None:
    table = rows()
    modules = {p.stem for p in HUB.glob("*.py") if p.stem != "__init__"}
    assert modules == set(table), "docs/architecture.md must list exactly the hub's modules"
    for name in sorted(modules):
        allowed = table[name]
        if allowed is not None:
            extra = ours(HUB / f"{name}.py") - allowed
            assert not extra, f"hub/{name}.py imports {sorted(extra)}, not in its row"


def test_nothing_imports_the_composition_root() -> None:
    """(uvicorn is told its name, "brandubh.hub.app:create_app", by serve.py: no import.)"""
    for path in (ROOT / "src").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                assert node.module != "brandubh.hub.app", path
                if node.module == "brandubh.hub":
                    assert "app" not in {a.name for a in node.names}, path
