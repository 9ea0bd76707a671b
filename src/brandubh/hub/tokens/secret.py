"""A token's text: a recognisable prefix and 32 random bytes, kept only as its SHA-256
(no salt nor slow hash is needed for a secret this long: nobody can guess one, so only a
leaked database matters, and its digests give no token); the Authorization header that
carries it; pure."""

from __future__ import annotations

import hashlib
import re
import secrets
from typing import Final

from brandubh.hub.errors import Refusal

PREFIX: Final = "bdl_"  # shows what a found secret is (a scanner can look for it)
TEXT_RE: Final = re.compile(r"^bdl_[A-Za-z0-9_-]{43}\Z")


def new_token() -> tuple[str, bytes]:
    """A new token's text (shown once) and its digest (kept)."""
    text = PREFIX + secrets.token_urlsafe(32)
    return text, digest_of(text)


def digest_of(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


def bearer_text(authorization: str | None) -> str:
    """The token of an ``Authorization: Bearer <token>`` header; ``token_invalid`` when the
    header is missing or not of that form."""
    if authorization is None:
        raise Refusal("token_invalid", "send your token as 'Authorization: Bearer bdl_…'")
    scheme, _, text = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not TEXT_RE.match(text.strip()):
        raise Refusal(
            "token_invalid",
            "the Authorization header must be 'Bearer ' and a token (bdl_ and 43 characters)",
        )
    return text.strip()
