"""Withdrawing an invitation, declining a rematch, and where each game came from — on a
real hub, Redis and PostgreSQL (issue 16)."""

from __future__ import annotations

import asyncio

import httpx
import redis

from brandubh.hub.redis import keys
from services import HubProcess
from waiting import wait_for
from wsclient import Msg, Player, Socket, friend_game, lobby_socket, seated


async def wait_archived(r: redis.Redis, game: str, timeout: float = 15.0) -> None:
    """The rater sets the live keys' expiry only once the game is in PostgreSQL."""
    await wait_for(lambda: r.pttl(keys.game(game)) > 0, f"game {game} archived", timeout)


async def my_games(player: Player) -> Msg:
    async with httpx.AsyncClient(
        base_url=player.base_url, cookies={"bd_session": player.cookie}
    ) as c:
        body: Msg = (await c.get("/api/me/games")).json()
    return body


# -- withdrawing an invitation ---------------------------------------------------------------


async def test_a_withdrawn_invitation_tells_the_friend_who_withdrew_it(
    hub: HubProcess, redis_sync: redis.Redis
) -> None:
    ann = await Player(hub.url).signup(name="Ann Sender")
    ben = await Player(hub.url).signup()
    created = await ann.create_game(opponent="friend", move_time=3600)
    game = created["id"]
    sock = await ann.connect()
    await sock.watch(game)

    # Only its creator may withdraw it.
    r = await ben.http.post(f"/api/games/{game}/withdraw", json={})
    assert r.status_code == 403 and r.json()["error"] == "not_yours", r.text
    r = await ann.http.post(
        f"/api/games/{game}/withdraw", json={}, headers={"Origin": "https://evil.example"}
    )
    assert r.status_code == 403 and r.json()["error"] == "forbidden", r.text
    assert (await ann.game(game))["state"]["status"] == "waiting"
    r = await ann.http.post(f"/api/games/{game}/withdraw", json={"why": 1})
    assert r.status_code == 400 and r.json()["error"] == "bad_field", r.text

    r = await ann.http.post(f"/api/games/{game}/withdraw", json={})
    assert r.status_code == 200 and r.json() == {"id": game, "withdrawn": True}, r.text
    event = await sock.recv_until(lambda m: m["t"] == "event")
    assert event["kind"] == "withdraw" and event["state"]["withdrawn"] is True
    assert event["state"]["status"] == "ended"
    assert event["result"] == {"winner": None, "reason": "aborted"}
    # Asked again (a second click), it changes nothing.
    r = await ann.http.post(f"/api/games/{game}/withdraw", json={})
    assert r.status_code == 200, r.text

    _, _, _, token = created["invite"].split("/")
    r = await ben.http.post(f"/api/games/{game}/join", json={"invite": token})
    assert r.status_code == 410 and r.json()["error"] == "invitation_withdrawn", r.text
    assert "withdrawn by Ann Sender" in r.json()["message"]

    # Neither rated, nor counted, nor on anyone's list, once archived.
    await wait_archived(redis_sync, game)
    state = (await ben.game(game))["state"]
    assert state["withdrawn"] is True and state["players"]["attackers"] is None
    for p in (ann, ben):
        listed = (await p.http.get(f"/api/players/{p.id}/games")).json()["games"]
        assert game not in [g["id"] for g in listed]
        mine = await my_games(p)
        assert game not in [g["id"] for g in mine["playing"] + mine["finished"]]
        assert (await p.http.get(f"/api/players/{p.id}")).json()["ratings"] == {}
    await sock.close()


async def test_an_accepted_invitation_can_no_longer_be_withdrawn(hub: HubProcess) -> None:
    game, alice, _bob = await friend_game(hub.url)
    r = await alice.http.post(f"/api/games/{game}/withdraw", json={})
    assert r.status_code == 409 and r.json()["error"] == "game_not_waiting", r.text
    assert "resign or abort" in r.json()["message"]
    assert (await alice.game(game))["state"]["status"] == "active"


async def test_the_loser_of_a_join_withdraw_race_is_told_game_not_waiting(
    hub: HubProcess,
) -> None:
    # Exactly one wins each race; the join that loses hears invitation_withdrawn, the
    # withdrawal that loses 409 game_not_waiting, as documented, never game_not_active.
    ann, ben = await Player(hub.url).signup(), await Player(hub.url).signup()
    for _ in range(8):
        created = await ann.create_game(opponent="friend")
        game, token = created["id"], created["invite"].rsplit("/", 1)[1]
        joined, withdrew = await asyncio.gather(
            ben.http.post(f"/api/games/{game}/join", json={"invite": token}),
            ann.http.post(f"/api/games/{game}/withdraw", json={}),
        )
        answers = {
            (joined.status_code, joined.json().get("error")),
            (withdrew.status_code, withdrew.json().get("error")),
        }
        assert answers in (
            {(200, None), (409, "game_not_waiting")},
            {(410, "invitation_withdrawn"), (200, None)},
        ), answers
    await ann.close()
    await ben.close()


async def test_a_withdrawn_match_challenge_leaves_no_match(
    hub: HubProcess, redis_sync: redis.Redis
) -> None:
    ann = await Player(hub.url).signup()
    created = await ann.create_game(opponent="friend", match=True)
    r = await ann.http.post(f"/api/games/{created['id']}/withdraw", json={})
    assert r.status_code == 200, r.text
    await wait_archived(redis_sync, created["id"])
    await wait_for(lambda: not redis_sync.exists(keys.match(created["match"])), "the match gone", 5)
    assert not redis_sync.exists(keys.game(f"{created['match']}-2"))  # no second game


