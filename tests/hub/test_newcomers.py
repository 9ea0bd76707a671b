"""A newcomer seated from an invitation (issue 30): one sign-up on the invitation's card
seats them at once in that game, and only that game, until their address is confirmed; the
answers are the same whether or not the address has an account. Real hub, Redis,
PostgreSQL and SMTP (aiosmtpd)."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
from typing import Any

import httpx
import redis

from brandubh.hub.redis import keys
from mailbox_smtp import Mailbox
from services import HubProcess
from waiting import wait_for
from wsclient import Msg, Player, Socket, seated

NEW_PASSWORD = "a newcomer's own passphrase"


def invitation(created: Msg) -> tuple[str, str]:
    """The game and the token of an invite link (/join/<game>/<token>)."""
    _, _, game, token = created["invite"].split("/")
    return game, token


async def card_signup(
    newcomer: Player, created: Msg, email: str, name: str | None = None
) -> httpx.Response:
    """The invitation card's one step: sign up naming the invitation."""
    game, token = invitation(created)
    body: dict[str, Any] = {"email": email, "password": NEW_PASSWORD, "game": game}
    body["invite"] = token
    if name is not None:
        body["name"] = name
    newcomer.email, newcomer.password = email, NEW_PASSWORD
    r = await newcomer.http.post("/api/signup", json=body)
    if r.status_code == 202:
        await newcomer.refresh()
    return r


async def refused(sock: Socket, msg: Msg) -> str:
    """Send a lobby or game message; the code it is refused with."""
    await sock.send(msg)
    reply = await sock.reply_to(str(msg["id"]))
    assert reply["t"] == "error", reply
    return str(reply["code"])


async def rated_for(player: Player, game: str) -> bool:
    """Whether ``game`` was rated, once it is in the archive (its player's list)."""

    async def archived() -> list[Msg]:
        listed = (await player.http.get(f"/api/players/{player.id}/games")).json()
        return [g for g in listed.get("games", []) if g["id"] == game]

    found = await wait_for(archived, f"game {game} in the archive", 15, 0.1)
    return bool(found[0]["rated"])


async def test_a_newcomer_is_seated_at_once_and_plays_only_that_game_until_confirming(
    hub: HubProcess, mailbox: Mailbox
) -> None:
    ann = await Player(hub.url).signup(name="Ann Host")
    created = await ann.create_game(opponent="friend", move_time=600)
    game, token = invitation(created)
    newcomer = Player(hub.url)
    email = f"new{time.time_ns()}@example.org"
    r = await card_signup(newcomer, created, email, name="Nia New")
    assert r.status_code == 202, r.text
    assert r.json()["email"] == email and r.json()["game"] == game
    assert r.json()["message"].startswith("You can play now.")
    assert "bd_session" in r.headers["set-cookie"]  # a guest session, made by the sign-up
    assert newcomer.me["account"] is False and newcomer.me["name"] == "Nia New"
    assert newcomer.me["pending"] == email and newcomer.me["invited"] == game
    # Seated at once: both see the game start.
    joined = await newcomer.http.post(f"/api/games/{game}/join", json={"invite": token})
    assert joined.status_code == 200, joined.text
    sockets = await seated(game, ann, newcomer)
    state = (await ann.game(game))["state"]
    assert state["status"] == "active"
    names = {p["name"] for p in state["players"].values()}
    assert names == {"Ann Host", "Nia New"}
    nia = next(s for s, p in state["players"].items() if p["id"] == newcomer.id)
    # Everything else needs the confirmed address, and says so.
    r = await newcomer.http.post("/api/games", json={"opponent": "friend"})
    assert r.status_code == 403 and r.json()["error"] == "verification_required", r.text
    other = await ann.create_game(opponent="friend")
    og, ot = invitation(other)
    r = await newcomer.http.post(f"/api/games/{og}/join", json={"invite": ot})
    assert r.status_code == 403 and r.json()["error"] == "verification_required", r.text
    for msg in (
        {"t": "seek", "ruleset": "nielsen", "move_time": 60, "id": "s1"},
        {"t": "quick", "ruleset": "nielsen", "move_time": 60, "id": "q1"},
    ):
        assert await refused(sockets[nia], msg) == "verification_required"
    r = await newcomer.http.post("/api/settings", json={"leaderboard": True})
    assert r.status_code == 401, r.text
    assert (await newcomer.create_game(opponent="bot"))["id"]  # the bot needs nothing
    # The game ends before the address is confirmed: no rematch, and not rated.
    await sockets[nia].send({"t": "resign", "game": game, "id": "r1"})
    assert (await sockets[nia].reply_to("r1"))["t"] == "ack"
    rematch = {"t": "rematch", "game": game, "id": "m1"}
    assert await refused(sockets[nia], rematch) == "verification_required"
    assert await rated_for(ann, game) is False
    # The mailed link confirms the address and logs this browser in to the account it
    # became (the same player id); then everything works.
    await newcomer.verify()
    assert newcomer.me["account"] is True and newcomer.me["name"] == "Nia New"
    assert (await newcomer.http.get("/api/me")).json()["id"] == newcomer.id
    mine = await newcomer.create_game(opponent="friend")
    assert mine["invite"]
    assert (await newcomer.http.post(f"/api/games/{og}/join", json={"invite": ot})).is_success
    sock = await newcomer.connect()
    await sock.send({"t": "seek", "ruleset": "nielsen", "move_time": 60, "id": "s2"})
    assert (await sock.reply_to("s2"))["t"] == "ack"
    for s in (*sockets.values(), sock):
        await s.close()
    await ann.close()
    await newcomer.close()


