"""Build hook: compile the bot's search with mypyc where a C compiler is at hand, else ship it
as plain Python, which makes the same moves more slowly (docs/bot.md, "Compiled")."""

from __future__ import annotations

from typing import Any

from hatch_mypyc.plugin import MypycBuildHook


class BotBuildHook(MypycBuildHook):
    """hatch-mypyc's hook, which fails the install when compiling fails; this one warns."""

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        try:
            super().initialize(version, build_data)
        except Exception as exc:  # mypyc or the C compiler; the message holds their output
            lines = str(exc).strip().splitlines()
            self.app.display_warning(
                "brandubh: the bot's search was not compiled, so it runs as plain Python "
                f"(the same moves, three to four times slower): {lines[-1] if lines else exc!r}"
            )


def get_build_hook() -> type[BotBuildHook]:
    """The hook class, named for hatchling (the module also holds the class it extends)."""
    return BotBuildHook
