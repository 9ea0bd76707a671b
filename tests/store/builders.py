"""Finished games for the store's tests, made the way the hub describes them."""

from __future__ import annotations

import secrets

from brandubh.store import FinishedGame, Seat


def finished(
    attacker: tuple[str, str],
    defender: tuple[str, str],
    *,
    winner: str | None = "attackers",
    reason: str = "king_captured",
    rated: bool = True,
    opponent: str = "friend",
    ended: int = 1_000,
    game_id: str | None = None,
    ruleset: str = "nielsen",
) -> FinishedGame:
    seats = (
        Seat(attacker[0], attacker[1], "attackers"),
        Seat(defender[0], defender[1], "defenders"),
    )
    return FinishedGame(
        id=game_id or secrets.token_urlsafe(9),
        ruleset=ruleset,
        wants_rating=rated,
        opponent=opponent,
        bot_level=2 if opponent == "bot" else None,
        seats=seats,
        humans=tuple(s for s in seats if s.id != "bot"),
        winner=winner,
        reason=reason,
        plies=3,
        move_time=60,
        created=ended - 500,
        ended=ended,
        moves=("d1-d2", "c4-c6", "d2-e2"),
        seed="ab" * 16,
        commitment="cd" * 32,
        record="[Event]\n",
        final=b"\x80",
        final_seq=7,
    )
