"""Positions written by hand: a position string from a list of pieces."""

from __future__ import annotations

FILES = "abcdefg"


def put(pieces: str, side: str = "a") -> str:
    """A position string from ``"Kd5 Ac5 Dd6"`` and the side to move (ranks 7 down to 1)."""
    grid = [["" for _ in range(7)] for _ in range(7)]
    for token in pieces.split():
        grid[int(token[2]) - 1][FILES.index(token[1])] = token[0]
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
