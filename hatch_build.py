"""Build hook: compile the hot path with mypyc where a C compiler is at hand (the engine, the
hub's messages, the bot's search: pyproject.toml's include), else ship it as plain Python,
which gives the same results more slowly (docs/architecture.md, "Compiled")."""

from __future__ import annotations

from typing import Any

from hatch_mypyc.plugin import MypycBuildHook


class CompiledBuildHook(MypycBuildHook):
    """hatch-mypyc's hook, which fails the install when compiling fails; this one warns."""

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        try:
            super().initialize(version, build_data)
        except Exception as exc:  # mypyc or the C compiler; the message holds their output
            lines = str(exc).strip().splitlines()
            self.app.display_warning(
                "brandubh: nothing was compiled, so the engine, the hub's messages and the "
                "bot's search run as plain Python (the same results and moves; about twice "
                "the CPU per move, the bot three to four times slower): "
                f"{lines[-1] if lines else exc!r}"
            )


def get_build_hook() -> type[CompiledBuildHook]:
    """The hook class, named for hatchling (the module also holds the class it extends)."""
    return CompiledBuildHook
