"""Refusals that cost the asker nothing: a game with no moves is not queued for analysis
nor counted, and a board evaluation refused because the queue is full is not counted
against the address's hour (hub/analysis/analyses.py). Through a real hub and Redis, with
no worker, so what is queued stays queued."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from brandubh.engine import Game
from services import HubProcess
from wsclient import friend_game, seated


async def test_a_game_ended_before_its_first_move_is_refused_and_not_counted(
    start_hub: Callable[..., HubProcess], fresh_redis_url: str
) -> None:
    hub = start_hub({"BRANDUBH_ANALYSIS_PER_ACCOUNT": "1"}, redis=fresh_redis_url)
    aborted, alice, bob = await friend_game(hub.url, "nielsen")
    socks = await seated(aborted, alice, bob)
    await socks["attackers"].send({"t": "abort", "game": aborted, "id": "a1"})
    await socks["defenders"].recv_until(
        lambda m: m["t"] == "event" and m["state"]["status"] == "ended"
    )
    r = await alice.http.post(f"/api/games/{aborted}/analysis", json={})
    assert (r.status_code, r.json()["error"]) == (409, "no_moves"), r.text
    assert "nothing to analyse" in r.json()["message"]
    # Alice's one analysis of the day is still hers: a game with moves is queued.
    played, carol, dave = await friend_game(hub.url, "nielsen")
    more = await seated(played, carol, dave)
    await more["attackers"].move(played, 0, "g4-g3")
    await more["defenders"].recv_until(lambda m: m.get("move") == "g4-g3")
    await more["attackers"].send({"t": "resign", "game": played, "id": "r1"})
    await more["defenders"].recv_until(
        lambda m: m["t"] == "event" and m["state"]["status"] == "ended"
    )
    queued = await alice.http.post(f"/api/games/{played}/analysis", json={})
    assert (queued.status_code, queued.json()["status"]) == (202, "queued"), queued.text
    for sock in (*socks.values(), *more.values()):
        await sock.close()
    for player in (alice, bob, carol, dave):
        await player.close()


async def test_an_evaluation_refused_for_a_full_queue_is_not_counted(
    start_hub: Callable[..., HubProcess], fresh_redis_url: str
) -> None:
    env = {
        "BRANDUBH_ANALYSIS_QUEUE_MAX": "1",
        "BRANDUBH_EVALUATIONS_PER_ADDRESS": "1",
        "BRANDUBH_ANALYSIS_WAIT_S": "0.2",
    }
    hub = start_hub(env, redis=fresh_redis_url)
    first, second = Game("nielsen"), Game("nielsen")
    first.play("g4-g3")
    second.play("a4-a5")
    async with httpx.AsyncClient(base_url=hub.url, headers={"Origin": hub.url}) as http:
        body = {"ruleset": "nielsen", "position": first.position}
        r = await http.post("/api/analysis/position", json=body)
        assert (r.status_code, r.json()["error"]) == (503, "analysis_busy"), r.text
        assert "no analysis worker answered" in r.json()["message"]  # queued, counted
        # The queue is full now: the next is refused for that, before any counting (had
        # it been counted, the address's one evaluation an hour would answer 429).
        r = await http.post("/api/analysis/position", json={**body, "position": second.position})
        assert (r.status_code, r.json()["error"]) == (503, "analysis_busy"), r.text
        assert "queue is full" in r.json()["message"]
