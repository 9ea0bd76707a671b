"""Puzzles end to end on a real hub, Redis and PostgreSQL (a database of the module's own):
the shipped set loaded at start, `brandubh puzzles load`, solving a puzzle move by move
(the solution hidden until the end), failing one and seeing the refutation, both ratings
moved once, a retry unrated, the day's puzzle, a streak, and every refusal changing
nothing."""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import delete, func, select

from brandubh.engine import Game
from brandubh.puzzles import format_puzzle, load_shipped
from brandubh.store import Store
from brandubh.store.tables import puzzle_attempts, puzzle_ratings, puzzles
from handmade_puzzles import handmade, write_set
from services import HubProcess
from wsclient import Player

ONE, TWO, THREE, CAPTURE = handmade()


def cli(database_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "brandubh", "puzzles", *args],
        env={**os.environ, "DATABASE_URL": database_url},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
async def db(fresh_database_url: str) -> AsyncIterator[Store]:
    st = Store.from_url(fresh_database_url)
    yield st
    await st.close()


@pytest.fixture
async def puzzle_hub(
    start_hub: Callable[..., HubProcess], fresh_database_url: str, db: Store, tmp_path: Path
) -> HubProcess:
    """A hub on the test's own database holding only the hand-made puzzles."""
    hub = start_hub(database=fresh_database_url)
    async with db.engine.begin() as conn:
        await conn.execute(delete(puzzles))  # whatever the shipped set holds: not ours
    done = cli(fresh_database_url, "load", str(write_set(tmp_path / "set.jsonl", handmade())))
    assert done.returncode == 0, done.stderr
    return hub


async def guest(hub: HubProcess) -> Player:
    return await Player(hub.url).start()


async def post(p: Player, path: str, **body: Any) -> httpx.Response:
    return await p.http.post(path, json=body)


def error_of(r: httpx.Response) -> str:
    code: str = r.json()["error"]
    return code


async def test_start_up_adds_the_shipped_set(
    start_hub: Callable[..., HubProcess], fresh_database_url: str, db: Store
) -> None:
    start_hub(database=fresh_database_url)
    # Whatever the package ships (nothing yet, or a set that changes): all of it, once.
    assert await db.puzzle_count() == len({p.id for p in load_shipped()})


async def test_load_reports_counts_and_refuses_a_bad_line(
    fresh_database_url: str, db: Store, tmp_path: Path
) -> None:
    async with db.engine.begin() as conn:
        await conn.execute(delete(puzzles))
    path = write_set(tmp_path / "set.jsonl", handmade())
    first = cli(fresh_database_url, "load", str(path))
    assert first.returncode == 0, first.stderr
    assert "4 puzzles read" in first.stdout and "4 added, 0 there already" in first.stdout
    again = cli(fresh_database_url, "load", str(path))
    assert "0 added, 4 there already" in again.stdout
    lines = path.read_text().splitlines()
    bad = tmp_path / "bad.jsonl"
    fresh = format_puzzle(handmade("common")[0])  # a puzzle not kept yet, then a bad line
    bad.write_text(fresh + "\n" + lines[1].replace("Kc7-a7", "Kc7-d6") + "\n")
    refused = cli(fresh_database_url, "load", str(bad))
    assert refused.returncode != 0
    assert f"{bad}:2:" in refused.stderr and "Traceback" not in refused.stderr
    assert await db.puzzle_count() == 4  # nothing added from a set with a bad line
    missing = cli(fresh_database_url, "load", str(tmp_path / "none.jsonl"))
    assert missing.returncode != 0 and "Traceback" not in missing.stderr