async def test_a_newcomer_who_confirms_before_the_end_plays_a_rated_game(
    hub: HubProcess, mailbox: Mailbox
) -> None:
    ann = await Player(hub.url).signup()
    created = await ann.create_game(opponent="friend", move_time=600)
    game, token = invitation(created)
    newcomer = Player(hub.url)
    r = await card_signup(newcomer, created, f"rated{time.time_ns()}@example.org")
    assert r.status_code == 202, r.text
    assert (await newcomer.http.post(f"/api/games/{game}/join", json={"invite": token})).is_success
    await newcomer.verify()  # mid-game: the new session speaks for the same player
    sockets = await seated(game, ann, newcomer)
    mover = next(s for s, sock in sockets.items() if s == "attackers")
    await sockets[mover].send({"t": "resign", "game": game, "id": "r1"})
    assert (await sockets[mover].reply_to("r1"))["t"] == "ack"
    assert await rated_for(ann, game) is True
    for s in sockets.values():
        await s.close()
    await ann.close()
    await newcomer.close()


async def test_a_card_sign_up_says_nothing_about_whether_an_address_has_an_account(
    hub: HubProcess, mailbox: Mailbox, redis_sync: redis.Redis
) -> None:
    owner = await Player(hub.url).signup(name="Owner")
    pending = await Player(hub.url).signup(name="Pending", verify=False)
    host = await Player(hub.url).signup(name="Host")
    fresh = f"fresh{time.time_ns()}@example.org"
    seen: list[dict[str, Any]] = []
    for email in (fresh, owner.email, pending.email):
        created = await host.create_game(opponent="friend")
        game, token = invitation(created)
        newcomer = Player(hub.url)
        r = await card_signup(newcomer, created, email, name="Same Name")
        assert r.status_code == 202, r.text
        assert r.json()["message"].startswith("You can play now. We sent a link to")
        joined = await newcomer.http.post(f"/api/games/{game}/join", json={"invite": token})
        assert joined.status_code == 200, joined.text
        state = (await host.game(game))["state"]
        create = await newcomer.http.post("/api/games", json={"opponent": "friend"})
        login = await Player(hub.url).login(email, NEW_PASSWORD)
        sid = hashlib.sha256(newcomer.cookie.encode()).hexdigest()
        ttl = redis_sync.ttl(keys.session(sid))
        # The session lives no longer than an unconfirmed sign-up, account or none.
        assert keys.RELEASE_AFTER_S - 60 < ttl <= keys.RELEASE_AFTER_S
        seen.append(
            {
                "answer": {k: v for k, v in r.json().items() if k not in ("email", "game")},
                "message": r.json()["message"].replace(email, "<email>"),
                "me": {
                    k: v for k, v in newcomer.me.items() if k not in ("id", "pending", "invited")
                },
                "id": newcomer.id[:2],
                "seat": sorted(p["name"] for p in state["players"].values()),
                "create": (create.status_code, create.json()),
                "login": (login.status_code, login.json()),
                "profile": (await host.http.get(f"/api/players/{newcomer.id}")).status_code,
                "resend": (await newcomer.http.post("/api/verify-email/resend")).status_code,
            }
        )
        await newcomer.close()
    for s in seen:
        s["answer"]["message"] = s.pop("message")
    assert seen[0] == seen[1] == seen[2], seen
    assert seen[0]["id"] == "g_" and seen[0]["profile"] == 404
    assert seen[0]["create"][1]["error"] == "verification_required"
    # What differs goes only to the address, by mail, as for any sign-up.
    await mailbox.wait(fresh, "confirm your email")
    await mailbox.wait(owner.email, "someone tried to sign up")
    await mailbox.wait(pending.email, "finish signing up")
    for p in (owner, pending, host):
        await p.close()


