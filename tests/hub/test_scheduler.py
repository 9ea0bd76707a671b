"""The scheduler's pure part: when it wakes for the earliest deadline it knows of."""

from __future__ import annotations

import pytest

from brandubh.hub.live import scheduler


@pytest.mark.parametrize(
    ("next_due", "now", "expected"),
    [
        (None, 1_000, None),  # no deadline left
        (1_010, 1_000, (1_010 + scheduler.WAKE_AFTER_DUE_MS - 1_000) / 1000),
        (1_001, 1_000, 0.031),
        (1_000, 1_000, 0.030),  # due now: once the other hubs' watermarks pass it
        (990, 1_000, 0.020),  # due, but not yet past a watermark
        (965, 1_000, None),  # held back longer (a stalled hub): the poll rechecks
        (1_000 + 50, 1_000, None),  # the 50 ms poll comes first
    ],
)
def test_the_scheduler_wakes_just_after_the_earliest_deadline_before_its_poll(
    next_due: int | None, now: int, expected: float | None
) -> None:
    got = scheduler.wake_delay(next_due, now, 0.05)
    assert got == (pytest.approx(expected) if expected is not None else None)
