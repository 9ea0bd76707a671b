"""The lessons over real HTTP on real hubs, Redis and PostgreSQL: the courses and a
visitor's first star (a guest session made by the move), every refusal changing nothing,
an account's stars kept across a hub's restart, and a guest's carried over by signing up."""

from __future__ import annotations

from typing import Any

import httpx
import redis

from brandubh.hub.redis import keys
from brandubh.store import Store
from services import HubProcess
from wsclient import Player, random_address


def visitor(hub: HubProcess) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        base_url=hub.url, headers={"Origin": hub.url, "X-Forwarded-For": random_address()}
    )


async def move(http: httpx.AsyncClient, path: str, *moves: str) -> httpx.Response:
    return await http.post(f"/api/learn/{path}/move", json={"moves": list(moves)})


async def stars(http: httpx.AsyncClient) -> dict[str, list[str]]:
    r = await http.get("/api/learn")
    assert r.status_code == 200, r.text
    assert r.headers["cache-control"] == "no-store"
    found: dict[str, list[str]] = r.json()["stars"]
    return found


def refused(r: httpx.Response, status: int, code: str) -> str:
    assert r.status_code == status, r.text
    assert r.json()["error"] == code, r.text
    message: str = r.json()["message"]
    assert message
    return message


async def test_a_visitor_reads_the_courses_and_earns_a_first_star(
    hub: HubProcess, redis_sync: redis.Redis
) -> None:
    async with visitor(hub) as http:
        r = await http.get("/api/learn")
        assert r.status_code == 200 and "set-cookie" not in r.headers  # a read makes no session
        body = r.json()
        assert body["default"] == "nielsen"
        assert body["courses"][0]["ruleset"] == "nielsen"
        assert {c["ruleset"] for c in body["courses"]} == {
            "nielsen",
            "federation",
            "common",
            "walker",
            "newsome",
        }
        first = body["courses"][0]["stages"][0]
        assert first["id"] == "moving" and first["side"] == "attackers"
        assert "d2-d6" in first["legal"] and first["moves"] == 1
        assert body["courses"][0]["stages"][-1]["kind"] == "game"
        assert body["stars"]["nielsen"] == []

        wrong = await move(http, "nielsen/moving", "d2-d5")
        assert wrong.status_code == 200, wrong.text
        assert wrong.json()["status"] == "failure" and not wrong.json()["star"]
        assert (
            wrong.json()["message"]
            == "d2-d5 does not bring a piece to d6, and that was your last move"
        )
        me = (await http.get("/api/me")).json()
        assert me["id"] and me["account"] is False  # the move made a guest session
        assert await stars(http) == {k: [] for k in body["stars"]}

        won = await move(http, "nielsen/moving", "d2-d6")
        assert won.json() | {"legal": []} == {
            "status": "success",
            "move": "d2-d6",
            "reply": None,
            "position": won.json()["position"],
            "message": "Well done: a piece slides as far as it likes along a straight, empty line.",
            "moves_left": 0,
            "legal": [],
            "star": True,
        }
        assert (await stars(http))["nielsen"] == ["moving"]
        assert redis_sync.smembers(keys.lesson_stars(me["id"])) == {b"nielsen/moving"}
        assert redis_sync.ttl(keys.lesson_stars(me["id"])) > 3600

        # Two moves, the second after the server's own reply.
        going = await move(http, "nielsen/escape", "Kc3-c7")
        assert going.json()["status"] == "continue" and going.json()["moves_left"] == 1
        reply = going.json()["reply"]
        assert reply and going.json()["legal"]
        assert "Kc7-a7" in going.json()["legal"]
        done = await move(http, "nielsen/escape", "Kc3-c7", "Kc7-a7")
        assert done.json()["status"] == "success", done.text
        assert (await stars(http))["nielsen"] == ["escape", "moving"]


