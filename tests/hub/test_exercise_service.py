"""Learning from one's mistakes as a service (POST /api/games/<id>/analysis/exercise): a
finished game analysed by a real worker process, then moves tried in place of its judged
ones through a real hub. The search's own move and the move played are answered at once; any
other is searched once by a worker, its verdict the same as computed here, and cached (a
second try is not searched again: the worker's log says so); the tries are counted per
session; every refusal has its code and says what was wrong."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest
from analysis_workers import QUICK_ESCAPE, Worker, finished_game

from brandubh.analysis import analyse_game, exercises, try_move
from services import HubProcess
from waiting import wait_for
from wsclient import Player

NODES = 20_000  # as tests/analysis/test_exercise.py: judged plies 3, 6 and 7
ENV = {
    "BRANDUBH_ANALYSIS_NODES": str(NODES),
    "BRANDUBH_ANALYSIS_WAIT_S": "60",
    "BRANDUBH_TRIES_PER_SESSION": "3",
    "BRANDUBH_ARCHIVE_POLL_S": "0.2",
}


@pytest.fixture
def worker(fresh_redis_url: str, database_url: str) -> Iterator[Worker]:
    started = Worker(fresh_redis_url, database_url)
    yield started
    started.stop()


async def analysed(hub: HubProcess, player: Player, game: str) -> None:
    r = await player.http.post(f"/api/games/{game}/analysis", json={})
    assert r.status_code in (200, 202), r.text

    async def done() -> bool:
        return (await player.http.get(f"/api/games/{game}/analysis")).json()["status"] == "done"

    await wait_for(done, "the game's analysis", timeout=120)


async def test_tried_moves_are_judged_once_cached_and_counted(
    start_hub: Callable[..., HubProcess], fresh_redis_url: str, worker: Worker
) -> None:
    hub = start_hub(ENV, redis=fresh_redis_url)
    game, alice, bob = await finished_game(hub.url)
    url = f"/api/games/{game}/analysis/exercise"

    async def attempt(who: Player, ply: int, move: str) -> tuple[int, dict[str, object]]:
        r = await who.http.post(url, json={"ply": ply, "move": move}, timeout=90)
        return r.status_code, r.json()

    # No analysis yet: nothing to try.
    status, body = await attempt(alice, 3, "f4-f6")
    assert (status, body["error"]) == (409, "not_analysed"), body
    await worker.ready()
    await analysed(hub, alice, game)

    # The search's own move and the move played: answered at once, nothing searched.
    status, best = await attempt(alice, 3, "B4-B5")
    assert status == 200 and (best["move"], best["good"], best["why"]) == ("b4-b5", True, "best")
    status, played = await attempt(alice, 3, "g3-g2")
    assert (played["good"], played["why"], played["judgment"]) == (False, "played", "mistake")
    assert "tried move" not in worker.output

    # A second good move: searched by the worker, the verdict computed here too.
    analysis = analyse_game("nielsen", QUICK_ESCAPE, nodes=NODES)
    exercise = next(e for e in exercises(analysis) if e.ply == 3)
    here = try_move(exercise, "nielsen", QUICK_ESCAPE[:2], "f4-f6", nodes=NODES).to_dict()
    status, second = await attempt(alice, 3, "f4-f6")
    assert status == 200, second
    assert second.pop("cached") is False and second == {**here, "eval": second["eval"]}
    assert second["eval"] == here["eval"] and second["good"] is True
    # Tried again, by anyone: from the cache, not searched again.
    status, again = await attempt(bob, 3, "f4-f6")
    assert again.pop("cached") is True and again == second
    assert worker.output.count("tried move f4-f6 at ply 3") == 1

    # Allowing the forced loss the game's move allowed (ply 6): not good.
    status, lost = await attempt(bob, 6, "Kd5-b5")
    assert (status, lost["good"], lost["why"], lost["after"]) == (200, False, "lost", 0.0)

    # Refusals, each saying what was wrong; none counted.
    status, body = await attempt(alice, 2, "e4-e2")
    assert (status, body["error"]) == (400, "not_a_mistake")
    assert "plies 3, 6, 7" in str(body["message"])
    status, body = await attempt(alice, 3, "a1-a2")
    assert (status, body["error"]) == (400, "illegal_move")
    assert "'a1-a2' cannot be played at ply 3: a1 holds no piece" in str(body["message"])
    status, body = await attempt(alice, 3, "zz")
    assert (status, body["error"]) == (400, "illegal_move") and "is not a move" in body["message"]
    for bad in ({"ply": "3", "move": "f4-f6"}, {"ply": 3}, {"ply": 0, "move": "f4-f6"}):
        r = await alice.http.post(url, json=bad)
        assert (r.status_code, r.json()["error"]) == (400, "bad_field"), bad
    r = await alice.http.post(url, json={"ply": 3, "move": "f4-f6", "extra": 1})
    assert (r.status_code, r.json()["error"]) == (400, "bad_field")

    # Bob's session has searched one move; two more, then the hour's tries are used up.
    for move in ("d6-g6", "b4-b7"):
        status, body = await attempt(bob, 3, move)
        assert status == 200, body
    status, body = await attempt(bob, 3, "f4-f3")
    assert (status, body["error"]) == (429, "analysis_limit"), body
    assert "in this session" in str(body["message"])
    # Cached and unsearched moves are still answered.
    status, body = await attempt(bob, 3, "d6-g6")
    assert status == 200 and body["cached"] is True
    # No session at all: counted by address only.
    async with httpx.AsyncClient(base_url=hub.url, headers={"Origin": hub.url}) as nobody:
        r = await nobody.post(url, json={"ply": 7, "move": "d1-e1"}, timeout=90)
        assert r.status_code == 200 and r.json()["why"] == "lost", r.text
    for player in (alice, bob):
        await player.close()
