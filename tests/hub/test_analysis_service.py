"""Analysis by the bot as a service: requests through a real hub, the queue in Redis, real
worker processes (``brandubh analyse-worker``) and PostgreSQL. A request is queued once and
done once, the same as the analysis computed here; a worker SIGKILLed mid-analysis leaves
the job to another; progress reaches a socket that follows it; every refusal has its code.
The search's budget is tiny (BRANDUBH_ANALYSIS_NODES) so each test is quick. The first ones,
marked `cluster`, run again on a Redis Cluster."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import asyncpg
import httpx
import pytest
from analysis_workers import QUICK_ESCAPE, Worker, finished_game

from brandubh.analysis import ANALYSIS_VERSION, analyse_game
from brandubh.engine import Game
from services import HubProcess
from waiting import wait_for
from wsclient import Player, friend_game, seated

NODES = 300
TINY = {
    "BRANDUBH_ANALYSIS_NODES": str(NODES),
    "BRANDUBH_ANALYSIS_BOARD_NODES": str(NODES),
    "BRANDUBH_ARCHIVE_POLL_S": "0.2",
}


@pytest.fixture
def analysis_workers(fresh_redis_url: str, database_url: str) -> Iterator[Callable[..., Worker]]:
    started: list[Worker] = []

    def start(lease_ms: int = 30_000) -> Worker:
        worker = Worker(fresh_redis_url, database_url, lease_ms)
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop()


async def stored_rows(database_url: str, game_id: str) -> int:
    conn = await asyncpg.connect(database_url)
    try:
        return int(await conn.fetchval("SELECT count(*) FROM analyses WHERE game_id=$1", game_id))
    finally:
        await conn.close()


def expected(moves: list[str], nodes: int = NODES) -> dict[str, Any]:
    """The analysis computed here, in this process: what any worker must have kept."""
    analysis = analyse_game("nielsen", moves, nodes=nodes).to_dict()
    data: dict[str, Any] = json.loads(json.dumps(analysis))  # as JSON gives it back
    return data


@pytest.mark.cluster
async def test_a_request_is_queued_once_done_once_and_the_same_everywhere(
    start_hub: Callable[..., HubProcess],
    fresh_redis_url: str,
    database_url: str,
    analysis_workers: Callable[..., Worker],
) -> None:
    hub = start_hub(TINY, redis=fresh_redis_url)
    game, alice, bob = await finished_game(hub.url)
    watcher = await Player(hub.url).signup()  # a confirmed account, not a player
    sock = await watcher.connect()
    await sock.send({"t": "follow_analysis", "game": game, "on": True})
    assert (await alice.http.get(f"/api/games/{game}/analysis")).json() == {"status": "none"}
    first = await alice.http.post(f"/api/games/{game}/analysis", json={})
    assert (first.status_code, first.json()) == (202, {"status": "queued", "position": 1})
    # Asked again, by a player or anyone allowed: the same job, nothing new queued.
    again = await watcher.http.post(f"/api/games/{game}/analysis", json={})
    assert (again.status_code, again.json()) == (202, {"status": "queued", "position": 1})
    assert (await bob.http.get(f"/api/games/{game}/analysis")).json() == first.json()

    worker = analysis_workers()
    frames = []
    while True:
        frame = await sock.recv(timeout=60)
        if frame["t"] in ("analysis_progress", "analysis_done"):
            frames.append(frame)
        if frame["t"] == "analysis_done":
            break
    progress = [(f["ply"], f["of"]) for f in frames[:-1]]
    assert progress == [(ply, len(QUICK_ESCAPE)) for ply in range(len(QUICK_ESCAPE) + 1)]
    assert frames[-1] == {"t": "analysis_done", "game": game}

    done = (await bob.http.get(f"/api/games/{game}/analysis")).json()
    assert done["status"] == "done"
    assert done["analysis"] == expected(QUICK_ESCAPE)  # deterministic: any machine, any worker
    assert done["analysis"]["version"] == ANALYSIS_VERSION
    repeat = await alice.http.post(f"/api/games/{game}/analysis", json={})
    assert (repeat.status_code, repeat.json()) == (200, {"status": "done"})
    # A socket that follows after the end is told at once (the end is not missed by one
    # that began to follow just too late).
    late = await bob.connect()
    await late.send({"t": "follow_analysis", "game": game, "on": True})
    told = await late.recv_until(lambda m: m["t"].startswith("analysis_"), timeout=10)
    assert told == {"t": "analysis_done", "game": game}
    await late.close()
    assert await stored_rows(database_url, game) == 1
    assert worker.output.count(f"analysed game {game}") == 1

    record = await alice.http.get(f"/api/games/{game}/record", params={"analysis": "1"})
    assert record.status_code == 200 and "{" in record.text
    assert QUICK_ESCAPE[-1] in record.text
    await sock.close()
    for player in (alice, bob, watcher):
        await player.close()


@pytest.mark.cluster
async def test_a_worker_killed_mid_analysis_leaves_the_job_to_another(
    start_hub: Callable[..., HubProcess],
    fresh_redis_url: str,
    database_url: str,
    analysis_workers: Callable[..., Worker],
) -> None:
    # A bigger budget, so that the first worker is surely mid-analysis when it is killed.
    hub = start_hub({**TINY, "BRANDUBH_ANALYSIS_NODES": "20000"}, redis=fresh_redis_url)
    game, alice, bob = await finished_game(hub.url)
    sock = await alice.connect()
    await sock.send({"t": "follow_analysis", "game": game, "on": True})
    assert (await alice.http.post(f"/api/games/{game}/analysis", json={})).status_code == 202
    first = analysis_workers(lease_ms=1000)
    await sock.recv_until(lambda m: m["t"] == "analysis_progress" and m["ply"] >= 1, timeout=60)
    first.kill()
    status = (await alice.http.get(f"/api/games/{game}/analysis")).json()
    assert status["status"] in ("running", "queued"), status  # held by a dead worker's lease
    assert await stored_rows(database_url, game) == 0

    second = analysis_workers(lease_ms=1000)
    await sock.recv_until(lambda m: m["t"] == "analysis_done", timeout=60)
    done = (await alice.http.get(f"/api/games/{game}/analysis")).json()
    assert done["status"] == "done" and len(done["analysis"]["plies"]) == len(QUICK_ESCAPE)
    assert await stored_rows(database_url, game) == 1
    assert f"analysed game {game}" in second.output
    assert f"analysed game {game}" not in first.output
    await sock.close()
    await alice.close()
    await bob.close()


async def test_who_may_ask_and_the_limits(
    start_hub: Callable[..., HubProcess], fresh_redis_url: str
) -> None:
    env = {**TINY, "BRANDUBH_ANALYSIS_PER_ACCOUNT": "1", "BRANDUBH_ANALYSIS_QUEUE_MAX": "3"}
    hub = start_hub(env, redis=fresh_redis_url)  # no worker: requests stay queued
    game, alice, bob = await finished_game(hub.url)

    async def ask(player: Player | httpx.AsyncClient, game_id: str) -> tuple[int, str]:
        http = player.http if isinstance(player, Player) else player
        r = await http.post(f"/api/games/{game_id}/analysis", json={}, headers={"Origin": hub.url})
        return r.status_code, r.json().get("error") or r.json()["status"]

    async with httpx.AsyncClient(base_url=hub.url) as nobody:
        assert await ask(nobody, game) == (403, "not_allowed")
    guest = await Player(hub.url).guest()
    assert await ask(guest, game) == (403, "not_allowed")

    # A game still running: its players get own_game, anyone else not_finished.
    live, carol, dave = await friend_game(hub.url, "nielsen")
    assert await ask(carol, live) == (403, "own_game")
    assert await ask(alice, live) == (409, "not_finished")

    # A private challenge: only its players.
    erin = await Player(hub.url).signup()
    created = await alice.create_game(opponent="friend", invitee=erin.id)
    await erin.join(created["invite"])
    socks = await seated(created["id"], alice, erin)
    await socks["attackers"].move(created["id"], 0, "g4-g3")  # a move: something to analyse
    await socks["defenders"].recv_until(lambda m: m.get("move") == "g4-g3")
    await socks["attackers"].send({"t": "resign", "game": created["id"], "id": "r1"})
    await socks["attackers"].recv_until(
        lambda m: m["t"] == "event" and m["state"]["status"] == "ended"
    )
    assert await ask(bob, created["id"]) == (403, "not_allowed")
    assert await ask(erin, created["id"]) == (202, "queued")

    # One analysis a day per account; the queue holds three games.
    assert await ask(alice, game) == (202, "queued")
    second, _, _ = await finished_game(hub.url)
    limited = await alice.http.post(f"/api/games/{second}/analysis", json={})
    assert limited.status_code == 429 and limited.json()["error"] == "analysis_limit"
    assert int(limited.headers["retry-after"]) > 0
    queued = await bob.http.post(f"/api/games/{second}/analysis", json={})
    assert (queued.status_code, queued.json()) == (202, {"status": "queued", "position": 3})
    third, _, _ = await finished_game(hub.url)
    busy = await dave.http.post(f"/api/games/{third}/analysis", json={})
    assert busy.status_code == 503 and busy.json()["error"] == "analysis_busy"
    assert "number 4" in busy.json()["message"]
    for sock in socks.values():
        await sock.close()
    for player in (alice, bob, carol, dave, erin, guest):
        await player.close()


def mirrored(position: str) -> str:
    """A position text with its board mirrored left to right."""
    board, side = position.split()
    ranks = []
    for rank in board.split("/"):
        cells = "".join("." * int(ch) if ch.isdigit() else ch for ch in rank)[::-1]
        ranks.append(re.sub(r"\.+", lambda m: str(len(m.group())), cells))
    return "/".join(ranks) + " " + side


@pytest.mark.cluster
async def test_board_evaluations_are_cached_and_never_of_ones_own_game(
    start_hub: Callable[..., HubProcess],
    fresh_redis_url: str,
    analysis_workers: Callable[..., Worker],
) -> None:
    hub = start_hub({**TINY, "BRANDUBH_ANALYSIS_WAIT_S": "30"}, redis=fresh_redis_url)
    game, alice, bob = await friend_game(hub.url, "nielsen")  # started, not a move yet
    position = Game("nielsen").position
    body = {"ruleset": "nielsen", "position": position}
    # Asking for the game's analysis by its id: its players are told it is theirs.
    by_id = await alice.http.post(f"/api/games/{game}/analysis", json={})
    assert by_id.status_code == 403 and by_id.json()["error"] == "own_game"
    # A move later, its position is refused to anyone: either side to move, the board
    # typed mirrored (the same position for the rules), from any session or none.
    socks = await seated(game, alice, bob)
    await socks["attackers"].move(game, 0, "g4-g3")
    after = await socks["defenders"].recv_until(lambda m: m.get("move") == "g4-g3")
    moved = after["state"]["position"]
    assert moved != position and mirrored(moved) != moved
    other_side = moved[:-1] + ("d" if moved.endswith("a") else "a")
    spectator = await Player(hub.url).signup()
    guest = await Player(hub.url).guest()
    async with httpx.AsyncClient(base_url=hub.url, headers={"Origin": hub.url}) as nobody:
        for who, http in (
            ("alice", alice.http),
            ("bob", bob.http),
            ("spectator", spectator.http),
            ("guest", guest.http),
            ("no cookie", nobody),
        ):
            for typed in (moved, mirrored(moved), other_side):
                r = await http.post("/api/analysis/position", json={**body, "position": typed})
                assert (r.status_code, r.json()["error"]) == (403, "position_in_play"), (who, typed)
        # One move past it, too: each reply the defenders may make.
        game_after = Game("nielsen", moved)
        for reply in game_after.legal_texts()[:5]:
            past = Game("nielsen", moved)
            past.play(reply)
            r = await nobody.post(
                "/api/analysis/position", json={**body, "position": past.position}
            )
            assert (r.status_code, r.json()["error"]) == (403, "position_in_play"), reply
    for sock in socks.values():
        await sock.close()

    # The start position is everyone's: evaluated while games stand in it and after.
    await analysis_workers().ready()
    first = await spectator.http.post("/api/analysis/position", json=body, timeout=60)
    assert first.status_code == 200, first.text
    evaluation = first.json()
    assert evaluation.pop("cached") is False
    assert set(evaluation) == {"score", "chance", "forced", "pv"} and 0 <= evaluation["chance"] <= 1
    again = (await spectator.http.post("/api/analysis/position", json=body)).json()
    assert again.pop("cached") is True and again == evaluation
    bad = await spectator.http.post("/api/analysis/position", json={**body, "position": "x"})
    assert bad.status_code == 400 and bad.json()["error"] == "bad_position"
    for player in (alice, bob, spectator, guest):
        await player.close()


async def test_a_board_evaluation_nobody_computes_is_busy(
    start_hub: Callable[..., HubProcess], fresh_redis_url: str
) -> None:
    hub = start_hub({**TINY, "BRANDUBH_ANALYSIS_WAIT_S": "0.3"}, redis=fresh_redis_url)
    async with httpx.AsyncClient(base_url=hub.url, headers={"Origin": hub.url}) as http:
        body = {"ruleset": "nielsen", "position": Game("nielsen").position}
        r = await http.post("/api/analysis/position", json=body)
    assert r.status_code == 503 and r.json()["error"] == "analysis_busy"
    assert "0.3 s" in r.json()["message"]


async def test_the_board_walks_a_line_and_names_an_illegal_move(hub: HubProcess) -> None:
    async with httpx.AsyncClient(base_url=hub.url, headers={"Origin": hub.url}) as http:
        r = await http.post("/api/board/walk", json={"ruleset": "nielsen", "moves": QUICK_ESCAPE})
        assert r.status_code == 200
        steps = r.json()["steps"]
        assert len(steps) == len(QUICK_ESCAPE) + 1
        assert steps[0]["position"] == Game("nielsen").position and steps[0]["move"] is None
        assert steps[-1]["result"] == {"winner": "defenders", "reason": "king_escaped"}
        assert steps[-1]["legal"] == [] and steps[1]["turn"] == "defenders"
        wrong = await http.post(
            "/api/board/walk", json={"ruleset": "nielsen", "moves": ["g4-g3", "a1-a9"]}
        )
        assert wrong.status_code == 400 and wrong.json()["error"] == "illegal_move"
        assert re.search(r"move 2 \('a1-a9'\)", wrong.json()["message"]), wrong.json()
        start = steps[2]["position"]
        onward = await http.post(
            "/api/board/walk", json={"ruleset": "nielsen", "position": start, "moves": ["g3-g2"]}
        )
        assert onward.json()["steps"][1]["position"] == steps[3]["position"]
        bad = await http.post("/api/board/walk", json={"ruleset": "chess", "moves": []})
        assert bad.status_code == 400 and bad.json()["error"] == "bad_field"


async def test_a_walk_is_bounded_counted_per_address_and_gzipped(
    start_hub: Callable[..., HubProcess], fresh_redis_url: str
) -> None:
    """More moves than a game can have are refused naming the limit; an address walks
    ``BRANDUBH_WALKS_PER_ADDRESS`` lines a minute; the answer comes gzipped when accepted."""
    hub = start_hub({"BRANDUBH_WALKS_PER_ADDRESS": "2"}, redis=fresh_redis_url)
    async with httpx.AsyncClient(base_url=hub.url, headers={"Origin": hub.url}) as http:
        long = await http.post(
            "/api/board/walk", json={"ruleset": "nielsen", "moves": ["g4-g3", "g3-g4"] * 201}
        )
        assert long.status_code == 400 and long.json()["error"] == "bad_field"
        assert "at most 400 move texts" in long.json()["message"]
        walked = await http.post("/api/board/walk", json={"ruleset": "nielsen", "moves": []})
        assert walked.status_code == 200 and walked.headers["content-encoding"] == "gzip"
        assert walked.json()["steps"][0]["position"] == Game("nielsen").position
        plain = await http.post(
            "/api/board/walk",
            json={"ruleset": "nielsen", "moves": ["g4-g3"]},
            headers={"Accept-Encoding": "identity"},
        )
        assert plain.status_code == 200 and "content-encoding" not in plain.headers
        assert len(plain.json()["steps"]) == 2
        third = await http.post("/api/board/walk", json={"ruleset": "nielsen", "moves": []})
        assert third.status_code == 429 and third.json()["error"] == "analysis_limit"
        assert "a minute allows (2)" in third.json()["message"]
        other = await http.post(
            "/api/board/walk",
            json={"ruleset": "nielsen", "moves": []},
            headers={"X-Forwarded-For": "198.18.7.7"},
        )
        assert other.status_code == 200  # another address has its own minute


async def test_serve_starts_a_worker_by_default(
    start_hub: Callable[..., HubProcess], fresh_redis_url: str
) -> None:
    """``brandubh serve`` with its default of one analysis worker (the tests' hubs run
    none): an analysis asked for is done without any other process."""
    hub = start_hub({**TINY, "BRANDUBH_ANALYSIS_WORKERS": "1"}, redis=fresh_redis_url)
    assert "1 analysis worker process started" in "".join(hub.log)
    game, alice, bob = await finished_game(hub.url)
    assert (await alice.http.post(f"/api/games/{game}/analysis", json={})).status_code == 202

    async def done() -> bool:
        status = (await alice.http.get(f"/api/games/{game}/analysis")).json()
        return bool(status["status"] == "done")

    await wait_for(done, "the analysis by serve's worker", timeout=60)
    await alice.close()
    await bob.close()