async def test_a_guest_solves_a_puzzle_move_by_move(puzzle_hub: HubProcess, db: Store) -> None:
    p = await guest(puzzle_hub)
    r = await post(p, f"/api/puzzles/{TWO.id}/start")
    assert r.status_code == 200, r.text
    started = r.json()
    view = started["puzzle"]
    assert view["id"] == TWO.id and view["side"] == "defenders" and view["depth"] == 2
    assert view["prompt"] == "Find the best move for the defenders"
    assert "solution" not in view and "theme" not in view  # hidden until the end
    assert "Kc3-c7" in view["legal"] and "d4-d7" not in view["legal"]
    assert started["rating"] == 1500 and started["ply"] == 0

    right = await post(p, f"/api/puzzles/{TWO.id}/move", ply=0, move="Kc3-c7")
    assert right.status_code == 200, right.text
    a = right.json()
    assert a["result"] == "right" and a["reply"] == "d4-d7" and a["ply"] == 2
    assert a["solution"] is None and a["theme"] is None and a["rating"] is None
    game = Game.from_position(TWO.position, "nielsen")
    game.play("Kc3-c7")
    game.play("d4-d7")
    assert a["position"] == game.position and "Kc7-a7" in a["legal"]
    game.pop()
    assert a["moved"] == game.position

    twice = await post(p, f"/api/puzzles/{TWO.id}/move", ply=0, move="Kc3-c7")
    assert twice.status_code == 409 and error_of(twice) == "puzzle_ply"

    solved = (await post(p, f"/api/puzzles/{TWO.id}/move", ply=2, move="Kc7-a7")).json()
    assert solved["result"] == "solved" and solved["rated"]
    assert solved["solution"] == list(TWO.solution) and solved["theme"] == "escape"
    assert solved["rating"]["before"] == 1500 and solved["rating"]["after"] > 1500

    over = await post(p, f"/api/puzzles/{TWO.id}/move", ply=4, move="Kc7-a7")
    assert over.status_code == 409 and error_of(over) == "puzzle_finished"
    me = (await p.http.get("/api/puzzles/me")).json()
    assert me["rating"] == solved["rating"]["after"] and me["attempts"] == 1
    assert not me["account"]
    kept = await db.puzzle(TWO.id)
    assert kept is not None and kept.plays == 1 and kept.rating.rating < 1400

    # A retry is played the same way and rates nothing.
    await post(p, f"/api/puzzles/{TWO.id}/start")
    await post(p, f"/api/puzzles/{TWO.id}/move", ply=0, move="Kc3-c7")
    retry = (await post(p, f"/api/puzzles/{TWO.id}/move", ply=2, move="Kc7-a7")).json()
    assert retry["result"] == "solved" and not retry["rated"]
    assert retry["rating"]["before"] == retry["rating"]["after"] == me["rating"]
    assert (await db.puzzle(TWO.id)).plays == 1  # type: ignore[union-attr]


async def test_a_wrong_move_fails_with_the_refutation(puzzle_hub: HubProcess, db: Store) -> None:
    p = await Player(puzzle_hub.url).signup()
    await post(p, f"/api/puzzles/{TWO.id}/start")
    failed = (await post(p, f"/api/puzzles/{TWO.id}/move", ply=0, move="Kc3-c1")).json()
    assert failed["result"] == "failed" and failed["right"] == "Kc3-c7"
    assert failed["theme"] == "escape" and failed["solution"] == list(TWO.solution)
    assert failed["rated"] and failed["rating"]["after"] < failed["rating"]["before"]
    # The refutation is the attackers' legal answer to the wrong move.
    after = Game.from_position(TWO.position, "nielsen")
    after.play("Kc3-c1")
    assert failed["position"] == after.position
    assert failed["refutation"] in after.legal_texts()
    async with db.engine.begin() as conn:
        rows = (await conn.execute(select(puzzle_ratings))).all()
        attempts = (await conn.execute(select(puzzle_attempts))).all()
    assert [(r.player_id, r.attempts) for r in rows] == [(p.me["id"], 1)]
    assert [(a.puzzle_id, a.won, a.rated) for a in attempts] == [(TWO.id, False, True)]


