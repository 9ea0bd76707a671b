"""Mail over a real SMTP server (aiosmtpd): confirming addresses, resetting passwords,
move reminders and unsubscribing, bad tokens, and delivery through an SMTP outage and a
killed hub. The tests read the mails and follow their links, as a person would."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import redis

from brandubh.hub.mail import outbox, reminders
from brandubh.hub.redis import keys
from brandubh.store import Store, tables
from games import play, quiet_line
from mailbox_smtp import Mailbox
from services import HubProcess
from waiting import wait_for
from wsclient import PASSWORD, Player, Socket, friend_game, seated, side_of

NEW_PASSWORD = "a new and longer passphrase"


def error_of(r: httpx.Response) -> str:
    return str(r.json()["error"])


def token_of(link: str) -> str:
    return urlsplit(link).path.rsplit("/", 1)[1]


# -- confirming the address -----------------------------------------------------------------


async def test_sign_up_mails_a_link_that_confirms_the_address_once(
    hub: HubProcess, mailbox: Mailbox
) -> None:
    ann = await Player(hub.url).signup(name="Ann Mail", verify=False)
    assert (await ann.http.get("/api/mail")).status_code == 401  # not logged in yet
    mail = await mailbox.wait(ann.email, "confirm your email")
    assert mail.message["From"] and mail.message["Message-ID"]
    assert "Ann Mail" in mail.text and "48 hours" in mail.text
    link = mail.link("/verify-email/")
    assert link.startswith(hub.url + "/verify-email/")  # the site's own address
    assert link in mail.html and "<img" not in mail.html  # no tracking pixel
    # The page of the link is the client's; looking does not use the link up.
    token = token_of(link)
    assert (await ann.http.get(urlsplit(link).path)).status_code in (200, 503)
    r = await ann.http.get(f"/api/verify-email/{token}")
    # Whose account it confirms, that confirming logs this browser (no session) in, and
    # that it asks for the password: this browser did not sign up as a guest.
    assert r.json() == {
        "email": ann.email,
        "name": "Ann Mail",
        "logs_in": True,
        "asks_password": True,
    }
    r = await ann.http.post(f"/api/verify-email/{token}")  # no password: the link stays good
    assert r.status_code == 400 and error_of(r) == "weak_password", r.text
    assert "sets the account's password" in r.json()["message"]
    r = await ann.http.post(f"/api/verify-email/{token}", json={"password": ann.password})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["verified"] is True and body["email"] == ann.email
    assert body["account"] is True and body["name"] == "Ann Mail"
    assert body["logged_in"] is True  # a browser without another session
    # Following the link logged the account in.
    assert (await ann.http.get("/api/mail")).json()["verified"] is True
    # Used: the same link again says so.
    r = await ann.http.post(f"/api/verify-email/{token}")
    assert r.status_code == 410 and error_of(r) == "token_used"
    assert "used already" in r.json()["message"] and "new one" in r.json()["message"]
    await ann.close()


async def test_the_signers_guest_session_ends_when_the_address_is_confirmed_elsewhere(
    hub: HubProcess, mailbox: Mailbox
) -> None:
    # A guest (cookie G) signs up; the link is followed on another device. The account
    # adopts G's player id, so G would act for it (its games, its sockets): G ends.
    g = await Player(hub.url).guest()
    guest_id = g.id
    sock = await g.connect()
    await g.signup(verify=False)
    phone = Player(hub.url)
    phone.email, phone.password = g.email, g.password  # typed on the phone's page
    await phone.verify()
    assert (await g.http.get("/api/me")).json()["id"] is None  # a visitor again
    assert (await g.http.get("/api/me/games")).json()["playing"] == []
    assert await sock.close_code() == 4004
    assert phone.me["id"] == guest_id and phone.me["logged_in"] is True
    # The phone's session is the account's one session: log out everywhere ends just it.
    r = await phone.http.post("/api/logout", json={"everywhere": True})
    assert r.json() == {"ended": 1}
    for p in (g, phone):
        await p.close()


async def test_a_reset_ends_the_signers_guest_session_too(
    hub: HubProcess, mailbox: Mailbox
) -> None:
    g = await Player(hub.url).guest()
    sock = await g.connect()
    await g.signup(verify=False)
    stranger = Player(hub.url)
    assert (
        await stranger.http.post("/api/password/forgot", json={"email": g.email})
    ).status_code == 202
    token = token_of((await mailbox.wait(g.email, "set a new password")).link("/reset-password/"))
    r = await stranger.http.post(
        "/api/password/reset", json={"token": token, "password": NEW_PASSWORD}
    )
    assert r.status_code == 200 and r.json() == {"ended": 1}, r.text
    assert await sock.close_code() == 4004
    assert (await g.http.get("/api/me")).json()["id"] is None
    for p in (g, stranger):
        await p.close()


async def test_a_confirmation_link_never_swaps_whom_a_browser_speaks_for(
    hub: HubProcess, mailbox: Mailbox
) -> None:
    # Login CSRF: an attacker's own link, opened in a victim's browser, confirms the
    # attacker's address but leaves the victim's session (an account's or a guest's) alone.
    victim = await Player(hub.url).signup(name="Victim")
    bystander = await Player(hub.url).guest()
    attacker = await Player(hub.url).signup(name="Attacker", verify=False)
    mail = await mailbox.wait(attacker.email, "confirm your email")
    token = token_of(mail.link("/verify-email/"))
    r = await victim.http.post(f"/api/verify-email/{token}", json={"password": "victim's words"})
    assert r.status_code == 200, r.text
    me = (await victim.http.get("/api/me")).json()
    assert me["id"] == victim.id and me["name"] == "Victim"
    assert "set-cookie" not in r.headers
    assert r.json()["logged_in"] is False and r.json()["name"] == "Attacker"
    # Another link, in a guest's browser: the guest stays the guest.
    other = await Player(hub.url).signup(name="Other", verify=False)
    token = token_of((await mailbox.wait(other.email, "confirm your email")).link("/verify-"))
    # The page learns whose account a link confirms before the reader decides.
    r = await bystander.http.get(f"/api/verify-email/{token}")
    assert r.json() == {
        "email": other.email,
        "name": "Other",
        "logs_in": False,
        "asks_password": True,
    }
    r = await bystander.http.post(f"/api/verify-email/{token}", json={"password": other.password})
    assert r.status_code == 200 and r.json()["logged_in"] is False
    assert (await bystander.http.get("/api/me")).json()["id"] == bystander.id
    # The addresses are confirmed all the same, with the password typed when confirming:
    # the confirmer's, never the sign-up's unless that is what was typed.
    assert (await attacker.login()).status_code == 401
    assert (await attacker.login(password="victim's words")).status_code == 200
    assert (await other.login()).status_code == 200
    for p in (victim, bystander, attacker, other):
        await p.close()


async def test_a_password_change_or_reset_ends_every_outstanding_reset_link(
    hub: HubProcess, mailbox: Mailbox
) -> None:
    ann = await Player(hub.url).signup()
    stranger = Player(hub.url)

    async def reset_link(n: int) -> str:
        r = await stranger.http.post("/api/password/forgot", json={"email": ann.email})
        assert r.status_code == 202
        return token_of((await mailbox.wait(ann.email, "set a new password", n)).link("/reset-"))

    older, newer = await reset_link(1), await reset_link(2)
    r = await stranger.http.post(
        "/api/password/reset", json={"token": newer, "password": NEW_PASSWORD}
    )
    assert r.status_code == 200, r.text
    for token in (older, newer):  # the older link set no second password
        r = await stranger.http.post(
            "/api/password/reset", json={"token": token, "password": "yet another passphrase"}
        )
        assert r.status_code == 410 and error_of(r) == "token_used", r.text
        assert (await stranger.http.get(f"/api/password/reset/{token}")).status_code == 410
    # A link asked for, then the password changed while logged in: the link is done.
    later = await reset_link(3)
    assert (await ann.login(ann.email, NEW_PASSWORD)).status_code == 200
    r = await ann.http.post("/api/password", json={"current": NEW_PASSWORD, "new": PASSWORD})
    assert r.status_code == 200, r.text
    r = await stranger.http.post(
        "/api/password/reset", json={"token": later, "password": "yet another passphrase"}
    )
    assert r.status_code == 410 and error_of(r) == "token_used", r.text
    assert (await Player(hub.url).login(ann.email, PASSWORD)).status_code == 200
    for p in (ann, stranger):
        await p.close()


async def unconfirm(database_url: str, account_id: str) -> None:
    """Make a confirmed account unconfirmed again, as an account that was logged in
    before sign-ups stopped logging in (its session still stands)."""
    store = Store.from_url(database_url)
    async with store.engine.begin() as conn:
        await conn.execute(
            tables.accounts.update()
            .where(tables.accounts.c.id == account_id)
            .values(verified=False)
        )
    await store.close()


async def test_an_unconfirmed_account_plays_the_bot_but_not_people(
    hub: HubProcess, database_url: str
) -> None:
    ann = await Player(hub.url).signup()
    await unconfirm(database_url, ann.id)
    bot_game = await ann.create_game(opponent="bot")
    assert bot_game["id"]
    r = await ann.http.post("/api/games", json={"opponent": "friend"})
    assert r.status_code == 403 and error_of(r) == "verification_required"
    assert "confirm your email address" in r.json()["message"]
    r = await ann.http.post("/api/settings", json={"leaderboard": True})
    assert r.status_code == 403 and error_of(r) == "verification_required"
    # Joining a confirmed player's game, seeking and quick pairing are refused too.
    bob = await Player(hub.url).signup()
    game = await bob.create_game(opponent="friend")
    _, _, gid, invite = game["invite"].split("/")
    r = await ann.http.post(f"/api/games/{gid}/join", json={"invite": invite})
    assert r.status_code == 403 and error_of(r) == "verification_required"
    sock = await ann.connect()
    for msg in (
        {"t": "seek", "ruleset": "nielsen", "move_time": 60, "id": "s1"},
        {"t": "quick", "ruleset": "nielsen", "move_time": 60, "id": "q1"},
    ):
        await sock.send(msg)
        reply = await sock.reply_to(str(msg["id"]))
        assert reply["t"] == "error" and reply["code"] == "verification_required", reply
    await sock.close()
    # A new link (asked for on the account page) confirms it again; then all of it works.
    assert (await ann.http.post("/api/verify-email/resend")).status_code == 202
    await ann.verify(count=2)
    r = await ann.http.post(f"/api/games/{gid}/join", json={"invite": invite})
    assert r.status_code == 200, r.text
    await ann.close()
    await bob.close()


async def test_an_unconfirmed_account_cannot_log_in(hub: HubProcess, mailbox: Mailbox) -> None:
    """Else signing up and logging in would tell whether the address was free."""
    ann = await Player(hub.url).signup(verify=False)
    r = await ann.login()
    assert r.status_code == 401 and error_of(r) == "bad_credentials"
    assert r.json() == (await ann.login(password="not the password at all")).json()
    assert ann.cookie == "None"
    await ann.verify()  # the link logs in, and then the password does too
    assert (await Player(hub.url).login(ann.email, PASSWORD)).status_code == 200
    await ann.close()


async def test_sign_up_says_nothing_about_whether_an_address_has_an_account(
    hub: HubProcess, mailbox: Mailbox
) -> None:
    owner = await Player(hub.url).signup(name="Owner")
    pending = await Player(hub.url).signup(name="Pending", verify=False)
    prober = Player(hub.url)
    await prober.create_game(opponent="bot")  # a guest, whose id a new account adopts
    fresh = f"fresh{time.time_ns()}@example.org"
    answers = {}
    for email in (fresh, owner.email, pending.email):
        r = await prober.http.post("/api/signup", json={"email": email, "password": NEW_PASSWORD})
        answers[email] = r
        assert r.status_code == 202, r.text
        assert r.json() == {
            "sent": True,
            "email": email,
            "message": f"We sent a link to {email}. Open it to finish signing up.",
        }
        assert "set-cookie" not in r.headers  # nobody is logged in, nobody out
        # Logging in with the password just given fails alike, taken or not.
        login = await Player(hub.url).login(email, NEW_PASSWORD)
        assert login.status_code == 401 and error_of(login) == "bad_credentials"
    assert (await prober.http.get("/api/me")).json()["account"] is False
    # The guest id adopted by the new sign-up does not show as a player before it is confirmed.
    assert (await prober.http.get(f"/api/players/{prober.id}")).status_code == 404
    # Each address got one mail. The new one: its confirmation link.
    await mailbox.wait(fresh, "confirm your email")
    # The confirmed owner: someone tried; log in, or set a new password. Nothing changed.
    tried = await mailbox.wait(owner.email, "someone tried to sign up")
    assert "Owner" in tried.text and f"{hub.url}/login" in tried.text
    assert (await owner.http.get("/api/me")).json()["account"] is True
    assert (await Player(hub.url).login(owner.email, PASSWORD)).status_code == 200
    reset = token_of(tried.link("/reset-password/"))
    r = await prober.http.get(f"/api/password/reset/{reset}")
    assert r.json() == {"email": owner.email}
    # The unconfirmed one: finished by choosing the password, which also confirms it; the
    # first sign-up's password (perhaps a squatter's) stops working.
    finish = await mailbox.wait(pending.email, "finish signing up")
    assert len(mailbox.mails(pending.email, "confirm your email")) == 1  # no second link
    token = token_of(finish.link("/reset-password/"))
    r = await prober.http.post(
        "/api/password/reset", json={"token": token, "password": "the owner's own words"}
    )
    assert r.status_code == 200, r.text
    assert (await Player(hub.url).login(pending.email, PASSWORD)).status_code == 401
    assert (await Player(hub.url).login(pending.email, "the owner's own words")).status_code == 200
    # The first sign-up's link, unused, confirms and logs in nobody any more.
    first = token_of(mailbox.mails(pending.email, "confirm your email")[0].link("/verify-email/"))
    r = await Player(hub.url).http.post(f"/api/verify-email/{first}")
    assert r.status_code == 410 and error_of(r) == "token_used", r.text
    for p in (owner, pending, prober):
        await p.close()


async def test_whoever_signed_up_first_with_an_address_cannot_log_in_once_its_owner_confirms(
    hub: HubProcess, mailbox: Mailbox
) -> None:
    # Pre-account hijacking: a squatter signs up with the owner's address and a password of
    # their own; the owner signs up too, then follows the first mail's link. Confirming
    # outside the browser that signed up sets the password typed there: the squatter's
    # stops working, the owner's works, and the second mail's link ends with it.
    address = f"owner{time.time_ns()}@example.org"
    squatter = await Player(hub.url).guest()  # even from a guest session: not the owner's
    await squatter.signup(email=address, password="the squatter's words", verify=False)
    owner = Player(hub.url)
    await owner.signup(email=address, password="the owner's own words", verify=False)
    first = token_of((await mailbox.wait(address, "confirm your email")).link("/verify-email/"))
    finish = token_of((await mailbox.wait(address, "finish signing up")).link("/reset-password/"))
    assert (await squatter.login(address, "the squatter's words")).status_code == 401
    card = (await owner.http.get(f"/api/verify-email/{first}")).json()
    assert card["asks_password"] is True and card["logs_in"] is True
    r = await owner.http.post(f"/api/verify-email/{first}")  # a click alone confirms nothing
    assert r.status_code == 400 and error_of(r) == "weak_password", r.text
    assert (await squatter.login(address, "the squatter's words")).status_code == 401
    r = await owner.http.post(
        f"/api/verify-email/{first}", json={"password": "the owner's own words"}
    )
    assert r.status_code == 200 and r.json()["logged_in"] is True, r.text
    assert (await owner.http.get("/api/me")).json()["account"] is True
    assert (await Player(hub.url).login(address, "the squatter's words")).status_code == 401
    assert (await Player(hub.url).login(address, "the owner's own words")).status_code == 200
    # The squatter's guest session, which the account adopted the id of, ended.
    assert (await squatter.http.get("/api/me")).json()["id"] is None
    # The "finish signing up" link ended with the password being set.
    r = await owner.http.get(f"/api/password/reset/{finish}")
    assert r.status_code == 410 and error_of(r) == "token_used", r.text
    for p in (squatter, owner):
        await p.close()


async def test_a_link_opened_in_the_browser_that_signed_up_keeps_the_sign_ups_password(
    hub: HubProcess, mailbox: Mailbox
) -> None:
    # That browser's guest session speaks for the new account (its id was adopted), so the
    # link's reader there is the signer: one press, no password asked.
    g = await Player(hub.url).guest()
    await g.signup(verify=False)
    token = token_of((await mailbox.wait(g.email, "confirm your email")).link("/verify-email/"))
    card = (await g.http.get(f"/api/verify-email/{token}")).json()
    assert card["asks_password"] is False and card["logs_in"] is True
    r = await g.http.post(f"/api/verify-email/{token}")
    assert r.status_code == 200 and r.json()["logged_in"] is True, r.text
    assert (await Player(hub.url).login(g.email, g.password)).status_code == 200
    # A weak password typed where one is asked is refused, and the link stays good.
    h = await Player(hub.url).signup(verify=False)
    token = token_of((await mailbox.wait(h.email, "confirm your email")).link("/verify-email/"))
    r = await h.http.post(f"/api/verify-email/{token}", json={"password": "short"})
    assert r.status_code == 400 and error_of(r) == "weak_password"
    r = await h.http.post(f"/api/verify-email/{token}", json={"password": NEW_PASSWORD})
    assert r.status_code == 200, r.text
    assert (await Player(hub.url).login(h.email, h.password)).status_code == 401
    assert (await Player(hub.url).login(h.email, NEW_PASSWORD)).status_code == 200
    for p in (g, h):
        await p.close()


async def test_mail_for_taken_addresses_is_limited_without_saying_so(
    hub: HubProcess, mailbox: Mailbox
) -> None:
    owner = await Player(hub.url).signup()
    prober = Player(hub.url)
    for _ in range(5):
        r = await prober.http.post(
            "/api/signup", json={"email": owner.email, "password": NEW_PASSWORD}
        )
        assert r.status_code == 202  # the fourth and fifth too: the limit does not show
    await mailbox.wait(owner.email, "someone tried to sign up", count=3)
    # Nothing more comes: the fourth and fifth would have been queued with the third, and
    # the outbox hands a queued mail over within its poll (no signal is sent for a mail
    # not sent).
    await asyncio.sleep(1.5)
    assert len(mailbox.mails(owner.email, "someone tried to sign up")) == 3
    await owner.close()
    await prober.close()


async def test_an_unconfirmed_sign_up_releases_its_address(
    hub: HubProcess, redis_sync: redis.Redis, mailbox: Mailbox
) -> None:
    squatter = await Player(hub.url).signup(verify=False)
    due = [m.decode() for m in redis_sync.zrange(keys.unverified(), 0, -1)]
    # Seven days pass (the release is due now) for every unconfirmed sign-up listed.
    redis_sync.zadd(keys.unverified(), dict.fromkeys(due, 0))
    await wait_for(lambda: not redis_sync.zcard(keys.unverified()), "the release sweep", every=0.2)
    owner = await Player(hub.url).signup(email=squatter.email)  # the owner can sign up
    assert owner.me["email"] == squatter.email
    # A confirmed account is never released.
    redis_sync.zadd(keys.unverified(), {owner.id: 0})
    await wait_for(
        lambda: redis_sync.zscore(keys.unverified(), owner.id) is None,
        "the release sweep",
        every=0.2,
    )
    kept = await owner.http.get(f"/api/players/{owner.id}")
    assert kept.status_code == 200  # a confirmed account stays
    await squatter.close()
    await owner.close()


@pytest.mark.parametrize(
    ("token", "code"),
    [
        ("x" * 43, "token_unknown"),  # well formed, never sent: forged
        ("not a token", "token_unknown"),
        ("A" * 200, "token_unknown"),
    ],
)
async def test_forged_tokens_are_told_apart(hub: HubProcess, token: str, code: str) -> None:
    async with httpx.AsyncClient(base_url=hub.url, headers={"Origin": hub.url}) as http:
        for r in (
            await http.get(f"/api/verify-email/{token}"),
            await http.post(f"/api/verify-email/{token}"),
            await http.get(f"/api/password/reset/{token}"),
            await http.post("/api/password/reset", json={"token": token, "password": PASSWORD}),
            await http.post(f"/api/unsubscribe/{token}"),
        ):
            assert r.status_code == 404 and error_of(r) == code, r.text
            assert "not one we sent" in r.json()["message"]


async def test_an_expired_link_says_so(
    hub: HubProcess, mailbox: Mailbox, redis_sync: redis.Redis
) -> None:
    ann = await Player(hub.url).signup(verify=False)
    token = token_of((await mailbox.wait(ann.email, "confirm your email")).link("/verify-email/"))
    # 48 hours pass: the stored expiry is now (the record itself is kept a week longer).
    import hashlib

    key = keys.token("verify", hashlib.sha256(token.encode()).hexdigest())
    redis_sync.hset(key, "expires", "1")
    r = await ann.http.post(f"/api/verify-email/{token}")
    assert r.status_code == 410 and error_of(r) == "token_expired"
    assert "expired" in r.json()["message"] and "new one" in r.json()["message"]
    assert (await ann.login()).status_code == 401  # still unconfirmed: no login
    await ann.close()


# -- resetting the password ----------------------------------------------------------------


async def test_forgot_password_resets_once_and_ends_every_session(
    hub: HubProcess, hub2: HubProcess, mailbox: Mailbox
) -> None:
    ann = await Player(hub.url).signup()
    elsewhere = await Player(hub2.url).start()
    assert (await elsewhere.login(ann.email, PASSWORD)).status_code == 200
    sockets = [await ann.connect(), await elsewhere.connect()]
    stranger = Player(hub.url)
    # The same answer whether or not the address has an account.
    r1 = await stranger.http.post("/api/password/forgot", json={"email": ann.email})
    r2 = await stranger.http.post("/api/password/forgot", json={"email": "nobody@example.org"})
    assert r1.status_code == r2.status_code == 202 and r1.json() == r2.json()
    assert "check your inbox" in r1.json()["message"]
    mail = await mailbox.wait(ann.email, "set a new password")
    assert "30 minutes" in mail.text
    token = token_of(mail.link("/reset-password/"))
    assert (await stranger.http.get(f"/api/password/reset/{token}")).json() == {"email": ann.email}
    # A weak new password is refused and leaves the link good.
    r = await stranger.http.post("/api/password/reset", json={"token": token, "password": "short"})
    assert r.status_code == 400 and error_of(r) == "weak_password"
    r = await stranger.http.post(
        "/api/password/reset", json={"token": token, "password": NEW_PASSWORD}
    )
    assert r.status_code == 200 and r.json() == {"ended": 2}
    for sock in sockets:
        assert await sock.close_code() == 4004
    r = await stranger.http.post(
        "/api/password/reset", json={"token": token, "password": NEW_PASSWORD + "!"}
    )
    assert r.status_code == 410 and error_of(r) == "token_used"
    assert (await ann.login(ann.email, PASSWORD)).status_code == 401
    assert (await ann.login(ann.email, NEW_PASSWORD)).status_code == 200
    # (A reset link confirms an unconfirmed address too: test_sign_up_says_nothing_...)
    assert not mailbox.mails("nobody@example.org")
    for p in (ann, elsewhere, stranger):
        await p.close()


async def test_forgot_password_is_limited_and_checks_the_address(hub: HubProcess) -> None:
    async with httpx.AsyncClient(base_url=hub.url, headers={"Origin": hub.url}) as http:
        r = await http.post("/api/password/forgot", json={"email": "not an address"})
        assert r.status_code == 400 and error_of(r) == "bad_email"
        r = await http.post("/api/password/forgot", json={"email": "a@b.org", "extra": 1})
        assert r.status_code == 400 and error_of(r) == "bad_field"
        email = f"limit{time.time_ns()}@example.org"
        for _ in range(3):
            assert (
                await http.post("/api/password/forgot", json={"email": email})
            ).status_code == 202
        r = await http.post("/api/password/forgot", json={"email": email})
        assert r.status_code == 429 and "to this email address" in r.json()["message"]
        r = await http.post(
            "/api/password/forgot",
            json={"email": email},
            headers={"Origin": "https://evil.example"},
        )
        assert r.status_code == 403 and error_of(r) == "forbidden"


# -- move reminders --------------------------------------------------------------------------

# 0.005: an hour per move is 18 s; "a quarter left" comes 13.5 s after the move.
FAST = {"BRANDUBH_TIME_SCALE": "0.005", "BRANDUBH_SCHEDULER_POLL_S": "0.05"}
YOUR_MOVE, QUARTER = "your move against", "a quarter of your time is left"


def logged(hub: HubProcess, text: str) -> bool:
    return any(text in line for line in hub.log)


async def idle(sockets: dict[str, Socket], seconds: float) -> None:
    """Let time pass with the sockets open, answering their pings."""

    async def pump(sock: Socket) -> None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                while True:
                    await sock.recv(timeout=seconds + 1)

    await asyncio.gather(*(pump(s) for s in sockets.values()))


async def mail_while_seated(
    sockets: dict[str, Socket], box: Mailbox, to: str, subject: str, timeout: float = 30
) -> Any:
    """Wait for a mail with the sockets open, answering their pings."""
    deadline = time.monotonic() + timeout
    while not box.mails(to, subject):
        assert time.monotonic() < deadline, f"no mail to {to} about {subject!r}"
        await idle(sockets, 0.1)
    return box.mails(to, subject)[0]


async def test_move_reminders_once_each_per_move_and_unsubscribe(
    start_hub: Any, fresh_redis_url: str, mailbox: Mailbox
) -> None:
    hub = start_hub(FAST, redis=fresh_redis_url)
    game, alice, bob = await friend_game(hub.url, move_time=3600)
    state = (await alice.game(game))["state"]
    first, second = (alice, bob) if side_of(state, alice) == state["turn"] else (bob, alice)
    # Nobody is connected: the player on turn hears of it.
    mail = await mailbox.wait(first.email, YOUR_MOVE)
    other = second.me["name"]
    assert mail.subject.endswith(f"your move against {other}")
    assert f"{hub.url}/g/{game}" in mail.text and f"{hub.url}/g/{game}" in mail.html
    assert "Nielsen, 1 hour per move" in mail.text
    assert re.search(r"Move by \w+ \d\d:\d\d UTC, in (\d+ seconds?|less than a minute)", mail.text)
    unsubscribe = mail.message["List-Unsubscribe"].strip("<>")
    assert unsubscribe.startswith(f"{hub.url}/api/unsubscribe/")
    assert mail.message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert mail.link("/unsubscribe/") in mail.html and "<img" not in mail.html

    sockets = await seated(game, first, second)
    await idle(sockets, 1.5)  # each hub marks its players connected within a second
    line = quiet_line(4)
    await play(sockets, first, game, line[:1])
    # The second player is connected: no "your move", but a quarter of the time left.
    mail = await mail_while_seated(sockets, mailbox, second.email, QUARTER)
    assert f"against {first.me['name']}" in mail.subject and "quarter" in mail.text
    await play(sockets, first, game, line[1:2])
    # The first player unsubscribes with one click, as a mail program does it.
    async with httpx.AsyncClient() as anyone:
        r = await anyone.post(unsubscribe, content=b"List-Unsubscribe=One-Click")
    assert r.status_code == 200 and r.json() == {"reminders": False, "email": first.email}
    assert (await first.http.get("/api/mail")).json()["reminders"] is False
    await idle(sockets, 15)  # past this move's quarter: no mail, they unsubscribed
    await play(sockets, first, game, line[2:3])
    await play(sockets, first, game, line[3:4])  # at once: "none once you moved"
    await idle(sockets, 2)
    # Each reminder came once.
    assert len(mailbox.mails(first.email, YOUR_MOVE)) == 1
    assert len(mailbox.mails(first.email, QUARTER)) == 0
    assert len(mailbox.mails(second.email, YOUR_MOVE)) == 0
    assert len(mailbox.mails(second.email, QUARTER)) == 1
    # Turned on again from the account's settings.
    r = await first.http.post("/api/reminders", json={"on": True})
    assert r.status_code == 200 and r.json() == {"reminders": True}
    r = await first.http.post("/api/reminders", json={"on": "yes"})
    assert r.status_code == 400 and error_of(r) == "bad_field"
    for sock in sockets.values():
        await sock.close()
    for p in (alice, bob):
        await p.close()


async def test_no_reminders_for_short_moves(
    start_hub: Any, fresh_redis_url: str, mailbox: Mailbox
) -> None:
    hub = start_hub(FAST, redis=fresh_redis_url)
    game, alice, bob = await friend_game(hub.url, move_time=1800)  # 9 s a move here

    async def ended() -> bool:
        return bool((await alice.game(game))["state"]["status"] == "ended")

    # Lost on time, unwarned: a reminder due at the move's start or its quarter would have
    # been queued seconds before the end.
    await wait_for(ended, "the game lost on time", 30, 0.2)
    assert not mailbox.mails(alice.email, YOUR_MOVE) and not mailbox.mails(bob.email, YOUR_MOVE)
    assert not mailbox.mails(alice.email, QUARTER) and not mailbox.mails(bob.email, QUARTER)
    await alice.close()
    await bob.close()


async def test_reminders_exactly_once_with_two_hubs_and_one_killed(
    start_hub: Any, fresh_redis_url: str, mailbox: Mailbox
) -> None:
    a = start_hub(FAST, redis=fresh_redis_url)
    b = start_hub(FAST, redis=fresh_redis_url)
    games = [await friend_game(a.url, joiner_base=b.url, move_time=3600) for _ in range(4)]
    a.kill()  # whatever it had claimed or indexed, b takes over after the leases
    on_turn = []
    for game, alice, bob in games:
        state = (await bob.game(game))["state"]
        on_turn.append(alice if side_of(state, alice) == state["turn"] else bob)
    # A reminder a held is claimed again after its lease (shorter than these moves); a mail
    # a had taken from the outbox, after the outbox's lease.
    move_ms = 3600 * 1000 * float(FAST["BRANDUBH_TIME_SCALE"])
    assert move_ms / 2 > reminders.CLAIM_LEASE_MS, "the games would end before a re-claim"
    wait_s = outbox.LEASE_MS / 1000 + 20
    try:
        for p in on_turn:
            await mailbox.wait(p.email, YOUR_MOVE, timeout=wait_s)
            await mailbox.wait(p.email, QUARTER, timeout=wait_s)
    except AssertionError:
        print("".join(line for line in b.log if not line.startswith(" "))[-4000:])
        raise
    # Nothing more comes: a reminder claimed twice would be mailed with the first (no signal
    # is sent for a mail not sent).
    await asyncio.sleep(3)
    for p in on_turn:
        assert len(mailbox.mails(p.email, YOUR_MOVE)) == 1
        assert len(mailbox.mails(p.email, QUARTER)) == 1
    for _, alice, bob in games:
        await alice.close()
        await bob.close()


# -- delivery ----------------------------------------------------------------------------------


async def test_mail_waits_out_an_smtp_outage_and_none_is_lost(
    start_hub: Any, fresh_redis_url: str
) -> None:
    box = Mailbox()  # down at first
    hub = start_hub({"BRANDUBH_SMTP_URL": box.url}, redis=fresh_redis_url)
    players = [await Player(hub.url).signup(verify=False) for _ in range(3)]
    await wait_for(lambda: logged(hub, "mail delivery failed"), "a delivery failing")
    box.start()
    box.refuse = True  # up, but answering "451 try again later"
    await wait_for(lambda: logged(hub, "deferred"), "a mail deferred by the refusing server")
    assert not box.received
    box.refuse = False
    for p in players:
        await box.wait(p.email, "confirm your email", timeout=30)
    # None comes twice: a mail sent and also kept to retry would come again within its
    # retry's pause (no signal is sent for a mail not sent).
    await asyncio.sleep(2)
    assert sorted(m.to for m in box.received) == sorted((p.email,) for p in players)
    # Each confirms from its own mail.
    for p in players:
        token = token_of(box.mails(p.email)[0].link("/verify-email/"))
        r = await p.http.post(f"/api/verify-email/{token}", json={"password": p.password})
        assert r.status_code == 200, r.text
        await p.close()
    box.stop()


async def test_without_smtp_mail_is_written_to_files_and_logged(
    start_hub: Any, fresh_redis_url: str, tmp_path: Path
) -> None:
    folder = tmp_path / "mail"
    hub = start_hub(
        {"BRANDUBH_SMTP_URL": "", "BRANDUBH_MAIL_DIR": str(folder)}, redis=fresh_redis_url
    )
    ann = await Player(hub.url).signup(verify=False)
    await wait_for(lambda: any(folder.glob("*.eml")), "a mail in the folder", timeout=15)
    from email import message_from_bytes, policy

    (path,) = folder.glob("*.eml")
    msg = message_from_bytes(path.read_bytes(), policy=policy.default)
    assert msg["To"] == ann.email and "confirm your email" in str(msg["Subject"])
    body = msg.get_body(("plain",))
    assert body is not None
    link = next(u for u in re.findall(r"https?://\S+", body.get_content()) if "verify-email" in u)
    await wait_for(lambda: any(link in line for line in hub.log), "the link logged", timeout=10)
    r = await ann.http.post(f"/api/verify-email/{token_of(link)}", json={"password": ann.password})
    assert r.status_code == 200, r.text
    await ann.close()


def test_a_bad_smtp_url_stops_the_hub_saying_why(start_hub: Any) -> None:
    with pytest.raises(RuntimeError) as info:
        start_hub({"BRANDUBH_SMTP_URL": "http://mail.example.org"})
    assert "hub exited at start" in str(info.value)
    assert "BRANDUBH_SMTP_URL must look like smtp://" in str(info.value)
