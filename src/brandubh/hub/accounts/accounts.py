"""Accounts: sign up, log in, log out (here or everywhere), change the password.

An account is an email address and a password (argon2id, passwords.py), plus a display
name and a leaderboard opt-in, kept in PostgreSQL (brandubh.store); sessions and login
limits stay in Redis. A guest who signs up keeps their player id, and so the games they
played as a guest in that session. Signing up makes no session: following the mailed link
does, and a login (of a confirmed account) starts a new session under a new token. With
PostgreSQL unreachable, every call here that needs it answers ``unavailable`` (HTTP 503)
at once instead of hanging. Ending a session deletes it in Redis and tells every hub
(keys.hub_channel) to close its websockets with 4004; each hub also re-checks the
sessions of its sockets now and then, so a notice lost while a hub was reconnecting to
Redis still takes effect (``wire.sockets.SessionGuard``).
"""

from __future__ import annotations

import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable

from redis.asyncio import Redis

from brandubh.hub.accounts.limits import Limits
from brandubh.hub.accounts.passwords import (
    MAX_PASSWORD,
    Passwords,
    check_name,
    check_password,
    normalize_email,
)
from brandubh.hub.accounts.sessions import Session, Sessions, guest_name
from brandubh.hub.config import Settings
from brandubh.hub.errors import Refusal, verification_required
from brandubh.hub.live import Player
from brandubh.hub.messages import frames
from brandubh.hub.redis import Scripts, keys
from brandubh.store import Account, EmailTaken, IdTaken, Standing, Store, StoreUnavailable

log = logging.getLogger(__name__)


def unavailable() -> Refusal:
    return Refusal(
        "unavailable",
        "accounts are unavailable for a moment (the database cannot be reached): "
        "try again in a minute",
    )


@contextlib.asynccontextmanager
async def reachable() -> AsyncIterator[None]:
    """Turn PostgreSQL being unreachable into the ``unavailable`` refusal (HTTP 503)."""
    try:
        yield
    except StoreUnavailable as exc:
        log.warning("PostgreSQL unreachable: %s", exc.detail)
        raise unavailable() from None


def bad_credentials() -> Refusal:
    return Refusal("bad_credentials")


def wrong_current_password() -> Refusal:
    """A password change whose current password is not right (the account is known)."""
    return Refusal("bad_credentials", "the current password is not right")


