"""Fair play: the game seed, its public commitment, and what is derived from it.

The formulas here are the ones written in docs/fair-play.md; anyone can recompute them
from a finished game's record.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Final

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
