"""This process's memory of recent games: only ever a first guess, which commit.lua
re-checks (commit.py), so the usual move costs one round trip to Redis.

Each game is kept as its ``GameState`` alone, whose position is the packed snapshot (bytes),
never as the engine's ``Game`` with its per-ply stacks: a move rebuilds the ``Game`` from the
snapshot (about 6 µs compiled), and the garbage collector's full collections, which scan
every long-lived container object, have a few objects a game to scan rather than about 80
(docs/scaling.md, "The collector")."""

from __future__ import annotations

from collections import OrderedDict
from typing import Final

from brandubh.hub.live.state import GameState

CACHE_GAMES: Final = 10_000


class GameCache:
    """The last known state of recent games."""

    def __init__(self, size: int = CACHE_GAMES) -> None:
        self.size = size
        self._states: OrderedDict[str, GameState] = OrderedDict()

    def remember(self, state: GameState) -> GameState:
        states = self._states
        states[state.id] = state
        states.move_to_end(state.id)
        if len(states) > self.size:
            states.popitem(last=False)
        return state

    def get(self, game_id: str) -> GameState | None:
        return self._states.get(game_id)

    def forget(self, game_id: str) -> None:
        """Drop a state Redis contradicted (a refused commit)."""
        self._states.pop(game_id, None)

    def observe(self, game_id: str, n: int) -> None:
        """Fan-out hook: forget a cached game once an event newer than it was committed."""
        cached = self._states.get(game_id)
        if cached is not None and cached.seq < n:
            del self._states[game_id]
