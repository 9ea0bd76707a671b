"""The tournament's seed: its commitment, and every random choice derived from it.

A tournament draws a 32-byte seed when it is created (``fairplay.new_seed``), shows only
its SHA-256 (``commitment``) until it has finished, then publishes it. Every choice left
to chance is made by a ``random.Random`` seeded from ``HMAC-SHA256(seed, context)``, with
a context string naming the choice (``ARENA_PAIRING`` with the pairing's number, ...), so
anyone holding the published seed recomputes the same choices (docs/tournaments.md).
"""

from __future__ import annotations

import hashlib
import hmac
import random
from typing import Final

from brandubh.fairplay import SEED_BYTES, commitment, new_seed
from brandubh.tournaments.errors import InvalidSeed

__all__ = ["SEED_BYTES", "commitment", "new_seed", "rng", "seed_from_hex"]

_DOMAIN: Final = "brandubh-live/tournament/v1:"
# The contexts, formatted with the pairing's or round's number where they take one.
ARENA_PAIRING: Final = "arena/pairing/{n}"
ROUND_ROBIN_ORDER: Final = "round_robin/order"
SWISS_ORDER: Final = "swiss/order"


def rng(seed: bytes, context: str) -> random.Random:
    """The generator of one choice: ``HMAC-SHA256(key=seed, domain || context)``, its 32
    bytes read as a big-endian integer seeding ``random.Random``."""
    digest = hmac.new(seed, (_DOMAIN + context).encode(), hashlib.sha256).digest()
    return random.Random(int.from_bytes(digest, "big"))


def seed_from_hex(text: str, expected_commitment: str | None = None) -> bytes:
    """A published seed read from hex; checked against its commitment when one is given."""
    try:
        seed = bytes.fromhex(text)
    except ValueError:
        raise InvalidSeed(f"the seed is not hex: {text[:80]!r}") from None
    if len(seed) != SEED_BYTES:
        raise InvalidSeed(f"the seed must be {SEED_BYTES} bytes, it has {len(seed)}")
    if expected_commitment is not None and commitment(seed) != expected_commitment.lower():
        raise InvalidSeed(
            f"the seed does not match the commitment: SHA-256 of the seed is "
            f"{commitment(seed)}, the commitment {expected_commitment}"
        )
    return seed
