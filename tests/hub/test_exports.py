"""GET /api/games/export/<player> on a real hub and PostgreSQL: a player's finished games
streamed newest first as NDJSON or record texts, filtered, refused by name, limited per
address."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from brandubh.engine import parse_otn_record, parse_record
from services import HubProcess
from waiting import wait_for
from wsclient import Player, Socket, friend_game, seated

QUICK_ESCAPE = ["g4-g3", "d5-g5", "g3-g2", "Kd4-d5", "g2-g3", "Kd5-a5", "g3-g2", "Ka5-a7"]
FAST = {"BRANDUBH_LIVE_GRACE_S": "1", "BRANDUBH_ARCHIVE_POLL_S": "0.2"}
PER_HOUR = 7  # the test's own limit: the exports below (refused ones count not), then one more


async def play(socks: dict[str, Socket], game: str, moves: list[str]) -> None:
    for ply, move in enumerate(moves):
        await socks["attackers" if ply % 2 == 0 else "defenders"].move(game, ply, move)
        await socks["attackers"].recv_until(lambda m, mv=move: m.get("move") == mv)


async def resign(sock: Socket, game: str) -> None:
    await sock.send({"t": "resign", "game": game, "id": f"r-{game}"})
    reply = await sock.recv_until(
        lambda m: m["t"] in ("ack", "error") and m.get("id") == f"r-{game}"
    )
    assert reply["t"] == "ack", reply


async def test_a_player_s_games_are_exported_as_asked(
    start_hub: Callable[..., HubProcess],
) -> None:
    hub = start_hub({**FAST, "BRANDUBH_EXPORTS_PER_ADDRESS": str(PER_HOUR)})
    first, alice, bob = await friend_game(hub.url, "nielsen")
    await play(await seated(first, alice, bob), first, QUICK_ESCAPE)
    created = await alice.create_game(opponent="friend", ruleset="walker", move_time=600)
    await bob.join(created["invite"])
    second = created["id"]
    socks = await seated(second, alice, bob)
    await play(socks, second, ["g4-g3", "d5-g5"])
    await resign(socks["attackers"], second)

    async def both_archived() -> bool:
        listed = (await alice.http.get(f"/api/players/{alice.id}/games")).json()["games"]
        return len(listed) == 2

    await wait_for(both_archived, "both games in alice's archive", every=0.1)
    url = f"/api/games/export/{alice.id}"
    reader = await Player(hub.url).start()  # anyone may export: the archive is public

    r = await reader.http.get(url)  # 1
    assert r.status_code == 200 and r.headers["content-type"] == "application/x-ndjson"
    games = [json.loads(x) for x in r.text.splitlines()]
    assert [g["id"] for g in games] == [second, first]  # newest first
    assert games[1]["moves"] == QUICK_ESCAPE and games[1]["ruleset"] == "nielsen"
    assert games[1]["result"]["reason"] == "king_escaped"
    assert list(parse_record(games[1]["record"]).moves) == QUICK_ESCAPE

    walker = (await reader.http.get(url, params={"ruleset": "walker"})).text  # 2
    assert [json.loads(x)["id"] for x in walker.splitlines()] == [second]
    one = (await reader.http.get(url, params={"max": "1"})).text  # 3
    assert [json.loads(x)["id"] for x in one.splitlines()] == [second]
    ended = games[1]["ended"]
    until = (await reader.http.get(url, params={"until": str(ended)})).text  # 4
    assert [json.loads(x)["id"] for x in until.splitlines()] == [first]
    since = (await reader.http.get(url, params={"since": str(ended + 1)})).text  # 5
    assert [json.loads(x)["id"] for x in since.splitlines()] == [second]

    r = await reader.http.get(url, params={"format": "record"})  # 6
    assert r.headers["content-type"].startswith("text/plain")
    # One record after another, each starting with its [Game "…"] header (as docs say).
    texts = [t for t in re.split(r"(?m)^(?=\[Game )", r.text) if t.strip()]
    records = [parse_record(text) for text in texts]
    assert [rec.game_id for rec in records] == [second, first]

    r = await reader.http.get(url, params={"colour": "white"})  # refused: not counted
    assert r.status_code == 400 and r.json()["error"] == "bad_field"
    assert "'colour'" in r.json()["message"]
    r = await reader.http.get("/api/games/export/p_nobody_here")  # nor this
    assert r.status_code == 404 and r.json()["error"] == "not_found"
    assert (await reader.http.get(url)).status_code == 200  # 7: the hour's last
    r = await reader.http.get(url)
    assert r.status_code == 429 and r.json()["error"] == "rate_limited"
    assert int(r.headers["Retry-After"]) > 0
    # With a token the token's own window limits it, not the address's hour; a token that
    # is not one is refused, never taken for no token.
    made = await alice.http.post(
        "/api/account/tokens", json={"name": "x", "scopes": ["games:read"]}
    )
    assert made.status_code == 201, made.text
    bearer = {"Authorization": f"Bearer {made.json()['token']}"}
    r = await reader.http.get(url, headers=bearer)
    assert r.status_code == 200 and len(r.text.splitlines()) == 2
    r = await reader.http.get(url, headers={"Authorization": "Bearer bdl_not-a-token"})
    assert r.status_code == 401 and r.json()["error"] == "token_invalid"

    # OpenTafl notation: both rule sets here have an OTN rules string; each record reads
    # back into the game it was.
    r = await reader.http.get(url, params={"format": "otn"}, headers=bearer)
    texts = [t for t in re.split(r"(?m)^(?=\[event:)", r.text) if t.strip()]
    replayed = [parse_otn_record(t) for t in texts]
    assert [list(rec.moves) for rec in replayed] == [["g4-g3", "d5-g5"], QUICK_ESCAPE]
    assert [rec.ruleset for rec in replayed] == ["walker", "nielsen"]
    otn = await reader.http.get(f"/api/games/{first}/record", params={"format": "otn"})
    assert otn.status_code == 200 and parse_otn_record(otn.text).moves == replayed[1].moves
    common = await alice.create_game(opponent="friend", ruleset="common", move_time=600)
    r = await reader.http.get(f"/api/games/{common['id']}/record", params={"format": "otn"})
    assert r.status_code == 409 and r.json()["error"] == "no_otn"
    r = await reader.http.get(url, params={"format": "otn", "ruleset": "common"}, headers=bearer)
    assert r.status_code == 409 and r.json()["error"] == "no_otn"
    for p in (alice, bob, reader):
        await p.close()
