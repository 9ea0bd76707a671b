"""The outbox: mail queued durably in Redis and delivered off the request path.

A request queues a mail (``send``) and returns; every hub's delivery loop (``deliver``)
claims due mails for a lease (lua/claim.lua), and hands each to the transport: an SMTP
server (``BRANDUBH_SMTP_URL``, with aiosmtplib) or, without one, an ``.eml`` file in the
mail folder with its link in the log. Each step of a mail is one call of lua/mail.lua.

The promise (docs/accounts.md): a queued mail is retried, with a pause doubling from
``BRANDUBH_MAIL_RETRY_S`` up to 64 times it, until the server accepts it; a permanent
refusal (5xx) or two days of failures moves it to the dead list. Just before its content
goes to the server a mail is marked "handed"; once the server's answer is recorded it is
"sent". A hub that dies between the two leaves it "handed": it is not sent again (most
likely the server has it) but listed as unsure. So a mail is sent at most once after it
was handed over, and at least once before; the one window of doubt is one SMTP answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import ssl
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from email import message_from_bytes, policy
from pathlib import Path
from typing import Final, Protocol, cast
from urllib.parse import unquote, urlsplit

import aiosmtplib
from redis.asyncio import Redis

from brandubh.hub.mail.mails import Mail
from brandubh.hub.redis import Scripts, keys
from brandubh.hub.redis import client as redis_client

log = logging.getLogger(__name__)

LEASE_MS: Final = 60_000  # a claimed batch's time to be delivered before others may take it
BATCH: Final = 20
MAX_BACKOFF: Final = 64  # times the first pause
GIVE_UP_MS: Final = 2 * 24 * 3600 * 1000
SMTP_TIMEOUT_S: Final = 20.0
LOCAL_HOSTS: Final = frozenset({"localhost", "127.0.0.1", "::1"})


class MailSettingsError(ValueError):
    """A mail setting that cannot work, with what to write instead."""


class Refused(Exception):
    """The server refused a mail for good (a 5xx answer): it is not tried again."""


class Deferred(Exception):
    """The server refused a mail for now (a 4xx answer): it is tried again later, and the
    session goes on with the next mail."""


Hand = Callable[[], Awaitable[bool]]  # marks the mail handed; False: another hub has it


class Sender(Protocol):
    """One delivery session: sends mails one after another. ``hand`` is awaited just
    before the content goes out; a mail it answers False for is not sent (False back)."""

    async def send(self, to: str, message: bytes, link: str, hand: Hand) -> bool: ...


class Transport(Protocol):
    def open(self) -> _Session: ...


class _Session(Protocol):
    async def __aenter__(self) -> Sender: ...
    async def __aexit__(self, *exc: object) -> None: ...


@dataclass(frozen=True)
class SmtpTarget:
    """Where BRANDUBH_SMTP_URL points: host, port, TLS from the start or STARTTLS, login."""

    host: str
    port: int
    implicit_tls: bool
    user: str
    password: str

    @classmethod
    def parse(cls, url: str) -> SmtpTarget:
        parts = urlsplit(url)
        if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
            raise MailSettingsError(
                f"BRANDUBH_SMTP_URL must look like smtp://user:pass@host:587 (STARTTLS) or "
                f"smtps://user:pass@host:465 (TLS), not {url!r}"
            )
        try:
            port = parts.port or (465 if parts.scheme == "smtps" else 587)
        except ValueError:
            raise MailSettingsError(f"BRANDUBH_SMTP_URL has a bad port: {url!r}") from None
        return cls(
            parts.hostname,
            port,
            parts.scheme == "smtps",
            unquote(parts.username or ""),
            unquote(parts.password or ""),
        )


class SmtpTransport:
    """Mail through an SMTP server. smtp:// upgrades with STARTTLS, which is required
    unless the server is on this machine; smtps:// speaks TLS from the start."""

    def __init__(self, target: SmtpTarget, sender: str) -> None:
        self.target = target
        self.sender_address = _sender_address(sender)

    def open(self) -> _SmtpSession:
        return _SmtpSession(self)


class _SmtpSession:
    def __init__(self, transport: SmtpTransport) -> None:
        self.t = transport
        self.smtp: aiosmtplib.SMTP | None = None

    async def __aenter__(self) -> _SmtpSession:
        target = self.t.target
        smtp = aiosmtplib.SMTP(
            hostname=target.host,
            port=target.port,
            use_tls=target.implicit_tls,
            start_tls=False,
            timeout=SMTP_TIMEOUT_S,
            tls_context=ssl.create_default_context(),
        )
        await smtp.connect()
        self.smtp = smtp
        if not target.implicit_tls:
            if smtp.supports_extension("starttls"):
                await smtp.starttls()
            elif target.host not in LOCAL_HOSTS:
                raise aiosmtplib.SMTPException(
                    f"{target.host} does not offer STARTTLS: use smtps:// or a server that does"
                )
        if target.user:
            await smtp.login(target.user, target.password)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.smtp is not None and self.smtp.is_connected:
            try:
                await self.smtp.quit()
            except aiosmtplib.SMTPException:
                self.smtp.close()

    async def send(self, to: str, message: bytes, link: str, hand: Hand) -> bool:
        smtp = self.smtp
        assert smtp is not None
        try:
            await smtp.mail(self.t.sender_address)
            await smtp.rcpt(to)
            if not await hand():
                await smtp.rset()
                return False
            await smtp.data(message)  # the hand-over: the server's 250 makes it "sent"
        except aiosmtplib.SMTPServerDisconnected:
            raise
        except aiosmtplib.SMTPResponseException as exc:
            if not 400 <= exc.code < 600:
                raise
            with contextlib.suppress(aiosmtplib.SMTPException):
                await smtp.rset()
            kind = Refused if exc.code >= 500 else Deferred
            raise kind(f"{exc.code} {exc.message}") from None
        return True


