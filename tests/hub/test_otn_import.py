"""POST /api/otn/import on a real hub: an exported game's OTN record reads back into the
same rule set and moves, and what our rule sets cannot replay is refused in words that
name the line, the move and why (docs/protocol.md §2.3)."""

from __future__ import annotations

from brandubh.engine import format_otn_rules
from services import HubProcess
from wsclient import Player, Socket, friend_game, seated

QUICK_ESCAPE = ["g4-g3", "d5-g5", "g3-g2", "Kd4-d5", "g2-g3", "Kd5-a5", "g3-g2", "Ka5-a7"]
NIELSEN = format_otn_rules("nielsen")
WALKER_START = "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"


async def play(socks: dict[str, Socket], game: str, moves: list[str]) -> None:
    for ply, move in enumerate(moves):
        await socks["attackers" if ply % 2 == 0 else "defenders"].move(game, ply, move)
        await socks["attackers"].recv_until(lambda m, mv=move: m.get("move") == mv)


async def test_an_exported_game_imports_back_into_the_same_line(hub: HubProcess) -> None:
    game, alice, bob = await friend_game(hub.url, "nielsen")
    await play(await seated(game, alice, bob), game, QUICK_ESCAPE)
    exported = await alice.http.get(f"/api/games/{game}/record", params={"format": "otn"})
    assert exported.status_code == 200, exported.text

    r = await alice.http.post("/api/otn/import", content=exported.text)
    assert r.status_code == 200, r.text
    got = r.json()
    assert got["ruleset"] == "nielsen" and got["position"] is None
    assert got["moves"] == QUICK_ESCAPE
    assert got["result"] == {"winner": "defenders", "reason": "king_escaped"}
    assert {got["attackers"], got["defenders"]} == {alice.me["name"], bob.me["name"]}
    # What the board does next: walk the imported line; it ends as the game did.
    walk = await alice.http.post(
        "/api/board/walk", json={"ruleset": got["ruleset"], "moves": got["moves"]}
    )
    assert walk.json()["steps"][-1]["result"]["reason"] == "king_escaped"

    # A rules string alone, and a bare position under the rule set the board has chosen.
    r = await alice.http.post("/api/otn/import", content=f"{NIELSEN}\n")
    assert r.json() == {
        "ruleset": "nielsen",
        "position": None,
        "moves": [],
        "result": None,
        "attackers": None,
        "defenders": None,
    }
    r = await alice.http.post(
        "/api/otn/import", params={"ruleset": "walker"}, content="/7/7/1tK4/7/7/7/3t3/"
    )
    assert r.status_code == 200, r.text
    assert r.json()["ruleset"] == "walker" and r.json()["position"] == "3A3/7/7/7/1AK4/7/7 a"
    for p in (alice, bob):
        await p.close()


async def test_what_cannot_be_replayed_is_refused_by_line_and_move(hub: HubProcess) -> None:
    player = await Player(hub.url).start()

    async def refused(text: str | bytes, status: int = 400, **params: str) -> tuple[str, str]:
        r = await player.http.post("/api/otn/import", content=text, params=params)
        assert r.status_code == status, r.text
        return r.json()["error"], r.json()["message"]

    code, message = await refused(f"[rules:dim:7 ks:n cenhe: cenh: start:{WALKER_START}]\n\n")
    assert code == "otn_unsupported"
    assert message.startswith("the [rules:...] tag: none of our rule sets plays these OTN rules")
    assert "surf:y where walker needs surf:n" in message
    code, message = await refused(f"[rules:dim:9 start:{WALKER_START}]\n")
    assert code == "otn_unsupported" and "dim:9" in message

    code, message = await refused(f"[rules:{NIELSEN}]\n\n1. d2-c2 d3-c3\n2. d1-d7\n")
    assert code == "otn_invalid"
    assert message.startswith("line 4, turn 2, the attackers' move d1-d7 does not replay")
    code, message = await refused(f"[rules:{NIELSEN}]\n\n1. d2-c2 zz9\n")
    assert code == "otn_invalid"
    assert message.startswith("line 3, turn 1: 'zz9' is not an OTN move record")
    code, message = await refused(f"[rules:{NIELSEN}]\n\n1. d2^d4\n")
    assert code == "otn_unsupported" and "line 3, turn 1" in message and "jump" in message
    code, message = await refused(f"[rules:{NIELSEN}]\n\nd2-c2\n")
    assert code == "otn_invalid" and "line 3 ('d2-c2') is neither a [tag:value] nor a turn" in (
        message
    )
    code, message = await refused("[attackers:ann]\n\n1. d2-c2\n")
    assert code == "otn_invalid" and "[rules:...] tag" in message
    assert (await refused(" \n"))[0] == "otn_invalid"
    assert await refused(b"\xff\xfe") == ("otn_invalid", "the text is not UTF-8")
    code, message = await refused(WALKER_START)
    assert code == "bad_field" and "give ruleset" in message
    code, message = await refused("/7/7/1cK4/7/7/7/3t3/", ruleset="walker")
    assert code == "otn_unsupported" and "an attacking commander" in message
    assert (await refused("x" * (64 * 1024 + 1), 413))[0] == "payload_too_large"

    stranger = await player.http.post(
        "/api/otn/import", content=WALKER_START, headers={"Origin": "https://elsewhere.example"}
    )
    assert stranger.status_code == 403 and stranger.json()["error"] == "forbidden"
    await player.close()
