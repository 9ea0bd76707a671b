"""GET /api/explorer: a game played through the hub is counted once it is archived, and a
bad rule set or position is answered 400 naming what is wrong."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from brandubh.engine import START_POSITION, Game
from services import HubProcess
from waiting import wait_for
from wsclient import friend_game, seated

QUICK_ESCAPE = ["g4-g3", "d5-g5", "g3-g2", "Kd4-d5", "g2-g3", "Kd5-a5", "g3-g2", "Ka5-a7"]
FAST_ARCHIVE = {"BRANDUBH_ARCHIVE_POLL_S": "0.2"}


async def test_a_game_between_people_is_counted_once_archived(
    start_hub: Callable[..., HubProcess], fresh_database_url: str
) -> None:
    hub = start_hub(FAST_ARCHIVE, database=fresh_database_url)
    async with httpx.AsyncClient(base_url=hub.url) as http:
        empty = await http.get("/api/explorer", params={"ruleset": "nielsen"})
        assert empty.status_code == 200
        assert empty.json() == {
            "ruleset": "nielsen",
            "position": START_POSITION,
            "total": {"games": 0, "attackers": 0, "defenders": 0, "draws": 0},
            "moves": [],
        }
        assert empty.headers["cache-control"] == "public, max-age=60"

        game, alice, bob = await friend_game(hub.url, "nielsen")
        socks = await seated(game, alice, bob)
        for ply, move in enumerate(QUICK_ESCAPE):
            await socks["attackers" if ply % 2 == 0 else "defenders"].move(game, ply, move)
            await socks["attackers"].recv_until(lambda m, mv=move: m.get("move") == mv)
        replay = Game("nielsen")
        replay.play(QUICK_ESCAPE[0])
        replay.play(QUICK_ESCAPE[1])
        params = {"ruleset": "nielsen", "position": replay.position}

        async def counted() -> Any:  # the hub archives the ended game within a poll or two
            answer = (await http.get("/api/explorer", params=params)).json()
            return answer if answer["moves"] else None

        answer = await wait_for(counted, "the game in the explorer", 20, 0.1)
        assert answer["total"] == {"games": 1, "attackers": 0, "defenders": 1, "draws": 0}
        [entry] = answer["moves"]
        assert entry["move"] == QUICK_ESCAPE[2] and entry["games"] == 1
        start = (await http.get("/api/explorer", params={"ruleset": "nielsen"})).json()
        assert [m["move"] for m in start["moves"]] == [QUICK_ESCAPE[0]]
        other = await http.get("/api/explorer", params={"ruleset": "common"})
        assert other.json()["moves"] == []
        for sock in socks.values():
            await sock.close()
        await alice.close()
        await bob.close()


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({}, "ruleset is missing"),
        ({"ruleset": "chess"}, "ruleset must be one of"),
        ({"ruleset": "nielsen", "position": "3A3/3A3 a"}, "ranks"),
        ({"ruleset": "nielsen", "position": START_POSITION[:-1] + "x"}, "side to move"),
        ({"ruleset": "nielsen", "position": "Q" * 500}, "over 200 characters"),
        ({"ruleset": "nielsen", "position": "3A3/3A3/3D3/AADKDAA/3D3/3A3/3A2Z a"}, "'Z'"),
    ],
)
async def test_a_bad_rule_set_or_position_is_named(
    hub: HubProcess, params: dict[str, str], named: str
) -> None:
    async with httpx.AsyncClient(base_url=hub.url) as http:
        r = await http.get("/api/explorer", params=params)
    assert r.status_code == 400
    assert r.json()["error"] == "bad_field" and named in r.json()["message"], r.json()
