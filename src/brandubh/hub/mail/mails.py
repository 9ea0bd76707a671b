"""The mails the service writes, composed from their facts: pure, no I/O.

Each is plain text and HTML with the same words and links; no images and nothing loaded
from elsewhere, so opening a mail tells nobody anything (no tracking pixels). Times are
given in UTC with how far away they are ("Thursday 14:05 UTC, in 5 hours"): the service
does not know the reader's time zone, and the distance is what they act on.
"""

from __future__ import annotations

import html
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from typing import Final

SITE: Final = "Brandubh Live"


@dataclass(frozen=True)
class Mail:
    """One mail, ready to queue: ``link`` is the one a reader is meant to follow (logged
    when mail is written to files instead of sent)."""

    to: str
    subject: str
    text: str
    html: str
    link: str
    headers: dict[str, str] = field(default_factory=dict)

    def message(self, sender: str, mail_id: str, now_s: float | None = None) -> EmailMessage:
        """The RFC 5322 message; its Message-ID is fixed by the mail id, so that a mail
        sent twice (docs/accounts.md, "the promise") reads as one in most mail programs."""
        msg = EmailMessage()
        msg["From"] = sender
        msg["To"] = self.to
        msg["Subject"] = self.subject
        msg["Date"] = format_datetime(datetime.fromtimestamp(now_s or time.time(), UTC))
        domain = sender.rsplit("@", 1)[-1].strip(" >") or "localhost"
        msg["Message-ID"] = make_msgid(idstring=mail_id.replace("|", "."), domain=domain)
        msg["Auto-Submitted"] = "auto-generated"
        for name, value in self.headers.items():
            msg[name] = value
        msg.set_content(self.text)
        msg.add_alternative(self.html, subtype="html")
        return msg


