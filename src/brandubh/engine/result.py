"""How a game ended: the winning side (None for a draw) and the reason."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from brandubh.engine.errors import InvalidResult

Side = Literal["attackers", "defenders"]

# Endings the engine reports itself, from the board.
ENGINE_REASONS: Final = frozenset(
    {
        "king_escaped",
        "king_captured",
        "attackers_eliminated",
        "defenders_eliminated",
        "no_legal_moves",
        "repetition",
        "move_limit",
    }
)
# Endings decided by the players or the clock, which the service records (docs/rules.md
# §Results).
# "aborted" is the end of a game with no result: cancelled before both sides moved.
# "abandoned": a live game claimed, as a win or a draw, by the player whose opponent left.
SITE_REASONS: Final = frozenset({"timeout", "resignation", "draw_agreed", "aborted", "abandoned"})
REASONS: Final = ENGINE_REASONS | SITE_REASONS


@dataclass(frozen=True, slots=True)
class Result:
    """The end of a game: ``winner`` is "attackers", "defenders" or None for a draw."""

    winner: Side | None
    reason: str

    def __post_init__(self) -> None:
        if self.winner not in ("attackers", "defenders", None):
            raise InvalidResult(
                f"winner must be 'attackers', 'defenders' or None, not {self.winner!r}"
            )
        if self.reason not in REASONS:
            known = ", ".join(sorted(REASONS))
            raise InvalidResult(f"unknown reason {self.reason!r}: one of {known}")

    def __reduce__(self) -> tuple[type[Result], tuple[Side | None, str]]:
        # Pickled by its fields: compiled (mypyc), the default would set them on a frozen instance.
        return Result, (self.winner, self.reason)

    @property
    def is_draw(self) -> bool:
        return self.winner is None

    def __str__(self) -> str:
        if self.reason == "aborted":
            return "aborted (no result)"
        who = "draw" if self.winner is None else f"{self.winner} win"
        return f"{who} ({self.reason})"


def opponent(side: Side) -> Side:
    """The other side."""
    return "defenders" if side == "attackers" else "attackers"
