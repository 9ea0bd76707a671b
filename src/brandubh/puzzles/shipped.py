"""The puzzle set that ships with the package: ``data/<ruleset>.jsonl``, one record a line."""

from __future__ import annotations

from importlib import resources

from brandubh.puzzles.record import InvalidPuzzle, Puzzle, parse_puzzle


def load_shipped() -> tuple[Puzzle, ...]:
    """Every shipped puzzle, by rule set then line; InvalidPuzzle names the file and line."""
    data = resources.files("brandubh.puzzles").joinpath("data")
    if not data.is_dir():
        return ()
    puzzles: list[Puzzle] = []
    for entry in sorted(data.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".jsonl"):
            continue
        for number, line in enumerate(entry.read_text("utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                puzzles.append(parse_puzzle(line))
            except InvalidPuzzle as exc:
                raise InvalidPuzzle(f"{entry.name} line {number}: {exc}") from None
    return tuple(puzzles)