class FileTransport:
    """No SMTP server: each mail becomes ``<mail id>.eml`` in a folder, its link logged."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def open(self) -> _FileSession:
        return _FileSession(self.folder)


class _FileSession:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    async def __aenter__(self) -> _FileSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def send(self, to: str, message: bytes, link: str, hand: Hand) -> bool:
        if not await hand():
            return False
        await asyncio.to_thread(self._write, message)
        subject = message_from_bytes(message, policy=policy.default).get("Subject", "")
        log.warning("mail to %s (%s) written to %s: %s", to, subject, self.folder, link)
        return True

    def _write(self, message: bytes) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(4)}.eml"
        part = path.with_suffix(".eml.part")
        part.write_bytes(message)
        part.replace(path)  # whole or not at all: a reader never sees half a mail


def _sender_address(sender: str) -> str:
    """The bare address of a From header ("Name <a@b>" -> "a@b")."""
    if "<" in sender and sender.endswith(">"):
        return sender.rsplit("<", 1)[1][:-1]
    return sender


class Outbox:
    """Queues mail and delivers it, from any hub, each mail once (see the module's doc)."""

    def __init__(
        self,
        redis: Redis,
        scripts: Scripts,
        transport: Transport,
        sender: str,
        clock: Callable[[], int],
        retry_s: float = 5.0,
    ) -> None:
        self.redis = redis
        self.scripts = scripts
        self.transport = transport
        self.sender = sender
        self.clock = clock
        self.retry_ms = max(1, int(retry_s * 1000))
        self.wake = asyncio.Event()
        self.delivered = 0

    async def send(self, mail: Mail, mail_id: str | None = None, delay_ms: int = 0) -> bool:
        """Queue a mail; False if this mail id was queued before (nothing is queued)."""
        mail_id = mail_id or f"m-{secrets.token_urlsafe(12)}"
        message = mail.message(self.sender, mail_id).as_bytes(policy=policy.SMTP)
        queued = await self._step("queue", mail_id, mail.to, message, mail.link, delay_ms)
        if queued:
            self.wake.set()
        return bool(queued)

    async def deliver(self) -> int:
        """One turn of the delivery loop: claim due mails and deliver them; how many."""
        ids = cast(
            list[bytes],
            await self.scripts.claim(keys=[keys.outbox()], args=[LEASE_MS, BATCH]),
        )
        if not ids:
            return 0
        owner = secrets.token_hex(8)
        takes: list[redis_client.Call] = [
            (self.scripts.mail, self._keys(raw.decode()), ["take", raw.decode(), owner, LEASE_MS])
            for raw in ids
        ]
        taken = []
        for raw, reply in zip(ids, await redis_client.run_scripts(self.redis, takes), strict=True):
            mail_id = raw.decode()
            if reply is None:
                continue  # its node cannot answer now: claimed again once its lease ends
            if reply[0] == b"unsure":
                log.error("mail %s: its hub died while handing it over; not sent again", mail_id)
            elif reply[0] == b"ok":
                to, message, link, tries, queued = reply[1:]
                taken.append(
                    (mail_id, to.decode(), message, link.decode(), int(tries), int(queued))
                )
        sent = 0
        pending = taken
        try:
            async with self.transport.open() as session:
                while pending:
                    mail_id, to, message, link, tries, queued = pending[0]

                    async def hand(mail_id: str = mail_id) -> bool:
                        return bool(await self._step("hand", mail_id, owner, LEASE_MS))

                    try:
                        handed = await session.send(to, message, link, hand)
                    except Refused as exc:
                        log.error("mail %s to %s refused for good: %s", mail_id, to, exc)
                        await self._step("dead", mail_id)
                        pending = pending[1:]
                        continue
                    except Deferred as exc:
                        log.warning("mail %s to %s deferred: %s", mail_id, to, exc)
                        await self._retry(mail_id, owner, tries, queued)
                        pending = pending[1:]
                        continue
                    if handed:
                        await self._step("done", mail_id)
                        sent += 1
                    pending = pending[1:]
        except Exception as exc:
            # The server is down or the session broke: this mail and the rest wait.
            log.warning("mail delivery failed (%s); trying again later", exc or type(exc).__name__)
            for mail_id, _, _, _, tries, queued in pending:
                await self._retry(mail_id, owner, tries, queued)
        self.delivered += sent
        return sent

    async def _retry(self, mail_id: str, owner: str, tries: int, queued: int) -> None:
        if self.clock() - queued > GIVE_UP_MS:
            log.error("mail %s failed for two days: given up", mail_id)
            await self._step("dead", mail_id)
            return
        pause = self.retry_ms * min(MAX_BACKOFF, 2 ** max(0, tries - 1))
        await self._step("retry", mail_id, owner, pause)

    async def _step(self, op: str, mail_id: str, *args: str | bytes | int) -> object:
        return await self.scripts.mail(keys=self._keys(mail_id), args=[op, mail_id, *args])

    @staticmethod
    def _keys(mail_id: str) -> list[str]:
        return [keys.outbox(), keys.mail_job(mail_id), keys.mail_unsure(), keys.mail_dead()]


def transport_for(smtp_url: str, sender: str, mail_dir: str) -> Transport:
    """The transport the settings ask for; MailSettingsError if the URL cannot work."""
    if smtp_url:
        return SmtpTransport(SmtpTarget.parse(smtp_url), sender)
    return FileTransport(Path(mail_dir))
