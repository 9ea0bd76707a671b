"""Two-game matches: sides swapped in the second game, the score, newsome's tie-break."""

from __future__ import annotations

import pytest

from services import HubProcess
from wsclient import Msg, Player, Socket


async def lobby_reply(sock: Socket, msg_id: str) -> Msg:
    return await sock.recv_until(lambda m: m["t"] in ("ack", "error") and m.get("id") == msg_id)


async def start_match(base: str, ruleset: str) -> tuple[Player, Player, dict[str, Socket], str]:
    """Two players, a match seek accepted; sockets by player id and the first game."""
    p, q = await Player(base).signup(), await Player(base).signup()
    sp, sq = await p.connect(), await q.connect()
    await sp.send({"t": "seek", "ruleset": ruleset, "move_time": 600, "match": True, "id": "s"})
    seek = (await lobby_reply(sp, "s"))["seek"]
    await sq.send({"t": "accept_seek", "seek": seek, "id": "a"})
    game = (await lobby_reply(sq, "a"))["game"]
    for sock in (sp, sq):
        await sock.watch(game)
    return p, q, {p.id: sp, q.id: sq}, game


async def sides(viewer: Player, game: str) -> dict[str, str]:
    players = (await viewer.game(game))["state"]["players"]
    return {side: info["id"] for side, info in players.items()}


async def play_then_resign(
    viewer: Player, sockets: dict[str, Socket], game: str, moves: list[str], loser: str
) -> Msg:
    """Play ``moves`` in turn, then the player ``loser`` resigns; the match notice."""
    who = await sides(viewer, game)
    for i, move in enumerate(moves):
        sock = sockets[who["attackers" if i % 2 == 0 else "defenders"]]
        await sock.move(game, i, move, msg_id=f"{game}-{i}")
        assert (await sock.reply_to(f"{game}-{i}"))["t"] == "ack"
    await sockets[loser].send({"t": "resign", "game": game, "id": f"{game}-r"})
    await sockets[loser].reply_to(f"{game}-r")
    other = next(pid for pid in sockets if pid != loser)
    return await sockets[other].recv_until(lambda m: m["t"] == "match" and m["game"] == game)


@pytest.mark.cluster
async def test_a_match_swaps_sides_and_reports_the_score(hub: HubProcess) -> None:
    p, _, sockets, game1 = await start_match(hub.url, "nielsen")
    first = await sides(p, game1)
    notice = await play_then_resign(p, sockets, game1, [], loser=first["defenders"])
    after_one = notice["match"]
    assert after_one["score"][first["attackers"]] == 1 and after_one["status"] == "playing"
    game2 = after_one["games"][1]
    second = await sides(p, game2)
    assert second == {"attackers": first["defenders"], "defenders": first["attackers"]}
    for sock in sockets.values():
        await sock.watch(game2)
    notice = await play_then_resign(p, sockets, game2, [], loser=second["attackers"])
    final = notice["match"]
    assert final["status"] == "finished"
    assert final["score"] == {first["attackers"]: 2.0, first["defenders"]: 0.0}
    assert final["winner"] == first["attackers"]
    summary = (await p.http.get(f"/api/matches/{final['id']}")).json()
    assert summary["score"] == final["score"]
    for sock in sockets.values():
        await sock.close()


async def test_newsome_one_all_goes_to_the_larger_margin_who_chooses_sides(hub: HubProcess) -> None:
    p, _, sockets, game1 = await start_match(hub.url, "newsome")
    first = await sides(p, game1)
    # Game 1: the defenders take a baron, then resign: the attackers win with 7 of 8 left.
    await play_then_resign(p, sockets, game1, ["a4-a3", "d3-d2xd2"], loser=first["defenders"])
    match_id = (await p.game(game1))["state"]["match"]["id"]
    summary = (await p.http.get(f"/api/matches/{match_id}")).json()
    game2 = summary["games"][1]
    second = await sides(p, game2)
    for sock in sockets.values():
        await sock.watch(game2)
    # Game 2: the other player attacks and wins with all 8: 1-1, and a larger margin.
    notice = await play_then_resign(p, sockets, game2, [], loser=second["defenders"])
    tied = notice["match"]
    assert tied["status"] == "choosing"
    assert set(tied["score"].values()) == {1.0}
    assert tied["chooser"] == second["attackers"]
    loser_sock = sockets[second["defenders"]]
    await loser_sock.send(
        {"t": "choose_sides", "match": tied["id"], "side": "attackers", "id": "c0"}
    )
    refused = await loser_sock.recv_until(lambda m: m.get("id") == "c0")
    assert refused["t"] == "error" and refused["code"] == "not_your_choice"
    chooser = sockets[tied["chooser"]]
    await chooser.send({"t": "choose_sides", "match": tied["id"], "side": "defenders", "id": "c1"})
    game3 = (await chooser.recv_until(lambda m: m.get("id") == "c1"))["game"]
    third = await sides(p, game3)
    assert third["defenders"] == tied["chooser"]
    for sock in sockets.values():
        await sock.close()


async def test_a_private_challenge_only_the_invited_player_can_accept(hub: HubProcess) -> None:
    base = hub.url
    alice, bob, mallory = [await Player(base).signup() for _ in range(3)]
    created = await alice.create_game(opponent="friend", invitee=bob.id, match=True)
    token = created["invite"].split("/")[-1]
    r = await mallory.http.post(f"/api/games/{created['id']}/join", json={"invite": token})
    assert r.status_code == 403 and r.json()["error"] == "not_invited"
    r = await bob.http.post(f"/api/games/{created['id']}/join", json={"invite": token})
    assert r.status_code == 200
    match = (await alice.http.get(f"/api/matches/{created['match']}")).json()
    assert {p["id"] for p in match["players"]} == {alice.id, bob.id}
