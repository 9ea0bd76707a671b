"""A real SMTP server for the tests (aiosmtpd, on a free port) and reading what it got.

Hubs started by the fixtures send their mail here (BRANDUBH_SMTP_URL); tests and the
sign-up helper read the mails and follow their links, as a person would.
"""

from __future__ import annotations

import re
import socket
import threading
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller

from waiting import wait_for, wait_for_sync

LINK_RE = re.compile(r"https?://[^\s<>\"]+")


@dataclass(frozen=True)
class Received:
    to: tuple[str, ...]
    message: EmailMessage

    @property
    def subject(self) -> str:
        return str(self.message["Subject"])

    @property
    def text(self) -> str:
        part = self.message.get_body(("plain",))
        assert part is not None, "the mail has no plain text part"
        return str(part.get_content())

    @property
    def html(self) -> str:
        part = self.message.get_body(("html",))
        assert part is not None, "the mail has no HTML part"
        return str(part.get_content())

    def link(self, path_part: str) -> str:
        """The first link in the plain text whose address holds ``path_part``."""
        for url in LINK_RE.findall(self.text):
            if path_part in url:
                return str(url)
        raise AssertionError(f"no link with {path_part!r} in:\n{self.text}")


class _Handler:
    def __init__(self, box: Mailbox) -> None:
        self.box = box

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.box.refuse:
            return self.box.refusal
        msg = message_from_bytes(envelope.content, policy=policy.default)
        assert isinstance(msg, EmailMessage)
        with self.box.lock:
            self.box.received.append(Received(tuple(envelope.rcpt_tos), msg))
        return "250 OK"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Mailbox:
    """An SMTP server that keeps every mail it accepts; ``stop``/``start`` take it down
    and up again on the same port; ``refuse`` answers 451 to every mail meanwhile."""

    def __init__(self) -> None:
        self.port = free_port()
        self.received: list[Received] = []
        self.lock = threading.Lock()
        self.refuse = False
        self.refusal = "451 4.3.0 try again later"  # what a refusing server answers
        self.controller: Controller | None = None

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    def start(self) -> Mailbox:
        self.controller = Controller(_Handler(self), hostname="127.0.0.1", port=self.port)
        self.controller.start()
        return self

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    def mails(self, to: str, subject: str = "") -> list[Received]:
        to = to.strip().lower()  # as the service normalises addresses
        with self.lock:
            return [m for m in self.received if to in m.to and subject in m.subject]

    async def wait(
        self, to: str, subject: str = "", count: int = 1, timeout: float = 20
    ) -> Received:
        """The ``count``-th mail to this address whose subject holds ``subject``."""
        try:
            found = await wait_for(lambda: self.found(to, subject, count), "", timeout, 0.02)
        except AssertionError:
            raise AssertionError(self.missing(to, subject, count, timeout)) from None
        return found[count - 1]

    def wait_blocking(
        self, to: str, subject: str = "", count: int = 1, timeout: float = 20
    ) -> Received:
        """``wait`` for synchronous tests (the browser tests)."""
        try:
            found = wait_for_sync(lambda: self.found(to, subject, count), "", timeout)
        except AssertionError:
            raise AssertionError(self.missing(to, subject, count, timeout)) from None
        return found[count - 1]

    def found(self, to: str, subject: str, count: int) -> list[Received]:
        """The mails to ``to`` about ``subject`` if there are ``count``, else none."""
        found = self.mails(to, subject)
        return found if len(found) >= count else []

    def missing(self, to: str, subject: str, count: int, timeout: float) -> str:
        subjects = [m.subject for m in self.mails(to)]
        return f"no mail {count} to {to} about {subject!r} in {timeout} s; got {subjects}"
