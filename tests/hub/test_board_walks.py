"""The analysis board's walks, bounded (hub/analysis/walks.py): one at a time in the
walker thread, never on the event loop, and no more than WAITING_MAX queued per hub."""

from __future__ import annotations

import asyncio
import threading

import pytest

from brandubh.analysis import Step
from brandubh.hub.analysis import walks
from brandubh.hub.errors import Refusal
from waiting import wait_for


async def _no_limit(address: str) -> None:
    return None


async def test_walks_run_one_at_a_time_off_the_loop_and_a_full_queue_is_busy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    release = threading.Event()
    threads: set[int] = set()
    running, most = [0], [0]
    lock = threading.Lock()

    def blocked_walk(ruleset: str, position: str | None, moves: list[str]) -> list[Step]:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        threads.add(threading.get_ident())
        release.wait(10)
        with lock:
            running[0] -= 1
        return []

    monkeypatch.setattr(walks, "walk", blocked_walk)
    board = walks.BoardWalks(_no_limit)
    queued = [
        asyncio.create_task(board.walk("nielsen", None, [], "198.18.0.1", False))
        for _ in range(walks.WAITING_MAX)
    ]
    await wait_for(lambda: board.waiting >= walks.WAITING_MAX, "every walk queued", every=0)
    with pytest.raises(Refusal) as busy:
        await board.walk("nielsen", None, [], "198.18.0.2", False)
    assert busy.value.code == "analysis_busy"
    release.set()
    answers = await asyncio.gather(*queued)
    assert [a.body for a in answers] == [b'{"steps":[]}'] * walks.WAITING_MAX
    assert most[0] == 1 and threading.get_ident() not in threads and len(threads) == 1
    assert board.waiting == 0


async def test_a_line_longer_than_a_game_is_refused_before_any_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def never(*args: object) -> list[Step]:
        raise AssertionError("walked")

    monkeypatch.setattr(walks, "walk", never)
    board = walks.BoardWalks(_no_limit)
    for moves in (["g4-g3"] * (walks.MAX_LINE + 1), "g4-g3", ["x" * 33]):
        with pytest.raises(Refusal) as refused:
            await board.walk("nielsen", None, moves, "198.18.0.1", False)
        assert refused.value.code == "bad_field"
        assert f"at most {walks.MAX_LINE} move texts" in refused.value.message
    assert walks.MAX_LINE == 400
