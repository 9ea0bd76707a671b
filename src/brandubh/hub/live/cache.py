"""This process's memory of recent games: only ever a first guess, which commit.lua
re-checks (commit.py), so the usual move costs one round trip to Redis."""

from __future__ import annotations

from collections import OrderedDict
from typing import Final

from brandubh.engine import Game
from brandubh.hub.live.state import GameState

CACHE_GAMES: Final = 10_000


class GameCache:
    """The last known state of recent games, and the engine's game at that state for
    those this process moved last (to play the next move on, not rebuilt from the
    snapshot)."""

    def __init__(self, size: int = CACHE_GAMES) -> None:
        self.size = size
        self._states: OrderedDict[str, GameState] = OrderedDict()
        self._live: dict[str, Game] = {}  # taken out while a change is built on one

    def remember(self, state: GameState, game: Game | None = None) -> GameState:
        states = self._states
        states[state.id] = state
        states.move_to_end(state.id)
        if game is not None and game.result is None:
            self._live[state.id] = game
        if len(states) > self.size:
            gone, _ = states.popitem(last=False)
            self._live.pop(gone, None)
        return state

    def get(self, game_id: str) -> GameState | None:
        return self._states.get(game_id)

    def forget(self, game_id: str) -> None:
        """Drop a state Redis contradicted (a refused commit)."""
        self._states.pop(game_id, None)

    def live_game(self, state: GameState) -> Game | None:
        """Take this process's engine game at ``state``, if it has one (the caller owns it
        now: a move is played on it). Plies only ever advance by committed moves, so a game
        at the state's ply is at its position."""
        game = self._live.pop(state.id, None)
        if game is not None and game.ply == state.ply and game.ruleset.name == state.ruleset:
            return game
        return None

    def observe(self, game_id: str, n: int) -> None:
        """Fan-out hook: forget a cached game once an event newer than it was committed."""
        cached = self._states.get(game_id)
        if cached is not None and cached.seq < n:
            del self._states[game_id]