async def test_every_refusal_names_the_problem_and_gives_no_star(hub: HubProcess) -> None:
    async with visitor(hub) as http:
        message = refused(await move(http, "nielsen/nowhere", "d2-d6"), 404, "unknown_stage")
        assert "moving" in message
        assert "set-cookie" not in (await move(http, "chess/moving", "d2-d6")).headers
        refused(await move(http, "chess/moving", "d2-d6"), 404, "unknown_stage")
        assert (await http.get("/api/me")).json()["id"] is None  # no session made for those

        message = refused(await move(http, "nielsen/capture", "c6-c3"), 400, "illegal_move")
        assert message == "move 1: the path from c6 to c3 is blocked at c3"
        message = refused(await move(http, "nielsen/capture", "hello"), 400, "illegal_move")
        assert "hello" in message
        message = refused(await move(http, "nielsen/king", "Kd2-d4"), 400, "illegal_move")
        assert "the king once he has left it" in message
        message = refused(
            await move(http, "nielsen/capture", "c6-c4", "c4-c5"), 409, "stage_finished"
        )
        assert "ended at your move 1" in message
        refused(await move(http, "nielsen/first-game", "d2-d6"), 400, "not_a_board")
        refused(await http.post("/api/learn/nielsen/capture/move", json={}), 400, "bad_field")
        refused(
            await http.post("/api/learn/nielsen/capture/move", json={"moves": [3]}),
            400,
            "bad_field",
        )
        refused(
            await http.post("/api/learn/nielsen/capture/move", json={"moves": ["d2-d6"] * 9}),
            400,
            "bad_field",
        )
        refused(
            await http.post(
                "/api/learn/nielsen/capture/move",
                json={"moves": ["c6-c4"]},
                headers={"Origin": "https://elsewhere.example"},
            ),
            403,
            "forbidden",
        )
        assert await stars(http) == {
            r: [] for r in ("nielsen", "federation", "common", "walker", "newsome")
        }


async def test_the_window_of_moves(hub: HubProcess, redis_sync: redis.Redis) -> None:
    async with visitor(hub) as http:
        assert (await move(http, "nielsen/moving", "d2-d5")).status_code == 200
        player = (await http.get("/api/me")).json()["id"]
        for _ in range(118):  # the window fills: 120 a minute with the last one below
            redis_sync.zadd(keys.lesson_window(player), {f"n{_}": redis_sync.time()[0] * 1000})
        assert (await move(http, "nielsen/moving", "d2-d5")).status_code == 200
        r = await move(http, "nielsen/moving", "d2-d6")
        refused(r, 429, "rate_limited")
        assert int(r.headers["retry-after"]) >= 1
        assert (await stars(http))["nielsen"] == []  # the refused winning move gave nothing


async def test_an_account_s_stars_outlast_a_restart(
    start_hub: Any, fresh_redis_url: str, database_url: str, redis_kind: str
) -> None:
    first = start_hub(redis=fresh_redis_url)
    ann = await Player(first.url).signup()
    r = await move(ann.http, "walker/king", "Kb4-d4")  # walker's king goes home
    assert r.json()["status"] == "success" and r.json()["star"], r.text
    assert (await stars(ann.http))["walker"] == ["king"]
    first.stop()

    second = start_hub(redis=fresh_redis_url)
    again = Player(second.url)
    again.email, again.password = ann.email, ann.password
    assert (await again.login()).status_code == 200
    assert (await stars(again.http))["walker"] == ["king"]
    store = Store.from_url(database_url)
    try:
        assert await store.lesson_stars(ann.id) == [("walker", "king")]
    finally:
        await store.close()


async def test_a_guest_s_stars_carry_over_when_they_sign_up(
    hub: HubProcess, database_url: str, redis_sync: redis.Redis
) -> None:
    guest = Player(hub.url)
    r = await move(guest.http, "common/king-beside-throne", "g3-c3")
    assert r.json()["star"], r.text
    await guest.refresh()
    guest_id = guest.id
    assert redis_sync.exists(keys.lesson_stars(guest_id))
    await guest.signup()
    assert guest.id == guest_id and guest.me["account"] is True
    assert (await stars(guest.http))["common"] == ["king-beside-throne"]
    assert not redis_sync.exists(keys.lesson_stars(guest_id))  # moved to PostgreSQL
    store = Store.from_url(database_url)
    try:
        assert await store.lesson_stars(guest_id) == [("common", "king-beside-throne")]
    finally:
        await store.close()
    # A star won again changes nothing; a new one joins it.
    assert (await move(guest.http, "common/king-beside-throne", "g3-c3")).json()["star"]
    assert (await move(guest.http, "common/corners", "c2-c7")).json()["star"]
    assert (await stars(guest.http))["common"] == ["corners", "king-beside-throne"]
