"""What follows and blocks may be, decided without I/O: the limits, and the refusal each
outcome of the store comes to (docs/protocol.md §2.11)."""

from __future__ import annotations

from typing import Final

from brandubh.hub.errors import Refusal
from brandubh.store import Made

MAX_FOLLOWS: Final = 400  # players one account follows at most
MAX_BLOCKS: Final = 500  # players one account blocks at most
ACTIONS: Final = 60  # follows, unfollows, blocks and unblocks per window, per account
WINDOW_S: Final = 600


def check_other(actor: str, target: str, what: str) -> None:
    """Nobody follows or blocks themselves."""
    if actor == target:
        raise Refusal("bad_field", f"you cannot {what} yourself")


def follow_refusal(made: Made, name: str) -> Refusal | None:
    """The refusal a follow's outcome comes to, if any (one already made is no error)."""
    if made == "full":
        return Refusal(
            "too_many_followed", f"you follow {MAX_FOLLOWS} players, the most you may: unfollow one"
        )
    if made == "gone":
        return _no_player()
    if made == "blocked":
        # Says no more than lichess does: not who blocks whom.
        return Refusal("blocked", f"you cannot follow {name}: a block stands between you")
    return None


def block_refusal(made: Made) -> Refusal | None:
    """The refusal a block's outcome comes to, if any (one already made is no error)."""
    if made == "full":
        return Refusal(
            "too_many_blocked", f"you block {MAX_BLOCKS} players, the most you may: unblock one"
        )
    if made == "gone":
        return _no_player()
    return None


def _no_player() -> Refusal:
    """The other account went between the route's look-up and the store's write."""
    return Refusal("not_found", "there is no such player")
