"""A change's event frame, built once on the commit path and stored as commit.lua leaves it:
a new deadline is known only to the script (Redis's clock), so the frame carries a
placeholder that the script, and ``stored`` here, write the deadline over."""

from __future__ import annotations

from typing import Final

from brandubh.hub.live.changes import Change
from brandubh.hub.messages import frames

PLACEHOLDER: Final = frames.PLACEHOLDER_BYTES  # what commit.lua looks for in the frame


def frame(change: Change, seed: bytes) -> bytes:
    """The event frame of ``change``, as sent before the script runs; the final event
    reveals the seed."""
    new = change.new
    how = change.deadline_change
    shown: int | None = None  # the state's own
    if how == "set":
        shown = frames.DEADLINE_PLACEHOLDER
    elif how == "at":
        shown = change.deadline_ms
    elif how == "del":
        shown = 0
    revealed = seed.hex() if new.status == "ended" and seed else None
    public = new.public(change.game, seed=revealed, deadline=shown)
    return frames.event(new.id, new.seq, change.event, public)


def stored(sent: bytes, change: Change, deadline: int) -> bytes:
    """The frame as commit.lua stored it, given the deadline it set."""
    if change.deadline_change == "set":
        return sent.replace(PLACEHOLDER, frames.deadline_bytes(deadline), 1)
    return sent
