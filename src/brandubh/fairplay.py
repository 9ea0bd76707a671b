"""Fair play: the game seed, its public commitment, and what is derived from it.

The formulas here are the ones written in docs/fair-play.md; anyone can recompute them
from a finished game's record.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Final

from brandubh.engine import Game, InvalidRecord, Record

SEED_BYTES: Final = 32
_SIDES_DOMAIN: Final = b"brandubh-live/sides/v1:"


def new_seed() -> bytes:
    """32 random bytes from the operating system's generator."""
    return secrets.token_bytes(SEED_BYTES)


def commitment(seed: bytes) -> str:
    """The public commitment to a seed: its SHA-256, lower-case hex."""
    return hashlib.sha256(seed).hexdigest()


def creator_attacks(seed: bytes, game_id: str) -> bool:
    """Whether the player who created the game attacks.

    ``SHA-256("brandubh-live/sides/v1:" || seed || game_id)``: the creator attacks when the
    lowest bit of the first byte is 0.
    """
    digest = hashlib.sha256(_SIDES_DOMAIN + seed + game_id.encode()).digest()
    return digest[0] & 1 == 0


class VerificationFailed(ValueError):
    """A finished game's record that does not check out; the message names what."""


def verify(record: Record) -> Game:
    """Check a finished game's record: the seed matches the commitment, the sides follow
    from the seed, every move is legal and the result follows. Return the replayed game.

    Raises VerificationFailed naming the first thing that does not hold.
    """
    if record.result is None:
        raise VerificationFailed("the record has no result: only a finished game is verified")
    if not record.seed:
        raise VerificationFailed("the record has no Seed header: the seed is revealed at the end")
    try:
        seed = bytes.fromhex(record.seed)
    except ValueError:
        raise VerificationFailed(f"the Seed header is not hex: {record.seed!r}") from None
    if len(seed) != SEED_BYTES:
        raise VerificationFailed(f"the seed has {len(seed)} bytes, not {SEED_BYTES}")
    if not record.commitment:
        raise VerificationFailed("the record has no Commitment header")
    if commitment(seed) != record.commitment.lower():
        raise VerificationFailed(
            f"the seed does not match the commitment: SHA-256 of the seed is "
            f"{commitment(seed)}, the record commits to {record.commitment}"
        )
    if not record.game_id:
        raise VerificationFailed("the record has no Game header (the sides depend on it)")
    headers = dict(record.extra)
    creator = headers.get("Creator")
    if creator not in ("attackers", "defenders"):
        raise VerificationFailed('the record needs a Creator header: "attackers" or "defenders"')
    expected = "attackers" if creator_attacks(seed, record.game_id) else "defenders"
    # In a match only the first game's sides are drawn; the later ones follow from it.
    by_match = headers.get("Match", "").endswith((" game 2", " game 3"))
    if creator != expected and not by_match:
        raise VerificationFailed(
            f"the sides do not follow from the seed: the game's creator should have been "
            f"the {expected}, the record says the {creator}"
        )
    try:
        return record.replay()
    except InvalidRecord as exc:
        raise VerificationFailed(str(exc)) from None
