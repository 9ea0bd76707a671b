"""The scheduler's pure part: when it sweeps again for the earliest deadline it knows of."""

from __future__ import annotations

import pytest

from brandubh.hub.live import scheduler

RETRY = scheduler.HELD_BACK_RETRY_S


@pytest.mark.parametrize(
    ("next_due", "now", "held_back", "expected"),
    [
        (None, 1_000, 0, None),  # no deadline left
        (1_010, 1_000, 0, (1_010 + scheduler.WAKE_AFTER_DUE_MS - 1_000) / 1000),
        (1_001, 1_000, 0, 0.031),
        (1_000, 1_000, 0, 0.030),  # due now: once the other hubs' watermarks pass it
        (990, 1_000, 0, 0.020),  # due, but not yet past a watermark
        (965, 1_000, 0, RETRY),  # held back longer: looked at again a watermark later
        (965, 1_000, 2, RETRY * 4),  # ... less and less often while the watermarks are stuck
        (965, 1_000, 40, None),  # ... until the poll comes first (a stalled hub)
        (1_000 + 1_000, 1_000, 0, None),  # the poll comes first
    ],
)
def test_the_scheduler_wakes_just_after_the_earliest_deadline_before_its_poll(
    next_due: int | None, now: int, held_back: int, expected: float | None
) -> None:
    got = scheduler.wake_delay(next_due, now, 1.0, held_back)
    assert got == (pytest.approx(expected) if expected is not None else None)
