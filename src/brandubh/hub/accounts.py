"""Accounts: sign up, log in, log out (here or everywhere), change the password.

An account is an email address and a password (argon2id, passwords.py), plus a display
name and a leaderboard opt-in. Its keys share the {acct} hash tag with the ratings
(keys.py). A guest who signs up keeps their player id, and so the games they played as a
guest in that session; a login starts a new session under a new token. Ending a session
deletes it in Redis and tells every hub (keys.hub_channel) to close its websockets with
4004; each hub also re-checks the sessions of its sockets now and then, so a notice lost
while a hub was reconnecting to Redis still takes effect (``SessionGuard``).
"""

from __future__ import annotations

import hashlib
import logging
import math
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final, cast

from redis.asyncio import Redis

from brandubh.engine import RULESETS
from brandubh.hub import frames, keys
from brandubh.hub.config import Settings
from brandubh.hub.errors import RateLimited, Refusal, verification_required
from brandubh.hub.passwords import (
    MAX_PASSWORD,
    Passwords,
    check_name,
    check_password,
    normalize_email,
)
from brandubh.hub.scripts import Scripts
from brandubh.hub.sessions import Session, Sessions, guest_name
from brandubh.hub.sockets import Sockets
from brandubh.hub.state import Player
from brandubh.ratings import PROVISIONAL_RD

log = logging.getLogger("brandubh.accounts")

SESSION_RECHECK_S: Final = 10.0
_LIMIT_NAMES: Final = ("the service", "your address", "this account")


@dataclass(frozen=True)
class Account:
    id: str
    email: str
    name: str
    created: int
    leaderboard: bool


def bad_credentials() -> Refusal:
    return Refusal("bad_credentials", "the email address or the password is not right")


