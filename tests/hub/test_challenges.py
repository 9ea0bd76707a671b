"""Challenges on a real hub (docs/protocol.md §2.10): made from the site's session or a
token, listed, accepted (the game starts), declined with a reason, cancelled; each
idempotent for its author, every refusal, the accept-versus-cancel race with one winner,
a bot account refused by a person until that person's setting lets bots challenge them,
the site's ``challenge`` and ``challenge_gone`` frames, a chosen side honoured by a seed
that still verifies."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from api_tokens import error_of
from challenge_clients import bot_account, token_client

from services import HubProcess
from wsclient import Msg, Player, Socket


def refused(r: httpx.Response) -> tuple[int, str]:
    return r.status_code, error_of(r)


async def challenge(p: Player | httpx.AsyncClient, target: str, **terms: object) -> Msg:
    """Make a challenge (a player's session, or a program's token); its record."""
    client = p.http if isinstance(p, Player) else p
    r = await client.post(f"/api/challenge/{target}", json=terms)
    assert r.status_code == 201, r.text
    made: Msg = r.json()["challenge"]
    return made


async def two_people(hub: HubProcess) -> tuple[Player, Player]:
    ann = await Player(hub.url).signup(name="Ann Challenger")
    ben = await Player(hub.url).signup(name="Ben Challenged")
    return ann, ben


async def frame_of(sock: Socket, kind: str, game: str) -> Msg:
    return await sock.seen_or_next(lambda m: m["t"] == kind and m["challenge"]["id"] == game)


@pytest.mark.cluster
async def test_a_person_challenges_a_person_who_accepts(hub: HubProcess) -> None:
    ann, ben = await two_people(hub)
    ann_sock, ben_sock = await ann.connect(), await ben.connect()
    made = await challenge(ann, ben.id, ruleset="walker", move_time=600)
    game = made["id"]
    assert made == {
        "id": game,
        "url": f"/g/{game}",
        "status": "created",
        "from": {"id": ann.id, "name": "Ann Challenger", "bot": False},
        "to": {"id": ben.id, "name": "Ben Challenged", "bot": False},
        "ruleset": "walker",
        "move_time": 600,
        "rated": True,
        "side": "random",
        "created": made["created"],
    }
    # Both accounts' sockets hear of it, with the same record.
    assert (await frame_of(ben_sock, "challenge", game))["challenge"] == made
    assert (await frame_of(ann_sock, "challenge", game))["challenge"] == made
    listed = (await ben.http.get("/api/challenge")).json()
    assert listed == {"in": [made], "out": []}
    assert (await ann.http.get("/api/challenge")).json() == {"in": [], "out": [made]}
    state = (await ann.game(game))["state"]
    assert state["status"] == "waiting" and state["origin"] == "challenge"
    assert state["invitee"] == ben.id

    r = await ben.http.post(f"/api/challenge/{game}/accept")
    assert r.status_code == 200 and r.json() == {"id": game, "url": f"/g/{game}"}, r.text
    gone = (await frame_of(ann_sock, "challenge_gone", game))["challenge"]
    assert gone["status"] == "accepted" and gone["id"] == game
    assert (await frame_of(ben_sock, "challenge_gone", game))["challenge"] == gone
    state = (await ann.game(game))["state"]
    assert state["status"] == "active"
    assert {p["id"] for p in state["players"].values()} == {ann.id, ben.id}
    # Accepted again: the same answer, nothing more; it is no longer open.
    again = await ben.http.post(f"/api/challenge/{game}/accept")
    assert again.status_code == 200 and again.json() == r.json()
    assert (await ben.http.get("/api/challenge")).json() == {"in": [], "out": []}
    assert (await ann.http.get("/api/challenge")).json() == {"in": [], "out": []}
    # Cancelling a challenge that was accepted: too late, as a withdrawal.
    assert refused(await ann.http.post(f"/api/challenge/{game}/cancel")) == (
        409,
        "game_not_waiting",
    )


async def test_declined_with_a_reason_then_every_answer_after(hub: HubProcess) -> None:
    ann, ben = await two_people(hub)
    ann_sock = await ann.connect()
    game = (await challenge(ann, ben.id))["id"]
    assert refused(
        await ben.http.post(f"/api/challenge/{game}/decline", json={"reason": "because"})
    ) == (400, "bad_field")
    r = await ben.http.post(f"/api/challenge/{game}/decline", json={"reason": "tooFast"})
    assert r.status_code == 200 and r.json() == {"ok": True}, r.text
    gone = (await frame_of(ann_sock, "challenge_gone", game))["challenge"]
    assert gone["status"] == "declined" and gone["declineReason"] == "tooFast"
    state = (await ann.game(game))["state"]
    assert state["status"] == "ended" and state["withdrawn"] is True
    assert state["declined"] == "tooFast" and state["result"]["reason"] == "aborted"
    # Declined again, in other words too: the same answer, the first reason kept.
    r = await ben.http.post(f"/api/challenge/{game}/decline", json={})
    assert r.status_code == 200 and (await ann.game(game))["state"]["declined"] == "tooFast"
    assert refused(await ben.http.post(f"/api/challenge/{game}/accept")) == (
        409,
        "game_not_waiting",
    )
    r = await ann.http.post(f"/api/challenge/{game}/cancel")  # nothing left to cancel
    assert r.status_code == 200 and (await ann.game(game))["state"]["declined"] == "tooFast"
    assert (await ann.http.get("/api/challenge")).json() == {"in": [], "out": []}


async def test_cancelled_then_every_answer_after(hub: HubProcess) -> None:
    ann, ben = await two_people(hub)
    ben_sock = await ben.connect()
    game = (await challenge(ann, ben.id))["id"]
    assert refused(await ben.http.post(f"/api/challenge/{game}/cancel")) == (403, "not_yours")
    assert refused(await ann.http.post(f"/api/challenge/{game}/accept")) == (403, "not_invited")
    assert refused(await ann.http.post(f"/api/challenge/{game}/decline")) == (403, "not_invited")
    carl = await Player(hub.url).signup()
    assert refused(await carl.http.post(f"/api/challenge/{game}/accept")) == (403, "not_invited")
    r = await ann.http.post(f"/api/challenge/{game}/cancel")
    assert r.status_code == 200 and r.json() == {"ok": True}, r.text
    gone = (await frame_of(ben_sock, "challenge_gone", game))["challenge"]
    assert gone["status"] == "canceled" and "declineReason" not in gone
    assert (await ann.http.post(f"/api/challenge/{game}/cancel")).status_code == 200
    assert refused(await ben.http.post(f"/api/challenge/{game}/accept")) == (
        410,
        "invitation_withdrawn",
    )
    assert refused(await ben.http.post(f"/api/challenge/{game}/decline")) == (
        410,
        "invitation_withdrawn",
    )
    state = (await ann.game(game))["state"]
    assert state["withdrawn"] is True and "declined" not in state
    assert (await ben.http.get("/api/challenge")).json() == {"in": [], "out": []}


async def test_refusals_change_nothing(hub: HubProcess) -> None:
    ann, ben = await two_people(hub)
    cases: list[tuple[str, dict[str, object], tuple[int, str]]] = [
        (f"/api/challenge/{ann.id}", {}, (400, "bad_field")),  # oneself
        (f"/api/challenge/{ben.id}", {"ruleset": "chess"}, (400, "bad_field")),
        (f"/api/challenge/{ben.id}", {"move_time": 61}, (400, "bad_field")),
        (f"/api/challenge/{ben.id}", {"move_time": "300"}, (400, "bad_field")),
        (f"/api/challenge/{ben.id}", {"side": "white"}, (400, "bad_field")),
        (f"/api/challenge/{ben.id}", {"rated": "yes"}, (400, "bad_field")),
        (f"/api/challenge/{ben.id}", {"clock": 5}, (400, "bad_field")),
        ("/api/challenge/p_nobody_here", {}, (404, "not_found")),
        ("/api/challenge/no*such", {}, (404, "not_found")),
        ("/api/challenge/zzzzzzzzzzzz/accept", {}, (404, "not_found")),
        ("/api/challenge/zzzzzzzzzzzz/decline", {}, (404, "not_found")),
        ("/api/challenge/zzzzzzzzzzzz/cancel", {}, (404, "not_found")),
    ]
    for path, body, want in cases:
        r = await ann.http.post(path, json=body)
        assert refused(r) == want, (path, body, r.text)
        assert "Traceback" not in r.text
    # Not a challenge: a friend game of the site's own.
    friend = await ann.create_game(opponent="friend")
    assert refused(await ben.http.post(f"/api/challenge/{friend['id']}/accept")) == (
        404,
        "not_found",
    )
    # No session, a guest, another site's page, an unconfirmed account.
    nobody = httpx.AsyncClient(base_url=hub.url, headers={"Origin": hub.url})
    assert refused(await nobody.post(f"/api/challenge/{ben.id}", json={})) == (
        401,
        "not_logged_in",
    )
    assert refused(await nobody.get("/api/challenge")) == (401, "not_logged_in")
    guest = await Player(hub.url).guest()
    assert refused(await guest.http.post(f"/api/challenge/{ben.id}", json={})) == (
        401,
        "not_logged_in",
    )
    r = await ann.http.post(
        f"/api/challenge/{ben.id}", json={}, headers={"Origin": "https://evil.example"}
    )
    assert refused(r) == (403, "forbidden")
    # A token without the scope; one with another scope only.
    reader = await token_client(hub, ann, ["games:read"])
    r = await reader.post(f"/api/challenge/{ben.id}", json={})
    assert refused(r) == (403, "token_scope") and "challenge:write" in r.json()["message"]
    player = await token_client(hub, ann, ["bot:play"])
    assert refused(await player.post(f"/api/challenge/{ben.id}", json={})) == (403, "token_scope")
    assert (await player.get("/api/challenge")).status_code == 200  # listing: bot:play will do
    assert (await ann.http.get("/api/challenge")).json() == {"in": [], "out": []}
    assert (await ben.http.get("/api/challenge")).json() == {"in": [], "out": []}
    for client in (nobody, reader, player):
        await client.aclose()


async def test_at_most_ten_open_and_twenty_made_in_ten_minutes(hub: HubProcess) -> None:
    ann, ben = await two_people(hub)
    made = [(await challenge(ann, ben.id))["id"] for _ in range(10)]
    r = await ann.http.post(f"/api/challenge/{ben.id}", json={})
    assert refused(r) == (409, "too_many_challenges")
    assert len((await ann.http.get("/api/challenge")).json()["out"]) == 10
    for game in made:  # answered or cancelled challenges free their places
        assert (await ann.http.post(f"/api/challenge/{game}/cancel")).status_code == 200
    for _ in range(10):
        await challenge(ann, ben.id)
    out = (await ann.http.get("/api/challenge")).json()["out"]
    for item in out:
        await ann.http.post(f"/api/challenge/{item['id']}/cancel")
    r = await ann.http.post(f"/api/challenge/{ben.id}", json={})
    assert refused(r) == (429, "rate_limited") and int(r.headers["Retry-After"]) >= 1
    assert (await ann.http.get("/api/challenge")).json()["out"] == []


async def test_the_race_between_accept_and_cancel_has_one_winner(hub: HubProcess) -> None:
    ann, ben = await two_people(hub)
    outcomes = set()
    for _ in range(6):
        game = (await challenge(ann, ben.id))["id"]
        accepted, cancelled = await asyncio.gather(
            ben.http.post(f"/api/challenge/{game}/accept"),
            ann.http.post(f"/api/challenge/{game}/cancel"),
        )
        state = (await ann.game(game))["state"]
        if accepted.status_code == 200:
            assert refused(cancelled) == (409, "game_not_waiting"), cancelled.text
            assert state["status"] == "active"
            outcomes.add("accepted")
        else:
            assert refused(accepted) == (410, "invitation_withdrawn"), accepted.text
            assert cancelled.status_code == 200, cancelled.text
            assert state["withdrawn"] is True
            outcomes.add("cancelled")
    assert outcomes  # each round had exactly one winner, whichever it was


async def test_a_bot_may_challenge_a_person_only_once_allowed(hub: HubProcess) -> None:
    bot, client = await bot_account(hub, "Knot Engine")
    person = await Player(hub.url).signup(name="Open Person")
    r = await client.post(f"/api/challenge/{person.id}", json={})
    assert refused(r) == (403, "challenges_closed")
    assert r.json()["message"] == "Open Person does not take challenges from bots"
    assert (await person.http.get(f"/api/players/{person.id}")).json()["bot_challenges"] is False
    r = await person.http.post("/api/settings", json={"bot_challenges": "yes"})
    assert refused(r) == (400, "bad_field")
    r = await person.http.post("/api/settings", json={"bot_challenges": True})
    assert r.status_code == 200 and r.json() == {"bot_challenges": True}, r.text
    assert (await person.http.get(f"/api/players/{person.id}")).json()["bot_challenges"] is True
    made = await challenge(client, person.id)
    assert made["from"] == {"id": bot.id, "name": "Knot Engine", "bot": True}
    assert made["rated"] is True
    state = (await person.game(made["id"]))["state"]
    assert state["creator"] == {"id": bot.id, "name": "Knot Engine", "bot": True}
    # A bot account may challenge another bot account whatever its settings.
    other, other_client = await bot_account(hub)
    assert (await challenge(client, other.id, rated=False))["rated"] is False
    # A bot account has no such setting to set; its session makes no challenge.
    r = await bot.http.post("/api/settings", json={"bot_challenges": True})
    assert refused(r) == (403, "bot_account")
    r = await bot.http.post(f"/api/challenge/{person.id}", json={"rated": False})
    assert refused(r) == (403, "bot_account")
    # Turned off again: refused again.
    await person.http.post("/api/settings", json={"bot_challenges": False})
    r = await client.post(f"/api/challenge/{person.id}", json={})
    assert refused(r) == (403, "challenges_closed")
    await client.aclose()
    await other_client.aclose()


async def test_a_chosen_side_is_honoured_and_the_game_still_verifies(hub: HubProcess) -> None:
    ann, ben = await two_people(hub)
    for side in ("attackers", "defenders", "attackers"):
        made = await challenge(ann, ben.id, side=side)
        assert made["side"] == side
        game = made["id"]
        assert (await ben.http.post(f"/api/challenge/{game}/accept")).status_code == 200
        state = (await ann.game(game))["state"]
        assert state["players"][side]["id"] == ann.id
        sock = await ben.connect()
        await sock.watch(game)
        await sock.send({"t": "resign", "game": game, "id": "r1"})
        await sock.recv_until(lambda m: m["t"] == "event" and m.get("kind") == "resign")
        record = (await ann.http.get(f"/api/games/{game}/record")).text
        verdict = (await ann.http.post("/api/verify", content=record.encode())).json()
        assert verdict["ok"] is True and verdict["stored"]["same"] is True, verdict
        await sock.close()


async def test_a_decline_and_a_cancel_at_once_leave_one_answer(hub: HubProcess) -> None:
    ann, ben = await two_people(hub)
    for _ in range(4):
        game = (await challenge(ann, ben.id))["id"]
        declined, cancelled = await asyncio.gather(
            ben.http.post(f"/api/challenge/{game}/decline", json={"reason": "later"}),
            ann.http.post(f"/api/challenge/{game}/cancel"),
        )
        state = (await ann.game(game))["state"]
        assert state["withdrawn"] is True
        assert cancelled.status_code == 200, cancelled.text  # declined first: nothing to cancel
        if "declined" in state:
            assert declined.status_code == 200 and state["declined"] == "later"
        else:
            assert refused(declined) == (410, "invitation_withdrawn"), declined.text
