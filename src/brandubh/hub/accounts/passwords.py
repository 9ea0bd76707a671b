"""Passwords, emails and display names: the rules an account must meet, and argon2id.

Hashing follows OWASP's minimum for argon2id (docs/accounts.md): 19 MiB, 2 passes, 1 lane, about
33 ms per hash on the reference machine. It runs in worker threads of its own (argon2-cffi
releases the GIL), a few at a time, so a burst of logins can neither stall the event loop
nor take every core. Sign-ups hash in threads apart from the logins', fewer of them and at
a lower CPU priority (nice +10, Linux): a flood of sign-ups, on every worker process at
once, neither queues a login nor takes the cores a login needs. An unknown email is
checked against a dummy hash, so the answer comes in the same time as for a wrong password.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import secrets
import threading
import unicodedata
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Final, TypeVar

from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from brandubh.hub.errors import Refusal

MIN_PASSWORD: Final = 10
MAX_PASSWORD: Final = 256
MIN_DISTINCT: Final = 4  # different characters a password needs at least
MAX_EMAIL: Final = 254
MIN_NAME: Final = 2
MAX_NAME: Final = 24
_T = TypeVar("_T")
SIGNUP_NICE: Final = 10  # how much lower a sign-up hash's thread runs than a login's

# Often-used passwords that are long enough to pass the length rule (compared ignoring
# case). Shorter ones fail the length rule already.
COMMON_PASSWORDS: Final = frozenset(
    {
        "0000000000",
        "0123456789",
        "1111111111",
        "1212121212",
        "1231231231",
        "1234512345",
        "1234554321",
        "1234567890",
        "12345678910",
        "1234567890a",
        "123456789a",
        "123456789q",
        "123456789z",
        "123qweasdzxc",
        "1q2w3e4r5t",
        "1q2w3e4r5t6y",
        "1qaz2wsx3edc",
        "1qazxsw23edc",
        "5555555555",
        "7777777777",
        "9876543210",
        "a1234567890",
        "aaaaaaaaaa",
        "abc1234567",
        "abcd123456",
        "abcdef1234",
        "abcdefghij",
        "administrator",
        "arsenal123",
        "asdfasdfasdf",
        "asdfghjkl1",
        "asdfghjkl;",
        "baseball123",
        "brandubh123",
        "brandubhlive",
        "changeme123",
        "charlie123",
        "chelsea123",
        "computer123",
        "dragon1234",
        "football123",
        "freedom123",
        "iloveyou12",
        "iloveyou123",
        "internet123",
        "jennifer12",
        "letmein123",
        "liverpool1",
        "loveyou123",
        "michael123",
        "monkey1234",
        "myspace123",
        "p@ssw0rd123",
        "p@ssword123",
        "passw0rd123",
        "password!1",
        "password01",
        "password12",
        "password123",
        "password1234",
        "password1!",
        "passwordpassword",
        "princess123",
        "q1w2e3r4t5",
        "q1w2e3r4t5y6",
        "qazwsxedcrfv",
        "qweasdzxc123",
        "qwerty1234",
        "qwerty12345",
        "qwerty123456",
        "qwertyqwerty",
        "qwertyuiop",
        "starwars123",
        "sunshine123",
        "superman123",
        "tafl123456",
        "trustno1234",
        "welcome123",
        "whatever123",
        "zaq12wsxcde3",
        "zxcvbnm123",
    }
)

_EMAIL_RE: Final = re.compile(
    r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}"
    r"@(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$"
)
_NAME_PUNCTUATION: Final = " -_.'"


def normalize_email(raw: object) -> str:
    """The email as stored and compared (trimmed, lower case); Refusal if malformed."""
    if not isinstance(raw, str):
        raise Refusal("bad_email", "the email address must be text, such as ann@example.org")
    email = raw.strip().lower()
    if len(email) > MAX_EMAIL or not _EMAIL_RE.match(email) or ".." in email:
        raise Refusal("bad_email")
    return email


def check_password(password: object, email: str = "") -> str:
    """The password if it meets the rules; otherwise Refusal saying why."""
    if not isinstance(password, str):
        raise Refusal("weak_password", "the password must be text")
    if len(password) < MIN_PASSWORD:
        raise Refusal(
            "weak_password",
            f"the password is too short: use at least {MIN_PASSWORD} characters "
            f"(it has {len(password)}); a few unrelated words make a good one",
        )
    if len(password) > MAX_PASSWORD:
        raise Refusal(
            "weak_password", f"the password is too long: at most {MAX_PASSWORD} characters"
        )
    lowered = password.lower()
    if lowered in COMMON_PASSWORDS:
        raise Refusal(
            "weak_password",
            "that password is one of the most common ones, which are tried first: choose another",
        )
    if len(set(lowered)) < MIN_DISTINCT:
        raise Refusal(
            "weak_password",
            f"the password repeats too few characters: use at least {MIN_DISTINCT} different ones",
        )
    if email and (lowered == email or lowered == email.split("@", 1)[0]):
        raise Refusal(
            "weak_password", "the password must not be your email address or its first part"
        )
    return password


def check_name(raw: object) -> str:
    """A display name: 2 to 24 letters, digits, spaces or - _ . ' ; Refusal if not."""
    if not isinstance(raw, str):
        raise Refusal("bad_name", "the name must be text")
    name = " ".join(unicodedata.normalize("NFC", raw).split())
    if not MIN_NAME <= len(name) <= MAX_NAME:
        raise Refusal("bad_name", f"the name must be {MIN_NAME} to {MAX_NAME} characters long")
    if not all(c.isalnum() or c in _NAME_PUNCTUATION for c in name):
        raise Refusal("bad_name", "the name may hold letters, digits, spaces and - _ . ' only")
    if skeleton(name).startswith("bot"):
        raise Refusal(
            "bad_name", "names starting with 'Bot' (or a look-alike) are kept for the bot"
        )
    return name