async def test_one_invitation_seats_one_newcomer_and_a_bad_one_costs_nothing(
    hub: HubProcess, mailbox: Mailbox
) -> None:
    host = await Player(hub.url).signup()
    created = await host.create_game(opponent="friend")
    game, token = invitation(created)
    first = Player(hub.url)
    assert (await card_signup(first, created, f"one{time.time_ns()}@example.org")).is_success
    # A second newcomer may sign up while the game waits, but the first to join takes it.
    second = Player(hub.url)
    assert (await card_signup(second, created, f"two{time.time_ns()}@example.org")).is_success
    assert (await first.http.post(f"/api/games/{game}/join", json={"invite": token})).is_success
    r = await second.http.post(f"/api/games/{game}/join", json={"invite": token})
    assert r.status_code == 409 and r.json()["error"] == "game_not_waiting", r.text
    # Once it started, the token seats nobody: the sign-up is refused before anything is
    # made (no session, no mail).
    late = Player(hub.url)
    late_email = f"late{time.time_ns()}@example.org"
    r = await card_signup(late, created, late_email)
    assert r.status_code == 409 and r.json()["error"] == "game_not_waiting", r.text
    assert "set-cookie" not in r.headers
    # A wrong token, or a challenge for someone else, likewise.
    fresh = await host.create_game(opponent="friend")
    fg, _ = invitation(fresh)
    r = await late.http.post(
        "/api/signup",
        json={"email": late_email, "password": NEW_PASSWORD, "game": fg, "invite": "x" * 16},
    )
    assert r.status_code == 403 and r.json()["error"] == "bad_invite", r.text
    challenge = await host.create_game(opponent="friend", invitee=first.id)
    r = await card_signup(late, challenge, late_email)
    assert r.status_code == 403 and r.json()["error"] == "not_invited", r.text
    r = await late.http.post(
        "/api/signup", json={"email": late_email, "password": NEW_PASSWORD, "game": fg}
    )
    assert r.status_code == 400 and r.json()["error"] == "bad_field", r.text
    # A logged-in browser joins from the card; it does not sign up on it.
    r = await card_signup(host, fresh, f"host{time.time_ns()}@example.org")
    assert r.status_code == 400 and r.json()["error"] == "bad_field", r.text
    # No mail comes: one queued by a refused sign-up would be handed over within this (a
    # mail not sent sends no signal).
    await asyncio.sleep(1.0)
    assert mailbox.mails(late_email, "confirm your email") == []
    for p in (host, first, second, late):
        await p.close()


