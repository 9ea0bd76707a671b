"""What a personal API token may do: a closed set of scopes, each with the sentence the
account page shows; a token's name and scopes as a request gives them, checked; pure."""

from __future__ import annotations

import unicodedata
from typing import Final

from brandubh.hub.errors import Refusal

# Each scope and what it lets a program do (docs/api.md, "Scopes"); the client shows these.
SCOPES: Final[dict[str, str]] = {
    "bot:play": (
        "Play as a bot: the program plays this account's games, over HTTP or over the bot "
        "socket (the Bot API)."
    ),
    "challenge:write": "Send challenges, and accept or decline the challenges sent to you.",
    "games:read": "Read your games, including those in progress.",
}
NAME_MAX: Final = 40


def check_scopes(value: object) -> tuple[str, ...]:
    """A token's scopes: a list of known scope names, at least one; in SCOPES' order."""
    if not isinstance(value, list) or not value or not all(isinstance(s, str) for s in value):
        raise Refusal("bad_field", "scopes must be a list of one or more scope names")
    unknown = [s for s in value if s not in SCOPES]
    if unknown:
        shown = ", ".join(repr(s[:40]) for s in unknown[:3])
        raise Refusal(
            "unknown_scope",
            f"unknown scope {shown}: a token's scopes are {', '.join(SCOPES)}",
        )
    return tuple(s for s in SCOPES if s in value)


def check_name(value: object) -> str:
    """A token's name: its owner's reminder of what uses it (1 to 40 characters, no
    control characters), its spaces collapsed."""
    if not isinstance(value, str):
        raise Refusal("bad_field", "name must be text: what will use the token")
    name = " ".join(value.split())
    if not name or len(name) > NAME_MAX:
        raise Refusal("bad_field", f"a token's name must be 1 to {NAME_MAX} characters")
    if any(unicodedata.category(c)[0] == "C" for c in name):
        raise Refusal("bad_field", "a token's name may not hold control characters")
    return name