async def test_a_wrong_move_that_lets_the_king_be_taken_is_refuted_by_that_capture(
    puzzle_hub: HubProcess,
) -> None:
    p = await guest(puzzle_hub)
    await post(p, f"/api/puzzles/{ONE.id}/start")
    # Kb7-b1 walks between the attacker on a1 and g1's reach: g1-c1 takes the king.
    failed = (await post(p, f"/api/puzzles/{ONE.id}/move", ply=0, move="Kb7-b1")).json()
    assert failed["result"] == "failed" and failed["right"] == "Kb7-a7"
    assert failed["refutation"] == "g1-c1xb1"


async def test_refusals_change_nothing(puzzle_hub: HubProcess) -> None:
    p = await guest(puzzle_hub)
    unknown = await post(p, "/api/puzzles/ffffffffff/start")
    assert unknown.status_code == 404 and error_of(unknown) == "not_found"
    shape = await p.http.get("/api/puzzles/not-an-id")
    assert shape.status_code == 404 and error_of(shape) == "not_found"
    unstarted = await post(p, f"/api/puzzles/{ONE.id}/move", ply=0, move="Kb7-a7")
    assert unstarted.status_code == 409 and error_of(unstarted) == "puzzle_not_started"
    await post(p, f"/api/puzzles/{TWO.id}/start")
    other = await post(p, f"/api/puzzles/{ONE.id}/move", ply=0, move="Kb7-a7")
    assert error_of(other) == "puzzle_not_started"
    for body in ({"ply": "0", "move": "Kc3-c7"}, {"ply": 0}, {"ply": -2, "move": "x"}, {}):
        r = await p.http.post(f"/api/puzzles/{TWO.id}/move", json=body)
        assert r.status_code == 400 and error_of(r) == "bad_field", body
    extra = await post(p, f"/api/puzzles/{TWO.id}/move", ply=0, move="Kc3-c7", side="a")
    assert extra.status_code == 400
    illegal = await post(p, f"/api/puzzles/{TWO.id}/move", ply=0, move="Kc3-d5")
    assert illegal.status_code == 400 and error_of(illegal) == "illegal_move"
    later = await post(p, f"/api/puzzles/{TWO.id}/move", ply=2, move="Kc7-a7")
    assert error_of(later) == "puzzle_ply"
    cross = await httpx.AsyncClient(base_url=puzzle_hub.url, cookies=p.http.cookies).post(
        f"/api/puzzles/{TWO.id}/move",
        json={"ply": 0, "move": "Kc3-c7"},
        headers={"Origin": "https://evil.example"},
    )
    assert cross.status_code == 403 and error_of(cross) == "forbidden"
    for body in ({"mode": "blitz"}, {"theme": "mate"}, {"ruleset": "chess"}, {"theme": 3}):
        r = await p.http.post("/api/puzzles/next", json=body)
        assert r.status_code == 400 and error_of(r) == "bad_field", body
    none = await post(p, "/api/puzzles/next", theme="defend")
    assert none.status_code == 404 and error_of(none) == "no_puzzles"
    # After all that the attempt is where it was: the first move is still awaited.
    right = (await post(p, f"/api/puzzles/{TWO.id}/move", ply=0, move="Kc3-c7")).json()
    assert right["result"] == "right"
    me = (await p.http.get("/api/puzzles/me")).json()
    assert me["attempts"] == 0 and me["rating"] == 1500


