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
from test_lifecycle import play, quiet_line

from brandubh.hub import keys
from mailbox_smtp import Mailbox
from services import HubProcess
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
    gone = await squatter.http.get(f"/api/players/{squatter.id}")
    assert gone.status_code == 404  # the account is deleted from PostgreSQL
    owner = await Player(hub.url).signup(email=squatter.email)  # the owner can sign up
    assert owner.id != squatter.id
    # A confirmed account is never released.
    redis_sync.zadd(keys.unverified(), {owner.id: 0})
    deadline = time.monotonic() + 30
    while redis_sync.zscore(keys.unverified(), owner.id) is not None:
        assert time.monotonic() < deadline, "the release sweep did not run"
        await asyncio.sleep(0.2)
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
    assert (await ann.http.get("/api/mail")).json()["verified"] is False
    await ann.close()


# -- resetting the password ----------------------------------------------------------------


async def test_forgot_password_resets_once_and_ends_every_session(
    hub: HubProcess, hub2: HubProcess, mailbox: Mailbox
) -> None:
    ann = await Player(hub.url).signup(verify=False)  # someone else's address, say
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
    # The link reached the address: the address is confirmed too.
    assert (await ann.http.get("/api/mail")).json()["verified"] is True
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


async def wait_until(pred: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


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
    await asyncio.sleep(11)  # the game is lost on time, unwarned
    assert (await alice.game(game))["state"]["status"] == "ended"
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
    for p in on_turn:
        await mailbox.wait(p.email, YOUR_MOVE, timeout=45)
        await mailbox.wait(p.email, QUARTER, timeout=45)
    await asyncio.sleep(3)  # the games are lost on time: nothing more comes
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
    await asyncio.sleep(1.5)
    box.start()
    box.refuse = True  # up, but answering "451 try again later"
    await asyncio.sleep(1.5)
    assert not box.received
    box.refuse = False
    for p in players:
        await box.wait(p.email, "confirm your email", timeout=30)
    await asyncio.sleep(2)
    assert sorted(m.to for m in box.received) == sorted((p.email,) for p in players)
    # Each confirms from its own mail.
    for p in players:
        token = token_of(box.mails(p.email)[0].link("/verify-email/"))
        assert (await p.http.post(f"/api/verify-email/{token}")).status_code == 200
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
    await wait_until(lambda: any(folder.glob("*.eml")), timeout=15)
    from email import message_from_bytes, policy

    (path,) = folder.glob("*.eml")
    msg = message_from_bytes(path.read_bytes(), policy=policy.default)
    assert msg["To"] == ann.email and "confirm your email" in str(msg["Subject"])
    body = msg.get_body(("plain",))
    assert body is not None
    link = next(u for u in re.findall(r"https?://\S+", body.get_content()) if "verify-email" in u)
    await wait_until(lambda: any(link in line for line in hub.log), timeout=10)
    assert (await ann.http.post(f"/api/verify-email/{token_of(link)}")).status_code == 200
    await ann.close()


def test_a_bad_smtp_url_stops_the_hub_saying_why(start_hub: Any) -> None:
    with pytest.raises(RuntimeError) as info:
        start_hub({"BRANDUBH_SMTP_URL": "http://mail.example.org"})
    assert "hub exited at start" in str(info.value)
    assert "BRANDUBH_SMTP_URL must look like smtp://" in str(info.value)
