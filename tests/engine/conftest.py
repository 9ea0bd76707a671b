"""Shared helpers for the engine tests, offered as fixtures.

``put`` builds a position string from a list of pieces such as ``"Kd5 Ac5 Ae5 Dd6"``, so a
test reads like the rule it checks. It is written from docs/rules.md §Position strings
(ranks 7 down to 1, ``A`` attacker, ``D`` defender, ``K`` king, digits for empty runs, then
the side to move) and does not use the engine's own formatter.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

Put = Callable[..., str]

FILES = "abcdefg"


def build_position(pieces: str, side: str = "a") -> str:
    """The position string with ``pieces`` ("Kd5 Ac5 ...") on the board and ``side`` to move."""
    grid = [["" for _ in range(7)] for _ in range(7)]
    for token in pieces.split():
        kind, square = token[0], token[1:]
        assert kind in "ADK", token
        file, rank = FILES.index(square[0]), int(square[1]) - 1
        assert not grid[rank][file], f"{square} given twice"
        grid[rank][file] = kind
    ranks = []
    for rank in range(6, -1, -1):
        text, empty = "", 0
        for file in range(7):
            if grid[rank][file]:
                text += (str(empty) if empty else "") + grid[rank][file]
                empty = 0
            else:
                empty += 1
        ranks.append(text + (str(empty) if empty else ""))
    return "/".join(ranks) + " " + side


@pytest.fixture
def put() -> Put:
    """``put("Kd5 Ac5", "d")``: a position string from a list of pieces and the side to move."""
    return build_position