async def test_the_next_puzzle_by_theme_and_the_daily_puzzle(puzzle_hub: HubProcess) -> None:
    p = await guest(puzzle_hub)
    r = await post(p, "/api/puzzles/next", theme="capture", ruleset="nielsen")
    assert r.status_code == 200, r.text
    assert r.json()["puzzle"]["id"] == CAPTURE.id and r.json()["puzzle"]["side"] == "attackers"
    solved = (await post(p, f"/api/puzzles/{CAPTURE.id}/move", ply=0, move="e6-e7")).json()
    assert solved["result"] == "solved" and solved["move"] == "e6-e7xd7"
    any_next = await post(p, "/api/puzzles/next")
    assert any_next.json()["puzzle"]["id"] in {q.id for q in handmade()} - {CAPTURE.id}

    daily = await p.http.get("/api/puzzles/daily")
    assert daily.status_code == 200
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    assert daily.json()["date"] in (today, (datetime.date.fromisoformat(today)).isoformat())
    assert daily.json()["puzzle"]["id"] in {q.id for q in handmade()}
    again = await httpx.AsyncClient(base_url=puzzle_hub.url).get("/api/puzzles/daily")
    assert again.json()["puzzle"]["id"] == daily.json()["puzzle"]["id"]  # everyone's


async def test_a_streak_climbs_and_ends_at_the_first_wrong_move(puzzle_hub: HubProcess) -> None:
    p = await Player(puzzle_hub.url).signup()
    first = (await post(p, "/api/puzzles/next", mode="streak")).json()
    assert first["mode"] == "streak" and first["streak"] == 0
    assert first["puzzle"]["id"] == ONE.id  # the easiest first
    one = (await post(p, f"/api/puzzles/{ONE.id}/move", ply=0, move="Kb7-a7")).json()
    assert one["result"] == "solved" and one["streak"] == 1 and not one["rated"]
    second = (await post(p, "/api/puzzles/next", mode="streak")).json()
    assert second["puzzle"]["id"] == TWO.id and second["streak"] == 1  # harder
    wrong = (await post(p, f"/api/puzzles/{TWO.id}/move", ply=0, move="Kc3-c1")).json()
    assert wrong["result"] == "failed" and wrong["streak"] == 1 and wrong["best_streak"] == 1
    assert not wrong["rated"]
    anew = (await post(p, "/api/puzzles/next", mode="streak")).json()
    assert anew["streak"] == 0
    me = (await p.http.get("/api/puzzles/me")).json()
    assert me["best_streak"] == 1 and me["attempts"] == 0 and me["account"]


async def test_puzzle_requests_are_limited_per_player(puzzle_hub: HubProcess) -> None:
    p = await guest(puzzle_hub)
    for _ in range(120):
        r = await post(p, f"/api/puzzles/{ONE.id}/start")
        assert r.status_code == 200
    limited = await post(p, f"/api/puzzles/{ONE.id}/move", ply=0, move="Kb7-a7")
    assert limited.status_code == 429 and error_of(limited) == "rate_limited"
    assert int(limited.headers["retry-after"]) >= 1
    other = await guest(puzzle_hub)
    assert (await post(other, f"/api/puzzles/{ONE.id}/start")).status_code == 200


async def test_the_pages_are_served(puzzle_hub: HubProcess) -> None:
    async with httpx.AsyncClient(base_url=puzzle_hub.url) as c:
        for path in ("/puzzles", "/puzzles/daily", "/puzzles/streak", f"/puzzles/{ONE.id}"):
            r = await c.get(path)
            # The hub of the tests serves no built client: the page's 503 says so.
            assert r.status_code in (200, 503), path
        count = await c.get("/api/puzzles/me")
        assert count.json()["rating"] == 1500 and count.json()["attempts"] == 0


async def test_no_attempt_row_is_left_by_refusals(puzzle_hub: HubProcess, db: Store) -> None:
    p = await guest(puzzle_hub)
    await post(p, f"/api/puzzles/{THREE.id}/start")
    illegal = await post(p, f"/api/puzzles/{THREE.id}/move", ply=0, move="Kf7-e6")
    assert illegal.status_code == 400 and error_of(illegal) == "illegal_move"
    async with db.engine.begin() as conn:
        n = await conn.scalar(select(func.count()).select_from(puzzle_attempts))
    assert n == 0
