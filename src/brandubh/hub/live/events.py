"""A change's event frame, built once on the commit path, and the one place that owns its
deadline placeholder: the contract between this module, commit.py and lua/commit.lua.

A new deadline (``Change.deadline_change == "set"``) is known only to commit.lua, which
reads Redis's clock. So:

1. ``frame`` builds the event with ``DEADLINE_PLACEHOLDER`` as the state's deadline; a
   value of 2**32 or more is packed by msgpack as ``0xcf`` and 8 bytes, big-endian, which
   is ``PLACEHOLDER`` (9 bytes, found nowhere else in a frame).
2. commit.py passes ``PLACEHOLDER`` as the script's ``placeholder`` argument, for such a
   change only (absent: the frame has none).
3. commit.lua finds its first occurrence and writes the deadline over it in the same
   encoding (``0xcf`` kept, 8 bytes big-endian) before it stores and publishes the frame;
   a frame without it is refused (``internal``). It replies with the deadline.
4. ``stored`` writes that deadline over this process's copy the same way, for its hooks:
   the reply does not carry the frame back, which would add the frame to every commit's
   round trip.
"""

from __future__ import annotations

from typing import Final

from brandubh.hub.live.changes import Change
from brandubh.hub.messages import frames

DEADLINE_PLACEHOLDER: Final = 0xFEED_FACE_CAFE_BEEF
PLACEHOLDER: Final = b"\xcf" + DEADLINE_PLACEHOLDER.to_bytes(8, "big")


def frame(change: Change, seed: bytes) -> bytes:
    """The event frame of ``change``, as sent before the script runs; the final event
    reveals the seed."""
    new = change.new
    how = change.deadline_change
    shown: int | None = None  # the state's own
    if how == "set":
        shown = DEADLINE_PLACEHOLDER
    elif how == "at":
        shown = change.deadline_ms
    elif how == "del":
        shown = 0
    revealed = seed.hex() if new.status == "ended" and seed else None
    public = new.public(change.game, seed=revealed, deadline=shown)
    return frames.event(new.id, new.seq, change.event, public)


def stored(sent: bytes, change: Change, deadline: int) -> bytes:
    """The frame as commit.lua stored it, given the deadline it set (step 4 above)."""
    if change.deadline_change == "set":
        return sent.replace(PLACEHOLDER, b"\xcf" + deadline.to_bytes(8, "big"), 1)
    return sent
