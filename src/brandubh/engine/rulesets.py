"""The five rule sets as data: one frozen description each (docs/rules.md §Rule table)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import Enum
from typing import Final

from brandubh.engine.errors import UnknownRuleSet


class Movement(Enum):
    SLIDE = "slide"  # rook slide, custodial capture
    STEP = "step"  # newsome: one step, capture by replacement


class Outcome(Enum):
    """Who is judged when a game ends without a capture or escape."""

    DRAW = "draw"
    SIDE_TO_MOVE_LOSES = "side_to_move_loses"
    DEFENDERS_LOSE = "defenders_lose"
    MOVER_LOSES = "mover_loses"


class KingCapture(Enum):
    """How many attackers it takes to capture the king on or beside the throne."""

    LIKE_ANYWHERE = "like_anywhere"  # two in a line (or attacker and a hostile square)
    BESIDE_THREE = "beside_three"  # three on his other sides (throne is the fourth)
    ON_THRONE_FOUR = "on_throne_four"
    NEVER = "never"


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every setting in which the rule sets differ; one frozen instance per rule set."""

    name: str
    title: str
    summary: str
    movement: Movement
    king_may_return_to_throne: bool
    throne_hostile_to_soldiers: bool  # the empty throne, to attackers and defenders
    throne_hostile_to_king: bool  # the empty throne, to the king (nielsen decision 1)
    king_beside_throne: KingCapture
    king_on_throne: KingCapture
    no_legal_moves: Outcome
    third_repetition: Outcome
    move_limit: int = 400

    @property
    def slides(self) -> bool:
        return self.movement is Movement.SLIDE

    def __str__(self) -> str:
        return self.name

    def __reduce__(self) -> tuple[type[RuleSet], tuple[object, ...]]:
        # Pickled by its fields: compiled (mypyc), the default would set them on a frozen instance.
        return RuleSet, tuple(getattr(self, f.name) for f in fields(self))


NIELSEN: Final = RuleSet(
    name="nielsen",
    title="Nielsen",
    summary=(
        "Aage Nielsen's reconstruction: the king may never return to the throne; the empty "
        "throne and the corners are hostile; beside the throne the king needs three attackers, "
        "on it four; a third repetition or a side with no move is a draw."
    ),
    movement=Movement.SLIDE,
    king_may_return_to_throne=False,
    throne_hostile_to_soldiers=True,
    throne_hostile_to_king=True,
    king_beside_throne=KingCapture.BESIDE_THREE,
    king_on_throne=KingCapture.ON_THRONE_FOUR,
    no_legal_moves=Outcome.DRAW,
    third_repetition=Outcome.DRAW,
)

FEDERATION: Final = RuleSet(
    name="federation",
    title="World Tafl Federation",
    summary=(
        "The tournament rules: captures as in Nielsen's, but a side with no legal move loses "
        "and a third repetition loses for the defenders, whoever repeated."
    ),
    movement=Movement.SLIDE,
    king_may_return_to_throne=False,
    throne_hostile_to_soldiers=True,
    throne_hostile_to_king=False,
    king_beside_throne=KingCapture.BESIDE_THREE,
    king_on_throne=KingCapture.ON_THRONE_FOUR,
    no_legal_moves=Outcome.SIDE_TO_MOVE_LOSES,
    third_repetition=Outcome.DEFENDERS_LOSE,
)

COMMON: Final = RuleSet(
    name="common",
    title="Common online rules",
    summary=(
        "The king may go home to the throne; the throne never harms the king, so beside it he "
        "is taken by two like anywhere; on it by four. A side with no move loses, and whoever "
        "makes a position come round the third time loses."
    ),
    movement=Movement.SLIDE,
    king_may_return_to_throne=True,
    throne_hostile_to_soldiers=True,
    throne_hostile_to_king=False,
    king_beside_throne=KingCapture.LIKE_ANYWHERE,
    king_on_throne=KingCapture.ON_THRONE_FOUR,
    no_legal_moves=Outcome.SIDE_TO_MOVE_LOSES,
    third_repetition=Outcome.MOVER_LOSES,
)

WALKER: Final = RuleSet(
    name="walker",
    title="Walker's Brandub",
    summary=(
        "Damian Walker's reconstruction: only the corners are hostile; the king is taken by two "
        "in a line everywhere, on the throne too, and may return to it. Repetition and a side "
        "with no move draw."
    ),
    movement=Movement.SLIDE,
    king_may_return_to_throne=True,
    throne_hostile_to_soldiers=False,
    throne_hostile_to_king=False,
    king_beside_throne=KingCapture.LIKE_ANYWHERE,
    king_on_throne=KingCapture.LIKE_ANYWHERE,
    no_legal_moves=Outcome.DRAW,
    third_repetition=Outcome.DRAW,
)

NEWSOME: Final = RuleSet(
    name="newsome",
    title="Newsome's Gaelic game",
    summary=(
        "A different game on the same board: every piece steps one square (princes and barons "
        "also two along the white diagonals) and captures by moving onto an enemy. The king is "
        "never taken; the barons win by removing every prince, the princes by removing every "
        "baron. A prince three plies on a corner is lost in the woods."
    ),
    movement=Movement.STEP,
    king_may_return_to_throne=True,
    throne_hostile_to_soldiers=False,
    throne_hostile_to_king=False,
    king_beside_throne=KingCapture.NEVER,
    king_on_throne=KingCapture.NEVER,
    no_legal_moves=Outcome.DRAW,
    third_repetition=Outcome.DRAW,
)

RULESETS: Final[dict[str, RuleSet]] = {
    rs.name: rs for rs in (NIELSEN, FEDERATION, COMMON, WALKER, NEWSOME)
}
DEFAULT_RULESET: Final = NIELSEN


def get_ruleset(ruleset: str | RuleSet) -> RuleSet:
    """The RuleSet named ``ruleset`` (or ``ruleset`` itself); UnknownRuleSet if none."""
    if isinstance(ruleset, RuleSet):
        return ruleset
    found = RULESETS.get(ruleset)
    if found is None:
        raise UnknownRuleSet(f"unknown rule set {ruleset!r}: choose one of {', '.join(RULESETS)}")
    return found