# Characters that look like the letters of "bot" (Unicode's confusables.txt, UTS #39, for
# the three letters and their capitals), after NFKC has folded the fullwidth and styled
# forms: reserved names are compared by this skeleton, not only by their letters.
_LOOKALIKES: Final = {
    "b": "ƄЬъвᏏᑲᖯБϐβВΒᏴᗷꓐℬ",
    "o": "0oοσоօ০୦ంಂംං๐໐ဝ၀ჿᴏᴑⲟⲞОΟՕꓳ〇ºº°ℴ",
    "t": "τтᴛͲТΤᎢꓔ⊤⟙Ⲧ𝖳ƚ",
}
_SKELETON: Final = {ord(c): letter for letter, chars in _LOOKALIKES.items() for c in chars}


def skeleton(name: str) -> str:
    """A name folded for comparing with reserved words: NFKC, no marks, case folded, and
    look-alikes of b, o and t (Cyrillic, Greek, ...) read as those letters."""
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", name))
    bare = "".join(c for c in folded if not unicodedata.combining(c)).casefold()
    return bare.translate(_SKELETON)


class Passwords:
    """argon2id hashing and checking, off the event loop, a few at a time."""

    def __init__(self, concurrency: int = 2, signup_concurrency: int = 1) -> None:
        self.hasher = PasswordHasher(
            time_cost=2,
            memory_cost=19 * 1024,
            parallelism=1,
            hash_len=32,
            salt_len=16,
            type=Type.ID,
        )
        self._slots = asyncio.Semaphore(max(1, concurrency))
        # Sign-ups hash behind slots and threads of their own, the threads at a lower CPU
        # priority: a flood of them never queues a login, nor slows one much.
        self._signup_slots = asyncio.Semaphore(max(1, signup_concurrency))
        self._threads = ThreadPoolExecutor(max(1, concurrency), "argon2-login")
        self._signup_threads = ThreadPoolExecutor(
            max(1, signup_concurrency), "argon2-signup", initializer=_lower_priority
        )
        self._dummy: str | None = None

    async def hash(self, password: str) -> str:
        async with self._slots:
            return await self._run(self._threads, self.hasher.hash, password)

    async def hash_for_signup(self, password: str) -> str:
        """A hash for a new account, computed behind the sign-ups' own slots and threads."""
        async with self._signup_slots:
            return await self._run(self._signup_threads, self.hasher.hash, password)

    @staticmethod
    async def _run(threads: ThreadPoolExecutor, work: Callable[[str], _T], arg: str) -> _T:
        return await asyncio.get_running_loop().run_in_executor(threads, work, arg)

    async def verify(self, encoded: str | None, password: str) -> tuple[bool, bool]:
        """(the password matches, the hash should be renewed with today's parameters).

        With no hash (an unknown email) a dummy hash is checked all the same, so that
        the answer takes as long as for a known email with a wrong password.
        """
        if encoded is None:
            if self._dummy is None:
                self._dummy = await self.hash(secrets.token_urlsafe(16))
            encoded = self._dummy
            known = False
        else:
            known = True
        async with self._slots:
            ok = await self._run(self._threads, lambda p: self._check(encoded, p), password)
        if not (ok and known):
            return False, False
        return True, self.hasher.check_needs_rehash(encoded)

    def _check(self, encoded: str, password: str) -> bool:
        try:
            return self.hasher.verify(encoded, password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False


def _lower_priority() -> None:
    """Run this thread (a sign-up hash's) below the others: on Linux a thread has a nice
    value of its own. Elsewhere, or where it is not allowed, it runs as it is."""
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), SIGNUP_NICE)
