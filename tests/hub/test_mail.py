"""Mail over a real SMTP server (aiosmtpd): confirming addresses, resetting passwords,
move reminders and unsubscribing, bad tokens, and delivery through an SMTP outage and a
killed hub. The tests read the mails and follow their links, as a person would."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import redis

from brandubh.hub import keys
from mailbox_smtp import Mailbox
from services import HubProcess
from wsclient import PASSWORD, Player, Socket

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
    assert (await ann.http.get("/api/mail")).json() == {
        "email": ann.email,
        "verified": False,
        "reminders": True,
    }
    mail = await mailbox.wait(ann.email, "confirm your email")
    assert mail.message["From"] and mail.message["Message-ID"]
    assert "Ann Mail" in mail.text and "48 hours" in mail.text
    link = mail.link("/verify-email/")
    assert link.startswith(hub.url + "/verify-email/")  # the site's own address
    assert link in mail.html and "<img" not in mail.html  # no tracking pixel
    # The page of the link is the client's; looking does not use the link up.
    token = token_of(link)
    assert (await ann.http.get(urlsplit(link).path)).status_code in (200, 503)
    assert (await ann.http.get(f"/api/verify-email/{token}")).json() == {"email": ann.email}
    r = await ann.http.post(f"/api/verify-email/{token}")
    assert r.status_code == 200 and r.json() == {"verified": True, "email": ann.email}
    assert (await ann.http.get("/api/mail")).json()["verified"] is True
    # Used: the same link again says so.
    r = await ann.http.post(f"/api/verify-email/{token}")
    assert r.status_code == 410 and error_of(r) == "token_used"
    assert "used already" in r.json()["message"] and "new one" in r.json()["message"]
    await ann.close()


async def test_an_unconfirmed_account_plays_the_bot_but_not_people(hub: HubProcess) -> None:
    ann = await Player(hub.url).signup(verify=False)
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
    # Once confirmed, all of it works.
    await ann.verify()
    r = await ann.http.post(f"/api/games/{gid}/join", json={"invite": invite})
    assert r.status_code == 200, r.text
    await ann.close()
    await bob.close()


async def test_resending_the_link_is_limited(hub: HubProcess, mailbox: Mailbox) -> None:
    ann = await Player(hub.url).signup(verify=False)
    for _ in range(3):
        r = await ann.http.post("/api/verify-email/resend")
        assert r.status_code == 202, r.text
    r = await ann.http.post("/api/verify-email/resend")
    assert r.status_code == 429 and error_of(r) == "rate_limited"
    assert int(r.headers["Retry-After"]) > 0 and "verification mails" in r.json()["message"]
    # Four links were mailed (the sign-up's and three more); any one confirms.
    await ann.verify(count=4)
    r = await ann.http.post("/api/verify-email/resend")
    assert r.status_code == 409 and error_of(r) == "already_verified"
    await ann.close()


async def test_an_unconfirmed_sign_up_releases_its_address(
    hub: HubProcess, redis_sync: redis.Redis
) -> None:
    squatter = await Player(hub.url).signup(verify=False)
    sock = await squatter.connect()
    # Seven days pass (the release is due now).
    redis_sync.zadd(keys.unverified(), {squatter.id: 0})
    assert await sock.close_code(timeout=30) == 4004  # the squatter's sessions end
    assert redis_sync.hget(keys.emails(), squatter.email) is None
    owner = await Player(hub.url).signup(email=squatter.email)  # the owner can sign up
    assert owner.id != squatter.id
    # A confirmed account is never released.
    redis_sync.zadd(keys.unverified(), {owner.id: 0})
    deadline = time.monotonic() + 30
    while redis_sync.zscore(keys.unverified(), owner.id) is not None:
        assert time.monotonic() < deadline, "the release sweep did not run"
        await asyncio.sleep(0.2)
    assert redis_sync.hget(keys.emails(), owner.email) == owner.id.encode()
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
    assert (await ann.http.get("/api/mail")).json()["verified"] is False
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
    assert (await stranger.http.get(f"/api/password/reset/{token}")).json() == {
        "email": ann.email
    }
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
            assert (await http.post("/api/password/forgot", json={"email": email})).status_code == 202
        r = await http.post("/api/password/forgot", json={"email": email})
        assert r.status_code == 429 and "to this email address" in r.json()["message"]
        r = await http.post(
            "/api/password/forgot", json={"email": email}, headers={"Origin": "https://evil.example"}
        )
        assert r.status_code == 403 and error_of(r) == "forbidden"