class Accounts:
    def __init__(
        self,
        redis: Redis,
        scripts: Scripts,
        sessions: Sessions,
        settings: Settings,
        store: Store,
    ) -> None:
        self.redis = redis
        self.scripts = scripts
        self.store = store
        self.sessions = sessions
        self.settings = settings
        self.passwords = Passwords(settings.hash_concurrency, settings.signup_hash_concurrency)
        self.limits = Limits(scripts, settings)
        # Awaited with each new account's id (the composition root adds the mail's), and
        # with the account and client address of a sign-up for a taken address.
        self.on_signup: list[Callable[[str], Awaitable[None]]] = []
        self.on_taken: list[Callable[[str, str], Awaitable[None]]] = []
        # Awaited with the account's id after its password changed or was reset (the
        # composition root adds ending its outstanding reset links).
        self.on_password_set: list[Callable[[str], Awaitable[None]]] = []

    async def start(self) -> None:
        """Make the dummy hash now, so that no login waits for it."""
        await self.passwords.verify(None, "warm up")

    # -- reading -------------------------------------------------------------------------

    async def get(self, account_id: str) -> Account | None:
        async with reachable():
            return await self.store.account(account_id)

    # -- signing up and in ---------------------------------------------------------------

    async def signup(
        self,
        email_raw: object,
        password_raw: object,
        name_raw: object,
        current: Session | None,
        address: str = "unknown",
    ) -> str:
        """Sign up an address; the normalised address. The answer, and the work before it,
        are the same whether or not the address has an account (docs/accounts.md): a new
        one is made, unconfirmed, and ``on_signup`` mails its link; for a taken one nothing
        changes and ``on_taken`` mails its owner. No session is made or ended: an account
        is logged in only by following its link, or by a login once confirmed.

        A guest session's player id is adopted by the new account (a given name wins), so
        the games played as that guest become the account's; that session is listed with
        the account's, so that it ends when the address is confirmed, or the account's
        sessions are ended (log out everywhere, a reset, a release).
        """
        email, password, name = check_signup(email_raw, password_raw, name_raw)
        await self.limits.signup(address)
        encoded = await self.passwords.hash_for_signup(password)  # taken or not: one hash
        # A newcomer's session signed up once already: its id is never adopted again, or
        # whether this adoption succeeds would tell whether the first sign-up made an account.
        guest = current is not None and not current.account and not current.pending
        account_id = current.player.id if guest and current else _new_id()
        if name is None:
            name = current.player.name if guest and current else _default_name()
        async with reachable():
            taken = await self._create(account_id, email, name, encoded)
        if taken is not None:
            for on_taken in self.on_taken:
                await on_taken(taken, address)
        else:
            if guest and current is not None and current.player.id == account_id:
                await self.sessions.list_with_account(current)
            for hook in self.on_signup:
                await hook(account_id)
        return email

    async def _create(self, account_id: str, email: str, name: str, encoded: str) -> str | None:
        """Make the unconfirmed account, adopting ``account_id`` if it is free; None, or
        the id of the account that has the address already."""
        for _ in range(4):
            found = await self.store.credentials(email)
            if found is not None:
                return found[0].id
            try:
                await self.store.create_account(account_id, email, name, encoded, verified=False)
                return None
            except EmailTaken:
                continue  # a sign-up for the same address won the race: answer as taken
            except IdTaken:
                account_id = _new_id()  # that guest id was adopted already: start afresh
        raise Refusal("busy", "could not create the account; try again")  # pragma: no cover

    async def confirmed(
        self, account_id: str, current: Session | None
    ) -> tuple[str, Session] | None:
        """An account whose confirmation link was just followed (a button the reader
        pressed, having been shown the account): every session that spoke for it before
        ends (the signer's guest session, wherever it is), and the request's browser is
        logged in under a new token (returned) if it held no session or that guest's.
        A browser holding another player's session keeps it (None): a link must not
        silently swap whom a browser speaks for (login CSRF)."""
        account = await self.get(account_id)
        if account is None:
            raise not_logged_in()
        await self.end_every_session(account.id)
        if not confirming_logs_in(account.id, current):
            return None
        return await self.sessions.create_account_session(Player(account.id, account.name))

    async def login(
        self, email_raw: object, password_raw: object, address: str, current: Session | None
    ) -> tuple[str, Session]:
        """A new session (its token) for the account of an email and password.

        An unknown email, a wrong password and an account whose address is not confirmed
        yet get the same answer, in the same time: otherwise signing up and then logging
        in would tell whether the sign-up made an account, that is whether the address
        had one (docs/accounts.md).
        """
        email = normalize_email(email_raw)
        if not isinstance(password_raw, str) or len(password_raw) > MAX_PASSWORD:
            raise bad_credentials()
        await self.limits.login_attempt(email, address)
        async with reachable():
            found = await self.store.credentials(email)
        encoded = found[1] if found else None
        ok, renew = await self.passwords.verify(encoded, password_raw)
        if ok and found is not None and not await self.is_verified(found[0].id):
            ok = False
        if not ok or found is None:
            await self.limits.login_failed(email, address)
            raise bad_credentials()
        await self.limits.login_succeeded(email, address)
        account = found[0]
        if renew:
            async with reachable():
                await self.store.set_password(account.id, await self.passwords.hash(password_raw))
        token, session = await self.sessions.create_account_session(
            Player(account.id, account.name)
        )
        if current is not None:
            await self.end_sessions([current], notify=True)
        return token, session

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
            raise wrong_current_password()
        password = check_password(new, account.email)
        await self.limits.login_attempt(account.email, address)
        async with reachable():
            encoded = await self.store.password_hash(account.id)
        ok, _ = await self.passwords.verify(encoded, current)
        if not ok:
            await self.limits.login_failed(account.email, address)
            raise wrong_current_password()
        new_hash = await self.passwords.hash(password)
        async with reachable():
            await self.store.set_password(account.id, new_hash)
        ended = await self.sessions.end_all(account.id, keep=session.id)
        await self._notify(ended)
        await self._password_set(account.id)
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
        if on:
            await self.require_verified(account_id)
        async with reachable():
            done = await self.store.set_leaderboard(account_id, on)
        if not done:
            raise not_logged_in()

    async def set_bot_challenges(self, account_id: str, on: bool) -> None:
        """Let bot accounts challenge this person, or not (hub/challenges/); a bot account
        has nothing to set (``bot_account``)."""
        await self.require_person(account_id, verified=False)
        async with reachable():
            done = await self.store.set_bot_challenges(account_id, on)
        if not done:
            raise not_logged_in()

    # -- mail: the verified flag, reminders, a reset password, releasing an address -----
    # The few account fields the mail flows need, behind methods so that another store
    # of accounts can implement them (verification.py, resets.py, mail/reminders.py).

    async def account_of(self, email: str) -> str | None:
        """The id of the account of a normalised email, or None."""
        async with reachable():
            found = await self.store.credentials(email)
        return found[0].id if found else None

    async def is_verified(self, account_id: str) -> bool:
        """Whether the account confirmed its address. Accounts made before addresses were
        confirmed have no flag and count as confirmed."""
        async with reachable():
            return await self.store.is_verified(account_id)

    async def require_verified(self, account_id: str) -> None:
        """Refuse (``verification_required``) unless the account confirmed its address: what
        a seek, a pairing, a game against a person and the leaderboards ask first."""
        if not await self.is_verified(account_id):
            raise verification_required()

    async def standing(self, account_id: str) -> Standing | None:
        """Whether the account confirmed its address and is a bot (None: no account)."""
        async with reachable():
            return await self.store.standing(account_id)

    async def require_person(self, account_id: str, *, verified: bool = True) -> None:
        """Refuse a bot account (``bot_account``) and, with ``verified``, an address not
        confirmed (``verification_required``), in one read: what the site asks before a
        seek, a pairing, a game or a tournament. A guest (no account) passes unless
        ``verified``."""
        standing = await self.standing(account_id)
        if standing is not None and standing.bot:
            raise Refusal("bot_account")
        if verified and (standing is None or not standing.verified):
            raise verification_required()

    async def upgrade_to_bot(self, account_id: str) -> None:
        """Make the account a bot account for good (``POST /api/bot/account/upgrade``):
        ``already_bot``, or ``bot_has_rated_games`` when it ever had a rated game."""
        async with reachable():
            refused = await self.store.upgrade_to_bot(account_id)
        if refused == "no_account":
            raise Refusal("not_found", f"there is no account {account_id} to upgrade")
        if refused == "already_bot":
            raise Refusal("already_bot")
        if refused == "rated_games":
            raise Refusal("bot_has_rated_games")

    async def mark_verified(self, account_id: str, email: str) -> bool:
        """Mark the address confirmed if it is still the account's; whether it was."""
        async with reachable():
            return await self.store.mark_verified(account_id, email)

    async def reminders_on(self, account_id: str) -> bool:
        """Whether the account wants move reminders (on unless turned off)."""
        async with reachable():
            return await self.store.reminders_on(account_id)

    async def set_reminders(self, account_id: str, on: bool) -> None:
        async with reachable():
            await self.store.set_reminders(account_id, on)

    async def reset_password(self, account_id: str, new: object) -> int:
        """Set a new password from a reset link: every session of the account ends (how
        many; their sockets close with 4004)."""
        account = await self.get(account_id)
        if account is None:
            raise Refusal("not_found", "that account no longer exists")
        password = check_password(new, account.email)
        new_hash = await self.passwords.hash(password)
        async with reachable():
            await self.store.set_password(account.id, new_hash)
        ended = await self.end_every_session(account.id)
        await self._password_set(account.id)
        return ended

    async def set_password(self, account_id: str, password: str) -> None:
        """Set the password a confirmation link's reader typed (checked already): whatever
        password the sign-up had stops working, and so do the account's reset links."""
        new_hash = await self.passwords.hash(password)
        async with reachable():
            await self.store.set_password(account_id, new_hash)
        await self._password_set(account_id)

    async def end_every_session(self, account_id: str) -> int:
        """End every session listed for an account (theirs, and a guest session whose id
        it adopted); how many. Their sockets close with 4004."""
        ended = await self.sessions.end_all(account_id)
        await self._notify(ended)
        return len(ended)

    async def _password_set(self, account_id: str) -> None:
        for hook in self.on_password_set:
            await hook(account_id)

    async def release_unverified(self, account_id: str) -> bool:
        """Delete an account whose address was never confirmed, releasing the address;
        False (nothing changed) if it was confirmed or is gone."""
        async with reachable():
            released = await self.store.delete_unverified(account_id)
        if released:
            await self.end_every_session(account_id)
        return released


def check_signup(
    email_raw: object, password_raw: object, name_raw: object
) -> tuple[str, str, str | None]:
    """A sign-up's fields checked (each refusal says why): email, password, name or None."""
    email = normalize_email(email_raw)
    password = check_password(password_raw, email)
    return email, password, check_name(name_raw) if name_raw is not None else None


def not_logged_in() -> Refusal:
    return Refusal("not_logged_in")


def confirming_logs_in(account_id: str, current: Session | None) -> bool:
    """Whether confirming an account's address logs in the browser of ``current``: one
    without a session, or with the signer's own guest session; never one speaking for
    another player (the confirmation page says which before its button is pressed)."""
    return current is None or current.player.id == account_id


def signed_here(account_id: str, current: Session | None) -> bool:
    """Whether ``current`` is the guest session that signed the account up (its player id
    became the account's): a confirmation link opened there is the signer's own, so it
    keeps the sign-up's password; anywhere else confirming sets one."""
    return current is not None and not current.account and current.player.id == account_id


def _new_id() -> str:
    return f"u_{secrets.token_urlsafe(9)}"


def _default_name() -> str:
    return guest_name()
