"""The mail modules up close: times in words, which reminders a game's state calls for, the
SMTP URL, and the outbox's promise step by step on a real Redis and a real SMTP server
(a hand-over whose hub died is not sent again; a permanent refusal is not retried)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from brandubh.hub.live import GameState, Player
from brandubh.hub.mail import mails
from brandubh.hub.mail.outbox import (
    FileTransport,
    MailSettingsError,
    Outbox,
    SmtpTarget,
    SmtpTransport,
)
from brandubh.hub.mail.reminders import entries
from brandubh.hub.redis import keys
from brandubh.hub.redis.scripts import Scripts
from mailbox_smtp import Mailbox
from waiting import wait_for

HOUR_MS = 3600 * 1000
THU = 1796306700000  # Thursday 3 December 2026, 14:05 UTC


def test_when_says_the_day_time_and_distance() -> None:
    assert mails.when(THU, THU - 5 * HOUR_MS) == "Thursday 14:05 UTC, in 5 hours"
    assert mails.when(THU, THU - 45 * 60_000) == "Thursday 14:05 UTC, in 45 minutes"
    assert mails.when(THU, THU - 3 * 24 * HOUR_MS) == "Thursday 14:05 UTC, in 3 days"
    assert mails.when(THU, THU - 7 * 24 * HOUR_MS) == "Thursday 3 December 14:05 UTC, in 7 days"
    assert mails.when(THU, THU + 1000).endswith("in less than a minute")
    assert [mails.lifetime(s) for s in (1800, 3600, 48 * 3600, 3 * 86400, 90 * 60)] == [
        "30 minutes", "1 hour", "48 hours", "3 days", "90 minutes"
    ]  # fmt: skip


def state(**over: Any) -> GameState:
    """A friend game of an hour per move, ply 4, the attacker Ann on turn."""
    ann, bob = Player("u_ann", "Ann"), Player("u_bob", "Bob")
    base = GameState(
        id="G1", ruleset="nielsen", status="active", seq=5, ply=4, created=0,
        move_time=3600, opponent="friend", bot_level=0, creator=ann, joiner=bob,
        attacker=ann.id, defender=bob.id, turn=ann.id, snap=b"", moves=(), commitment="",
        invite="", result=None, deadline=THU,
    )  # fmt: skip
    return replace(base, **over)


def test_a_bad_link_says_how_long_links_of_its_kind_last() -> None:
    from brandubh.hub.mail.tokens import refusal

    reset = refusal("unknown", "reset").message
    assert "a password-reset link works for 30 minutes" in reset and "week" not in reset
    assert "works for 48 hours" in refusal("expired", "verify").message
    assert "works for" not in refusal("used", "reset").message  # age is not why


def test_reminders_say_the_time_per_move_as_the_site_does() -> None:
    assert [mails.move_time(s) for s in (60, 3600, 86400, 3 * 86400)] == [
        "1 minute",
        "1 hour",
        "1 day",
        "3 days",
    ]


def test_the_mails_for_a_sign_up_with_a_taken_address() -> None:
    login, reset = "https://b.test/login", "https://b.test/reset-password/" + "t" * 43
    taken = mails.signup_taken("ann@example.org", "Ann", login, reset, 1800)
    assert "someone tried to sign up" in taken.subject and taken.link == reset
    assert login in taken.text and reset in taken.text and "30 minutes" in taken.text
    assert "password stays as it is" in taken.text
    pending = mails.signup_pending("bo@example.org", "Bo", reset, 1800)
    assert "finish signing up" in pending.subject and pending.link == reset
    assert "confirms the address" in pending.text and "stops working" in pending.text
    for mail in (taken, pending):
        assert reset in mail.html and "<img" not in mail.html


def test_which_reminders_a_games_state_calls_for() -> None:
    now = THU - HOUR_MS
    assert entries(state(), now, 1.0) == {
        "G1|4|move": now + 60_000,
        "G1|4|quarter": THU - HOUR_MS // 4,
    }
    # Short moves scale the wait for "your move" down with them (tests' time scale too).
    assert entries(state(), now, 0.01)["G1|4|move"] == now + 36_000 // 60
    for off in (
        {"move_time": 1800},
        {"opponent": "bot"},
        {"status": "ended"},
        {"status": "waiting"},
        {"deadline": 0},
        {"turn": ""},
    ):
        assert entries(state(**off), now, 1.0) == {}, off


@pytest.mark.parametrize(
    ("url", "target"),
    [
        ("smtp://mail.example.org", SmtpTarget("mail.example.org", 587, False, "", "")),
        (
            "smtps://u%40x:p%3Aw@mx.example.org",
            SmtpTarget("mx.example.org", 465, True, "u@x", "p:w"),
        ),
        ("smtp://a:b@127.0.0.1:2525", SmtpTarget("127.0.0.1", 2525, False, "a", "b")),
    ],
)
def test_smtp_urls(url: str, target: SmtpTarget) -> None:
    assert SmtpTarget.parse(url) == target


@pytest.mark.parametrize("url", ["http://x.org", "smtp://", "mail.example.org", "smtp://h:port"])
def test_bad_smtp_urls_say_what_to_write(url: str) -> None:
    with pytest.raises(MailSettingsError, match=r"smtp://|port"):
        SmtpTarget.parse(url)


# -- the outbox's promise, step by step -------------------------------------------------------


@pytest.fixture
async def fresh(fresh_redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(fresh_redis_url)
    yield client
    await client.aclose()


def outbox(r: aioredis.Redis, transport: Any) -> Outbox:
    return Outbox(r, Scripts.register(r), transport, "Test <t@example.org>", lambda: 0, 0.05)


def a_mail(to: str) -> mails.Mail:
    return mails.verification(to, "Ann", "http://x/verify-email/abc", 3600)


async def holds_no_link(r: aioredis.Redis, mail_id: str) -> bool:
    """A mail that will not be sent again keeps neither its content nor its link (the
    token in it is live: a Redis backup or AOF must not hold it)."""
    job = await r.hgetall(keys.mail_job(mail_id))
    assert job, "the mail's record is gone: its id could be queued again"
    return not any(b"verify-email/abc" in value for value in job.values()) and not (
        {b"msg", b"link"} & set(job)
    )


async def test_a_mail_handed_over_by_a_hub_that_died_is_not_sent_again(
    fresh: aioredis.Redis, tmp_path: Path
) -> None:
    box = outbox(fresh, FileTransport(tmp_path))
    assert await box.send(a_mail("ann@example.org"), mail_id="m1")
    assert not await box.send(a_mail("ann@example.org"), mail_id="m1")  # one id, once
    # A hub claims it and hands it over, then dies before recording the answer.
    await box.scripts.claim(keys=[keys.outbox()], args=[60_000, 10])
    await box._step("take", "m1", "dead-hub", 60_000)
    assert await box._step("hand", "m1", "dead-hub", 60_000) == 1
    await fresh.zadd(keys.outbox(), {"m1": 0})  # its lease ran out
    assert await box.deliver() == 0
    assert not list(tmp_path.glob("*.eml"))  # not sent again...
    assert await fresh.lrange(keys.mail_unsure(), 0, -1) == [b"m1"]  # ...but listed
    assert await holds_no_link(fresh, "m1")
    assert await fresh.zcard(keys.outbox()) == 0


async def test_delivered_once_then_kept_as_sent(fresh: aioredis.Redis, tmp_path: Path) -> None:
    box = outbox(fresh, FileTransport(tmp_path))
    await box.send(a_mail("ann@example.org"), mail_id="m2")
    assert await box.deliver() == 1
    assert await box.deliver() == 0
    assert len(list(tmp_path.glob("*.eml"))) == 1
    assert await fresh.hget(keys.mail_job("m2"), "state") == b"sent"
    assert await fresh.hget(keys.mail_job("m2"), "msg") is None  # the content is dropped
    assert await holds_no_link(fresh, "m2")  # and the link with its token
    assert 0 < await fresh.ttl(keys.mail_job("m2")) <= 7 * 24 * 3600
    assert not await box.send(a_mail("ann@example.org"), mail_id="m2")


async def test_a_permanent_refusal_is_not_retried_a_temporary_one_is(
    fresh: aioredis.Redis,
) -> None:
    server = Mailbox().start()
    try:
        box = outbox(fresh, SmtpTransport(SmtpTarget.parse(server.url), "t@example.org"))
        server.refuse, server.refusal = True, "550 5.1.1 no such user"
        await box.send(a_mail("gone@example.org"), mail_id="m3")
        await box.deliver()
        assert await fresh.lrange(keys.mail_dead(), 0, -1) == [b"m3"]
        assert await holds_no_link(fresh, "m3")
        server.refusal = "451 4.3.0 try again later"
        await box.send(a_mail("later@example.org"), mail_id="m4")
        await box.deliver()
        assert await fresh.hget(keys.mail_job("m4"), "state") == b"queued"
        assert await fresh.hget(keys.mail_job("m4"), "tries") == b"1"
        server.refuse = False
        await wait_for(box.deliver, "the retry's delivery", 5)  # its pause (50 ms, doubling)
        assert [m.to for m in server.received] == [("later@example.org",)]
        msg = server.received[0].message
        assert msg["Message-ID"].startswith("<") and "m4" in msg["Message-ID"]
        assert msg["Auto-Submitted"] == "auto-generated"
    finally:
        server.stop()


async def test_a_reminder_fires_only_while_due_and_moves_with_its_deadline(
    fresh: aioredis.Redis, tmp_path: Path, store: Any
) -> None:
    from brandubh.hub.accounts.accounts import Accounts
    from brandubh.hub.accounts.sessions import Sessions
    from brandubh.hub.config import Settings
    from brandubh.hub.live.games import GameService
    from brandubh.hub.live.state import Player
    from brandubh.hub.mail.reminders import Reminders
    from brandubh.hub.mail.tokens import Tokens
    from brandubh.hub.wire.sockets import Sockets

    scripts = Scripts.register(fresh)
    games = GameService(fresh, scripts, archive=store)
    accounts = Accounts(fresh, scripts, Sessions(fresh), Settings(), store)
    box = outbox(fresh, FileTransport(tmp_path))
    reminders = Reminders(
        fresh, scripts, games, lambda game_id: None,  # (nothing is indexed here)
        accounts, Tokens(fresh, scripts), box, Sockets(), "http://x",
        lambda: int(time.time() * 1000),
    )  # fmt: skip
    ann, bob = Player("u_ann", "Ann"), Player("u_bob", "Bob")
    state, _ = await games.create(ann, "nielsen", 3600, "friend", joiner=bob)
    index = keys.reminders(keys.bucket(state.id))
    # The quarter is 45 minutes away: put back at its time (an outage may have moved it).
    assert await reminders.fire(f"{state.id}|{state.ply}|quarter") == "later"
    assert await fresh.zscore(index, f"{state.id}|{state.ply}|quarter") == state.deadline - 900_000
    # No account behind the player on turn (these two have none): nothing to send.
    assert await reminders.fire(f"{state.id}|{state.ply}|move") == "dropped"
    # A ply that is past: dropped.
    assert await reminders.fire(f"{state.id}|{state.ply + 1}|move") == "dropped"
    assert not list(tmp_path.glob("*.eml"))