class Accounts:
    def __init__(
        self,
        redis: Redis,
        scripts: Scripts,
        sessions: Sessions,
        settings: Settings,
    ) -> None:
        self.redis = redis
        self.scripts = scripts
        self.sessions = sessions
        self.settings = settings
        self.passwords = Passwords(settings.hash_concurrency)
        # Awaited with each new account's id (the composition root adds the mail's).
        self.on_signup: list[Callable[[str], Awaitable[None]]] = []

    async def start(self) -> None:
        """Make the dummy hash now, so that no login waits for it."""
        await self.passwords.verify(None, "warm up")

    # -- reading -------------------------------------------------------------------------

    async def get(self, account_id: str) -> Account | None:
        raw = cast(
            list[bytes | None],
            await self.redis.hmget(
                keys.account(account_id), ["email", "name", "created", "leaderboard"]
            ),
        )
        email, name, created, board = raw
        if email is None or name is None:
            return None
        return Account(account_id, email.decode(), name.decode(), int(created or 0), board == b"1")

    # -- signing up and in ---------------------------------------------------------------

    async def signup(
        self, email_raw: object, password_raw: object, name_raw: object, current: Session | None
    ) -> tuple[str, Session]:
        """A new account and a session for it (its token). A guest session's player id
        and name are adopted (a given name wins); any current session ends."""
        email = normalize_email(email_raw)
        password = check_password(password_raw, email)
        name = check_name(name_raw) if name_raw is not None else None
        if await self.redis.hexists(keys.emails(), email):
            raise _taken()
        guest = current is not None and not current.account
        account_id = current.player.id if guest and current else _new_id()
        if name is None:
            name = current.player.name if guest and current else _default_name()
        encoded = await self.passwords.hash(password)
        for _ in range(4):
            reply = await self.scripts.signup(
                keys=[keys.emails(), keys.account(account_id), keys.player_games(account_id)],
                args=[
                    email,
                    account_id,
                    "email",
                    email,
                    "name",
                    name,
                    "hash",
                    encoded,
                    "leaderboard",
                    "0",
                    "verified",
                    "0",  # until the mailed link is followed (hub/verification.py)
                ],
            )
            tag = reply[0].decode()
            if tag == "ok":
                break
            if reply[1] == b"email_taken":
                # A retried command (redis-py retries on a lost reply) finds its own work.
                if await self.redis.hget(keys.emails(), email) == account_id.encode():
                    break
                raise _taken()
            account_id = _new_id()  # that guest id was adopted already: start afresh
        else:  # pragma: no cover - 72 random bits do not collide 4 times
            raise Refusal("busy", "could not create the account; try again")
        for hook in self.on_signup:
            await hook(account_id)
        token, session = await self.sessions.create_account_session(Player(account_id, name))
        if current is not None:
            await self.end_sessions([current], notify=True)
        return token, session

    async def login(
        self, email_raw: object, password_raw: object, address: str, current: Session | None
    ) -> tuple[str, Session]:
        """A new session (its token) for the account of an email and password.

        An unknown email and a wrong password get the same answer, in the same time.
        """
        email = normalize_email(email_raw)
        if not isinstance(password_raw, str) or len(password_raw) > MAX_PASSWORD:
            raise bad_credentials()
        await self.count_attempt(email, address)
        account_id = cast(bytes | None, await self.redis.hget(keys.emails(), email))
        encoded: bytes | None = None
        name: bytes | None = None
        if account_id is not None:
            encoded, name = cast(
                list[bytes | None],
                await self.redis.hmget(keys.account(account_id.decode()), ["hash", "name"]),
            )
        ok, renew = await self.passwords.verify(encoded.decode() if encoded else None, password_raw)
        if not ok or account_id is None or name is None:
            raise bad_credentials()
        pid = account_id.decode()
        if renew:
            await self.redis.hset(
                keys.account(pid), "hash", await self.passwords.hash(password_raw)
            )
        token, session = await self.sessions.create_account_session(Player(pid, name.decode()))
        if current is not None:
            await self.end_sessions([current], notify=True)
        return token, session

    async def count_attempt(self, email: str, address: str) -> None:
        """Count a login attempt: overall, per address and per account (by email, known or
        not); RateLimited when any window is full (nothing is counted then)."""
        s = self.settings
        base = keys.login_limits()
        digest = hashlib.sha256(email.encode()).hexdigest()[:32]
        reply = await self.scripts.login_limit(
            keys=[f"{base}:all", f"{base}:ip:{address}", f"{base}:acct:{digest}"],
            args=[
                int(s.login_window_s * 1000),
                secrets.token_hex(8),
                s.login_overall,
                s.login_per_address,
                s.login_per_account,
            ],
        )
        which, wait_ms = int(reply[0]), int(reply[1])
        if which:
            wait = max(1, math.ceil(wait_ms / 1000))
            raise RateLimited(
                f"too many login attempts for {_LIMIT_NAMES[which - 1]}: "
                f"try again in {_duration(wait)}",
                wait,
            )

    # -- signing out and changing the password --------------------------------------------

    async def logout(self, session: Session, everywhere: bool) -> int:
        """End this session, or every session of its account; how many were ended."""
        if everywhere and session.account:
            ended = await self.sessions.end_all(session.player.id)
            if session.id not in ended:
                await self.sessions.end(session)
                ended.append(session.id)
            await self._notify(ended)
            return len(ended)
        await self.end_sessions([session], notify=True)
        return 1

    async def change_password(
        self, session: Session, current: object, new: object, address: str
    ) -> int:
        """Set a new password; every other session of the account ends (how many)."""
        if not session.account:
            raise not_logged_in()
        account = await self.get(session.player.id)
        if account is None:
            raise not_logged_in()
        if not isinstance(current, str) or len(current) > MAX_PASSWORD:
            raise Refusal("bad_credentials", "the current password is not right")
        password = check_password(new, account.email)
        await self.count_attempt(account.email, address)
        encoded = cast(bytes | None, await self.redis.hget(keys.account(account.id), "hash"))
        ok, _ = await self.passwords.verify(encoded.decode() if encoded else None, current)
        if not ok:
            raise Refusal("bad_credentials", "the current password is not right")
        await self.redis.hset(keys.account(account.id), "hash", await self.passwords.hash(password))
        ended = await self.sessions.end_all(account.id, keep=session.id)
        await self._notify(ended)
        return len(ended)

    async def end_sessions(self, sessions: list[Session], *, notify: bool) -> None:
        for session in sessions:
            await self.sessions.end(session)
        if notify:
            await self._notify([s.id for s in sessions])

    async def _notify(self, sids: list[str]) -> None:
        """Tell every hub that these sessions ended: their sockets are closed (4004)."""
        if sids:
            await self.redis.publish(keys.hub_channel(), frames.sessions_ended(sids))

    # -- settings --------------------------------------------------------------------------

    async def set_leaderboard(self, account_id: str, on: bool) -> None:
        """Opt in to the leaderboards or out (each rule set's board follows at once)."""
        if on and not await self.is_verified(account_id):
            raise verification_required()
        script_keys = [keys.account(account_id)]
        for ruleset in RULESETS:
            script_keys += [keys.rating(account_id, ruleset), keys.leaderboard(ruleset)]
        done = await self.scripts.leaderboard(
            keys=script_keys, args=["1" if on else "0", PROVISIONAL_RD, account_id]
        )
        if not done:
            raise not_logged_in()

    # -- mail: the verified flag, reminders, a reset password, releasing an address -----
    # The few account fields the mail flows need, behind methods so that another store
    # of accounts can implement them (hub/verification.py, resets.py, reminders.py).

    async def account_of(self, email: str) -> str | None:
        """The id of the account of a normalised email, or None."""
        raw = cast(bytes | None, await self.redis.hget(keys.emails(), email))
        return raw.decode() if raw is not None else None

    async def is_verified(self, account_id: str) -> bool:
        """Whether the account confirmed its address. Accounts made before addresses were
        confirmed have no flag and count as confirmed."""
        raw = cast(
            list[bytes | None],
            await self.redis.hmget(keys.account(account_id), ["email", "verified"]),
        )
        return raw[0] is not None and raw[1] != b"0"

    async def mark_verified(self, account_id: str, email: str) -> bool:
        """Mark the address confirmed if it is still the account's; whether it was."""
        account = await self.get(account_id)
        if account is None or account.email != email:
            return False
        await self.redis.hset(keys.account(account_id), "verified", "1")
        return True

    async def reminders_on(self, account_id: str) -> bool:
        """Whether the account wants move reminders (on unless turned off)."""
        return await self.redis.hget(keys.account(account_id), "reminders") != b"0"

    async def set_reminders(self, account_id: str, on: bool) -> None:
        await self.redis.hset(keys.account(account_id), "reminders", "1" if on else "0")

    async def reset_password(self, account_id: str, new: object) -> int:
        """Set a new password from a reset link: every session of the account ends (how
        many; their sockets close with 4004)."""
        account = await self.get(account_id)
        if account is None:
            raise Refusal("not_found", "that account no longer exists")
        password = check_password(new, account.email)
        await self.redis.hset(keys.account(account.id), "hash", await self.passwords.hash(password))
        ended = await self.sessions.end_all(account.id)
        await self._notify(ended)
        return len(ended)

    async def release_unverified(self, account_id: str) -> bool:
        """Delete an account whose address was never confirmed, releasing the address;
        False (nothing changed) if it was confirmed or is gone."""
        released = await self.scripts.release(
            keys=[keys.emails(), keys.account(account_id), keys.unverified()],
            args=[account_id],
        )
        if released:
            await self._notify(await self.sessions.end_all(account_id))
        return bool(released)