# -- declining a rematch ---------------------------------------------------------------------


async def ended_game(hub: HubProcess) -> tuple[str, dict[str, Socket]]:
    game, alice, bob = await friend_game(hub.url)
    sockets = await seated(game, alice, bob)
    await sockets["attackers"].send({"t": "resign", "game": game, "id": "r1"})
    await sockets["attackers"].reply_to("r1")
    return game, sockets


async def test_a_declined_rematch_is_told_at_once_and_not_offered_again(hub: HubProcess) -> None:
    game, sockets = await ended_game(hub)
    a, d = sockets["attackers"], sockets["defenders"]
    # Nothing to decline yet.
    await d.send({"t": "decline_rematch", "game": game, "id": "x0"})
    assert (await d.reply_to("x0"))["code"] == "no_rematch_offer"

    await a.send({"t": "rematch", "game": game, "id": "m1"})
    await a.reply_to("m1")
    await d.recv_until(lambda m: m["t"] == "rematch" and m.get("offer") == "attackers")
    # The offerer cannot decline its own offer.
    await a.send({"t": "decline_rematch", "game": game, "id": "x1"})
    assert (await a.reply_to("x1"))["code"] == "no_rematch_offer"

    await d.send({"t": "decline_rematch", "game": game, "id": "x2"})
    ack = await d.reply_to("x2")
    assert ack == {"t": "ack", "id": "x2", "of": "decline_rematch", "game": game, "next": None}
    told = await a.recv_until(lambda m: m["t"] == "rematch" and "declined" in m)
    assert told == {"t": "rematch", "game": game, "declined": "defenders"}
    # Sent again (the same id), the same ack; a new decline finds no offer open (issue 28).
    await d.send({"t": "decline_rematch", "game": game, "id": "x2"})
    assert await d.reply_to("x2") == ack
    await d.send({"t": "decline_rematch", "game": game, "id": "x3"})
    assert (await d.reply_to("x3"))["code"] == "no_rematch_offer"
    snap = await (await Player(hub.url).start()).game(game)
    assert snap["state"]["rematch"] == {"offer": None, "game": None, "declined": "defenders"}

    # The declined side may not offer again; the one who declined still may.
    await a.send({"t": "rematch", "game": game, "id": "m2"})
    refused = await a.reply_to("m2")
    assert refused["code"] == "rematch_declined" and "declined" in refused["message"]
    await d.send({"t": "rematch", "game": game, "id": "m3"})
    assert (await d.reply_to("m3"))["outcome"] == "offered"
    await a.send({"t": "rematch", "game": game, "id": "m4"})
    assert (await a.reply_to("m4"))["outcome"] == "agreed"
    for s in (a, d):
        await s.close()


async def test_a_spectator_cannot_decline_a_rematch(hub: HubProcess) -> None:
    game, sockets = await ended_game(hub)
    viewer = await (await Player(hub.url).start()).connect()
    await viewer.send({"t": "decline_rematch", "game": game, "id": "v1"})
    assert (await viewer.reply_to("v1"))["code"] == "not_a_player"
    for s in (*sockets.values(), viewer):
        await s.close()


# -- where a game came from ------------------------------------------------------------------


async def test_each_path_records_its_origin(hub: HubProcess) -> None:
    guest = await Player(hub.url).start()
    bot = await guest.create_game(opponent="bot")
    assert (await guest.game(bot["id"]))["state"]["origin"] == "bot"

    game, alice, bob = await friend_game(hub.url)
    assert (await alice.game(game))["state"]["origin"] == "invite"
    card = (await my_games(alice))["playing"][0]
    assert card["id"] == game and card["origin"] == "invite"
    challenge = await alice.create_game(opponent="friend", invitee=bob.id)
    assert (await alice.game(challenge["id"]))["state"]["origin"] == "challenge"

    sockets = await seated(game, alice, bob)
    await sockets["attackers"].send({"t": "resign", "game": game, "id": "r1"})
    await sockets["attackers"].reply_to("r1")
    for i, side in enumerate(("attackers", "defenders")):
        await sockets[side].send({"t": "rematch", "game": game, "id": f"m{i}"})
        ack = await sockets[side].reply_to(f"m{i}")
    assert ack["outcome"] == "agreed"
    assert (await alice.game(ack["next"]))["state"]["origin"] == "rematch"

    _seeker, s = await lobby_socket(hub.url)
    taker, t = await lobby_socket(hub.url)
    await s.send({"t": "seek", "ruleset": "nielsen", "move_time": 180, "id": "s1"})
    seek = (await s.reply_to("s1"))["seek"]
    await t.send({"t": "accept_seek", "seek": seek, "id": "a1"})
    seek_game = (await t.reply_to("a1"))["game"]
    assert (await taker.game(seek_game))["state"]["origin"] == "seek"

    await s.send({"t": "quick", "ruleset": "walker", "move_time": 120, "id": "q1"})
    await s.reply_to("q1")
    await t.send({"t": "quick", "ruleset": "walker", "move_time": 120, "id": "q2"})
    paired = (await t.reply_to("q2"))["game"] or (await t.recv_until(lambda m: m["t"] == "paired"))[
        "game"
    ]
    assert (await taker.game(paired))["state"]["origin"] == "quick"
    for sock in (*sockets.values(), s, t):
        await sock.close()


async def test_a_game_stored_before_origins_reads_as_a_person(
    hub: HubProcess, redis_sync: redis.Redis
) -> None:
    game, alice, _ = await friend_game(hub.url)
    redis_sync.hdel(keys.game(game), "origin")  # as a game created before the field
    assert (await alice.game(game))["state"]["origin"] == "person"