async def test_card_sign_ups_count_against_the_sign_up_limit_per_address(
    start_hub: Any,
) -> None:
    hub = start_hub({"BRANDUBH_SIGNUP_PER_ADDRESS": "3"})
    host = await Player(hub.url).signup()
    created = await host.create_game(opponent="friend")
    # From TEST-NET-2, which no other test's players come from: the Redis is shared by the
    # suite, and an address another player signed up from earlier counts against this one.
    address = f"198.51.100.{secrets.randbelow(254) + 1}"
    answers = []
    for i in range(4):
        newcomer = Player(hub.url, address=address)
        r = await card_signup(newcomer, created, f"flood{i}x{time.time_ns()}@example.org")
        answers.append((r.status_code, "set-cookie" in r.headers))
        await newcomer.close()
    # Past the limit: refused before any hash, and no session is made.
    assert answers == [(202, True)] * 3 + [(429, False)], answers
    await host.close()


async def test_a_newcomer_never_confirmed_is_released_and_its_session_ends(
    hub: HubProcess, mailbox: Mailbox, redis_sync: redis.Redis
) -> None:
    host = await Player(hub.url).signup()
    created = await host.create_game(opponent="friend")
    game, token = invitation(created)
    newcomer = Player(hub.url)
    email = f"squat{time.time_ns()}@example.org"
    assert (await card_signup(newcomer, created, email)).is_success
    assert (await newcomer.http.post(f"/api/games/{game}/join", json={"invite": token})).is_success
    sock = await newcomer.connect()
    await sock.watch(game)
    # Seven days pass for this sign-up: the address is released and the session ends.
    redis_sync.zadd(keys.unverified(), {newcomer.id: 0})
    assert await sock.close_code(timeout=30) == 4004
    assert (await newcomer.http.get("/api/me")).json()["id"] is None
    owner = await Player(hub.url).signup(email=email)  # the owner can sign up
    assert owner.me["email"] == email
    for p in (host, newcomer, owner):
        await p.close()
    await sock.close()


async def test_a_second_sign_up_from_a_newcomers_browser_tells_nothing_of_the_first(
    hub: HubProcess, mailbox: Mailbox
) -> None:
    """Adopting a session's id twice would tell whether the first sign-up made an account
    (the second's link would or would not log that browser in): a card sign-up always
    gets a new session, and a newcomer's session is never adopted by a later sign-up."""
    owner = await Player(hub.url).signup()
    host = await Player(hub.url).signup()
    seen = []
    for first in (f"free{time.time_ns()}@example.org", owner.email):
        prober = await Player(hub.url).guest()  # a guest who played the bot first
        guest_cookie = prober.cookie
        r = await card_signup(prober, await host.create_game(opponent="friend"), first)
        assert r.status_code == 202, r.text
        assert prober.cookie != guest_cookie  # a new session, always
        again = f"mine{time.time_ns()}@example.org"
        r = await card_signup(prober, await host.create_game(opponent="friend"), again)
        assert r.status_code == 202, r.text
        link = (await mailbox.wait(again, "confirm your email")).link("/verify-email/")
        card = (await prober.http.get(f"/api/verify-email/{link.rsplit('/', 1)[1]}")).json()
        plain = f"plain{time.time_ns()}@example.org"
        r = await prober.http.post("/api/signup", json={"email": plain, "password": NEW_PASSWORD})
        assert r.status_code == 202, r.text
        link = (await mailbox.wait(plain, "confirm your email")).link("/verify-email/")
        later = (await prober.http.get(f"/api/verify-email/{link.rsplit('/', 1)[1]}")).json()
        seen.append((card["logs_in"], later["logs_in"]))
        await prober.close()
    # The card's sign-up adopts its new session's id; a plain one from it adopts nothing.
    assert seen == [(True, False), (True, False)], seen
    await owner.close()
    await host.close()
