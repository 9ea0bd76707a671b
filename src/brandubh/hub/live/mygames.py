"""A player's own games: the "your games" list, read from the index of their games in
progress.

The hub that commits a game's start adds it to both players' ``keys.player_active`` sets;
the hub that commits its end removes it (listings.py). The list is only an index: a lapse
changes no game, and a game found ended when listed is dropped from it then.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Final, TypedDict, cast

from redis.asyncio import Redis

from brandubh.hub.errors import Refusal
from brandubh.hub.live.state import GameState
from brandubh.hub.redis import keys

MAX_PLAYING: Final = 200  # more games in progress than anyone plays at once
RECENT: Final = 10


class Opponent(TypedDict):
    id: str
    name: str


class Card(TypedDict):
    """One game in progress in the "your games" list (``GET /api/me/games``)."""

    id: str
    ruleset: str
    side: str
    opponent: Opponent
    bot: bool
    origin: str
    your_move: bool
    deadline: int | None
    ply: int
    move_time: int
    rated: bool
    last: str | None


def card(state: GameState, player_id: str) -> Card:
    """One game in progress as the "your games" list shows it."""
    mine = "attackers" if state.attacker == player_id else "defenders"
    other_id = state.defender if mine == "attackers" else state.attacker
    other = state.player(other_id)
    return {
        "id": state.id,
        "ruleset": state.ruleset,
        "side": mine,
        "opponent": {"id": other_id, "name": other.name if other else other_id},
        "bot": state.opponent == "bot",
        "origin": state.origin_or_guess(),
        "your_move": state.turn == player_id,
        "deadline": state.deadline or None,
        "ply": state.ply,
        "move_time": state.move_time,
        "rated": state.rated,
        "last": state.moves[-1] if state.moves else None,
    }


def order(cards: list[Card]) -> list[Card]:
    """Yours to move first, soonest deadline first; then the others, soonest first."""
    return sorted(cards, key=lambda c: (not c["your_move"], c["deadline"] or 1 << 62, c["id"]))


async def playing(
    redis: Redis, load: Callable[[str], Awaitable[GameState]], player_id: str
) -> list[Card]:
    """The player's games in progress, in ``order``; ended or vanished ones leave the index."""
    ids = cast(list[bytes], await redis.zrevrange(keys.player_active(player_id), 0, MAX_PLAYING))
    cards: list[Card] = []
    gone: list[str] = []
    for raw in ids:
        game_id = raw.decode()
        try:
            state = await load(game_id)
        except Refusal:
            gone.append(game_id)
            continue
        if state.status != "active" or not state.is_player(player_id):
            gone.append(game_id)
            continue
        cards.append(card(state, player_id))
    if gone:
        await redis.zrem(keys.player_active(player_id), *gone)
    return order(cards)