def when(at_ms: int, now_ms: int) -> str:
    """A moment in the reader's terms: "Thursday 14:05 UTC, in 5 hours"."""
    moment = datetime.fromtimestamp(at_ms / 1000, UTC)
    left_s = max(0, (at_ms - now_ms) // 1000)
    day = moment.strftime("%A") if left_s < 6 * 86400 else moment.strftime("%A %-d %B")
    return f"{day} {moment:%H:%M} UTC, {distance(left_s)}"


def distance(seconds: int) -> str:
    """How far away, rounded to what matters: "in 45 minutes", "in 5 hours", "in 2 days"."""
    if seconds < 60:
        return "in less than a minute"
    if seconds < 90 * 60:
        n, unit = round(seconds / 60), "minute"
    elif seconds < 48 * 3600:
        n, unit = round(seconds / 3600), "hour"
    else:
        n, unit = round(seconds / 86400), "day"
    return f"in {n} {unit}{'s' if n != 1 else ''}"


def lifetime(seconds: int) -> str:
    """A span in words: "30 minutes", "1 hour", "48 hours", "3 days"."""
    if seconds > 2 * 86400 and seconds % 86400 == 0:
        n, unit = seconds // 86400, "day"
    elif seconds >= 3600 and seconds % 3600 == 0:
        n, unit = seconds // 3600, "hour"
    else:
        n, unit = seconds // 60, "minute"
    return f"{n} {unit}{'s' if n != 1 else ''}"


def move_time(seconds: int) -> str:
    """A time per move as the site writes it (the client's ``durationText``): in the largest
    unit that divides it, "3 minutes", "1 hour", "1 day", "7 days"."""
    for size, unit in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if seconds >= size and seconds % size == 0:
            n = seconds // size
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return f"{seconds} second{'s' if seconds != 1 else ''}"


def ruleset_name(ruleset: str) -> str:
    """A rule set as docs/rules.md names it: "Nielsen", "Federation"."""
    return ruleset.capitalize()


def _page(
    lines: list[str], link: str, button: str, after: list[str], footer: tuple[str, str] = ("", "")
) -> str:
    """The HTML body: paragraphs, one button-like link, more paragraphs, a footer link."""
    paras = "".join(f"<p>{html.escape(line)}</p>" for line in lines)
    more = "".join(f"<p>{html.escape(line)}</p>" for line in after)
    if footer[0]:
        more += (
            f'<p style="font-size: 90%"><a href="{html.escape(footer[1], quote=True)}">'
            f"{html.escape(footer[0])}</a></p>"
        )
    href = html.escape(link, quote=True)
    return (
        '<!doctype html><html><body style="font-family: sans-serif; line-height: 1.5">'
        f"{paras}"
        f'<p><a href="{href}" style="display: inline-block; padding: 8px 16px; '
        f'background: #2f5d3a; color: #fff; text-decoration: none">{html.escape(button)}</a></p>'
        f'<p style="font-size: 90%">Or open this address: {html.escape(link)}</p>'
        f"{more}</body></html>"
    )


def _one_link(
    to: str, subject: str, lines: list[str], link: str, button: str, after: list[str]
) -> Mail:
    """A mail of paragraphs, one link (a button in HTML), more paragraphs."""
    text = "\n\n".join([*lines, link, *after]) + "\n"
    return Mail(to, subject, text, _page(lines, link, button, after), link)


def verification(to: str, name: str, link: str, lifetime_s: int) -> Mail:
    lines = [
        f"Hello {name},",
        f"please confirm that this is your address for {SITE}: then you can play people, "
        "be rated and appear on the leaderboards.",
    ]
    after = [
        f"The link works once, for {lifetime(lifetime_s)}; you can ask for a new one on the site.",
        "If you did not sign up, ignore this mail: the address is released again after 7 days.",
    ]
    return _one_link(
        to, f"{SITE}: confirm your email address", lines, link, "Confirm my address", after
    )


def signup_taken(to: str, name: str, login_link: str, reset_link: str, lifetime_s: int) -> Mail:
    """To the owner of a confirmed address someone signed up with again."""
    lines = [
        f"Hello {name},",
        f"someone tried to sign up for {SITE} with this address, which has an account "
        "already. If it was you, log in instead:",
        login_link,
        "If you have forgotten the password, set a new one with the link below.",
    ]
    after = [
        f"The link works once, for {lifetime(lifetime_s)}.",
        "If it was not you, ignore this mail: nothing changed, your password stays as it is.",
    ]
    return _one_link(
        to,
        f"{SITE}: someone tried to sign up with your address",
        lines,
        reset_link,
        "Set a new password",
        after,
    )


def signup_pending(to: str, name: str, reset_link: str, lifetime_s: int) -> Mail:
    """To an address signed up with again while its first sign-up is still unconfirmed."""
    lines = [
        f"Hello {name},",
        f"someone (we hope you) signed up for {SITE} again with this address, whose first "
        "sign-up is not confirmed yet.",
        "To finish signing up, choose the account's password with this link: it confirms "
        "the address too, and whatever password the first sign-up chose stops working.",
    ]
    after = [
        f"The link works once, for {lifetime(lifetime_s)}.",
        "If you did not sign up, ignore this mail: the address is released again 7 days "
        "after the first sign-up.",
    ]
    return _one_link(
        to, f"{SITE}: finish signing up", lines, reset_link, "Choose my password", after
    )


def reset(to: str, link: str, lifetime_s: int) -> Mail:
    lines = [
        f"Someone (we hope you) asked to set a new password for your {SITE} account.",
        "Open this link to choose one; every other session of the account is logged out.",
    ]
    after = [
        f"The link works once, for {lifetime(lifetime_s)}.",
        "If you did not ask, ignore this mail: your password stays as it is.",
    ]
    return _one_link(to, f"{SITE}: set a new password", lines, link, "Set a new password", after)


@dataclass(frozen=True)
class Reminder:
    """What a move reminder says: whose move, in which game, until when."""

    to: str
    name: str
    opponent: str
    ruleset: str
    move_time_s: int
    deadline_ms: int
    now_ms: int
    game_link: str
    unsubscribe_page: str  # a page with one button, for people
    unsubscribe_post: str  # the one-click address mail programs POST to (RFC 8058)
    quarter: bool  # the "a quarter of the time is left" reminder, else "it is your move"


def reminder(r: Reminder) -> Mail:
    moment = when(r.deadline_ms, r.now_ms)
    per_move = move_time(r.move_time_s)
    if r.quarter:
        subject = f"{SITE}: a quarter of your time is left against {r.opponent}"
        first = (
            f"{r.name}, it is still your move against {r.opponent}, "
            "and a quarter of the time is left."
        )
    else:
        subject = f"{SITE}: your move against {r.opponent}"
        first = f"{r.name}, {r.opponent} has moved: it is your move."
    lines = [
        first,
        f"Rule set: {ruleset_name(r.ruleset)}, {per_move} per move.",
        f"Move by {moment}, or the game is lost on time.",
    ]
    after = [
        "You get these reminders for games with an hour or more per move, when you are "
        "not on the site.",
    ]
    text = (
        "\n\n".join([*lines, r.game_link, *after, f"Stop move reminders: {r.unsubscribe_page}"])
        + "\n"
    )
    headers = {
        "List-Unsubscribe": f"<{r.unsubscribe_post}>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    }
    return Mail(
        r.to, subject, text,
        _page(lines, r.game_link, "Open the game", after,
              ("Stop move reminders", r.unsubscribe_page)),
        r.game_link, headers,
    )  # fmt: skip


def tournament_round(
    to: str, name: str, tournament: str, round_no: int, games: list[tuple[str, str]], link: str
) -> Mail:
    """A correspondence round began: the player's games in it (opponent, game link)."""
    subject = f"{SITE}: round {round_no} of {tournament}: your games"
    lines = [f"{name}, round {round_no} of {tournament} has begun."]
    lines += [f"Against {opponent}: {game_link}" for opponent, game_link in games]
    after = ["Each pairing is a two-game match: you attack in one game and defend in the other."]
    return _one_link(to, subject, lines, link, "Open the tournament", after)