class SessionGuard:
    """Closes this hub's sockets of sessions that ended (4004): at once on the hubs' notice,
    and by a periodic re-check in case a notice was lost."""

    RECHECK_S: Final[float] = SESSION_RECHECK_S

    def __init__(self, sessions: Sessions, sockets: Sockets) -> None:
        self.sessions = sessions
        self.sockets = sockets

    def on_notice(self, msg: dict[str, Any]) -> None:
        """Fan-out hook for the hubs' channel."""
        if msg.get("t") == "sessions_ended":
            self.sockets.close_sessions(set(msg.get("sessions") or ()))

    async def recheck(self) -> None:
        sids = self.sockets.session_ids()
        if sids:
            self.sockets.close_sessions(sids - await self.sessions.alive(sids))


def not_logged_in() -> Refusal:
    return Refusal("not_logged_in", "log in first: this needs an account")


def _taken() -> Refusal:
    return Refusal(
        "email_taken", "an account with this email address exists already: log in instead"
    )


def _new_id() -> str:
    return f"u_{secrets.token_urlsafe(9)}"


def _default_name() -> str:
    return guest_name()


def _duration(seconds: int) -> str:
    if seconds < 60:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    minutes = math.ceil(seconds / 60)
    return f"{minutes} minute{'s' if minutes != 1 else ''}"
