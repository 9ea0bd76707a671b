"""Analysis by the bot stays pure: of ours it imports only the engine and the bot (as
docs/architecture.md says), and nothing that reads a clock or does I/O."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "brandubh" / "analysis"
OURS_ALLOWED = ("brandubh.engine", "brandubh.bot", "brandubh.analysis")
IMPURE = {"time", "datetime", "os", "socket", "asyncio", "redis", "sqlalchemy", "pathlib", "io"}


def _imports(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.append(node.module)
        elif isinstance(node, ast.Import):
            out += [alias.name for alias in node.names]
    return out


def test_analysis_imports_only_what_it_may() -> None:
    files = sorted(PACKAGE.glob("*.py"))
    assert len(files) >= 6  # the scan finds the package
    wrong = [
        f"{path.name}: {module}"
        for path in files
        for module in _imports(path)
        if (module.startswith("brandubh") and not module.startswith(OURS_ALLOWED))
        or module.split(".")[0] in IMPURE
    ]
    assert wrong == []
